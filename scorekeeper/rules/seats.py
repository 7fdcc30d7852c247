"""Seats and teams. Seats are numbered 0-3 in playing order; which chairs they are is not our
concern.

>>> team_of(2), team_of(3)
(<Team.NOS: 'nos'>, <Team.ELES: 'eles'>)
>>> next_seat(3)
0
>>> seat_label(2), seat_label(1, "Ana")
('Jogador 3 (Nós)', 'Ana (Eles)')
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

SEATS: tuple[int, ...] = (0, 1, 2, 3)


class Team(str, Enum):
    NOS = "nos"
    """Seats 0 and 2."""
    ELES = "eles"
    """Seats 1 and 3."""

    @property
    def opponents(self) -> Team:
        return Team.ELES if self is Team.NOS else Team.NOS

    @property
    def label(self) -> str:
        return "Nós" if self is Team.NOS else "Eles"


@dataclass(frozen=True, slots=True)
class PerTeam:
    """A count for each team (card points, riscos): ``per_team[Team.NOS]``."""

    nos: int = 0
    eles: int = 0

    @classmethod
    def only(cls, team: Team | None, count: int) -> PerTeam:
        """``count`` for ``team``, nothing for the other (nothing at all for no team)."""
        if team is Team.NOS:
            return cls(nos=count)
        return cls(eles=count) if team is Team.ELES else cls()

    def __getitem__(self, team: Team) -> int:
        if team is Team.NOS:
            return self.nos
        if team is Team.ELES:
            return self.eles
        raise KeyError(f"{team!r} is not a team: use Team.NOS or Team.ELES")

    def __add__(self, other: PerTeam) -> PerTeam:
        return PerTeam(nos=self.nos + other.nos, eles=self.eles + other.eles)

    def to_json(self) -> dict[str, int]:
        return {Team.NOS.value: self.nos, Team.ELES.value: self.eles}


def team_of(seat: int) -> Team:
    return Team.NOS if seat % 2 == 0 else Team.ELES


def next_seat(seat: int, steps: int = 1) -> int:
    return (seat + steps) % len(SEATS)


def seat_label(seat: int, name: str = "") -> str:
    """How people see a seat everywhere (terminal, page, pictures): "Jogador 1" to "Jogador 4"
    for seats 0-3, or the player's name, then the team."""
    return f"{name or f'Jogador {seat + 1}'} ({team_of(seat).label})"
