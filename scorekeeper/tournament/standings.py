"""Standings and pairings of a tournament: pure functions over the games played, no I/O.

A game is two teams at a table for one round (Nós sits at seats 0 and 2, Eles at 1 and 3), or one
team's bye (folga). A finished game gives its winner the tournament's win points and the loser
its loss points; a bye counts as a win with no riscos. Teams are ranked by points, then by riscos
difference, then by riscos won, then by name.

>>> games = [Game(round=1, nos="Águias", eles="Bairro", score={"nos": 4, "eles": 1}, winner="nos")]
>>> [(row.team, row.points, row.diff) for row in standings(games, ["Águias", "Bairro"], Scoring())]
[('Águias', 3, 3), ('Bairro', 1, -3)]
>>> pair_round(["A", "B", "C", "D"], played={frozenset({"A", "B"})}, byes=set())
([('A', 'C'), ('B', 'D')], None)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from scorekeeper.errors import ScorekeeperError


class TournamentError(ScorekeeperError):
    """A tournament request that cannot be met (an unknown table, a round that cannot be paired)."""


@dataclass(frozen=True, slots=True)
class Scoring:
    """Tournament points per match won and lost (a municipal tournament: win 3, loss 1)."""

    win: int = 3
    loss: int = 1


@dataclass(frozen=True, slots=True)
class Game:
    round: int
    nos: str
    eles: str | None
    """None: a bye (folga) for ``nos``."""
    table: str | None = None
    match: int | None = None
    """The table's match number this game is played as."""
    score: Mapping[str, int] | None = None
    """Riscos ``{"nos", "eles"}`` so far, None before the table has a log for the match."""
    winner: str | None = None
    """``"nos"`` or ``"eles"`` once the match is won."""
    corrected: bool = False
    """The organiser's correction replaced what the table recorded."""

    @property
    def finished(self) -> bool:
        return self.eles is None or self.winner is not None


@dataclass(slots=True)
class Standing:
    team: str
    played: int = 0
    won: int = 0
    lost: int = 0
    points: int = 0
    riscos_for: int = 0
    riscos_against: int = 0
    opponents: list[str] = field(default_factory=list)

    @property
    def diff(self) -> int:
        return self.riscos_for - self.riscos_against

    def to_json(self) -> dict[str, object]:
        return {
            "team": self.team,
            "played": self.played,
            "won": self.won,
            "lost": self.lost,
            "points": self.points,
            "riscos_for": self.riscos_for,
            "riscos_against": self.riscos_against,
            "diff": self.diff,
        }


def standings(games: Iterable[Game], teams: Sequence[str], scoring: Scoring) -> list[Standing]:
    """Every team ranked by the finished games (unfinished ones count for nothing yet)."""
    rows = {team: Standing(team) for team in teams}
    for game in games:
        if game.eles is None:
            bye = rows[game.nos]
            bye.played += 1
            bye.won += 1
            bye.points += scoring.win
            continue
        for side, other in (("nos", "eles"), ("eles", "nos")):
            row = rows[getattr(game, side)]
            row.opponents.append(getattr(game, other))
            if game.winner is None or game.score is None:
                continue
            row.played += 1
            row.riscos_for += game.score[side]
            row.riscos_against += game.score[other]
            if game.winner == side:
                row.won += 1
                row.points += scoring.win
            else:
                row.lost += 1
                row.points += scoring.loss
    return sorted(rows.values(), key=lambda r: (-r.points, -r.diff, -r.riscos_for, r.team))


def pair_round(
    ranked: Sequence[str], *, played: set[frozenset[str]], byes: set[str]
) -> tuple[list[tuple[str, str]], str | None]:
    """Pair teams in standings order, each with the best-placed team it has not met yet.

    With an odd number of teams the lowest-placed team that has had no bye sits this round out
    (one that has, only when nobody else can).
    Backtracks when a greedy choice leaves someone with nobody new to play; raises
    :class:`TournamentError` when every pairing would repeat an opponent.
    """
    candidates: list[str | None] = [None]
    if len(ranked) % 2:
        # Those who have not sat out yet come first, lowest placed first; the others if need be.
        order = list(reversed(ranked))
        candidates = [t for t in order if t not in byes]
        candidates += [t for t in order if t in byes]
    for bye in candidates:
        pool = [team for team in ranked if team != bye]
        pairs = _pair(pool, played)
        if pairs is not None:
            return pairs, bye
    raise TournamentError(
        f"no pairing of these {len(ranked)} teams avoids a repeat opponent: "
        "the tournament has run its rounds"
    )


def _pair(pool: list[str], played: set[frozenset[str]]) -> list[tuple[str, str]] | None:
    if not pool:
        return []
    first, rest = pool[0], pool[1:]
    for index, other in enumerate(rest):
        if frozenset((first, other)) in played:
            continue
        tail = _pair(rest[:index] + rest[index + 1 :], played)
        if tail is not None:
            return [(first, other), *tail]
    return None
