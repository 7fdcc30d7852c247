"""The reader benchmark tells which stage loses a real card: the detector or the classifier."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import cv2
import numpy as np

from scorekeeper.rules.cards import DECK, Card
from scorekeeper.vision.evaluate import LabelledImage, measure_card_stages, measure_cards


class _ScriptedReader:
    """Finds the boxes it is given; names a crop by the left edge of the box it was cut from."""

    def __init__(
        self, found: list[tuple[float, float, float, float]], names: dict[float, tuple[int, float]]
    ):
        self.config = SimpleNamespace(card_prob=0.7)
        self._found = np.asarray(found, np.float32).reshape(-1, 4)
        self._names = names

    def detect_indices(self, frame):
        return self._found, np.ones(len(self._found), np.float32)

    def crop(self, frame, box):
        return box[0]

    def classify_crops(self, crops):
        probs = np.full((len(crops), len(DECK) + 1), 0.0, np.float32)
        for row, left in enumerate(crops):
            label, prob = self._names.get(left, (len(DECK), 1.0))
            probs[row, label] = prob
            probs[row, len(DECK) if label != len(DECK) else 0] += 1.0 - prob
        return probs

    def classify_boxes(self, frame, boxes):
        return self.classify_crops([self.crop(frame, box) for box in boxes])


def test_each_card_is_put_down_to_the_stage_that_lost_it(tmp_path: Path) -> None:
    image = tmp_path / "table.jpg"
    cv2.imwrite(str(image), np.zeros((200, 400, 3), np.uint8))
    seven, ace, king = (Card.parse(c).index for c in ("7H", "AS", "KD"))
    boxes = np.array(
        [
            [10, 10, 30, 40],
            [100, 120, 120, 150],  # 7H: two corners
            [200, 10, 220, 40],  # AS
            [300, 10, 320, 40],
        ],
        np.float32,
    )  # KD
    labelled = LabelledImage(path=image, boxes=boxes, classes=np.array([seven, seven, ace, king]))
    reader = _ScriptedReader(
        # The detector finds 7H's first corner and the ace, misses the king.
        found=[(11, 10, 31, 40), (200, 11, 220, 41)],
        # The classifier is sure of 7H's second corner, unsure of the ace, sure of the king.
        names={10.0: (seven, 0.5), 100.0: (seven, 0.9), 200.0: (ace, 0.6), 300.0: (king, 0.95)},
    )

    stages = measure_card_stages(reader, [labelled])  # type: ignore[arg-type]

    assert stages["cards"] == 3
    assert (stages["found_not_named"], stages["named_not_found"], stages["neither"]) == (1, 1, 0)
    assert stages["found_and_named"] == round(1 / 3, 4)
    assert stages["found"] == stages["named"] == round(2 / 3, 4)


class _FixedReader:
    """Reports the same cards for every frame."""

    def __init__(self, cards: list[str]):
        self._cards = cards

    def read(self, frame):
        return SimpleNamespace(cards=[SimpleNamespace(card=Card.parse(c)) for c in self._cards])


def test_false_cards_are_sorted_by_what_the_reader_confused_them_with(tmp_path: Path) -> None:
    plain, with_ten = tmp_path / "plain.jpg", tmp_path / "ten.jpg"
    for image in (plain, with_ten):
        cv2.imwrite(str(image), np.zeros((20, 20, 3), np.uint8))
    # The photo holds JD; the reader also reports 6D (rank slip), JS (suit slip) and 2C.
    reader = _FixedReader(["JD", "6D", "JS", "2C"])

    figures = measure_cards(
        reader,  # type: ignore[arg-type]
        [(plain, {"JD"}), (with_ten, {"JD"})],
        non_sueca_images={with_ten},
    )

    assert (figures["tp"], figures["fp"]) == (2, 6)
    assert figures["false_cards"] == {
        "rank_slip": 1,
        "suit_slip": 1,
        "with_non_sueca": 3,
        "other": 1,
    }


class _UnsureReaderWithCardView:
    """One index torn between 3C and 5C; its card's view sees five clubs."""

    has_card_view = True
    config = SimpleNamespace(corner_reach=7.0, joint_corners=True, card_view_weight=1.0)

    def detect_indices(self, frame: np.ndarray, conf: float) -> tuple[np.ndarray, np.ndarray]:
        return np.array([[40.0, 40.0, 52.0, 60.0]]), np.array([0.8])

    def classify_boxes(self, frame: np.ndarray, boxes: list) -> np.ndarray:
        probs = np.zeros((1, 41), np.float32)
        probs[0, Card.parse("3C").index], probs[0, Card.parse("5C").index] = 0.55, 0.45
        return probs

    def card_view_probs(self, frame: np.ndarray, boxes: list) -> np.ndarray:
        probs = np.zeros((1, 41), np.float32)
        probs[0, Card.parse("3C").index], probs[0, Card.parse("5C").index] = 0.03, 0.97
        return probs


def test_the_threshold_sweep_weighs_the_card_view_at_each_weight_asked(tmp_path: Path) -> None:
    from scorekeeper.vision.evaluate import sweep_thresholds

    image = tmp_path / "five.png"
    cv2.imwrite(str(image), np.zeros((100, 100, 3), np.uint8))
    rows = sweep_thresholds(
        _UnsureReaderWithCardView(),  # type: ignore[arg-type]
        [(image, {"5C"})],
        index_confs=[0.25],
        card_probs=[0.9],
        card_view_weights=[0.5, 1.0],
    )
    recall = {row["card_view_weight"]: row["card_recall"] for row in rows}
    # Fully weighed, the five pips name the card surely enough; at half weight they do not.
    assert recall == {0.5: 0.0, 1.0: 1.0}
