"""Where a card the reader never saw was played: the rules decide among the places it could go.

A vaza gathered with a card no frame showed leaves a hole in the order of play. Once the rest of
the deal has been seen, the card is known (the one card of the deck never read), but not its
place in its vaza, which decides the seats of that vaza and, through its winner, of every play
after it. Each place is tried through the rules engine: an order the rules refuse (the turned
trunfo played by another seat than the dealer, a card twice) is out, and of the rest the one that
makes the fewest renúncias is taken (a wrong seat order makes players seem to revoke), then the
one whose seats best agree with the sides cards were seen coming from; on a tie, the last place,
where the tracker puts a card it never read in the last vaza too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import permutations

from scorekeeper.errors import IllegalPlayError
from scorekeeper.rules import Card, Deal


@dataclass(frozen=True, slots=True)
class Placement:
    deal: Deal
    """The deal with every card played in the order found."""
    position: int
    """Where the missing card went among the vaza's cards read, from 0."""
    cards: tuple[Card, ...]
    """The plays from the vaza with the hole on, in order."""


def place_missing_cards(before: Deal, read: Sequence[Card], after: Sequence[Card],
                        missing: Sequence[Card],
                        sides: Mapping[Card, int] | None = None) -> Placement | None:
    """The best order for ``read`` (the vaza's cards seen, in the order they landed) with one of
    ``missing`` put among them, followed by ``after`` and, when two cards are missing, the other
    one last (the last vaza vanished a card short too); None when the rules refuse every order or
    more than two cards are missing (too many orders to tell apart). ``sides``: the seat on the
    side each card was seen coming from, where that was seen."""
    if not 1 <= len(missing) <= 2:
        return None
    best: tuple[tuple[int, int, int], Placement] | None = None
    for first, *rest in permutations(missing):
        for position in range(len(read) + 1):
            cards = (*read[:position], first, *read[position:], *after, *rest)
            deal = _replay(before, cards)
            if deal is None:
                continue
            score = (len(deal.revokes), _disagreements(deal, sides or {}), -position)
            if best is None or score < best[0]:
                best = (score, Placement(deal, position, cards))
    return best[1] if best is not None else None


def _disagreements(deal: Deal, sides: Mapping[Card, int]) -> int:
    return sum(1 for trick in (*deal.tricks, deal.current_trick)
               for card, seat in zip(trick.cards, trick.seats(), strict=True)
               if sides.get(card, seat) != seat)


def _replay(deal: Deal, cards: Sequence[Card]) -> Deal | None:
    try:
        for card in cards:
            deal = deal.play(card)
    except IllegalPlayError:
        return None
    return deal
