"""Calibration: show the table's first frame with the play area and each seat drawn on it.

The person at the table looks at the picture and confirms that seat 0 (Nós) sits where it says and
that the seats go round the right way; if not, they change ``--seat0`` / ``--clockwise`` and look
again. The confirmed geometry is written as JSON for ``run --geometry`` and ``track --geometry``.
"""

from __future__ import annotations

import numpy as np

from scorekeeper.tracking.geometry import Side, TableGeometry

TEAM_COLOURS = {0: (235, 99, 37), 1: (12, 74, 234)}  # BGR: Nós blue, Eles orange, as on the page


def draw_geometry(frame_bgr: np.ndarray, geometry: TableGeometry) -> np.ndarray:
    """A copy of the frame with the play area and the four seats (number, team, order) drawn."""
    import cv2

    picture = frame_bgr.copy()
    x1, y1, x2, y2 = (round(v) for v in geometry.play_area)
    cv2.rectangle(picture, (x1, y1), (x2, y2), (255, 255, 255), 3)
    cv2.putText(picture, "vaza", (x1 + 8, y1 + 30), cv2.FONT_HERSHEY_SIMPLEX, 0.9, (255, 255, 255), 2)
    height, width = picture.shape[:2]
    anchors = {
        Side.BOTTOM: (width // 2, height - 24),
        Side.TOP: (width // 2, 40),
        Side.LEFT: (16, height // 2),
        Side.RIGHT: (width - 16, height // 2),
    }
    for seat in range(4):
        side = geometry.side_of_seat(seat)
        team = "Nos" if seat % 2 == 0 else "Eles"
        label = f"seat {seat} ({team}), then seat {(seat + 1) % 4}"
        (text_w, text_h), _ = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, 0.8, 2)
        x, y = anchors[side]
        x = min(max(x - text_w // 2, 8), width - text_w - 8) if side in (Side.TOP, Side.BOTTOM) else (
            x if side is Side.LEFT else x - text_w
        )
        colour = TEAM_COLOURS[seat % 2]
        cv2.rectangle(picture, (x - 6, y - text_h - 8), (x + text_w + 6, y + 8), colour, -1)
        cv2.putText(picture, label, (x, y), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (255, 255, 255), 2)
    return picture
