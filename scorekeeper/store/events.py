"""The events a table's log is made of: frozen values, one class per thing that happens.

Each event carries only what it needs; the table, the sequence number and the time are given by the
store when it is appended (:class:`StoredEvent`). Cards are checked and normalised on construction,
so a bad card never reaches the log:

>>> CardPlayed("7h")
CardPlayed(card='7H', frame=None)
>>> event_from_json("deal_started", {"dealer": 3, "turned": "ah"})
DealStarted(dealer=3, turned='AH')
>>> event_to_json(Undone(seq=12))
('undone', {'seq': 12})
"""

from __future__ import annotations

import dataclasses
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, ClassVar

from scorekeeper.errors import ScorekeeperError
from scorekeeper.rules import PACK, PLAYABLE, SEATS, Card, ThrowInReason
from scorekeeper.rules.record import MAX_PLAYS


class StoreError(ScorekeeperError):
    """An event that cannot go into the log: malformed, or meaningless where it would go."""


class ConflictError(StoreError):
    """Someone else appended first: the log is not at the sequence number the writer expected."""


def _card(text: Any) -> str:
    # Any card a variant plays (the Azores 10s too): the replay checks the table's own deck.
    return Card.parse(text, deck=PLAYABLE).notation


def _turned(text: Any) -> str:
    # The Azores cut their trunfo from the rejected 9s, 8s and 7s.
    return Card.parse(text, deck=PACK).notation


def _seat(value: Any, what: str) -> int:
    if isinstance(value, bool) or value not in SEATS:
        raise StoreError(f"{what} {value!r} is not a seat: use 0, 1, 2 or 3")
    return int(value)


def _positive(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise StoreError(f"{what} {value!r} is not a number counted from 1")
    return value


def _set(event: object, name: str, value: Any) -> None:
    object.__setattr__(event, name, value)  # normalising a frozen dataclass in __post_init__


@dataclass(frozen=True, slots=True)
class DealStarted:
    """The dealer turned a card: a new deal begins with that card's suit as trunfo."""

    kind: ClassVar[str] = "deal_started"
    dealer: int
    turned: str

    def __post_init__(self) -> None:
        _set(self, "dealer", _seat(self.dealer, "dealer"))
        _set(self, "turned", _turned(self.turned))


@dataclass(frozen=True, slots=True)
class CardPlayed:
    """The next card of the current deal; the engine knows whose turn it was."""

    kind: ClassVar[str] = "card_played"
    card: str
    frame: int | None = None
    """The video frame it was seen in, when a camera saw it (for audits; not used by the score)."""

    def __post_init__(self) -> None:
        _set(self, "card", _card(self.card))


@dataclass(frozen=True, slots=True)
class TrickGathered:
    """Someone gathered the vaza. Informational: the engine closes a vaza on its fourth card."""

    kind: ClassVar[str] = "trick_gathered"
    frame: int | None = None


@dataclass(frozen=True, slots=True)
class CardCorrected:
    """Play number ``play`` (from 1) of deal ``deal`` (from 1) was really ``card``."""

    kind: ClassVar[str] = "card_corrected"
    deal: int
    play: int
    card: str

    def __post_init__(self) -> None:
        _positive(self.deal, "deal")
        _positive(self.play, "play")
        _set(self, "card", _card(self.card))


@dataclass(frozen=True, slots=True)
class DealCorrected:
    """Deal ``deal`` (from 1) really had this dealer and/or this turned card."""

    kind: ClassVar[str] = "deal_corrected"
    deal: int
    dealer: int | None = None
    turned: str | None = None

    def __post_init__(self) -> None:
        _positive(self.deal, "deal")
        if self.dealer is None and self.turned is None:
            raise StoreError("a deal correction needs a new dealer or a new turned card")
        if self.dealer is not None:
            _set(self, "dealer", _seat(self.dealer, "dealer"))
        if self.turned is not None:
            _set(self, "turned", _turned(self.turned))


@dataclass(frozen=True, slots=True)
class Undone:
    """Cancels event ``seq``, which must be the latest event still in effect."""

    kind: ClassVar[str] = "undone"
    seq: int

    def __post_init__(self) -> None:
        _positive(self.seq, "seq")


@dataclass(frozen=True, slots=True)
class _RenunciaDecision:
    """The table's word on the renúncia the engine found in vaza ``trick`` of deal ``deal``."""

    deal: int
    trick: int
    seat: int

    def __post_init__(self) -> None:
        _positive(self.deal, "deal")
        _positive(self.trick, "trick")
        _set(self, "seat", _seat(self.seat, "seat"))


@dataclass(frozen=True, slots=True)
class RenunciaConfirmed(_RenunciaDecision):
    """The table upholds the renúncia: it is penalised as the rules say."""

    kind: ClassVar[str] = "renuncia_confirmed"


@dataclass(frozen=True, slots=True)
class RenunciaDismissed(_RenunciaDecision):
    """The table rejects the renúncia: the page stops alerting and the score ignores it."""

    kind: ClassVar[str] = "renuncia_dismissed"


@dataclass(frozen=True, slots=True)
class RulesChanged:
    """Variants for the current match, merged over the ones in force (``{"tie": "carry"}``)."""

    kind: ClassVar[str] = "rules_changed"
    rules: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.rules, Mapping) or not self.rules:
            raise StoreError('rules must be a non-empty JSON object like {"tie": "carry"}')
        _set(self, "rules", dict(self.rules))


