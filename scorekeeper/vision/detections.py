"""The one detection type passed from the card reader to the tracker (and drawn, and printed).

Models' raw outputs are converted to these once, at the edge (the reader); everything downstream
only sees :class:`CardDetection` and :class:`FrameDetections`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from scorekeeper.rules.cards import Card

Box = tuple[float, float, float, float]
"""x1, y1, x2, y2 in pixels of the full-resolution frame."""


@dataclass(frozen=True, slots=True)
class CardDetection:
    """One distinct card seen in one frame."""

    card: Card
    confidence: float
    box: Box
    corners: int = 1
    """How many of the card's printed corner indices were read and agreed (1 or 2)."""

    @property
    def center(self) -> tuple[float, float]:
        x1, y1, x2, y2 = self.box
        return ((x1 + x2) / 2, (y1 + y2) / 2)

    def to_json(self) -> dict[str, object]:
        return {
            "card": self.card.notation,
            "confidence": round(self.confidence, 4),
            "box": [round(v, 1) for v in self.box],
        }


@dataclass(frozen=True, slots=True)
class FrameDetections:
    """Every card read in one frame; at most one detection per card."""

    frame_index: int
    cards: tuple[CardDetection, ...] = field(default=())
    width: int = 0
    height: int = 0

    def __post_init__(self) -> None:
        seen = [d.card for d in self.cards]
        if len(seen) != len(set(seen)):
            raise ValueError(f"frame {self.frame_index}: a card appears twice in one frame's detections")
