"""What a deal is worth in riscos, and the match as a fold over deals.

>>> from scorekeeper.rules.seats import PerTeam, Team
>>> r = Rules()
>>> riscos_for_points(90, tricks_won=9, rules=r), riscos_for_points(91, tricks_won=9, rules=r)
(1, 2)
>>> riscos_for_points(120, tricks_won=9, rules=r), riscos_for_points(120, tricks_won=10, rules=r)
(2, 4)
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from enum import Enum

from scorekeeper.rules.deal import POINTS_PER_DEAL, TRICKS_PER_DEAL, Deal
from scorekeeper.rules.seats import PerTeam, Team
from scorekeeper.rules.variants import (
    CAPOTE_RISCOS,
    CapoteRule,
    RenunciaClaim,
    RenunciaRule,
    Rules,
    TieRule,
)

WINNING_POINTS = 61
DOUBLE_POINTS = 91
HALF = POINTS_PER_DEAL // 2


def riscos_for_points(points: int, *, tricks_won: int, rules: Rules) -> int:
    """Riscos for the team that took ``points`` (> 60) in ``tricks_won`` vazas."""
    capote = (
        tricks_won == TRICKS_PER_DEAL
        if rules.capote is CapoteRule.ALL_TRICKS
        else points == POINTS_PER_DEAL
    )
    if capote:
        return CAPOTE_RISCOS
    if points >= DOUBLE_POINTS:
        return 2
    if points >= WINNING_POINTS:
        return 1
    return 0


class Ending(str, Enum):
    """How a deal ends up on the score sheet (so far, for a deal in progress)."""

    POINTS = "points"
    CAPOTE = "capote"
    RENUNCIA = "renuncia"
    TIE = "tie"
    THROWN_IN = "thrown_in"
    IN_PROGRESS = "in_progress"


@dataclass(frozen=True, slots=True, kw_only=True)
class DealOutcome:
    """How a deal ends up on the score sheet (so far, for a deal in progress)."""

    ending: Ending
    winner: Team | None = None
    riscos: int = 0
    """The riscos the deal itself is worth to ``winner``, before any tie carried into it."""

    @property
    def decided(self) -> bool:
        """True once the deal's riscos are settled: complete, ended by a penalised renúncia, or
        thrown in."""
        return self.ending is not Ending.IN_PROGRESS

    @property
    def tie(self) -> bool:
        return self.ending is Ending.TIE

    @property
    def thrown_in(self) -> bool:
        return self.ending is Ending.THROWN_IN

    def riscos_with(self, bonus: int) -> PerTeam:
        """Riscos per team once settled, ``bonus`` (ties carried into the deal) to the winner."""
        return PerTeam.only(self.winner, self.riscos + bonus)


def deal_outcome(deal: Deal, *, dismissed: Collection[tuple[int, int]] = ()) -> DealOutcome:
    """``dismissed``: (vaza, seat) of renúncias the table rejected, which are never penalised."""
    rules = deal.rules
    if deal.thrown_in is not None:
        return DealOutcome(ending=Ending.THROWN_IN)
    upheld = [r for r in deal.revokes if (r.trick, r.seat) not in dismissed]
    claimed = deal.is_complete or rules.renuncia_claim is RenunciaClaim.AT_ONCE
    if upheld and rules.renuncia is RenunciaRule.PENALIZE and claimed:
        first = upheld[0]
        return DealOutcome(
            ending=Ending.RENUNCIA, winner=first.team.opponents, riscos=rules.renuncia_riscos
        )
    if not deal.is_complete:
        return DealOutcome(ending=Ending.IN_PROGRESS)
    points = deal.points
    if points.nos == points.eles == HALF:
        return DealOutcome(ending=Ending.TIE)
    winner = Team.NOS if points.nos > HALF else Team.ELES
    riscos = riscos_for_points(points[winner], tricks_won=deal.tricks_won(winner), rules=rules)
    ending = Ending.CAPOTE if riscos == CAPOTE_RISCOS else Ending.POINTS
    return DealOutcome(ending=ending, winner=winner, riscos=riscos)


@dataclass(frozen=True, slots=True)
class MatchScore:
    """Riscos per team after some deals, and the ties waiting to be carried."""

    nos: int = 0
    eles: int = 0
    pending_ties: int = 0
    target: int = 4

    @property
    def winner(self) -> Team | None:
        if self.nos >= self.target:
            return Team.NOS
        if self.eles >= self.target:
            return Team.ELES
        return None

    def bonus_for_next(self, rules: Rules) -> int:
        return self.pending_ties if rules.tie is TieRule.CARRY else 0

    def after(self, outcome: DealOutcome, rules: Rules) -> MatchScore:
        """The score once ``outcome`` is settled (unchanged for a deal still in progress)."""
        if not outcome.decided or outcome.thrown_in:
            return (
                self  # a deal thrown in scores nothing and leaves any tie waiting for the next one
            )
        if outcome.tie:
            return MatchScore(self.nos, self.eles, self.pending_ties + 1, self.target)
        gained = outcome.riscos + self.bonus_for_next(rules)
        nos = self.nos + (gained if outcome.winner is Team.NOS else 0)
        eles = self.eles + (gained if outcome.winner is Team.ELES else 0)
        return MatchScore(nos, eles, 0, self.target)

    def to_json(self) -> dict[str, int]:
        return {Team.NOS.value: self.nos, Team.ELES.value: self.eles}
