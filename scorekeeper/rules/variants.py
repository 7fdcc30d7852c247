"""Rule sets: the tournament default and each variant the seeds name, as plain data.

>>> Rules()
Rules()
>>> Rules.from_json({"tie": "carry", "target": 7})
Rules(tie='carry', target=7)
>>> Rules.preset("brazil").tie.value
'carry'
>>> Rules.preset("azores").deck.deck.cards[1]
Card.parse('TH', deck=AZORES_DECK)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from enum import Enum
from typing import Any

from scorekeeper.errors import RulesError
from scorekeeper.rules.cards import AZORES_DECK, STANDARD_DECK, Deck


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
    """The first proven revoke of a deal gives the opponents ``renuncia_riscos``; the deal's points
    don't count."""
    IGNORE = "ignore"
    """Reported only; the deal is scored on its points."""


class RenunciaClaim(str, Enum):
    """When a renúncia is claimed, so when its penalty settles the deal."""

    AT_ONCE = "at_once"
    """Play stops at the renúncia: the deal is settled once proven, later cards don't count."""
    END_OF_DEAL = "end_of_deal"
    """The claim is accepted only at the end of the deal: the ten vazas are played, then it is
    penalised."""


class DeckRule(str, Enum):
    """Which 40 cards are played and how the trunfo is shown."""

    STANDARD = "standard"
    """A 52-card pack without 8s, 9s and 10s; the dealer turns one of his own cards."""
    AZORES = "azores"
    """Without 9s, 8s and 7s: the 10 is the manilha, the trunfo cut from the 12 rejected cards."""

    @property
    def deck(self) -> Deck:
        return AZORES_DECK if self is DeckRule.AZORES else STANDARD_DECK


class SheetStyle(str, Enum):
    """How the score sheet is drawn; the score itself is the same."""

    TRACOS = "tracos"
    """Two columns, Nós and Eles, a stroke per risco."""
    CRUZ = "cruz"
    """Dots at the ends of the arms of a cross, and a loop round the winners' dots for a pente."""


DEFAULT_TARGET = 4
CAPOTE_RISCOS = 4
RENUNCIA_RISCOS = 4


@dataclass(frozen=True, slots=True)
class Rules:
    """One table's rule set; the defaults are the Portuguese tournament rules.

    Values may be given as the enums or as their JSON strings (``Rules(tie="carry")``).
    """

    tie: TieRule = TieRule.NOTHING
    capote: CapoteRule = CapoteRule.ALL_TRICKS
    target: int = DEFAULT_TARGET
    first_lead: FirstLead = FirstLead.AFTER_DEALER
    renuncia: RenunciaRule = RenunciaRule.PENALIZE
    renuncia_riscos: int = RENUNCIA_RISCOS
    """Riscos a penalised renúncia gives the opponents."""
    renuncia_claim: RenunciaClaim = RenunciaClaim.AT_ONCE
    melar: bool = False
    """The first player, with under 10 points in hand, may spoil the deal before the first lead."""
    jogo_abaixo: bool = False
    """A player with a very weak hand (under 10 points, no trunfo) may ask for a redeal before the
    first lead."""
    deck: DeckRule = DeckRule.STANDARD
    sheet: SheetStyle = SheetStyle.TRACOS

    def __post_init__(self) -> None:
        for name, kind in _ENUMS.items():
            value = getattr(self, name)
            if not isinstance(value, kind):
                object.__setattr__(self, name, _enum_value(name, kind, value))
        for name in ("target", "renuncia_riscos"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise RulesError(
                    f"{name} {value!r} is not a positive whole number of riscos: {_HINTS[name]}"
                )
        for name in _SWITCHES:
            value = getattr(self, name)
            if not isinstance(value, bool):
                raise RulesError(f"rule {name}={value!r} is a switch: use true or false")

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> Rules:
        """Read the ``rules`` object of a match record; every key is optional."""
        if data is None:
            return cls()
        if not isinstance(data, Mapping):
            raise RulesError(f'rules must be a JSON object like {{"tie": "carry"}}, not {data!r}')
        known = [f.name for f in fields(cls)]
        unknown = sorted(set(data) - set(known))
        if unknown:
            raise RulesError(f"unknown rule {unknown[0]!r}: the rules are {', '.join(known)}")
        return cls(**data)

    def to_json(self) -> dict[str, Any]:
        return {f.name: _json_value(getattr(self, f.name)) for f in fields(self)}

    @classmethod
    def preset(cls, name: str) -> Rules:
        """A named reading of the seeds: see :data:`PRESETS`."""
        try:
            return PRESETS[name]
        except KeyError:
            raise RulesError(f"unknown preset {name!r}: choose {', '.join(PRESETS)}") from None

    def with_changes(self, **changes: Any) -> Rules:
        return replace(self, **changes)

    def __repr__(self) -> str:
        default = _DEFAULT_JSON
        changed = [
            f"{name}={value!r}" for name, value in self.to_json().items() if value != default[name]
        ]
        return f"Rules({', '.join(changed)})"


def _enum_value(name: str, kind: type[Enum], value: Any) -> Enum:
    try:
        return kind(value)
    except ValueError:
        choices = ", ".join(repr(member.value) for member in kind)
        raise RulesError(f"rule {name}={value!r} is unknown: choose {choices}") from None


def _json_value(value: Any) -> Any:
    return value.value if isinstance(value, Enum) else value


_ENUMS: dict[str, type[Enum]] = {
    "tie": TieRule,
    "capote": CapoteRule,
    "first_lead": FirstLead,
    "renuncia": RenunciaRule,
    "renuncia_claim": RenunciaClaim,
    "deck": DeckRule,
    "sheet": SheetStyle,
}
_SWITCHES = ("melar", "jogo_abaixo")
_HINTS = {
    "target": "use 4, 7 or 10",
    "renuncia_riscos": "use 4, or 2 where a renúncia loses two games",
}
_DEFAULT_JSON = {f.name: _json_value(f.default) for f in fields(Rules)}

PRESETS: dict[str, Rules] = {
    # seed 003: Portuguese tournament regulations (Almeirim; Vila Flor but for the renúncia claim).
    "tournament": Rules(),
    # seed 003: the Vila Flor regulation accepts a renúncia claimed only at the end of the deal.
    "vila_flor": Rules(renuncia_claim=RenunciaClaim.END_OF_DEAL),
    # seed 001 (pagat): a 60-60 tie makes the next deal worth an extra game, and the first player
    # may spoil (melar) a weak deal; Brazil plays clockwise, which only changes the chairs, not the
    # engine.
    "brazil": Rules(tie=TieRule.CARRY, melar=True),
    # seed 003's "à certaines tables": 120 points are a capote and the cutter leads.
    "cafe": Rules(capote=CapoteRule.ALL_POINTS, first_lead=FirstLead.CUTTER),
    # seed 001: the Azores play the 10 as manilha and cut the trunfo from the 12 rejected cards.
    "azores": Rules(deck=DeckRule.AZORES),
    # seed 001: northern Portugal keeps the score as dots at the ends of the arms of a cross.
    "norte": Rules(sheet=SheetStyle.CRUZ),
}
