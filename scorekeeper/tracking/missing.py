"""Where cards the reader never saw were played: the rules decide among the places they could go.

A vaza gathered with a card no frame showed leaves a gap in the order of play. Once the rest of
the deal has been seen, the cards never read are known (the deck's cards no frame showed), but
not which gap each filled, nor its place in its vaza, which decide the seats of that vaza and,
through its winner, of every play after it. Each arrangement is tried through the rules engine:
one the rules refuse (the turned trunfo played by another seat than the dealer, a card twice) is
out, and of the rest the one that makes the fewest renúncias is taken (a wrong seat order makes
players seem to revoke), then the one whose seats best agree with what the sightings say of each
card's seat (the side it came from, or the axis of the table it lies along); on a tie, the latest
places. A card the last vaza lacks is placed in it the same way. A card read where it landed under
the name of a card played before is placed there (:attr:`Gap.landed`); where the rules refuse
the card never read there, it may be the earlier play that was never read, the card read there
being the one its name was taken from (:func:`swap_misnamed`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import permutations, product

from scorekeeper.errors import IllegalPlayError
from scorekeeper.rules import Card, Deal
from scorekeeper.rules.trick import TRICK_SIZE

MOST_MISSING = 3
"""Beyond this many cards never read, the arrangements are too many to tell apart by the rules."""


@dataclass(frozen=True, slots=True)
class Gap:
    """A vaza gathered with a card never read: it begins at ``start`` among the cards read since
    the first gap, and ``read`` of its cards were read. A vaza two cards short is two gaps at
    one ``start``."""

    start: int
    read: int
    landed: int | None = None
    """The card's place in its vaza when it is known where it landed (it lay there read under
    the name of a card played before); None: any place the rules allow."""


@dataclass(frozen=True, slots=True)
class SeatClues:
    """What the sightings say of the seats of the cards read, short of their place in play."""

    came_from: Mapping[Card, int] = field(default_factory=dict)
    """The seat on the side a card was seen coming in from."""
    upright: Mapping[Card, bool] = field(default_factory=dict)
    """Whether a card lies with its long side up and down the image (False: across it)."""
    vertical_seats: frozenset[int] = frozenset()
    """The seats at the top and bottom of the image."""

    def against(self, deal: Deal) -> tuple[int, int]:
        """How many of ``deal``'s plays go to a seat other than the side they came from, and how
        many lie against the table's habit: players lay cards along their own axis of the table
        (or, with indices wider than tall, all across it); the habit is whichever of the two
        the deal's plays follow more, so a table with none costs every order about the same."""
        sides = along = across = 0
        for _, card, seat in seated_plays(deal):
            sides += self.came_from.get(card, seat) != seat
            upright = self.upright.get(card)
            if upright is not None:
                if (seat in self.vertical_seats) == upright:
                    along += 1
                else:
                    across += 1
        return sides, min(along, across)


@dataclass(frozen=True, slots=True)
class Placement:
    deal: Deal
    """The deal with every card played in the order found."""
    cards: tuple[Card, ...]
    """The plays from the first gap's vaza on, in order."""
    places: tuple[tuple[Card, int], ...]
    """Each card never read and its place in its vaza (from 0)."""


def place_missing_cards(
    before: Deal,
    cards: Sequence[Card],
    gaps: Sequence[Gap],
    missing: Sequence[Card],
    clues: SeatClues | None = None,
) -> Placement | None:
    """The best arrangement of ``missing`` into ``cards`` (read since ``before``, in landing order,
    with the ``gaps`` where a vaza was gathered a card short); a card beyond the gaps is the last
    vaza's, whose read cards end ``cards``. ``clues``: what the sightings say of the seats of
    the cards read, those of ``before`` included. None when the rules refuse every arrangement,
    or the cards missing are not the gaps' (plus at most one) or more than
    :data:`MOST_MISSING`."""
    if not len(gaps) <= len(missing) <= min(len(gaps) + 1, MOST_MISSING) or not missing:
        return None
    if len(missing) > len(gaps):
        last_read = TRICK_SIZE - 1
        if len(cards) < last_read:
            return None
        gaps = [*gaps, Gap(len(cards) - last_read, last_read)]
    clues = clues or SeatClues()
    best: tuple[tuple[int, int, int, int], Placement] | None = None
    for order in permutations(missing):
        allowed = [range(gap.read + 1) if gap.landed is None else (gap.landed,) for gap in gaps]
        for places in product(*allowed):
            played = _arrange(cards, gaps, order, places)
            deal = _replay(before, played)
            if deal is None:
                continue
            score = _rank(deal, clues, lateness=sum(places))
            if best is None or score < best[0]:
                named = tuple(zip(order, places, strict=True))
                best = (score, Placement(deal, tuple(played), named))
    return best[1] if best is not None else None


