"""Random legal deals, for simulators and property tests. The caller passes the random source."""

from __future__ import annotations

import random

from scorekeeper.rules.cards import STANDARD_DECK, Card, Deck
from scorekeeper.rules.deal import Deal
from scorekeeper.rules.seats import SEATS, next_seat
from scorekeeper.rules.variants import Rules

HAND_SIZE = 10


def deal_hands(
    rng: random.Random, *, dealer: int, deck: Deck = STANDARD_DECK
) -> tuple[Card, dict[int, list[Card]]]:
    """Shuffle and deal ten cards each; the bottom card, the dealer's, is turned.

    Where the deck's trunfo is cut from the rejected cards (the Azores), a card of that packet is
    turned instead, and nobody holds it.
    """
    cards = list(deck.cards)
    rng.shuffle(cards)
    hands = {seat: [] for seat in SEATS}  # type: dict[int, list[Card]]
    first = next_seat(dealer)
    for index, card in enumerate(cards):
        hands[next_seat(first, index // HAND_SIZE)].append(card)
    turned = rng.choice(deck.cut_cards) if deck.trunfo_is_cut else hands[dealer][-1]
    return turned, hands


def random_legal_deal(
    rng: random.Random, *, dealer: int = 0, rules: Rules | None = None
) -> tuple[Card, list[Card], dict[int, list[Card]]]:
    """A whole deal of random legal plays: (turned card, the 40 plays in order, the hands dealt)."""
    turned, hands = deal_hands(rng, dealer=dealer, deck=(rules or Rules()).deck.deck)
    dealt = {seat: list(cards) for seat, cards in hands.items()}
    deal = Deal.start(dealer=dealer, turned=turned, rules=rules)
    plays: list[Card] = []
    while not deal.is_complete:
        seat = deal.to_play
        assert seat is not None
        card = rng.choice(deal.legal_plays(hands[seat]))
        hands[seat].remove(card)
        plays.append(card)
        deal = deal.play(card)
    return turned, plays, dealt
