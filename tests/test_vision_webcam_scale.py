"""The reader's benchmark shows how it does at webcam scale: per-suit figures, calibration, and
real photos shrunk to the size a webcam shows them."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import cv2
import numpy as np

from scorekeeper.rules.cards import DECK, Card
from scorekeeper.training.thresholds import fit_temperature, pick_thresholds
from scorekeeper.vision.evaluate import (
    LabelledImage,
    labelled_images,
    measure_calibration,
    measure_cards,
)
from scorekeeper.vision.webcam_scale import INDEX_PX, write_webcam_scale_view
from tests.images import read_image


class _FixedReader:
    def __init__(self, cards: list[str]):
        self._cards = cards

    def read(self, frame):
        return SimpleNamespace(cards=[SimpleNamespace(card=Card.parse(c)) for c in self._cards])


def test_a_club_read_as_the_spade_of_its_rank_shows_in_the_suit_confusion(tmp_path: Path) -> None:
    photo = tmp_path / "photo.jpg"
    cv2.imwrite(str(photo), np.zeros((20, 20, 3), np.uint8))
    # Present: 5C, KC, 7H. Read: 5S (the club as a spade), 7H; KC missed.
    figures = measure_cards(_FixedReader(["5S", "7H"]), [(photo, {"5C", "KC", "7H"})])  # type: ignore[arg-type]

    assert figures["suit_confusion"]["C"] == {"H": 0, "S": 1, "D": 0, "C": 0, "missed": 1}
    assert figures["suit_confusion"]["H"]["H"] == 1
    assert figures["suit_recall"]["C"] == 0.0
    assert figures["suit_recall"]["H"] == 1.0


def _photo_set(root: Path, *, index_px: float, photos: int = 4) -> None:
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir()
    rows = []
    for i in range(photos):
        image = np.full((640, 640, 3), 200, np.uint8)
        cv2.rectangle(
            image, (100, 100), (100 + int(index_px * 0.7), 100 + int(index_px)), (20, 20, 20), -1
        )
        cv2.imwrite(str(root / "images" / f"p{i}.jpg"), image)
        h = index_px / 640
        (root / "labels" / f"p{i}.txt").write_text(f"30 0.2 0.2 {h * 0.7:.5f} {h:.5f}\n")
        rows.append({"image": f"images/p{i}.jpg", "sueca_cards": ["ac"], "other_objects": []})
    (root / "manifest.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_the_webcam_scale_view_shrinks_indices_to_webcam_size_and_keeps_the_labels_on_them(
    tmp_path: Path,
) -> None:
    source = tmp_path / "close-ups"
    _photo_set(source, index_px=110)
    view = write_webcam_scale_view(source, tmp_path / "view", seed=3)

    images = list(labelled_images(view))
    assert len(images) == 4
    for item in images:
        frame = read_image(item.path)
        assert frame.shape[:2] == (360, 640)
        ((x1, y1, x2, y2),) = item.boxes
        assert INDEX_PX[0] - 1 <= y2 - y1 <= INDEX_PX[1] + 1
        # The label still lies on the dark index drawn in the photo.
        inside = frame[int(y1) + 2 : int(y2) - 2, int(x1) + 2 : int(x2) - 2]
        assert inside.mean() < 90
    again = write_webcam_scale_view(source, tmp_path / "again", seed=3)
    assert [p.read_bytes() for p in sorted((view / "images").iterdir())] == [
        p.read_bytes() for p in sorted((again / "images").iterdir())
    ]


class _ConstantClassifier:
    """Always calls a crop the seven of hearts with probability ``sure``."""

    def __init__(self, sure: float):
        self.config = SimpleNamespace(temperature=1.0, views=1)
        self._sure = sure

    def crop(self, frame, box):
        return np.zeros((48, 48, 3), np.uint8)

    def classify_crops(self, crops):
        probs = np.full((len(crops), len(DECK) + 1), (1 - self._sure) / len(DECK), np.float32)
        probs[:, Card.parse("7H").index] = self._sure
        return probs

    def view_logits(self, frame, boxes):
        probs = self.classify_crops([self.crop(frame, box) for box in boxes])
        return np.log(probs)[:, None, :]


def test_calibration_reports_how_often_a_confident_read_is_right(tmp_path: Path) -> None:
    photo = tmp_path / "p.jpg"
    cv2.imwrite(str(photo), np.zeros((100, 100, 3), np.uint8))
    seven, king = Card.parse("7H").index, Card.parse("KH").index
    # Four corners, the reader always says 7H at 0.95: right for one in four.
    item = LabelledImage(
        path=photo,
        boxes=np.array([[0, 0, 10, 10]] * 4, np.float32),
        classes=np.array([seven, king, king, king]),
    )
    figures = measure_calibration(_ConstantClassifier(0.95), [item])  # type: ignore[arg-type]

    assert figures["crops"] == 4
    assert figures["bins"] == [
        {"from": 0.9, "to": 1.0, "crops": 4, "confidence": 0.95, "right": 0.25}
    ]
    assert abs(figures["ece"] - 0.7) < 1e-3


def test_an_overconfident_classifier_gets_a_temperature_above_one() -> None:
    rng = np.random.default_rng(1)
    honest = rng.normal(0, 2.0, (4000, 10))
    probs = np.exp(honest) / np.exp(honest).sum(axis=1, keepdims=True)
    labels = np.array([rng.choice(10, p=p) for p in probs])  # drawn as the logits say: calibrated
    assert 0.8 <= fit_temperature(honest, labels) <= 1.25
    assert fit_temperature(honest * 4, labels) > 2.5


def test_thresholds_buy_recall_only_while_precision_holds() -> None:
    rows = [
        {"index_conf": 0.1, "card_prob": 0.7, "card_precision": 0.99, "card_recall": 0.55},
        {"index_conf": 0.1, "card_prob": 0.5, "card_precision": 0.965, "card_recall": 0.71},
        {"index_conf": 0.1, "card_prob": 0.3, "card_precision": 0.91, "card_recall": 0.83},
    ]
    assert pick_thresholds(rows)["card_prob"] == 0.5
    # Just under the floor is under it: a false card costs the tracker a deal.
    rows[1]["card_precision"] = 0.955
    assert pick_thresholds(rows)["card_prob"] == 0.7
    assert pick_thresholds(rows, min_precision=0.999)["rule"].startswith("best F1")


def test_on_few_cards_the_precision_floor_must_be_passed_by_more_than_chance() -> None:
    def row(card_prob: float, right: int, wrong: int, missed: int) -> dict[str, float]:
        return {
            "index_conf": 0.05,
            "card_prob": card_prob,
            "card_precision": right / (right + wrong),
            "card_recall": right / (right + missed),
            "tp": right,
            "fp": wrong,
            "fn": missed,
        }

    # Two held-out deals' worth of cards: 4 false in 267 reads 0.985, over the floor by luck.
    few = [row(0.8, 263, 4, 35), row(0.9, 262, 1, 36)]
    assert pick_thresholds(few, min_precision=0.97)["card_prob"] == 0.8
    assert pick_thresholds(few, min_precision=0.97, confidence=0.95)["card_prob"] == 0.9
    # Ten times the cards at the same precisions: 0.985 is over 0.97 by more than chance.
    many = [row(0.8, 2630, 40, 350), row(0.9, 2620, 10, 360)]
    assert pick_thresholds(many, min_precision=0.97, confidence=0.95)["card_prob"] == 0.8
    # Too few cards for any interval to reach the floor: the plain floor decides, and says so.
    handful = [row(0.8, 30, 0, 5), row(0.9, 28, 0, 7)]
    choice = pick_thresholds(handful, min_precision=0.97, confidence=0.95)
    assert choice["card_prob"] == 0.8 and "too few cards" in choice["rule"]


def test_the_model_card_shows_each_real_set_with_its_recall_by_suit(tmp_path: Path) -> None:
    from scorekeeper.training.modelcard import update_model_card

    block = {
        "stage1": {"index_ap50": 0.4, "index_recall": 0.5, "index_precision": 0.3},
        "stage2": {"top1": 0.64, "top3": 0.76},
        "cards": {
            "card_precision": 0.92,
            "card_recall": 0.32,
            "suit_recall": {"H": 0.32, "S": 0.25, "D": 0.22, "C": 0.01},
        },
        "calibration": {
            "ece": 0.09,
            "bins": [{"from": 0.9, "to": 1.0, "crops": 35, "confidence": 0.95, "right": 1.0}],
        },
    }
    card = tmp_path / "README.md"
    card.write_text(
        "# Card reader models\n\nWritten by people.\n"
        "<!-- figures:start -->\nold\n<!-- figures:end -->\nMore.\n"
    )
    update_model_card(
        card, {"realcards_webcam": {"640": block}, "realcards_dev_webcam_scale": {"640": block}}
    )

    text = card.read_text()
    assert (
        "| realcards-webcam | 640 |" in text
        and "| 0.92 | 0.32 | 0.32 / 0.25 / 0.22 / 0.01 |" in text
    )
    assert "| realcards-dev, webcam scale | 640 |" in text
    assert "| realcards-webcam | 0.09 |" in text and "1.0 (35)" in text
    assert (
        "old" not in text
        and text.startswith("# Card reader models\n\nWritten by people.")
        and text.endswith("More.\n")
    )
