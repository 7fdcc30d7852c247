"""Rule sets: the tournament default and each variant the seeds name, as plain data.

>>> Rules()
Rules(tie='nothing', capote='all_tricks', target=4, first_lead='after_dealer', renuncia='penalize')
>>> Rules.from_json({"tie": "carry", "target": 7}).tie
<TieRule.CARRY: 'carry'>
>>> Rules.preset("brazil").tie.value
'carry'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from enum import Enum
from typing import Any

from scorekeeper.errors import RulesError


class TieRule(str, Enum):
    """What a 60-60 deal does."""

    NOTHING = "nothing"
    """Nobody scores; the next deal is worth what it is worth (tournament rule)."""
    CARRY = "carry"
    """Nobody scores; the next decided deal is worth one more risco per consecutive tie."""


class CapoteRule(str, Enum):
    """What earns the 4 riscos of a capote (bandeira)."""

    ALL_TRICKS = "all_tricks"
    """All ten vazas (tournament rule): 120 points with a lost pointless vaza is only 2."""
    ALL_POINTS = "all_points"
    """120 points suffice."""


class FirstLead(str, Enum):
    """Who leads the first vaza of a deal."""

    AFTER_DEALER = "after_dealer"
    """The seat after the dealer, at the dealer's right (tournament rule)."""
    CUTTER = "cutter"
    """The player who cut: the seat before the dealer."""


class RenunciaRule(str, Enum):
    """What a proven renúncia (revoke) does to the score."""

    PENALIZE = "penalize"
    """The first proven revoke of a deal gives the opponents 4 riscos; the deal's points don't count."""
    IGNORE = "ignore"
    """Reported only; the deal is scored on its points."""


DEFAULT_TARGET = 4
CAPOTE_RISCOS = 4
RENUNCIA_RISCOS = 4


@dataclass(frozen=True, slots=True)
class Rules:
    """One table's rule set; the defaults are the Portuguese tournament rules."""

    tie: TieRule = TieRule.NOTHING
    capote: CapoteRule = CapoteRule.ALL_TRICKS
    target: int = DEFAULT_TARGET
    first_lead: FirstLead = FirstLead.AFTER_DEALER
    renuncia: RenunciaRule = RenunciaRule.PENALIZE

    def __post_init__(self) -> None:
        if isinstance(self.target, bool) or not isinstance(self.target, int) or self.target < 1:
            raise RulesError(f"target {self.target!r} is not a positive whole number of riscos: use 4, 7 or 10")

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> Rules:
        """Read the ``rules`` object of a match record; every key is optional."""
        if data is None:
            return cls()
        if not isinstance(data, Mapping):
            raise RulesError(f"rules must be a JSON object like {{\"tie\": \"carry\"}}, not {data!r}")
        known = {f.name: f for f in fields(cls)}
        unknown = sorted(set(data) - set(known))
        if unknown:
            raise RulesError(f"unknown rule {unknown[0]!r}: the rules are {', '.join(known)}")
        values: dict[str, Any] = {}
        for name, value in data.items():
            kind = _ENUMS.get(name)
            if kind is None:
                values[name] = value
                continue
            try:
                values[name] = kind(value)
            except ValueError:
                choices = ", ".join(repr(member.value) for member in kind)
                raise RulesError(f"rule {name}={value!r} is unknown: choose {choices}") from None
        return cls(**values)

    def to_json(self) -> dict[str, Any]:
        return {
            "tie": self.tie.value,
            "capote": self.capote.value,
            "target": self.target,
            "first_lead": self.first_lead.value,
            "renuncia": self.renuncia.value,
        }

    @classmethod
    def preset(cls, name: str) -> Rules:
        """A named reading of the seeds: ``tournament``, ``brazil``, ``cafe``."""
        try:
            return PRESETS[name]
        except KeyError:
            raise RulesError(f"unknown preset {name!r}: choose {', '.join(PRESETS)}") from None

    def with_changes(self, **changes: Any) -> Rules:
        return replace(self, **changes)

    def __repr__(self) -> str:
        return (
            f"Rules(tie={self.tie.value!r}, capote={self.capote.value!r}, target={self.target}, "
            f"first_lead={self.first_lead.value!r}, renuncia={self.renuncia.value!r})"
        )


_ENUMS: dict[str, type[Enum]] = {
    "tie": TieRule,
    "capote": CapoteRule,
    "first_lead": FirstLead,
    "renuncia": RenunciaRule,
}

PRESETS: dict[str, Rules] = {
    # seed 003: Portuguese tournament regulations (Vila Flor, Almeirim).
    "tournament": Rules(),
    # seed 001 (pagat): a 60-60 tie makes the next deal worth an extra game; Brazil plays clockwise,
    # which only changes the chairs, not the engine.
    "brazil": Rules(tie=TieRule.CARRY),
    # seed 003's "à certaines tables": 120 points are a capote and the cutter leads.
    "cafe": Rules(capote=CapoteRule.ALL_POINTS, first_lead=FirstLead.CUTTER),
}
