"""Where cards the reader never saw were played: the rules decide among the places they could go.

A vaza gathered with a card no frame showed leaves a gap in the order of play. Once the rest of
the deal has been seen, the cards never read are known (the deck's cards no frame showed), but
not which gap each filled, nor its place in its vaza, which decide the seats of that vaza and,
through its winner, of every play after it. Each arrangement is tried through the rules engine:
one the rules refuse (the turned trunfo played by another seat than the dealer, a card twice) is
out, and of the rest the one that makes the fewest renúncias is taken (a wrong seat order makes
players seem to revoke), then the one whose seats best agree with the sides cards were seen
coming from; on a tie, the latest places, where the tracker puts a card it never read in the last
vaza too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import permutations, product

from scorekeeper.errors import IllegalPlayError
from scorekeeper.rules import Card, Deal

MOST_MISSING = 3
"""Beyond this many cards never read, the arrangements are too many to tell apart by the rules."""


@dataclass(frozen=True, slots=True)
class Gap:
    """A vaza gathered with a card never read: it begins at ``start`` among the cards read since
    the first gap, and ``read`` of its cards were read."""

    start: int
    read: int


@dataclass(frozen=True, slots=True)
class Placement:
    deal: Deal
    """The deal with every card played in the order found."""
    cards: tuple[Card, ...]
    """The plays from the first gap's vaza on, in order."""
    places: tuple[tuple[Card, int], ...]
    """Each card never read and its place in its vaza (from 0); a card the last vaza lacked
    comes last, at place 3."""


def place_missing_cards(
    before: Deal,
    cards: Sequence[Card],
    gaps: Sequence[Gap],
    missing: Sequence[Card],
    sides: Mapping[Card, int] | None = None,
) -> Placement | None:
    """The best arrangement of ``missing`` into ``cards`` (read since ``before``, in landing order,
    with the ``gaps`` where a vaza was gathered a card short); a card beyond the gaps is the last
    vaza's, played last. None when the rules refuse every arrangement, or the cards missing are
    not the gaps' (plus at most one) or more than :data:`MOST_MISSING`."""
    if not len(gaps) <= len(missing) <= min(len(gaps) + 1, MOST_MISSING) or not missing:
        return None
    best: tuple[tuple[int, int, int], Placement] | None = None
    for order in permutations(missing):
        for places in product(*(range(gap.read + 1) for gap in gaps)):
            played = _arrange(cards, gaps, order, places)
            deal = _replay(before, played)
            if deal is None:
                continue
            score = (len(deal.revokes), _disagreements(deal, sides or {}), -sum(places))
            if best is None or score < best[0]:
                named = tuple(zip(order, (*places, 3)[: len(order)], strict=True))
                best = (score, Placement(deal, tuple(played), named))
    return best[1] if best is not None else None


def _arrange(
    cards: Sequence[Card], gaps: Sequence[Gap], order: Sequence[Card], places: Sequence[int]
) -> list[Card]:
    played: list[Card] = []
    taken = 0
    for gap, card, place in zip(gaps, order, places, strict=False):
        played += cards[taken : gap.start + place]
        played.append(card)
        taken = gap.start + place
    played += cards[taken:]
    played += order[len(gaps) :]
    return played


def seated_plays(deal: Deal) -> list[tuple[int, Card, int]]:
    """(vaza number, card, seat) for every play of the deal, in order."""
    return [
        (number, card, seat)
        for number, trick in enumerate((*deal.tricks, deal.current_trick), start=1)
        for card, seat in zip(trick.cards, trick.seats(), strict=True)
    ]


def _disagreements(deal: Deal, sides: Mapping[Card, int]) -> int:
    return sum(1 for _, card, seat in seated_plays(deal) if sides.get(card, seat) != seat)


def _replay(deal: Deal, cards: Sequence[Card]) -> Deal | None:
    try:
        return deal.play_all(cards)
    except IllegalPlayError:
        return None
