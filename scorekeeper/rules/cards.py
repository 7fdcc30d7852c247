"""Cards, suits, ranks and the 40-card Sueca deck.

>>> Card.parse("7h")
Card.parse('7H')
>>> Card.parse("AS").points
11
>>> len(DECK), DECK[0], DECK[39]
(40, Card.parse('AH'), Card.parse('2C'))
>>> DECK.index(Card.parse("KS"))
12
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from scorekeeper.errors import InvalidCardError


class Suit(str, Enum):
    """The four suits; the value is the notation letter."""

    COPAS = "H"
    ESPADAS = "S"
    OUROS = "D"
    PAUS = "C"

    @classmethod
    def parse(cls, text: str) -> Suit:
        try:
            return cls(text.strip().upper())
        except ValueError:
            raise InvalidCardError(
                f"unknown suit {text!r}: use H (copas), S (espadas), D (ouros) or C (paus)"
            ) from None

    @property
    def portuguese(self) -> str:
        return self.name.lower()

    def __str__(self) -> str:
        return self.value


class Rank(str, Enum):
    """Ranks from strongest to weakest; the value is the notation letter."""

    ACE = "A"
    SEVEN = "7"
    KING = "K"
    JACK = "J"
    QUEEN = "Q"
    SIX = "6"
    FIVE = "5"
    FOUR = "4"
    THREE = "3"
    TWO = "2"

    @property
    def strength(self) -> int:
        """Higher beats lower within a suit: the ace is 9, the two is 0."""
        return len(RANKS) - 1 - RANKS.index(self)

    @property
    def points(self) -> int:
        return _POINTS.get(self, 0)

    def __str__(self) -> str:
        return self.value


RANKS: tuple[Rank, ...] = tuple(Rank)
SUITS: tuple[Suit, ...] = tuple(Suit)
_POINTS = {Rank.ACE: 11, Rank.SEVEN: 10, Rank.KING: 4, Rank.JACK: 3, Rank.QUEEN: 2}


@dataclass(frozen=True, slots=True)
class Card:
    """One of the 40 cards; orders by nothing on purpose: strength depends on trump and suit led."""

    rank: Rank
    suit: Suit

    @classmethod
    def parse(cls, text: str) -> Card:
        """Read ``7H``, ``as``, ``Qd`` (rank then suit letter, case-insensitive)."""
        if not isinstance(text, str):
            raise InvalidCardError(f"card {text!r} is not text: write a card like '7H' or 'AS'")
        cleaned = text.strip().upper()
        if len(cleaned) != 2:
            raise InvalidCardError(
                f"unknown card {text!r}: write rank (A 7 K J Q 6 5 4 3 2) then suit (H S D C), like '7H'"
            )
        rank_letter, suit_letter = cleaned[0], cleaned[1]
        if rank_letter not in _RANK_LETTERS:
            hint = " (8, 9 and 10 are not in the Sueca deck)" if rank_letter in "89T1" else ""
            raise InvalidCardError(
                f"unknown card {text!r}: rank {rank_letter!r} is not one of A 7 K J Q 6 5 4 3 2{hint}"
            )
        if suit_letter not in _SUIT_LETTERS:
            raise InvalidCardError(
                f"unknown card {text!r}: suit {suit_letter!r} is not one of H S D C"
            )
        return cls(Rank(rank_letter), Suit(suit_letter))

    @property
    def points(self) -> int:
        return self.rank.points

    @property
    def index(self) -> int:
        """Position in :data:`DECK` (suit-major H S D C, ranks A 7 K J Q 6 5 4 3 2): the class id."""
        return SUITS.index(self.suit) * len(RANKS) + RANKS.index(self.rank)

    @property
    def notation(self) -> str:
        return f"{self.rank.value}{self.suit.value}"

    def __str__(self) -> str:
        return self.notation

    def __repr__(self) -> str:
        return f"Card.parse({self.notation!r})"


_RANK_LETTERS = frozenset(r.value for r in Rank)
_SUIT_LETTERS = frozenset(s.value for s in Suit)

DECK: tuple[Card, ...] = tuple(Card(rank, suit) for suit in SUITS for rank in RANKS)
"""The 40 cards in class-id order: 0 = AH ... 9 = 2H, 10 = AS ... 39 = 2C. The only such list."""


def card_from_index(index: int) -> Card:
    """The card whose class id is ``index`` (0-39)."""
    if not 0 <= index < len(DECK):
        raise InvalidCardError(f"card index {index} is out of range: class ids run from 0 to 39")
    return DECK[index]
