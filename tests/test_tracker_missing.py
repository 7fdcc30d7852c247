"""Placing a card the reader never saw: the rules, the sides cards came from and the way the cards
lie decide its place."""

from __future__ import annotations

import random

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from scorekeeper.errors import IllegalPlayError
from scorekeeper.rules import Card, Deal, Rules, random_legal_deal
from scorekeeper.tracking.missing import (
    Gap,
    SeatClues,
    place_in_vaza,
    place_missing_cards,
    swap_misnamed,
)


def c(text: str) -> Card:
    return Card.parse(text)


def whole_deal(seed: int) -> tuple[Deal, list[Card]]:
    turned, plays, _ = random_legal_deal(random.Random(seed), dealer=1, rules=Rules())
    return Deal.start(dealer=1, turned=turned), plays


def seats_of(start: Deal, plays: list[Card]) -> dict[Card, int]:
    deal, seats = start, {}
    for card in plays:
        seat = deal.to_play
        assert seat is not None, "the deal ended before its plays did"
        seats[card] = seat
        deal = deal.play(card)
    return seats


def before(start: Deal, plays: list[Card], count: int) -> Deal:
    deal = start
    for card in plays[:count]:
        deal = deal.play(card)
    return deal


def one_never_read(seed: int, hidden: int) -> tuple[Deal, list[Card], list[Card]]:
    """A deal with play ``hidden`` never read: the deal before its vaza, the cards read from
    there in order, and the plays from there as they were."""
    start, plays = whole_deal(seed)
    first = hidden - hidden % 4
    read = [p for p in plays[first : first + 4] if p != plays[hidden]]
    return before(start, plays, first), read + plays[first + 4 :], plays[first:]


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), hidden=st.integers(0, 39))
def test_with_the_sides_seen_the_card_goes_back_exactly_where_it_was_played(
    seed: int, hidden: int
) -> None:
    start, plays = whole_deal(seed)
    first = hidden - hidden % 4
    seats = seats_of(start, plays)
    read = [p for p in plays[first : first + 4] if p != plays[hidden]]
    sides = {card: seat for card, seat in seats.items() if card != plays[hidden]}
    placed = place_missing_cards(
        before(start, plays, first),
        read + plays[first + 4 :],
        [Gap(0, 3)],
        [plays[hidden]],
        SeatClues(came_from=sides),
    )
    assert placed is not None
    assert list(placed.cards) == plays[first:]
    assert placed.deal.is_complete and placed.deal.revokes == ()


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), hidden=st.integers(0, 35))
def test_without_sides_the_order_chosen_is_legal_and_revokes_no_more_than_the_truth(
    seed: int, hidden: int
) -> None:
    vaza_start, read, played = one_never_read(seed, hidden)
    placed = place_missing_cards(vaza_start, read, [Gap(0, 3)], [played[hidden % 4]])
    assert placed is not None
    assert set(placed.cards) == set(played) and len(placed.cards) == len(played)
    assert placed.deal.is_complete and placed.deal.revokes == ()


def test_the_turned_trunfo_stays_the_dealers_so_the_card_goes_before_it() -> None:
    # Dealer 1 turned 5S: seat 2 leads, the dealer plays fourth. Read: 2S, KS, then 5S.
    start = Deal.start(dealer=1, turned=c("5S"))
    placed = place_missing_cards(start, [c("2S"), c("KS"), c("5S")], [Gap(0, 3)], [c("AS")])
    assert placed is not None
    # Last would give the dealer's trunfo to seat 0; of the places left, the latest.
    assert list(placed.cards) == [c("2S"), c("KS"), c("AS"), c("5S")]
    assert placed.places == ((c("AS"), 2),)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), hidden=st.integers(0, 35))
