"""The classifier's training views: a crop made bolder or thinner keeps its glyph where it was."""

from __future__ import annotations

import cv2
import numpy as np

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
