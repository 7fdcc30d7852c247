"""The classifier's training views: a crop made bolder or thinner keeps its glyph where it was."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from scorekeeper.training.classifier import stroke


def _ink(crop: np.ndarray) -> np.ndarray:
    return crop.min(axis=2) < 128


def test_stroke_changes_the_weight_of_a_rank_and_not_its_place() -> None:
    crop = np.full((48, 48, 3), 245, np.uint8)
    cv2.putText(crop, "7", (12, 38), cv2.FONT_HERSHEY_SIMPLEX, 1.2, (20, 20, 200), 2)
    rng = np.random.default_rng(3)
    before = _ink(crop)
    areas = set()
    for _ in range(12):
        after = _ink(stroke(crop, rng))
        areas.add(int(after.sum()) > int(before.sum()))
        # The glyph grows or shrinks by a pixel; its centre stays within about a pixel.
        shift = np.abs(np.argwhere(after).mean(axis=0) - np.argwhere(before).mean(axis=0))
        assert shift.max() <= 1.0
        assert 0.5 * before.sum() < after.sum() < 1.6 * before.sum()
    assert areas == {True, False}, "both bolder and thinner ink should be drawn"


def test_a_webcam_view_keeps_the_crop_size_and_loses_the_fine_detail_of_a_sharp_index() -> None:
    from scorekeeper.training.classifier import webcam_view

    crop = np.full((48, 48, 3), 235, np.uint8)
    cv2.putText(crop, "5", (12, 34), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (20, 20, 20), 2, cv2.LINE_AA)
    rng = np.random.default_rng(0)
    sharpness = lambda image: float(
        cv2.Laplacian(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), cv2.CV_64F).var()
    )
    views = [webcam_view(crop, rng, margin=0.2) for _ in range(20)]
    assert all(v.shape == crop.shape and v.dtype == np.uint8 for v in views)
    assert np.median([sharpness(v) for v in views]) < 0.5 * sharpness(crop)
    # Still an index: dark ink where the rank was drawn.
    ink = crop[:, :, 0] < 100
    assert np.median([v[:, :, 0][ink].mean() for v in views]) < np.median(
        [v[:, :, 0][~ink].mean() for v in views]
    )


def test_a_webcam_view_of_a_smaller_index_keeps_less_of_it() -> None:
    from scorekeeper.training.classifier import webcam_view

    crop = np.full((48, 48, 3), 235, np.uint8)
    cv2.putText(crop, "5", (12, 34), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (20, 20, 20), 2, cv2.LINE_AA)
    sharpness = lambda image: float(
        cv2.Laplacian(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), cv2.CV_64F).var()
    )

    def median_sharpness(index_px: tuple[float, float]) -> float:
        rng = np.random.default_rng(1)
        return float(
            np.median(
                [
                    sharpness(webcam_view(crop, rng, margin=0.2, index_px=index_px))
                    for _ in range(30)
                ]
            )
        )

    assert median_sharpness((9.0, 12.0)) < median_sharpness((30.0, 37.0))


def test_only_crops_cut_from_flat_faces_are_made_into_webcam_views(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A scene crop is already rendered small, soft and dim: a second webcam pass overdoes it."""
    from scorekeeper.training import classifier

    made: list[bool] = []
    real_view = classifier.webcam_view

    def spy(crop: np.ndarray, *args: object, **kwargs: object) -> np.ndarray:
        made.append(True)
        return real_view(crop, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(classifier, "webcam_view", spy)
    contexts = np.full((2, classifier.CONTEXT_SIZE, classifier.CONTEXT_SIZE, 3), 230, np.uint8)
    data = classifier.CropData(
        context=contexts,
        context_labels=np.array([0, 1]),
        fixed=np.full((1, 48, 48, 3), 230, np.uint8),
        fixed_labels=np.array([2]),
        val=np.zeros((0, 48, 48, 3), np.uint8),
        val_labels=np.zeros(0, np.int64),
        face_contexts=1,
    )
    recipe = classifier.ClassifierRecipe()
    rng = np.random.default_rng(0)

    def share_made(i: int, draws: int = 300) -> float:
        made.clear()
        for _ in range(draws):
            assert classifier.training_view(data, i, rng, recipe).shape == (48, 48, 3)
        return len(made) / draws

    assert abs(share_made(0) - classifier.WEBCAM_SHARE) < 0.08  # the face crop
    assert share_made(1) == 0.0  # a scene crop
    assert share_made(2) == 0.0  # a folder crop, cut from a scene too
