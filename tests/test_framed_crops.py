"""Training crops framed where the detector draws its box, named by the labelled index under it."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from scorekeeper.rules.cards import Card
from scorekeeper.training.classifier import CONTEXT_SIZE
from scorekeeper.training.framed_crops import detector_framed_crops

SEVEN_OF_HEARTS = Card.parse("7H").index
KING_OF_CLUBS = Card.parse("KC").index


def _scene(root: Path) -> None:
    """One 320 x 240 image: a 7H index at (100-130, 60-100), a KC one at (200-230, 140-180), each a
    white patch with a black bar at its top, so where a crop was centred shows in its pixels."""
    (root / "images" / "train").mkdir(parents=True)
    (root / "labels" / "train").mkdir(parents=True)
    image = np.full((240, 320, 3), 60, np.uint8)
    for x0, y0 in ((100, 60), (200, 140)):
        image[y0 : y0 + 40, x0 : x0 + 30] = 255
        image[y0 : y0 + 8, x0 : x0 + 30] = 0
    cv2.imwrite(str(root / "images" / "train" / "a.png"), image)
    rows = [
        f"{SEVEN_OF_HEARTS} {115 / 320} {80 / 240} {30 / 320} {40 / 240}",
        f"{KING_OF_CLUBS} {215 / 320} {160 / 240} {30 / 320} {40 / 240}",
    ]
    (root / "labels" / "train" / "a.txt").write_text("\n".join(rows) + "\n")


def test_each_box_over_a_labelled_index_becomes_a_crop_of_that_card_centred_on_the_box(
    tmp_path: Path,
) -> None:
    _scene(tmp_path)
    # Loose and shifted down over the 7H (overlap ~0.5), tight over the KC, and one over bare table.
    loose = [98.0, 70.0, 134.0, 116.0]
    tight = [200.0, 140.0, 230.0, 180.0]
    stray = [20.0, 180.0, 50.0, 220.0]
    crops, labels = detector_framed_crops(
        tmp_path, lambda frame: np.array([loose, tight, stray], np.float32)
    )
    assert sorted(labels.tolist()) == sorted([SEVEN_OF_HEARTS, KING_OF_CLUBS])
    assert crops.shape == (2, CONTEXT_SIZE, CONTEXT_SIZE, 3)
    seven = crops[labels.tolist().index(SEVEN_OF_HEARTS)]
    king = crops[labels.tolist().index(KING_OF_CLUBS)]
    middle = CONTEXT_SIZE // 2
    # The tight box's crop holds the index's black bar above its centre; the loose box, shifted
    # down, holds it higher up the crop than the tight one does.
    bar_rows_king = np.where(king[:, middle].mean(axis=1) < 30)[0]
    bar_rows_seven = np.where(seven[:, middle].mean(axis=1) < 30)[0]
    assert len(bar_rows_king) and len(bar_rows_seven)
    assert bar_rows_seven.mean() < bar_rows_king.mean() - 3


def test_no_crop_for_boxes_that_barely_touch_an_index_or_for_an_image_without_boxes(
    tmp_path: Path,
) -> None:
    _scene(tmp_path)
    # Overlap with the 7H's label under 0.35.
    crops, labels = detector_framed_crops(
        tmp_path, lambda frame: np.array([[120.0, 90.0, 160.0, 140.0]], np.float32)
    )
    assert len(crops) == 0 and len(labels) == 0
    crops, labels = detector_framed_crops(tmp_path, lambda frame: np.zeros((0, 4), np.float32))
    assert crops.shape == (0, CONTEXT_SIZE, CONTEXT_SIZE, 3)
