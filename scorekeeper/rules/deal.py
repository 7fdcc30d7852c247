"""One deal as an explicit, immutable state machine.

``Deal.start`` opens a deal; ``deal.play(card)`` returns the next state. The engine is strict about
what cannot happen on a real table (a card played twice, the turned card played by someone other
than the dealer, a card after the tenth vaza) and tolerant about what players can do wrong: a
renúncia is recorded and proven from later plays, never refused, because the camera records what
happened, not what should have.

>>> from scorekeeper.rules.cards import Card
>>> deal = Deal.start(dealer=3, turned=Card.parse("AH"))
>>> deal.to_play, deal.trump.value
(0, 'H')
>>> deal = deal.play(Card.parse("2S")).play(Card.parse("KS"))
>>> deal.current_trick.cards, deal.current_trick.winner(deal.trump)
((Card.parse('2S'), Card.parse('KS')), 1)
>>> deal.throw_in(ThrowInReason.MANUAL).phase
<Phase.THROWN_IN: 'thrown_in'>
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from enum import Enum

from scorekeeper.errors import IllegalPlayError
from scorekeeper.rules.cards import Card, Deck, Suit
from scorekeeper.rules.seats import SEATS, PerTeam, Team, next_seat, seat_label, team_of
from scorekeeper.rules.trick import Trick
from scorekeeper.rules.variants import FirstLead, Rules

TRICKS_PER_DEAL = 10
POINTS_PER_DEAL = 120


class Phase(str, Enum):
    """Where a deal stands; ``AWAITING_TURN`` is a table with no deal yet (the tracker waits for the
    turned card)."""

    AWAITING_TURN = "awaiting_turn"
    PLAYING = "playing"
    COMPLETE = "complete"
    THROWN_IN = "thrown_in"
    """Void: no score, and the same dealer deals again."""


class ThrowInReason(str, Enum):
    """Why a deal was thrown in."""

    MELAR = "melar"
    """The first player, with less than 10 points in hand, spoils the deal (rule ``melar``)."""
    JOGO_ABAIXO = "jogo_abaixo"
    """A player with a very weak hand asks for a redeal (rule ``jogo_abaixo``)."""
    MANUAL = "manual"
    """The table voided it for a reason of its own (a misdeal): allowed under every rule set."""


@dataclass(frozen=True, slots=True)
class Revoke:
    """A proven renúncia: ``seat`` played ``card`` on ``led`` in vaza ``trick``, holding ``led``."""

    trick: int
    seat: int
    card: Card
    led: Suit
    proof: str
    proven_in_trick: int

    @property
    def team(self) -> Team:
        return team_of(self.seat)

    def to_json(self) -> dict[str, object]:
        return {
            "seat": self.seat,
            "trick": self.trick,
            "card": self.card.notation,
            "led": self.led.value,
            "proof": self.proof,
            "proven_in_trick": self.proven_in_trick,
        }


@dataclass(frozen=True, slots=True)
class _VoidClaim:
    """A seat did not follow ``suit`` in vaza ``trick``: a renúncia if it later shows that suit."""

    seat: int
    suit: Suit
    trick: int
    card: Card


@dataclass(frozen=True, slots=True)
class Deal:
    """State of one deal. Build with :meth:`start`; never mutate, :meth:`play` returns a new one."""

    dealer: int
    turned: Card
    rules: Rules = field(default_factory=Rules)
    tricks: tuple[Trick, ...] = ()
    current_trick: Trick = field(default_factory=lambda: Trick(leader=0))
    played: frozenset[Card] = frozenset()
    revokes: tuple[Revoke, ...] = ()
    _claims: tuple[_VoidClaim, ...] = ()
    thrown_in: ThrowInReason | None = None

    @classmethod
    def start(cls, *, dealer: int, turned: Card, rules: Rules | None = None) -> Deal:
        if dealer not in SEATS:
            raise IllegalPlayError(f"dealer {dealer!r} is not a seat: seats are 0, 1, 2 and 3")
        rules = rules or Rules()
        deck = rules.deck.deck
        if deck.trunfo_is_cut and turned not in deck.cut_cards:
            ranks = ", ".join(rank.value for rank in deck.cut_ranks)
            raise IllegalPlayError(
                f"trunfo card {turned} is not one of the rejected cards ({ranks}) "
                f"the {deck.name} trunfo is cut from"
            )
        if not deck.trunfo_is_cut and turned not in deck:
            raise IllegalPlayError(
                f"trunfo card {turned} is not in the {deck.name} deck: "
                "the dealer turns one of his cards"
            )
        steps = 1 if rules.first_lead is FirstLead.AFTER_DEALER else -1
        return cls(
            dealer=dealer,
            turned=turned,
            rules=rules,
            current_trick=Trick(leader=next_seat(dealer, steps)),
        )

    # -- derived state -------------------------------------------------------------------------

    @property
    def trump(self) -> Suit:
        return self.turned.suit

    @property
    def deck(self) -> Deck:
        return self.rules.deck.deck

    @property
    def phase(self) -> Phase:
        if self.thrown_in is not None:
            return Phase.THROWN_IN
        return Phase.COMPLETE if len(self.tricks) == TRICKS_PER_DEAL else Phase.PLAYING

    @property
    def is_complete(self) -> bool:
        return self.phase is Phase.COMPLETE

    @property
    def leader(self) -> int:
        return self.current_trick.leader

    @property
    def to_play(self) -> int | None:
        if self.phase is not Phase.PLAYING:
            return None
        return self.current_trick.seat_of(len(self.current_trick.cards))

    @property
    def trick_number(self) -> int:
        """The vaza being played now, from 1 (11 once the deal is complete)."""
        return len(self.tricks) + 1

    @property
    def plays(self) -> tuple[Card, ...]:
        """Every card played this deal, in the order played."""
        return (
            tuple(card for trick in self.tricks for card in trick.cards) + self.current_trick.cards
        )

    @property
    def play_count(self) -> int:
        return len(self.played)

    @property
    def turned_in_hand(self) -> bool:
        """The dealer still holds the turned card (never where the trunfo is cut from the rejected
        cards)."""
        return not self.deck.trunfo_is_cut and self.turned not in self.played

    @property
    def points(self) -> PerTeam:
        """The card points each team took in the vazas gathered so far."""
        totals = PerTeam()
        for trick in self.tricks:
            winner = trick.winner(self.trump)
            assert winner is not None
            totals += PerTeam.only(team_of(winner), trick.points)
        return totals

    def tricks_won(self, team: Team) -> int:
        return sum(1 for trick in self.tricks if team_of(trick.winner(self.trump) or 0) is team)

    # -- plays ---------------------------------------------------------------------------------

    def check_play(self, card: Card) -> None:
        """Raise :class:`IllegalPlayError` with the reason if ``card`` cannot be the next play."""
        if self.thrown_in is not None:
            raise IllegalPlayError(
                f"{card} comes after the deal was thrown in ({self.thrown_in.value}): "
                f"the same dealer ({seat_label(self.dealer)}) deals again, start a new deal"
            )
        if self.is_complete:
            raise IllegalPlayError(
                f"{card} comes after the tenth vaza: the deal is over, start a new deal"
            )
        if card not in self.deck:
            raise IllegalPlayError(f"{card} is not in the {self.deck.name} deck of this game")
        if card in self.played:
            trick = self._trick_of(card)
            raise IllegalPlayError(
                f"{card} was already played in vaza {trick}: each card is played once"
            )
        seat = self.to_play
        assert seat is not None  # a deal not complete has a seat to play
        if card == self.turned and seat != self.dealer:
            raise IllegalPlayError(
                f"{card} is the turned trunfo, "
                f"which belongs to the dealer ({seat_label(self.dealer)}), "
                f"but {seat_label(seat)} is to play"
            )

    def can_play(self, card: Card) -> bool:
        try:
            self.check_play(card)
        except IllegalPlayError:
            return False
        return True

    def play(self, card: Card) -> Deal:
        """The state after the seat to play plays ``card``; a renúncia is recorded, not refused."""
        self.check_play(card)
        seat = self.to_play
        assert seat is not None
        trick_no = self.trick_number
        led = self.current_trick.led
        claims = self._claims
        revokes = list(self.revokes)

        proven = [c for c in claims if c.seat == seat and c.suit is card.suit]
        for claim in proven:
            revokes.append(
                Revoke(
                    trick=claim.trick,
                    seat=seat,
                    card=claim.card,
                    led=claim.suit,
                    proof=(
                        f"{seat_label(seat)} played {claim.card} on {claim.suit.portuguese} "
                        f"in vaza {claim.trick}, "
                        f"then {card} in vaza {trick_no}: it still held {claim.suit.portuguese}"
                    ),
                    proven_in_trick=trick_no,
                )
            )
        claims = tuple(c for c in claims if c not in proven)

        if led is not None and card.suit is not led:
            dealer_holds_trump = seat == self.dealer and led is self.trump and self.turned_in_hand
            if dealer_holds_trump:
                revokes.append(
                    Revoke(
                        trick=trick_no,
                        seat=seat,
                        card=card,
                        led=led,
                        proof=(
                            f"the dealer ({seat_label(seat)}) played {card} "
                            f"on trunfo {led.portuguese} "
                            f"while still holding the turned card {self.turned}"
                        ),
                        proven_in_trick=trick_no,
                    )
                )
            else:
                claims = claims + (_VoidClaim(seat=seat, suit=led, trick=trick_no, card=card),)

        trick = self.current_trick.with_card(card)
        tricks = self.tricks
        if trick.is_complete:
            tricks = tricks + (trick,)
            winner = trick.winner(self.trump)
            assert winner is not None
            trick = Trick(leader=winner)
        return replace(
            self,
            tricks=tricks,
            current_trick=trick,
            played=self.played | {card},
            revokes=tuple(revokes),
            _claims=claims,
        )

    def check_throw_in(self, reason: ThrowInReason) -> None:
        """Raise :class:`IllegalPlayError` with the reason if the deal cannot be thrown in."""
        if self.thrown_in is not None:
            raise IllegalPlayError(f"the deal was already thrown in ({self.thrown_in.value})")
        if self.is_complete:
            raise IllegalPlayError(
                "the deal is complete and scored: a deal is thrown in before its end; "
                "undo or correct it instead"
            )
        if reason is ThrowInReason.MANUAL:
            return
        allowed = self.rules.melar if reason is ThrowInReason.MELAR else self.rules.jogo_abaixo
        if not allowed:
            raise IllegalPlayError(
                f"{reason.value} is not played under these rules: "
                f"switch it on ({reason.value}=true) "
                "or throw the deal in as manual"
            )
        if self.plays:
            raise IllegalPlayError(
                f"{reason.value} is called before the first lead, "
                f"but {len(self.plays)} cards were played: "
                "throw the deal in as manual"
            )

    def throw_in(self, reason: ThrowInReason) -> Deal:
        """The deal made void: no score, and the same dealer deals again."""
        self.check_throw_in(reason)
        return replace(self, thrown_in=reason)

    def play_all(self, cards: Iterable[Card]) -> Deal:
        deal = self
        for card in cards:
            deal = deal.play(card)
        return deal

    def legal_plays(self, hand: Iterable[Card]) -> tuple[Card, ...]:
        """The cards of ``hand`` that follow suit, or all of them when the hand is void in it."""
        cards = tuple(hand)
        led = self.current_trick.led
        if led is None:
            return cards
        following = tuple(card for card in cards if card.suit is led)
        return following or cards

    def _trick_of(self, card: Card) -> int:
        for number, trick in enumerate(self.tricks, start=1):
            if card in trick.cards:
                return number
        return self.trick_number
