"""What the engine makes of a match: typed, frozen results, turned into JSON only at the edge.

:func:`~scorekeeper.rules.record.replay_match` returns a :class:`MatchResult`: its rules, one
:class:`DealResult` per deal (vazas, the cards on the table, points and riscos per team as
:class:`PerTeam`, how it ended as an :class:`Ending`, its renúncias as :class:`RevokeResult`), the
match score and who deals next. ``to_json()`` gives what ``scorekeeper replay --json`` prints.

>>> from scorekeeper.rules.record import replay_match
>>> result = replay_match({"deals": [{"dealer": 3, "trump": "AH", "plays": ["2S", "3S"]}]})
>>> deal = result.deals[0]
>>> deal.table.to_play, deal.points, deal.ending
(2, PerTeam(nos=0, eles=0), <Ending.IN_PROGRESS: 'in_progress'>)
>>> result.score.nos, result.winner, result.next_dealer
(0, None, 0)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scorekeeper.rules.cards import Card, Suit
from scorekeeper.rules.deal import Revoke, ThrowInReason
from scorekeeper.rules.scoring import Ending, MatchScore
from scorekeeper.rules.seats import PerTeam, Team
from scorekeeper.rules.variants import Rules


@dataclass(frozen=True, slots=True)
class TrickResult:
    """A vaza gathered: who led, the four cards in order, who took it and its card points."""

    leader: int
    cards: tuple[Card, ...]
    winner: int
    points: int

    def to_json(self) -> dict[str, Any]:
        return {
            "leader": self.leader,
            "cards": [card.notation for card in self.cards],
            "winner": self.winner,
            "points": self.points,
        }


@dataclass(frozen=True, slots=True)
class TableCards:
    """The vaza being played: who led, the cards down so far, the seat to play (None once over)."""

    leader: int
    cards: tuple[Card, ...]
    to_play: int | None

    def to_json(self) -> dict[str, Any]:
        cards = [card.notation for card in self.cards]
        return {"leader": self.leader, "cards": cards, "to_play": self.to_play}


@dataclass(frozen=True, slots=True, kw_only=True)
class RevokeResult:
    """A proven renúncia and whether the table dismissed it (a dismissed one is never penalised)."""

    revoke: Revoke
    dismissed: bool

    @property
    def trick(self) -> int:
        return self.revoke.trick

    @property
    def seat(self) -> int:
        return self.revoke.seat

    @property
    def team(self) -> Team:
        return self.revoke.team

    def to_json(self) -> dict[str, Any]:
        return {**self.revoke.to_json(), "team": self.team.value, "dismissed": self.dismissed}


@dataclass(frozen=True, slots=True, kw_only=True)
class DealResult:
    """One deal replayed: ``number`` counts from 1 in the match; ``riscos`` already holds the
    ``bonus`` of ties carried into it."""

    number: int
    dealer: int
    turned: Card
    trump: Suit
    tricks: tuple[TrickResult, ...]
    table: TableCards
    points: PerTeam
    complete: bool
    thrown_in: ThrowInReason | None
    riscos: PerTeam
    ending: Ending
    bonus: int
    revokes: tuple[RevokeResult, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "dealer": self.dealer,
            "turned": self.turned.notation,
            "trump": self.trump.value,
            "tricks": [trick.to_json() for trick in self.tricks],
            "table": self.table.to_json(),
            "points": self.points.to_json(),
            "complete": self.complete,
            "thrown_in": self.thrown_in.value if self.thrown_in is not None else None,
            "riscos": self.riscos.to_json(),
            "outcome": self.ending.value,
            "bonus": self.bonus,
            "revokes": [revoke.to_json() for revoke in self.revokes],
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class MatchResult:
    """A match record replayed: every deal, the score after the last and who deals next."""

    rules: Rules
    deals: tuple[DealResult, ...]
    score: MatchScore
    next_dealer: int

    @property
    def winner(self) -> Team | None:
        return self.score.winner

    @property
    def current(self) -> DealResult | None:
        """The last deal: the one on the table, or the one just over."""
        return self.deals[-1] if self.deals else None

    def to_json(self) -> dict[str, Any]:
        winner = self.winner
        return {
            "rules": self.rules.to_json(),
            "deals": [deal.to_json() for deal in self.deals],
            "score": self.score.to_json(),
            "winner": winner.value if winner else None,
            "next_dealer": self.next_dealer,
        }