@dataclass(frozen=True, slots=True)
class MatchStarted:
    """A new match at the same table, with the rules in force; the old one goes to the history."""

    kind: ClassVar[str] = "match_started"


@dataclass(frozen=True, slots=True)
class RecordReplaced:
    """The current match becomes this whole match record (in the format ``scorekeeper replay``
    reads)."""

    kind: ClassVar[str] = "record_replaced"
    record: Mapping[str, Any]

    def __post_init__(self) -> None:
        if not isinstance(self.record, Mapping):
            raise StoreError('a match record must be a JSON object like {"deals": [...]}')
        _set(self, "record", dict(self.record))


@dataclass(frozen=True, slots=True)
class DealThrownIn:
    """The current deal is void (``melar``, ``jogo_abaixo`` or ``manual``): no score, the same
    dealer deals again."""

    kind: ClassVar[str] = "deal_thrown_in"
    reason: str

    def __post_init__(self) -> None:
        try:
            ThrowInReason(self.reason)
        except ValueError:
            choices = ", ".join(reason.value for reason in ThrowInReason)
            raise StoreError(
                f"deal thrown in for {self.reason!r}: the reason is one of {choices}"
            ) from None


DOUBT_REASONS: dict[str, str] = {
    "missing_card": "a card of the vaza was never read",
    "weak_read": "a card was read only faintly or briefly",
    "seat": "a card came from another seat's side than the order of play says",
    "illegal_read": "a card was read that the rules refuse for that seat",
    "unexplained_read": "a read that no possible deal explains",
    "suit_swap": "the reader seems to confuse two suits of this deck",
}
"""The tracker's doubts worth a person's attention, by the tracker's own key."""

MAX_OPTIONS = 5


@dataclass(frozen=True, slots=True)
class DoubtRaised:
    """Something the tracker could not settle about deal ``deal`` (from 1), play ``play`` (from 1,
    or None): ``options`` are the cards it may have been, likeliest first. The page shows it until
    a :class:`DoubtSettled` names it."""

    kind: ClassVar[str] = "doubt_raised"
    deal: int
    play: int | None
    reason: str
    options: tuple[str, ...]
    frame: int | None = None

    def __post_init__(self) -> None:
        _positive(self.deal, "deal")
        if self.play is not None and _positive(self.play, "play") > MAX_PLAYS:
            raise StoreError(f"play {self.play!r}: a deal has {MAX_PLAYS} plays")
        if self.reason not in DOUBT_REASONS:
            raise StoreError(f"doubt reason {self.reason!r}: one of {', '.join(DOUBT_REASONS)}")
        if isinstance(self.options, str | bytes) or not isinstance(self.options, list | tuple):
            raise StoreError(
                f'options {self.options!r}: send a list of 1-{MAX_OPTIONS} cards like ["5C", "5S"]'
            )
        options = tuple(_card(option) for option in self.options)
        if not 1 <= len(options) <= MAX_OPTIONS or len(set(options)) != len(options):
            raise StoreError(
                f"options {list(options)}: 1 to {MAX_OPTIONS} different cards, likeliest first"
            )
        _set(self, "options", options)
        if self.frame is not None and (
            isinstance(self.frame, bool) or not isinstance(self.frame, int)
        ):
            raise StoreError(f"frame {self.frame!r} is not a frame number")


