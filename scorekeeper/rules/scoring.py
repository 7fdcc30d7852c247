"""What a deal is worth in riscos, and the match as a fold over deals.

>>> from scorekeeper.rules.seats import Team
>>> riscos_for_points(90, tricks_won=9, rules=Rules()), riscos_for_points(91, tricks_won=9, rules=Rules())
(1, 2)
>>> riscos_for_points(120, tricks_won=9, rules=Rules()), riscos_for_points(120, tricks_won=10, rules=Rules())
(2, 4)
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass

from scorekeeper.rules.deal import POINTS_PER_DEAL, TRICKS_PER_DEAL, Deal
from scorekeeper.rules.seats import Team
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


@dataclass(frozen=True, slots=True)
class DealOutcome:
    """How a deal ends up on the score sheet (so far, for a deal in progress)."""

    winner: Team | None
    riscos: int
    decided: bool
    """True once the deal's riscos are settled: complete, ended by a penalised renúncia, or thrown in."""
    tie: bool
    reason: str
    """``points``, ``capote``, ``renuncia``, ``tie``, ``thrown_in`` or ``in_progress``."""

    @property
    def thrown_in(self) -> bool:
        return self.reason == "thrown_in"

    def riscos_json(self, bonus: int = 0) -> dict[str, int]:
        score = {Team.NOS.value: 0, Team.ELES.value: 0}
        if self.winner is not None:
            score[self.winner.value] = self.riscos + bonus
        return score


def deal_outcome(deal: Deal, *, dismissed: Collection[tuple[int, int]] = ()) -> DealOutcome:
    """``dismissed``: (vaza, seat) of renúncias the table rejected, which are never penalised."""
    rules = deal.rules
    if deal.thrown_in is not None:
        return DealOutcome(None, 0, True, False, "thrown_in")
    upheld = [r for r in deal.revokes if (r.trick, r.seat) not in dismissed]
    claimed = deal.is_complete or rules.renuncia_claim is RenunciaClaim.AT_ONCE
    if upheld and rules.renuncia is RenunciaRule.PENALIZE and claimed:
        first = upheld[0]
        return DealOutcome(first.team.opponents, rules.renuncia_riscos, True, False, "renuncia")
    if not deal.is_complete:
        return DealOutcome(None, 0, False, False, "in_progress")
    points = deal.points
    if points[Team.NOS.value] == points[Team.ELES.value] == HALF:
        return DealOutcome(None, 0, True, True, "tie")
    winner = Team.NOS if points[Team.NOS.value] > HALF else Team.ELES
    riscos = riscos_for_points(points[winner.value], tricks_won=deal.tricks_won(winner), rules=rules)
    return DealOutcome(winner, riscos, True, False, "capote" if riscos == CAPOTE_RISCOS else "points")


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
            return self  # a deal thrown in scores nothing and leaves any tie waiting for the next one
        if outcome.tie:
            return MatchScore(self.nos, self.eles, self.pending_ties + 1, self.target)
        gained = outcome.riscos + self.bonus_for_next(rules)
        nos = self.nos + (gained if outcome.winner is Team.NOS else 0)
        eles = self.eles + (gained if outcome.winner is Team.ELES else 0)
        return MatchScore(nos, eles, 0, self.target)

    def to_json(self) -> dict[str, int]:
        return {Team.NOS.value: self.nos, Team.ELES.value: self.eles}


def score_deals(deals: Iterable[Deal], rules: Rules) -> MatchScore:
    score = MatchScore(target=rules.target)
    for deal in deals:
        score = score.after(deal_outcome(deal), rules)
    return score
