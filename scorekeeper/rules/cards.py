"""Cards, suits, ranks, the 40-card Sueca deck and the Azores deck.

>>> Card.parse("7h")
Card.parse('7H')
>>> Card.parse("AS").points
11
>>> len(DECK), DECK[0], DECK[39]
(40, Card.parse('AH'), Card.parse('2C'))
>>> DECK.index(Card.parse("KS"))
12
>>> Card.parse("10h", deck=AZORES_DECK)
Card.parse('TH', deck=AZORES_DECK)
>>> len(AZORES_DECK.cards), len(AZORES_DECK.cut_cards)
(40, 12)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from functools import lru_cache

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
    """Ranks; the value is the notation letter. The first ten, strongest first, are the standard
    deck's."""

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
    TEN = "T"
    """Only in the Azores deck, the manilha in the 7's place (written ``T`` or ``10``)."""
    NINE = "9"
    """Never played: in the Azores, one of the rejected cards cut to show the trunfo."""
    EIGHT = "8"
    """Never played: as the 9."""

    @property
    def strength(self) -> int:
        """Higher beats lower within a suit: the ace is 9, the two is 0.

        The 10 has the 7's strength: no deck holds both, since the Azores deck plays the 10 as
        manilha where the standard deck plays the 7. The 9 and the 8 are never played (-1).
        """
        return _STRENGTH.get(self, -1)

    @property
    def points(self) -> int:
        return _POINTS.get(self, 0)

    def __str__(self) -> str:
        return self.value


RANKS: tuple[Rank, ...] = (
    Rank.ACE,
    Rank.SEVEN,
    Rank.KING,
    Rank.JACK,
    Rank.QUEEN,
    Rank.SIX,
    Rank.FIVE,
    Rank.FOUR,
    Rank.THREE,
    Rank.TWO,
)
"""The standard deck's ranks, strongest first: the order of the class ids."""
SUITS: tuple[Suit, ...] = tuple(Suit)
_POINTS = {Rank.ACE: 11, Rank.SEVEN: 10, Rank.TEN: 10, Rank.KING: 4, Rank.JACK: 3, Rank.QUEEN: 2}
_STRENGTH = {rank: len(RANKS) - 1 - index for index, rank in enumerate(RANKS)} | {Rank.TEN: 8}


@dataclass(frozen=True, slots=True)
class Card:
    """A card of a Sueca deck; orders by nothing on purpose: strength depends on trump and the
    suit led."""

    rank: Rank
    suit: Suit

    @classmethod
    def parse(cls, text: str, *, deck: Deck | None = None) -> Card:
        """Read ``7H``, ``as``, ``Qd`` (rank, then suit letter, any case), a card of ``deck``.

        The default is the standard 40-card deck; ``deck=AZORES_DECK`` also reads ``TH`` / ``10H``
        and the 7s, 8s and 9s its trunfo is cut from; ``deck=PACK`` reads every one of those.
        """
        if not isinstance(text, str):
            raise InvalidCardError(f"card {text!r} is not text: write a card like '7H' or 'AS'")
        return _parse_card(text, deck or STANDARD_DECK)

    @property
    def points(self) -> int:
        return self.rank.points

    @property
    def index(self) -> int:
        """Position in :data:`DECK` (suit-major H S D C, ranks A 7 K J Q 6 5 4 3 2): the class
        id."""
        if self.rank not in RANKS:
            raise InvalidCardError(
                f"{self.notation} has no class id: "
                "the card reader knows the 40 cards of the standard deck"
            )
        return SUITS.index(self.suit) * len(RANKS) + RANKS.index(self.rank)

    @property
    def notation(self) -> str:
        return f"{self.rank.value}{self.suit.value}"

    def __str__(self) -> str:
        return self.notation

    def __repr__(self) -> str:
        if self.rank in RANKS:
            return f"Card.parse({self.notation!r})"
        return f"Card.parse({self.notation!r}, deck=AZORES_DECK)"


@lru_cache(maxsize=1024)  # a record is read again at every write: the same few texts each time
def _parse_card(text: str, deck: Deck) -> Card:
    cleaned = text.strip().upper()
    if len(cleaned) == 3 and cleaned.startswith("10"):
        cleaned = Rank.TEN.value + cleaned[2]
    readable = deck.rank_letters
    letters = " ".join(readable)
    if len(cleaned) != 2:
        raise InvalidCardError(
            f"unknown card {text!r}: write rank ({letters}) then suit (H S D C), like '7H'"
        )
    rank_letter, suit_letter = cleaned[0], cleaned[1]
    if rank_letter not in readable:
        hint = deck.missing_hint if rank_letter in "89T1" else ""
        shown = "10" if rank_letter == Rank.TEN.value else rank_letter
        raise InvalidCardError(
            f"unknown card {text!r}: rank {shown!r} is not one of {letters}{hint}"
        )
    if suit_letter not in _SUIT_LETTERS:
        raise InvalidCardError(f"unknown card {text!r}: suit {suit_letter!r} is not one of H S D C")
    return Card(Rank(rank_letter), Suit(suit_letter))


