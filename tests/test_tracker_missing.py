"""Placing a card the reader never saw: the rules and the sides cards came from decide its place."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from scorekeeper.rules import Card, Deal, Rules, random_legal_deal
from scorekeeper.tracking.missing import place_missing_cards


def c(text: str) -> Card:
    return Card.parse(text)


def whole_deal(seed: int) -> tuple[Deal, list[Card]]:
    turned, plays, _ = random_legal_deal(random.Random(seed), dealer=1, rules=Rules())
    return Deal.start(dealer=1, turned=turned), plays


def seats_of(start: Deal, plays: list[Card]) -> dict[Card, int]:
    deal, seats = start, {}
    for card in plays:
        seats[card] = deal.to_play
        deal = deal.play(card)
    return seats


def before(start: Deal, plays: list[Card], count: int) -> Deal:
    deal = start
    for card in plays[:count]:
        deal = deal.play(card)
    return deal


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), hidden=st.integers(0, 39))
def test_with_the_sides_seen_the_card_goes_back_exactly_where_it_was_played(seed: int, hidden: int) -> None:
    start, plays = whole_deal(seed)
    first = hidden - hidden % 4
    seats = seats_of(start, plays)
    read = [p for p in plays[first:first + 4] if p != plays[hidden]]
    sides = {card: seat for card, seat in seats.items() if card != plays[hidden]}
    placed = place_missing_cards(before(start, plays, first), read, plays[first + 4:],
                                 [plays[hidden]], sides)
    assert placed is not None
    assert list(placed.cards) == plays[first:]
    assert placed.deal.is_complete and placed.deal.revokes == ()


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), hidden=st.integers(0, 35))
def test_without_sides_the_order_chosen_is_legal_and_revokes_no_more_than_the_truth(
        seed: int, hidden: int) -> None:
    start, plays = whole_deal(seed)
    first = hidden - hidden % 4
    read = [p for p in plays[first:first + 4] if p != plays[hidden]]
    placed = place_missing_cards(before(start, plays, first), read, plays[first + 4:], [plays[hidden]])
    assert placed is not None
    assert set(placed.cards) == set(plays[first:]) and len(placed.cards) == len(plays[first:])
    assert placed.deal.is_complete and placed.deal.revokes == ()


def test_the_turned_trunfo_stays_the_dealers_so_the_card_goes_before_it() -> None:
    # Dealer 1 turned 5S: seat 2 leads, the dealer plays fourth. Read: 2S, KS, then 5S.
    start = Deal.start(dealer=1, turned=c("5S"))
    placed = place_missing_cards(start, [c("2S"), c("KS"), c("5S")], [], [c("AS")])
    assert placed is not None
    # Last would give the dealer's trunfo to seat 0; of the places left, the latest.
    assert list(placed.cards) == [c("2S"), c("KS"), c("AS"), c("5S")]
    assert placed.position == 2


def test_more_than_two_cards_missing_is_too_many_to_place() -> None:
    start = Deal.start(dealer=3, turned=c("AH"))
    assert place_missing_cards(start, [c("KS")], [], [c("2S"), c("AS"), c("5S")]) is None
