"""One vaza: who led, the cards in playing order, who takes it.

>>> from scorekeeper.rules.cards import Card, Suit
>>> t = Trick(leader=1, cards=tuple(Card.parse(c) for c in ["AH", "2D", "7H", "KH"]))
>>> t.winner(trump=Suit.OUROS), t.points
(2, 25)
"""

from __future__ import annotations

from dataclasses import dataclass

from scorekeeper.rules.cards import Card, Suit
from scorekeeper.rules.seats import next_seat

TRICK_SIZE = 4


@dataclass(frozen=True, slots=True)
class Trick:
    leader: int
    cards: tuple[Card, ...] = ()

    @property
    def led(self) -> Suit | None:
        return self.cards[0].suit if self.cards else None

    @property
    def is_complete(self) -> bool:
        return len(self.cards) == TRICK_SIZE

    @property
    def points(self) -> int:
        return sum(card.points for card in self.cards)

    def seat_of(self, position: int) -> int:
        """The seat that played the card at ``position`` (0 = the lead)."""
        return next_seat(self.leader, position)

    def seats(self) -> tuple[int, ...]:
        return tuple(self.seat_of(i) for i in range(len(self.cards)))

    def winning_position(self, trump: Suit) -> int | None:
        """Highest trump, else highest card of the suit led; a third suit never wins."""
        if not self.cards:
            return None
        led = self.cards[0].suit

        def power(card: Card) -> int:
            if card.suit is trump:
                return 100 + card.rank.strength
            if card.suit is led:
                return card.rank.strength
            return -1

        return max(range(len(self.cards)), key=lambda i: power(self.cards[i]))

    def winner(self, trump: Suit) -> int | None:
        """The seat currently taking the vaza (final once the vaza is complete)."""
        position = self.winning_position(trump)
        return None if position is None else self.seat_of(position)

    def with_card(self, card: Card) -> Trick:
        return Trick(self.leader, self.cards + (card,))
