"""The tracker's evidence: each stretch of sightings of one card lying still at one spot (a run),
a card's runs, and the card a run was played as."""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

from scorekeeper.rules import Card
from scorekeeper.tracking.geometry import Point, Side
from scorekeeper.vision.boxes import Box
from scorekeeper.vision.detections import CardDetection


@dataclass(slots=True, eq=False)
class Run:
    """A stretch of sightings of one card lying still at one spot, in the play area or by a side."""

    card: Card
    start_update: int
    """The tracker's update count at the first sighting: frames given since, dropped ones not."""
    approach: Side | None = None
    """The side the card came from, for a run in the play area."""
    frames: list[int] = field(default_factory=list)
    boxes: list[Box] = field(default_factory=list)
    confidence_sum: float = 0.0
    refused: bool = False
    """The rules refused to play it (flagged once, not retried)."""

    def add(self, detection: CardDetection, frame: int) -> None:
        self.frames.append(frame)
        self.boxes.append(detection.box)
        self.confidence_sum += detection.confidence

    @property
    def start_frame(self) -> int:
        return self.frames[0]

    @property
    def last_frame(self) -> int:
        return self.frames[-1]

    @property
    def at(self) -> Point:
        x1, y1, x2, y2 = self.boxes[-1]
        return ((x1 + x2) / 2, (y1 + y2) / 2)

    @property
    def seen(self) -> int:
        return len(self.frames)

    @property
    def confidence(self) -> float:
        return self.confidence_sum / self.seen

    def seen_since(self, frame: float) -> int:
        return len(self.frames) - bisect.bisect_left(self.frames, frame)

    def between(self, first: float, last: float) -> tuple[list[int], list[Box]]:
        """The frames and boxes of the sightings from frame ``first`` to frame ``last``."""
        lo, hi = bisect.bisect_left(self.frames, first), bisect.bisect_right(self.frames, last)
        return self.frames[lo:hi], self.boxes[lo:hi]


@dataclass(slots=True, eq=False)
class Track:
    card: Card
    runs: list[Run] = field(default_factory=list)
    """Runs in the play area, oldest first."""
    outside: Run | None = None
    last_outside: tuple[int, Side] | None = None


@dataclass(slots=True, eq=False)
class Played:
    card: Card
    seat: int
    run: Run | None
    """The run it was played from; None for a card already on the table when tracking resumed."""
