"""The card-view network's training views, and a trained one read by the reader."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from scorekeeper.rules.cards import Card
from scorekeeper.training import TrainingSetupError
from scorekeeper.training.card_view import (
    CARD_VIEW_SIZE,
    face_card_views,
    render_card_view,
    scene_card_views,
)
from scorekeeper.vision.crops import crop_square
from scorekeeper.vision.reader_config import CARD_VIEW_MARGIN
from tests.shipped_model import SHIPPED, copy_of_shipped_model


@dataclass(frozen=True)
class _Face:
    """A white card whose only marks are a black index at its top-left corner."""

    image: np.ndarray
    mask: np.ndarray
    index_boxes: tuple[tuple[float, float, float, float], ...]
    label: str


def _face(label: str = "3C") -> _Face:
    image = np.full((280, 200, 3), 255, np.uint8)
    image[12:62, 10:40] = 0
    return _Face(image, np.full((280, 200), 255, np.uint8), ((10.0, 12.0, 40.0, 62.0),), label)


class _Pack:
    def __init__(self, *faces: _Face) -> None:
        self._faces = {face.label: face for face in faces}

    def labels(self) -> tuple[str, ...]:
        return tuple(self._faces)

    def face(self, card: str) -> _Face:
        return self._faces[card]


def test_every_rendered_view_has_its_index_in_the_middle_and_its_card_around_it() -> None:
    rng = np.random.default_rng(4)
    face = _face()
    middle = CARD_VIEW_SIZE // 2
    for _ in range(40):
        view = render_card_view(face, face.index_boxes[0], rng).astype(np.float32)
        assert view[middle - 2 : middle + 3, middle - 2 : middle + 3].mean() < 60
        white = (view.min(axis=2) > 240).mean()
        assert white > 0.05  # the card's body lies in the view, whichever way it turned


def test_face_views_are_labelled_with_their_card_and_not_a_card_for_a_ten() -> None:
    pack = _Pack(_face("3C"), _face("TC"), _face("BACK"))
    views, labels = face_card_views([pack], per_index=3, seed=1)
    assert views.shape == (6, CARD_VIEW_SIZE, CARD_VIEW_SIZE, 3)
    assert sorted(labels.tolist()) == [Card.parse("3C").index] * 3 + [40] * 3


def test_scene_views_frame_each_labelled_index_as_the_reader_does(tmp_path: Path) -> None:
    import cv2

    (tmp_path / "images" / "train").mkdir(parents=True)
    (tmp_path / "labels" / "train").mkdir(parents=True)
    frame = np.random.default_rng(2).integers(0, 255, (240, 320, 3), dtype=np.uint8)
    cv2.imwrite(str(tmp_path / "images" / "train" / "a.png"), frame)
    # A 3C index 20 px tall, an 8 (class 40) and one too small to read.
    (tmp_path / "labels" / "train" / "a.txt").write_text(
        "37 0.5 0.5 0.0375 0.0833\n40 0.2 0.2 0.05 0.08\n5 0.8 0.8 0.01 0.02\n"
    )
    views, labels = scene_card_views(tmp_path, "train")
    assert labels.tolist() == [37]
    box = (160 - 6.0, 120 - 10.0, 160 + 6.0, 120 + 10.0)
    expected = crop_square(frame, box, margin=CARD_VIEW_MARGIN, size=CARD_VIEW_SIZE)
    assert np.abs(views[0].astype(int) - expected.astype(int)).mean() < 2


def test_a_trained_card_view_is_exported_resumed_and_read_by_the_reader(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("onnx")
    if not SHIPPED.is_dir():
        pytest.skip("no shipped model under models/sueca-reader")
    from scorekeeper.training.card_view import CardViewRecipe, export_card_view, train_card_view
    from scorekeeper.vision.evaluate import latency_frames
    from scorekeeper.vision.reader import CardReader

    views, labels = face_card_views([_Pack(_face("3C"), _face("5C"))], per_index=8, seed=0)
    run = tmp_path / "run"
    recipe = CardViewRecipe(steps=4, batch=8, eval_every=2, width=8)
    logged: list[str] = []
    train_card_view(views, labels, (views[:4], labels[:4]), run, recipe, log=logged.append)
    assert [json.loads(line)["step"] for line in (run / "log.jsonl").read_text().splitlines()] == [
        2,
        4,
    ]
    # The same run again carries on from its last checkpoint: here, nothing left to do.
    train_card_view(views, labels, (views[:4], labels[:4]), run, recipe, log=logged.append)
    assert "card view: resuming at step 4" in logged
    assert len((run / "log.jsonl").read_text().splitlines()) == 2
    longer = CardViewRecipe(steps=6, batch=8, eval_every=2, width=8)
    with pytest.raises(TrainingSetupError, match="planned for 4 steps, not 6: resume it with"):
        train_card_view(views, labels, (views[:4], labels[:4]), run, longer, log=logged.append)

    model = copy_of_shipped_model(tmp_path)
    export_card_view(run / "best.pt", model / "card-view.onnx")
    config = json.loads((model / "reader.json").read_text())
    config["classifier"]["card_view"] = {"file": "card-view.onnx", "size": CARD_VIEW_SIZE}
    (model / "reader.json").write_text(json.dumps(config))
    reader = CardReader(model)
    assert reader.has_card_view
    frame = latency_frames(1)[0]
    probs = reader.card_view_probs(frame, [(100.0, 100.0, 112.0, 120.0), (300.0, 200, 312, 220)])
    assert probs.shape == (2, 41) and np.allclose(probs.sum(axis=1), 1.0, atol=1e-4)
    assert isinstance(reader.read(frame).cards, tuple)