def test_a_card_whose_landing_place_is_known_goes_there_without_sides(
    seed: int, hidden: int
) -> None:
    # Read under another name where it landed: its place in the vaza is known, and with it the
    # seats of the vaza, though nothing says which side any card came from.
    vaza_start, read, played = one_never_read(seed, hidden)
    place = hidden % 4
    placed = place_missing_cards(vaza_start, read, [Gap(0, 3, landed=place)], [played[place]])
    assert placed is not None
    assert list(placed.cards) == played


def test_more_than_two_cards_missing_is_too_many_to_place() -> None:
    start = Deal.start(dealer=3, turned=c("AH"))
    cards = [c("2S"), c("KS"), c("AS"), c("3S"), c("4S"), c("6S")]
    gaps = [Gap(0, 3), Gap(3, 3)]
    assert place_missing_cards(start, cards[1:], gaps[:1], [c("2S"), c("7S"), c("5S")]) is None


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    first=st.integers(0, 8),
    second=st.integers(1, 9),
    places=st.tuples(st.integers(0, 3), st.integers(0, 3)),
)
def test_two_cards_never_read_in_two_vazas_leave_every_card_read_with_its_seat(
    seed: int, first: int, second: int, places: tuple[int, int]
) -> None:
    start, plays = whole_deal(seed)
    vazas = sorted({first, min(first + second, 9)})
    hidden = [plays[4 * v + p] for v, p in zip(vazas, places, strict=False)]
    seats = seats_of(start, plays)
    opened = 4 * vazas[0]
    cards = [p for p in plays[opened:] if p not in hidden]
    gaps = [Gap(4 * v - opened - i, 3) for i, v in enumerate(vazas)]
    sides = {card: seat for card, seat in seats.items() if card not in hidden}
    placed = place_missing_cards(
        before(start, plays, opened), cards, gaps, hidden[::-1], SeatClues(came_from=sides)
    )
    assert placed is not None
    # Two cards that win nothing and go to the same seats can swap unseen; the others cannot.
    placed_seats = seats_of(before(start, plays, opened), list(placed.cards))
    assert {card: placed_seats[card] for card in cards} == {card: seats[card] for card in cards}
    assert placed.deal.is_complete


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    vaza=st.integers(0, 8),
    places=st.sets(st.integers(0, 3), min_size=2, max_size=2),
)
def test_two_cards_never_read_in_one_vaza_go_back_where_they_were_played_with_the_sides_seen(
    seed: int, vaza: int, places: set[int]
) -> None:
    start, plays = whole_deal(seed)
    first = 4 * vaza
    hidden = [plays[first + place] for place in sorted(places)]
    seats = seats_of(start, plays)
    read = [p for p in plays[first:] if p not in hidden]
    sides = {card: seat for card, seat in seats.items() if card not in hidden}
    # A vaza two cards short is two gaps at one start.
    placed = place_missing_cards(
        before(start, plays, first), read, [Gap(0, 2), Gap(0, 2)], hidden[::-1], SeatClues(sides)
    )
    assert placed is not None
    placed_seats = seats_of(before(start, plays, first), list(placed.cards))
    assert {card: placed_seats[card] for card in read} == {card: seats[card] for card in read}
    assert placed.deal.is_complete and set(placed.cards) == set(plays[first:])


VERTICAL = frozenset({0, 2})
"""Seats 0 and 2 sit at the bottom and top of the image in these tests."""


