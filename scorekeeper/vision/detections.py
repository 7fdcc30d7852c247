"""The one detection type passed from the card reader to the tracker (and drawn, and printed).

Models' raw outputs are converted to these once, at the edge (the reader); everything downstream
only sees :class:`CardDetection` and :class:`FrameDetections`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from scorekeeper.rules.cards import Card
from scorekeeper.vision.boxes import Box, center

__all__ = ["Box", "CardDetection", "FrameDetections", "distinct_cards"]


@dataclass(frozen=True, slots=True)
class CardDetection:
    """One distinct card seen in one frame."""

    card: Card
    confidence: float
    box: Box
    corners: int = 1
    """How many of the card's printed corner indices were read and agreed (1 or 2)."""
    alternatives: tuple[tuple[Card, float], ...] = ()
    """The reader's next likeliest names for the same index, each with its probability on the
    same scale as ``confidence``, likeliest first (empty for a reader that gives only its best)."""

    @property
    def center(self) -> tuple[float, float]:
        return center(self.box)

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {
            "card": self.card.notation,
            "confidence": round(self.confidence, 4),
            "box": [round(v, 1) for v in self.box],
        }
        if self.alternatives:
            out["alternatives"] = [[card.notation, round(p, 4)] for card, p in self.alternatives]
        return out

    def options(self) -> tuple[tuple[Card, float], ...]:
        """The card read and its alternatives, likeliest first."""
        return ((self.card, self.confidence), *self.alternatives)


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
            raise ValueError(
                f"frame {self.frame_index}: a card appears twice in one frame's detections"
            )


FALLBACK_PROB = 0.1
"""A read whose card is already taken in the frame by a likelier read elsewhere is named by its
next likeliest card instead when that card has at least this probability (else it is dropped)."""

MAX_ALTERNATIVES = 2
"""Runners-up a read carries besides its best card."""


def distinct_cards(
    detections: Iterable[CardDetection], *, fallback_prob: float = FALLBACK_PROB
) -> tuple[CardDetection, ...]:
    """One detection per card, as :class:`FrameDetections` requires: the likeliest read of a card
    keeps it, and a weaker read of the same card elsewhere falls back to its next likeliest card
    still free (a deck whose clubs read as spades shows two "5S" when 5C and 5S both lie there),
    or is dropped when it has none likely enough. Most confident first."""
    taken: dict[Card, CardDetection] = {}
    for detection in sorted(detections, key=lambda d: d.confidence, reverse=True):
        if detection.card not in taken:
            taken[detection.card] = detection
            continue
        free = [
            (card, p)
            for card, p in detection.alternatives
            if card not in taken and p >= fallback_prob
        ]
        if not free:
            continue
        card, p = free[0]
        rest = tuple(o for o in detection.options() if o[0] != card)
        taken[card] = replace(
            detection, card=card, confidence=p, alternatives=rest[:MAX_ALTERNATIVES]
        )
    return tuple(sorted(taken.values(), key=lambda d: d.confidence, reverse=True))
