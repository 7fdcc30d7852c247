"""Drawing detections on a frame (for ``detect --save`` and for looking at misses)."""

from __future__ import annotations

import numpy as np

from scorekeeper.rules.cards import Suit
from scorekeeper.vision.detections import FrameDetections

_RED = (40, 40, 220)
_BLACK = (40, 180, 40)


def draw_detections(frame_bgr: np.ndarray, detections: FrameDetections) -> np.ndarray:
    """A copy of the frame with each card's box and ``7H 0.93`` drawn on it."""
    import cv2

    out = frame_bgr.copy()
    thickness = max(1, round(max(out.shape[:2]) / 640))
    for det in detections.cards:
        colour = _RED if det.card.suit in (Suit.COPAS, Suit.OUROS) else _BLACK
        x1, y1, x2, y2 = (round(v) for v in det.box)
        cv2.rectangle(out, (x1, y1), (x2, y2), colour, thickness)
        text = f"{det.card} {det.confidence:.2f}"
        cv2.putText(
            out,
            text,
            (x1, max(y1 - 4, 12)),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.5 * thickness,
            colour,
            thickness,
            cv2.LINE_AA,
        )
    return out
