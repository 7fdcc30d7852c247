"""The tracker's evidence: each stretch of sightings of one card lying still at one spot (a run),
a card's runs, and the card a run was played as."""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

from scorekeeper.rules import Card
from scorekeeper.tracking.decoding import Reads, sighting_evidence
from scorekeeper.tracking.geometry import Point, Side
from scorekeeper.vision.boxes import Box, center
from scorekeeper.vision.detections import CardDetection

INDEX_ASPECT = 1.25
"""How much longer than wide an index box must be to tell which way it stands: a printed index
(rank over suit) is about 1.6 times as tall as wide, and one turned half-way between is square."""
MIN_ASPECT_READS = 2
"""Single-index sightings it takes to tell which way a card lies (one may be a covered corner)."""
ASPECT_MAJORITY = 0.75
"""The share of them that must agree. Lower lets a card turned askew count; higher leaves more cards
saying nothing of their seat."""


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
    sightings: list[dict[Card, float]] = field(default_factory=list)
    """Each sighting's evidence for the cards it named, best and runners-up
    (:func:`scorekeeper.tracking.decoding.sighting_evidence`)."""
    beside: Run | None = None
    """The run of the same name, lying nearby, that this one was read apart from. Once both are
    read at once, two cards lie there that the reader names alike (a deck misread
    systematically): this one may be played too, and the deal's decoding decides its card."""
    upright_reads: int = 0
    """Sightings by one corner index standing up in the image (taller than wide): the card lies
    with its long side up and down the image."""
    sideways_reads: int = 0
    """Sightings by one corner index lying on its side (wider than tall)."""

    def add(self, detection: CardDetection, frame: int) -> None:
        self.frames.append(frame)
        self.boxes.append(detection.box)
        if detection.corners == 1:
            x1, y1, x2, y2 = detection.box
            if y2 - y1 > INDEX_ASPECT * (x2 - x1):
                self.upright_reads += 1
            elif x2 - x1 > INDEX_ASPECT * (y2 - y1):
                self.sideways_reads += 1
        self.confidence_sum += detection.confidence
        self.sightings.append(sighting_evidence(detection.options()))

    def reads(self) -> Reads:
        """The run's sightings' evidence: what the reads say this card is."""
        reads = Reads.empty()
        for sighting in self.sightings:
            reads.add(sighting)
        return reads

    @property
    def upright(self) -> bool | None:
        """Whether the card lies with its long side up and down the image (True) or across it
        (False), by most of its single-index sightings; None when they are too few or split."""
        votes = self.upright_reads + self.sideways_reads
        if votes < MIN_ASPECT_READS:
            return None
        if self.upright_reads >= ASPECT_MAJORITY * votes:
            return True
        if self.sideways_reads >= ASPECT_MAJORITY * votes:
            return False
        return None

    @property
    def start_frame(self) -> int:
        return self.frames[0]

    @property
    def last_frame(self) -> int:
        return self.frames[-1]

    @property
    def at(self) -> Point:
        return center(self.boxes[-1])

    @property
    def seen(self) -> int:
        return len(self.frames)

    @property
    def confidence(self) -> float:
        return self.confidence_sum / self.seen

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

    @property
    def label(self) -> Card:
        """The card the reader named (its run's), which the deal's decoding may have changed."""
        return self.run.card if self.run is not None else self.card