def swap_misnamed(
    before: Deal,
    cards: Sequence[Card],
    gap: Gap,
    misnamed: Card,
    missing: Card,
    clues: SeatClues | None = None,
) -> Deal | None:
    """The deal where ``before``'s play of ``misnamed`` was ``missing`` (never read, its reads
    a look-alike's) and ``misnamed`` was played where it landed in the ``gap``'s vaza, with the
    rest of ``cards`` (read since ``before``, in landing order) as they landed. Renaming that
    earlier play may change who won its vaza, and so the seats of every play after it: the
    arrangement the rules refused with the card never read in the gap may be the one they allow
    this way. The reads of that play were another card's, so when they began says little of
    when ``missing`` landed: it goes where the rules and the ``clues`` fit it best in its vaza
    (on a tie, last). None when the gap's landing place is unknown or the rules refuse it."""
    if gap.landed is None or misnamed not in before.played:
        return None
    at = gap.start + gap.landed
    later = [*cards[:at], misnamed, *cards[at:]]
    plays = [card for card in before.plays if card != misnamed]
    index = before.plays.index(misnamed)
    first = index - index % TRICK_SIZE
    start = Deal.start(dealer=before.dealer, turned=before.turned, rules=before.rules)
    arrangements = (
        [*plays[: first + place], missing, *plays[first + place :], *later]
        for place in range(TRICK_SIZE)
    )
    return fittest(start, arrangements, clues)


def place_in_vaza(
    trick_start: Deal,
    read: Sequence[Card],
    card: Card,
    clues: SeatClues | None = None,
    *,
    places: Iterable[int] | None = None,
) -> Deal | None:
    """The deal with the vaza of ``read`` (played from ``trick_start``, in landing order) made
    whole by ``card``, never read, at the place the rules and the ``clues`` fit best (on a tie,
    last); None when the rules refuse it at every place. ``places``: the places tried (default
    every one, from before the first card read to after the last)."""
    tried = range(len(read) + 1) if places is None else places
    arrangements = ([*read[:place], card, *read[place:]] for place in tried)
    return fittest(trick_start, arrangements, clues)


def fittest(
    start: Deal, arrangements: Iterable[Sequence[Card]], clues: SeatClues | None
) -> Deal | None:
    """The deal of the ``arrangements`` (the plays from ``start``, one card put at its next
    place in each) that the rules allow and the ``clues`` fit best; on a tie, the later place.
    None when the rules refuse them all."""
    clues = clues or SeatClues()
    best: tuple[tuple[int, int, int, int], Deal] | None = None
    for place, played in enumerate(arrangements):
        deal = _replay(start, played)
        if deal is None:
            continue
        score = _rank(deal, clues, lateness=place)
        if best is None or score < best[0]:
            best = (score, deal)
    return best[1] if best is not None else None


def _rank(deal: Deal, clues: SeatClues, *, lateness: int) -> tuple[int, int, int, int]:
    """How badly an arrangement fits (lower is better): renúncias it makes players seem to
    commit, then its plays against the sightings' clues, then the earlier places."""
    return (len(deal.revokes), *clues.against(deal), -lateness)


def _arrange(
    cards: Sequence[Card], gaps: Sequence[Gap], order: Sequence[Card], places: Sequence[int]
) -> list[Card]:
    played: list[Card] = []
    taken = 0
    for gap, card, place in zip(gaps, order, places, strict=True):
        played += cards[taken : gap.start + place]
        played.append(card)
        taken = gap.start + place
    played += cards[taken:]
    return played


def seated_plays(deal: Deal) -> list[tuple[int, Card, int]]:
    """(vaza number, card, seat) for every play of the deal, in order."""
    return [
        (number, card, seat)
        for number, trick in enumerate((*deal.tricks, deal.current_trick), start=1)
        for card, seat in zip(trick.cards, trick.seats(), strict=True)
    ]


def _replay(deal: Deal, cards: Sequence[Card]) -> Deal | None:
    try:
        return deal.play_all(cards)
    except IllegalPlayError:
        return None