@dataclass(frozen=True, slots=True)
class DoubtSettled:
    """The doubt raised as event ``doubt`` (its ``seq``) is settled: ``card`` (one of its options)
    is what that play was, or None when the table only dismisses it."""

    kind: ClassVar[str] = "doubt_settled"
    doubt: int
    card: str | None = None

    def __post_init__(self) -> None:
        _positive(self.doubt, "doubt")
        if self.card is not None:
            _set(self, "card", _card(self.card))


MAX_NAME_LENGTH = 24
"""A player's name fits on the vaza cross of a phone."""


def _name(value: Any) -> str:
    if not isinstance(value, str):
        raise StoreError(f'name {value!r} is not text: send the player\'s name, or "" to clear it')
    name = " ".join(value.split())  # one line, single spaces
    if any(unicodedata.category(char) in ("Cc", "Cf", "Co", "Cs") for char in name):
        raise StoreError(f"name {value!r} has a control character: use letters, digits and spaces")
    if len(name) > MAX_NAME_LENGTH:
        raise StoreError(
            f"name {name!r} is {len(name)} characters long: use at most {MAX_NAME_LENGTH}"
        )
    return name


@dataclass(frozen=True, slots=True)
class SeatNamed:
    """The player at ``seat`` is called ``name`` (empty: no name, the seat's number is shown)."""

    kind: ClassVar[str] = "seat_named"
    seat: int
    name: str

    def __post_init__(self) -> None:
        _set(self, "seat", _seat(self.seat, "seat"))
        _set(self, "name", _name(self.name))


Event = (
    DealStarted
    | CardPlayed
    | TrickGathered
    | CardCorrected
    | DealCorrected
    | Undone
    | RenunciaConfirmed
    | RenunciaDismissed
    | RulesChanged
    | MatchStarted
    | RecordReplaced
    | DealThrownIn
    | DoubtRaised
    | DoubtSettled
    | SeatNamed
)

EVENT_TYPES: dict[str, type[Any]] = {
    cls.kind: cls
    for cls in (
        DealStarted,
        CardPlayed,
        TrickGathered,
        CardCorrected,
        DealCorrected,
        Undone,
        RenunciaConfirmed,
        RenunciaDismissed,
        RulesChanged,
        MatchStarted,
        RecordReplaced,
        DealThrownIn,
        DoubtRaised,
        DoubtSettled,
        SeatNamed,
    )
}


@dataclass(frozen=True, slots=True)
class StoredEvent:
    """An event as the log holds it: which table, its place in that table's log, and when."""

    table_id: str
    seq: int
    at: datetime
    event: Event


def event_to_json(event: Event) -> tuple[str, dict[str, Any]]:
    data = {f.name: getattr(event, f.name) for f in dataclasses.fields(event)}
    return event.kind, {
        name: list(value) if isinstance(value, tuple) else value for name, value in data.items()
    }


def event_from_json(kind: str, data: Any) -> Event:
    cls = EVENT_TYPES.get(kind)
    if cls is None:
        raise StoreError(f"unknown event kind {kind!r}: one of {', '.join(EVENT_TYPES)}")
    if not isinstance(data, Mapping):
        raise StoreError(f"event {kind!r} must be a JSON object")
    names = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - names)
    if unknown:
        raise StoreError(
            f"event {kind!r} has no field {unknown[0]!r}: "
            f"it has {', '.join(sorted(names)) or 'none'}"
        )
    try:
        event: Event = cls(**data)
    except TypeError:
        raise StoreError(f"event {kind!r} needs the fields {', '.join(sorted(names))}") from None
    return event
