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