def lying(seats: dict[Card, int], *, along_own_axis: bool = True) -> SeatClues:
    """Every card lies along its player's axis of the table (or, ``along_own_axis`` False, all
    across it, as a deck with indices wider than tall reads)."""
    return SeatClues(
        upright={card: (seat in VERTICAL) == along_own_axis for card, seat in seats.items()},
        vertical_seats=VERTICAL,
    )


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), hidden=st.integers(0, 35), along=st.booleans())
def test_with_how_the_cards_lie_and_no_side_seen_the_card_goes_back_where_it_was_played(
    seed: int, hidden: int, along: bool
) -> None:
    # Cards seen only once they lay still (the throw is a blur): no side, only how they lie.
    start, plays = whole_deal(seed)
    first = hidden - hidden % 4
    seats = seats_of(start, plays)
    read = [p for p in plays[first : first + 4] if p != plays[hidden]]
    clues = lying({k: v for k, v in seats.items() if k != plays[hidden]}, along_own_axis=along)
    placed = place_missing_cards(
        before(start, plays, first), read + plays[first + 4 :], [Gap(0, 3)], [plays[hidden]], clues
    )
    assert placed is not None
    assert list(placed.cards) == plays[first:]


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), place=st.integers(0, 3))
def test_the_last_vazas_card_never_read_goes_where_the_cards_lie_say_not_always_last(
    seed: int, place: int
) -> None:
    start, plays = whole_deal(seed)
    seats = seats_of(start, plays)
    missing = plays[36 + place]
    read = [p for p in plays[36:] if p != missing]
    deal = place_in_vaza(
        before(start, plays, 36),
        read,
        missing,
        lying({k: v for k, v in seats.items() if k != missing}),
    )
    assert deal is not None and deal.is_complete
    assert list(deal.tricks[-1].cards) == plays[36:]


def test_the_last_vazas_card_goes_last_when_nothing_says_otherwise() -> None:
    start, plays = whole_deal(3)
    read = plays[36:39]
    deal = place_in_vaza(before(start, plays, 36), read, plays[39])
    assert deal is not None
    assert list(deal.tricks[-1].cards) == plays[36:]


def _misread_before_its_vaza(
    seed: int, misread_at: int, later: int
) -> tuple[list[Card], Deal, list[Card], Gap]:
    """A whole deal's plays; the deal as tracked up to ``later``'s vaza, play ``misread_at`` read
    as ``later``'s card; the cards read from that vaza on (the refused one left out); its gap."""
    start, plays = whole_deal(seed)
    first = later - later % 4
    as_read = [plays[later] if i == misread_at else card for i, card in enumerate(plays[:first])]
    try:
        misread = start.play_all(as_read)
    except IllegalPlayError:
        assume(False)  # the misread made the turned trunfo another seat's: no deal to repair
    held = [card for card in plays[first:] if card != plays[later]]
    return plays, misread, held, Gap(0, 3, landed=later - first)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), earlier=st.integers(0, 8), later=st.integers(4, 39))
def test_a_play_read_under_a_later_cards_name_gets_its_own_card_back(
    seed: int, earlier: int, later: int
) -> None:
    # The reader named the last play of vaza ``earlier`` (from 0) after the card of play
    # ``later``, its own card never read; that card, read where it landed, was refused as
    # played already, and its vaza gathered a card short.
    misread_at = 4 * earlier + 3
    assume(misread_at < later - later % 4)
    plays, misread, held, gap = _misread_before_its_vaza(seed, misread_at, later)
    swapped = swap_misnamed(misread, held, gap, plays[later], plays[misread_at])
    assert swapped is not None
    assert list(swapped.plays) == plays
    assert swap_misnamed(misread, held, Gap(0, 3), plays[later], plays[misread_at]) is None


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), earlier=st.integers(0, 35), later=st.integers(4, 39))
def test_a_misread_play_anywhere_in_its_vaza_gets_its_card_back_in_that_vaza(
    seed: int, earlier: int, later: int
) -> None:
    # The misread play's reads say little of where its own card landed, so the rules choose its
    # place in the vaza; wherever it lands, the card goes back into its own vaza and no other
    # play moves.
    assume(earlier // 4 < later // 4)
    plays, misread, held, gap = _misread_before_its_vaza(seed, earlier, later)
    swapped = swap_misnamed(misread, held, gap, plays[later], plays[earlier])
    assert swapped is not None
    vaza = slice(earlier - earlier % 4, earlier - earlier % 4 + 4)
    assert set(swapped.plays[vaza]) == set(plays[vaza])
    others = [card for card in plays if card != plays[earlier]]
    assert [card for card in swapped.plays if card != plays[earlier]] == others
