"""Name the corner indices seen during a deal by the deal's final record.

The record the table accepted (the tracker's reads with every correction made on the page) says
which four cards each vaza held. The tracker said, for each play, which card it read and from which
frame it lay still (``card_played`` / ``play_corrected``). The spot where that read lay, until its
vaza was gathered, is the card's spot; every index sighted there in that time is that card, whatever
the classifier called it then. So:

- a play whose read is in its vaza's record names its spot by that card;
- a play the table corrected (its read is not in the vaza's record) names its spot by the one card
  of the vaza no other spot claims; when more than one is left, the spots stay unnamed;
- a sighting inside two spots at once, or inside none, is not named (the tile masks it out).

Nothing here reads images or clocks: sightings, events and the record in, names out.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from scorekeeper.rules.cards import Card
from scorekeeper.tracking.events import CardPlayed, Event, PlayCorrected, TrickGathered
from scorekeeper.vision.boxes import Box, center

CARDS_PER_TRICK = 4
SPOT_GROWTH = 0.25
"""How much a spot is grown on each side (a share of its longer side): a card lying still is boxed
a few pixels differently from frame to frame."""


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
    """Where one play of the deal lay, from when it was played until its vaza was gathered."""

    card: Card
    """The card the final record says it was."""
    read_as: Card
    box: Box
    first_frame: int
    last_frame: int

    @property
    def corrected(self) -> bool:
        return self.card != self.read_as


def spots_of_deal(frames: Sequence[SampledFrame], events: Iterable[Event],
                  plays: Sequence[str]) -> list[Spot]:
    """The spots of a deal's plays, named by ``plays`` (the record's 40 card notations, in order)."""
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
        truth = {Card.parse(text) for text in plays[(trick - 1) * CARDS_PER_TRICK:trick * CARDS_PER_TRICK]}
        if len(truth) != CARDS_PER_TRICK:
            continue
        later = [first for t, cards in claims.items() if t > trick for first in cards.values()]
        end = gathered.get(trick, min(later, default=last_frame + 1) - 1)
        located = {card: _spot_box(frames, card, first, end) for card, first in read.items()}
        located = {card: box for card, box in located.items() if box is not None}
        named = {card: card for card in located if card in truth}
        unnamed = [card for card in located if card not in truth]
        free = truth - set(named.values())
        if len(unnamed) == 1 and len(free) == 1:
            named[unnamed[0]] = next(iter(free))
        for read_as, card in named.items():
            box = located[read_as]
            assert box is not None
            spots.append(Spot(card=card, read_as=read_as, box=box, first_frame=read[read_as],
                              last_frame=end))
    return spots


def _spot_box(frames: Sequence[SampledFrame], card: Card, first: int, last: int) -> Box | None:
    """The median box ``card`` was read at between two frames, grown by :data:`SPOT_GROWTH`."""
    boxes = [f.cards[card] for f in frames if first <= f.frame <= last and card in f.cards]
    if not boxes:
        return None
    median = [sorted(b[i] for b in boxes)[len(boxes) // 2] for i in range(4)]
    grow = SPOT_GROWTH * max(median[2] - median[0], median[3] - median[1])
    return (median[0] - grow, median[1] - grow, median[2] + grow, median[3] + grow)


def name_sightings(frame: SampledFrame, spots: Sequence[Spot]) -> list[Card | None]:
    """For each sighting of ``frame``, the card of the one spot it lies in then (None: none or two)."""
    live = [spot for spot in spots if spot.first_frame <= frame.frame <= spot.last_frame]
    names: list[Card | None] = []
    for sighting in frame.sightings:
        x, y = center(sighting.box)
        inside = {spot.card for spot in live
                  if spot.box[0] <= x <= spot.box[2] and spot.box[1] <= y <= spot.box[3]}
        names.append(next(iter(inside)) if len(inside) == 1 else None)
    return names
