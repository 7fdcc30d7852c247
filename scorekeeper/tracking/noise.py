"""Degrade perfect detections the way a real reader and a real table do, to test the tracker.

Frames dropped (the reader too slow, or nothing read), cards misread for a frame or two, ghost
cards for one frame, and hands covering part of the table for a few frames. Deterministic for a
given ``random.Random``; the input frames are never changed, new ones are made.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace

from scorekeeper.rules import DECK, Card
from scorekeeper.vision.detections import CardDetection, FrameDetections


@dataclass(frozen=True, slots=True, kw_only=True)
class Noise:
    """How much trouble to add; the defaults are the tracker benchmark's conditions."""

    drop: float = 0.3
    """Share of frames that never reach the tracker."""
    misread: float = 0.05
    """Share of reads that are wrong: a card read as another card for 1-2 frames at a time."""
    spurious: float = 0.05
    """Chance per frame of one ghost card, somewhere in the image, for that frame only."""
    cover: float = 0.03
    """Chance per frame that a hand starts covering a spot of the table for 3-8 frames."""
    cover_radius: float = 0.12
    """A hand's reach over the table, as a share of the image's shorter side."""

    @classmethod
    def none(cls) -> Noise:
        return cls(drop=0.0, misread=0.0, spurious=0.0, cover=0.0)


_MEAN_MISREAD_FRAMES = 1.5


@dataclass(slots=True)
class _Hand:
    x: float
    y: float
    radius: float
    until: int


def degrade(frames: Iterable[FrameDetections], noise: Noise, rng: random.Random, *,
            focus: tuple[float, float] | None = None) -> Iterator[FrameDetections]:
    """The frames as a noisy reader would report them; ``focus`` is where hands mostly go."""
    misreads: dict[Card, tuple[Card, int]] = {}
    hands: list[_Hand] = []
    for frame in frames:
        index = frame.frame_index
        width, height = frame.width or 1280, frame.height or 720
        if rng.random() < noise.cover:
            cx, cy = focus or (width / 2, height / 2)
            spread = 0.15 * min(width, height)
            hands.append(_Hand(rng.gauss(cx, spread), rng.gauss(cy, spread),
                               noise.cover_radius * min(width, height), index + rng.randint(3, 8)))
        hands = [h for h in hands if h.until > index]
        cards: list[CardDetection] = []
        for detection in frame.cards:
            x, y = detection.center
            if any((x - h.x) ** 2 + (y - h.y) ** 2 <= h.radius**2 for h in hands):
                continue
            wrong = misreads.get(detection.card)
            if wrong is None and rng.random() < noise.misread / _MEAN_MISREAD_FRAMES:
                wrong = (rng.choice([c for c in DECK if c != detection.card]), index + rng.randint(1, 2))
                misreads[detection.card] = wrong
            if wrong is not None and wrong[1] > index:
                detection = replace(detection, card=wrong[0],
                                    confidence=detection.confidence * rng.uniform(0.4, 0.9))
            cards.append(detection)
        misreads = {card: w for card, w in misreads.items() if w[1] > index}
        if rng.random() < noise.spurious:
            size = 0.04 * min(width, height)
            x, y = rng.uniform(0, width - size), rng.uniform(0, height - size)
            cards.append(CardDetection(rng.choice(DECK), rng.uniform(0.3, 0.9),
                                       (x, y, x + size, y + 1.4 * size)))
        if rng.random() < noise.drop:
            continue
        yield FrameDetections(index, _distinct(cards), frame.width, frame.height)


def _distinct(cards: list[CardDetection]) -> tuple[CardDetection, ...]:
    """One detection per card, as a reader reports: the most confident read of each wins."""
    best: dict[Card, CardDetection] = {}
    for d in cards:
        if d.card not in best or d.confidence > best[d.card].confidence:
            best[d.card] = d
    return tuple(best.values())