_SUIT_LETTERS = frozenset(s.value for s in Suit)

DECK: tuple[Card, ...] = tuple(Card(rank, suit) for suit in SUITS for rank in RANKS)
"""The 40 cards in class-id order: 0 = AH ... 9 = 2H, 10 = AS ... 39 = 2C. The only such list."""


@dataclass(frozen=True, slots=True)
class Deck:
    """The 40 cards a variant plays with, and where its trunfo is shown from."""

    name: str
    ranks: tuple[Rank, ...]
    """The ranks in play, strongest first."""
    cut_ranks: tuple[Rank, ...] = ()
    """The rejected ranks whose packet is cut to show the trunfo; empty: the dealer turns one of
    his cards."""
    missing_hint: str = ""
    """Said after an unknown rank, to explain which ranks this deck leaves out."""
    cards: tuple[Card, ...] = field(init=False, repr=False, compare=False)
    """The cards dealt and played, suit-major H S D C, each suit strongest first."""
    cut_cards: tuple[Card, ...] = field(init=False, repr=False, compare=False)
    """The cards the trunfo may be shown with when it is not one of the dealer's own."""
    rank_letters: tuple[str, ...] = field(init=False, repr=False, compare=False)
    """The notation letters :meth:`Card.parse` reads with this deck: ranks in play, then cut
    ranks."""

    def __post_init__(self) -> None:
        # Built once: the engine asks for them on every deal.
        object.__setattr__(
            self, "cards", tuple(Card(rank, suit) for suit in SUITS for rank in self.ranks)
        )
        object.__setattr__(
            self, "cut_cards", tuple(Card(rank, suit) for suit in SUITS for rank in self.cut_ranks)
        )
        object.__setattr__(self, "rank_letters", tuple(rank.value for rank in self.readable_ranks))

    @property
    def readable_ranks(self) -> tuple[Rank, ...]:
        return self.ranks + tuple(rank for rank in self.cut_ranks if rank not in self.ranks)

    @property
    def trunfo_is_cut(self) -> bool:
        """True when the trunfo card comes from the rejected packet, so nobody holds or plays it."""
        return bool(self.cut_ranks)

    def __contains__(self, card: object) -> bool:
        return isinstance(card, Card) and card.rank in self.ranks

    def __repr__(self) -> str:
        return f"Deck({self.name!r})"


STANDARD_DECK = Deck(
    "standard",
    RANKS,
    missing_hint=" (8, 9 and 10 are not in the Sueca deck; the Azores deck plays the 10)",
)
"""The Sueca deck of :data:`DECK`: a 52-card pack without its 8s, 9s and 10s."""

AZORES_DECK = Deck(
    "azores",
    (
        Rank.ACE,
        Rank.TEN,
        Rank.KING,
        Rank.JACK,
        Rank.QUEEN,
        Rank.SIX,
        Rank.FIVE,
        Rank.FOUR,
        Rank.THREE,
        Rank.TWO,
    ),
    cut_ranks=(Rank.NINE, Rank.EIGHT, Rank.SEVEN),
)
"""The Azores deck: the 10 is the manilha instead of the 7, and the trunfo is cut from the 12
rejected 9s, 8s and 7s."""

_ANY_PLAYED = (
    Rank.ACE,
    Rank.SEVEN,
    Rank.TEN,
    Rank.KING,
    Rank.JACK,
    Rank.QUEEN,
    Rank.SIX,
    Rank.FIVE,
    Rank.FOUR,
    Rank.THREE,
    Rank.TWO,
)

PLAYABLE = Deck(
    "Sueca",
    _ANY_PLAYED,
    missing_hint=" (8 and 9 are not in the Sueca deck: they only show the Azores trunfo)",
)
"""Every card some variant plays: what the event log accepts as a play before the engine checks
the deck."""

PACK = Deck("pack", _ANY_PLAYED, cut_ranks=(Rank.NINE, Rank.EIGHT))
"""Every card some variant plays or shows its trunfo with: what the log accepts as a turned card."""


def card_from_index(index: int) -> Card:
    """The card whose class id is ``index`` (0-39)."""
    if not 0 <= index < len(DECK):
        raise InvalidCardError(f"card index {index} is out of range: class ids run from 0 to 39")
    return DECK[index]
