"""A card-region tile: the part of a frame around the named indices, and their boxes in it.

Only the region around cards the record named is kept: never the whole frame, so nobody sitting
at the table is kept. Indices in that region that the record could not name are painted over
(the grey the detector pads with), so a tile never teaches "no index here" where there was one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from scorekeeper.learning.labels import IndexSighting
from scorekeeper.rules.cards import Card
from scorekeeper.vision.boxes import Box, intersection

TILE_MARGIN = 2.0
"""How far the tile reaches beyond the named indices, in index heights: enough context for the
classifier's crop and for the detector to see the card around its index."""
MASK_GREY = 114
"""The grey the detector pads frames with: painted over indices the record could not name."""


@dataclass(frozen=True, slots=True)
class Tile:
    """One frame's card region, with the named indices' boxes in tile pixels."""

    frame: int
    image: np.ndarray
    """BGR, the tile only."""
    origin: tuple[int, int]
    """Where the tile's top-left corner lay in the frame."""
    frame_size: tuple[int, int]
    """The frame's width and height: the tile is shown at the frame's scale when learning."""
    boxes: tuple[tuple[Card, Box], ...]

    def yolo_rows(self) -> list[str]:
        """``class cx cy w h`` relative to the tile, class in deck order."""
        height, width = self.image.shape[:2]
        rows = []
        for card, (x1, y1, x2, y2) in self.boxes:
            rows.append(
                f"{card.index} {(x1 + x2) / 2 / width:.6f} {(y1 + y2) / 2 / height:.6f} "
                f"{(x2 - x1) / width:.6f} {(y2 - y1) / height:.6f}"
            )
        return rows


def card_tile(
    region: np.ndarray,
    origin: tuple[int, int],
    frame_size: tuple[int, int],
    frame: int,
    sightings: Sequence[IndexSighting],
    names: Sequence[Card | None],
) -> Tile | None:
    """The tile of ``region`` (a part of the frame whose top-left is at ``origin``) around the
    sightings ``names`` names; None when it names none."""
    ox, oy = origin
    named = [
        (card, _shift(s.box, -ox, -oy)) for s, card in zip(sightings, names) if card is not None
    ]
    if not named:
        return None
    height, width = region.shape[:2]
    reach = TILE_MARGIN * max(max(b[2] - b[0], b[3] - b[1]) for _, b in named)
    x1 = max(0, int(min(b[0] for _, b in named) - reach))
    y1 = max(0, int(min(b[1] for _, b in named) - reach))
    x2 = min(width, int(max(b[2] for _, b in named) + reach + 1))
    y2 = min(height, int(max(b[3] for _, b in named) + reach + 1))
    if x2 <= x1 or y2 <= y1:
        return None
    tile = region[y1:y2, x1:x2].copy()
    bounds: Box = (float(x1), float(y1), float(x2), float(y2))
    for sighting, card in zip(sightings, names):
        box = _shift(sighting.box, -ox, -oy)
        if card is None and intersection(box, bounds) > 0:
            mx1, my1 = max(0, int(box[0] - x1) - 2), max(0, int(box[1] - y1) - 2)
            mx2, my2 = int(box[2] - x1) + 3, int(box[3] - y1) + 3
            tile[my1:my2, mx1:mx2] = MASK_GREY
    boxes = tuple((card, _clip(_shift(box, -x1, -y1), x2 - x1, y2 - y1)) for card, box in named)
    return Tile(
        frame=frame, image=tile, origin=(ox + x1, oy + y1), frame_size=frame_size, boxes=boxes
    )


def _shift(box: Box, dx: float, dy: float) -> Box:
    return (box[0] + dx, box[1] + dy, box[2] + dx, box[3] + dy)


def _clip(box: Box, width: int, height: int) -> Box:
    return (
        max(0.0, box[0]),
        max(0.0, box[1]),
        min(float(width), box[2]),
        min(float(height), box[3]),
    )
