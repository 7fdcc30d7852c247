"""Calibration: show the table's first frame with the play area and each seat drawn on it.

The person at the table looks at the picture and confirms that Jogador 1 (Nós) sits where it says
and that the seats go round the right way; if not, they change ``--seat0`` / ``--clockwise`` and
look again. The confirmed geometry is written as JSON for the ``--geometry`` of ``run`` and
``track``. Seats are named as everywhere else ("Jogador 1 (Nós)" for seat 0 of the log): the
labels are drawn with a TrueType font that has the accents, OpenCV's own fonts have none.
"""

from __future__ import annotations

import functools
import glob
import os

import numpy as np

from scorekeeper.rules import seat_label
from scorekeeper.tracking.geometry import Side, TableGeometry

TEAM_COLOURS = {0: (235, 99, 37), 1: (12, 74, 234)}  # BGR: Nós blue, Eles orange, as on the page
LABEL_FONTS = (
    "DejaVuSans-Bold.ttf",
    "LiberationSans-Bold.ttf",
    "DejaVuSans.ttf",
    "LiberationSans-Regular.ttf",
)


@functools.lru_cache(maxsize=1)
def label_font() -> str | None:
    """A font file that writes "Nós" (None: fall back to OpenCV's, without the accent)."""
    for name in LABEL_FONTS:
        for root in ("/usr/share/fonts", "/usr/local/share/fonts", os.path.expanduser("~/.fonts")):
            found = glob.glob(os.path.join(root, "**", name), recursive=True)
            if found:
                return min(found)
    return None


def seat_caption(seat: int) -> str:
    return f"{seat_label(seat)}, then Jogador {(seat + 1) % 4 + 1}"


def draw_geometry(frame_bgr: np.ndarray, geometry: TableGeometry) -> np.ndarray:
    """A copy of the frame with the play area and the four seats (name, team, order) drawn."""
    import cv2

    picture = frame_bgr.copy()
    x1, y1, x2, y2 = (round(v) for v in geometry.play_area)
    cv2.rectangle(picture, (x1, y1), (x2, y2), (255, 255, 255), 3)
    cv2.putText(
        picture, "vaza", (x1 + 8, y1 + 30), cv2.FONT_HERSHEY_SIMPLEX, 0.9, (255, 255, 255), 2
    )
    height, width = picture.shape[:2]
    labels = [(seat, seat_caption(seat)) for seat in range(4)]
    sizes = [_text_size(text) for _, text in labels]
    anchors = {
        Side.BOTTOM: (width // 2, height - 24),
        Side.TOP: (width // 2, 40),
        Side.LEFT: (16, height // 2),
        Side.RIGHT: (width - 16, height // 2),
    }
    boxes = []
    for (seat, text), (text_w, text_h) in zip(labels, sizes, strict=True):
        side = geometry.side_of_seat(seat)
        x, y = anchors[side]
        x = (
            min(max(x - text_w // 2, 8), width - text_w - 8)
            if side in (Side.TOP, Side.BOTTOM)
            else (x if side is Side.LEFT else x - text_w)
        )
        cv2.rectangle(
            picture, (x - 6, y - text_h - 8), (x + text_w + 6, y + 8), TEAM_COLOURS[seat % 2], -1
        )
        boxes.append((x, y - text_h, text))
    return _write(picture, boxes)


def _text_size(text: str) -> tuple[int, int]:
    font = label_font()
    if font is None:
        import cv2

        (w, h), _ = cv2.getTextSize(_ascii(text), cv2.FONT_HERSHEY_SIMPLEX, 0.8, 2)
        return w, h
    from PIL import ImageFont

    # Whole pixels for a TrueType font, though Pillow's types allow fractions.
    left, top, right, bottom = ImageFont.truetype(font, 24).getbbox(text)
    return round(right - left), round(bottom - top)


def _write(picture: np.ndarray, boxes: list[tuple[int, int, str]]) -> np.ndarray:
    """White labels, top-left corner (x, y) each."""
    import cv2

    font = label_font()
    if font is None:
        for x, y, text in boxes:
            (_, h), _ = cv2.getTextSize(_ascii(text), cv2.FONT_HERSHEY_SIMPLEX, 0.8, 2)
            cv2.putText(
                picture, _ascii(text), (x, y + h), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (255, 255, 255), 2
            )
        return picture
    from PIL import Image, ImageDraw, ImageFont

    face = ImageFont.truetype(font, 24)
    image = Image.fromarray(cv2.cvtColor(picture, cv2.COLOR_BGR2RGB))
    draw = ImageDraw.Draw(image)
    for x, y, text in boxes:
        _, top, _, _ = face.getbbox(text)
        draw.text((x, y - top), text, font=face, fill=(255, 255, 255))
    return cv2.cvtColor(np.asarray(image), cv2.COLOR_RGB2BGR)


def _ascii(text: str) -> str:
    return text.replace("ó", "o")
