"""Name the corner indices seen during a deal by the deal's final record.

The record the table accepted (the tracker's reads with every correction made on the page) says
which four cards each vaza held. The tracker said, for each play, which card it read and from which
frame it lay still (``card_played`` / ``play_corrected``). Where that read's corner indices lay,
until its vaza was gathered, is the card's spot; every index sighted at one of those corners in
that time is that card, whatever the classifier called it then (a corner is a place, not the
card's whole box, which covers the cards under it too). So:

- a play whose read is in its vaza's record names its spot by that card;
- a play the table corrected (its read is not in the vaza's record) names its spot by the one card
  of the vaza no other spot claims; when more than one is left, the spots stay unnamed;
- a sighting at two spots' corners at once, or at none, is not named (the tile masks it out).

Nothing here reads images or clocks: sightings, events and the record in, names out.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from scorekeeper.rules.cards import Card
from scorekeeper.tracking.events import CardPlayed, Event, PlayCorrected, TrickGathered
from scorekeeper.vision.boxes import Box, center

CARDS_PER_TRICK = 4


@dataclass(frozen=True, slots=True)
class IndexSighting:
    """One corner index in one frame: where the detector boxed it and what the classifier said."""

    box: Box
    label: int
    """The classifier's best class (0-39 a card in deck order, 40 ``not_a_card``)."""
    prob: float


@dataclass(slots=True)
class SampledFrame:
    """What is kept in memory of one frame during a deal (no image here: see the keeper)."""

    frame: int
    sightings: list[IndexSighting]
    cards: dict[Card, Box] = field(default_factory=dict)
    """The reader's card detections of the frame: the box each card was read at."""


@dataclass(frozen=True, slots=True)
class Spot:
    """Where one play of the deal lay, from when it was played until its vaza was gathered: the
    places of its corner indices (one or two), each a median box over the frames."""

    card: Card
    """The card the final record says it was."""
    read_as: Card
    corners: tuple[Box, ...]
    first_frame: int
    last_frame: int

    @property
    def corrected(self) -> bool:
        return self.card != self.read_as

    def holds(self, point: tuple[float, float]) -> bool:
        """Whether an index centred at ``point`` is one of this card's corners."""
        x, y = point
        for x1, y1, x2, y2 in self.corners:
            reach = CORNER_REACH * max(x2 - x1, y2 - y1)
            cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
            if abs(x - cx) <= reach and abs(y - cy) <= reach:
                return True
        return False


CORNER_REACH = 0.6
"""An index belongs to a corner when its centre lies within this many index heights of it: a card
lying still is boxed a few pixels differently from frame to frame, and its neighbour's index is
at least an index away."""
MIN_CORNER_SHARE = 0.25
"""A corner place must be read as the card in at least this share of the frames the card was read
in (and twice): a one-frame misread elsewhere makes no corner."""


def spots_of_deal(
    frames: Sequence[SampledFrame], events: Iterable[Event], plays: Sequence[str]
) -> list[Spot]:
    """The spots of a deal's plays, named by ``plays`` (the record's 40 cards, in order)."""
    events = list(events)
    claims: dict[int, dict[Card, int]] = {}
    for event in events:
        if isinstance(event, (CardPlayed, PlayCorrected)):
            frame = event.frame
            claims.setdefault(event.trick, {})
            claims[event.trick][event.card] = min(frame, claims[event.trick].get(event.card, frame))
    gathered = {event.trick: event.frame for event in events if isinstance(event, TrickGathered)}
    last_frame = max((f.frame for f in frames), default=0)
    spots: list[Spot] = []
    for trick, read in sorted(claims.items()):
        truth = {
            Card.parse(text)
            for text in plays[(trick - 1) * CARDS_PER_TRICK : trick * CARDS_PER_TRICK]
        }
        if len(truth) != CARDS_PER_TRICK:
            continue
        later = [first for t, cards in claims.items() if t > trick for first in cards.values()]
        end = gathered.get(trick, min(later, default=last_frame + 1) - 1)
        located = {card: corner_places(frames, card, first, end) for card, first in read.items()}
        located = {card: places for card, places in located.items() if places}
        named = {card: card for card in located if card in truth}
        unnamed = [card for card in located if card not in truth]
        free = truth - set(named.values())
        if len(unnamed) == 1 and len(free) == 1:
            named[unnamed[0]] = next(iter(free))
        for read_as, card in named.items():
            spots.append(
                Spot(
                    card=card,
                    read_as=read_as,
                    corners=located[read_as],
                    first_frame=read[read_as],
                    last_frame=end,
                )
            )
    return spots


def corner_places(
    frames: Sequence[SampledFrame], card: Card, first: int, last: int
) -> tuple[Box, ...]:
    """Where ``card``'s corner indices lay between two frames: the indices read as it inside its
    detection, grouped by place, each place's median box (see :data:`MIN_CORNER_SHARE`)."""
    groups: list[list[Box]] = []
    seen_in = 0
    for frame in frames:
        if not first <= frame.frame <= last or card not in frame.cards:
            continue
        seen_in += 1
        x1, y1, x2, y2 = frame.cards[card]
        for sighting in frame.sightings:
            if sighting.label != card.index:
                continue
            cx, cy = center(sighting.box)
            if not (x1 <= cx <= x2 and y1 <= cy <= y2):
                continue
            home = next((g for g in groups if _near(g[0], sighting.box)), None)
            if home is None:
                groups.append([sighting.box])
            else:
                home.append(sighting.box)
    needed = max(2, MIN_CORNER_SHARE * seen_in)
    return tuple(_median(g) for g in groups if len(g) >= needed)


def _near(a: Box, b: Box) -> bool:
    reach = CORNER_REACH * max(a[2] - a[0], a[3] - a[1])
    (ax, ay), (bx, by) = center(a), center(b)
    return abs(ax - bx) <= reach and abs(ay - by) <= reach


def _median(boxes: list[Box]) -> Box:
    values = [sorted(b[i] for b in boxes)[len(boxes) // 2] for i in range(4)]
    return (values[0], values[1], values[2], values[3])


def name_sightings(frame: SampledFrame, spots: Sequence[Spot]) -> list[Card | None]:
    """For each sighting of ``frame``, the card of the one spot it lies in (None: none or two)."""
    live = [spot for spot in spots if spot.first_frame <= frame.frame <= spot.last_frame]
    names: list[Card | None] = []
    for sighting in frame.sightings:
        point = center(sighting.box)
        inside = {spot.card for spot in live if spot.holds(point)}
        names.append(next(iter(inside)) if len(inside) == 1 else None)
    return names
