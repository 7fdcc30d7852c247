"""From a table's log to its matches: a fold of the events, each undo taking back its target.

Pure functions, no I/O and no rules: the fold only places cards in a match record; whether the
record makes sense is the rules engine's call (:func:`scorekeeper.rules.replay_record`).

The fold is incremental: :meth:`Folded.extend` returns the fold with more events without touching
the one it extends, and copies only the match being played, so a write costs the same at the
10,000th event as at the 100th. An undo re-folds the current match from its start (an undo only ever
takes back the latest event in effect, which is in the current match or starts it).

>>> from datetime import datetime, timezone
>>> t = datetime(2026, 1, 1, tzinfo=timezone.utc)
>>> log = [StoredEvent("mesa", 1, t, DealStarted(dealer=0, turned="AH")),
...        StoredEvent("mesa", 2, t, CardPlayed("2S")),
...        StoredEvent("mesa", 3, t, CardPlayed("3S")),
...        StoredEvent("mesa", 4, t, Undone(seq=3))]
>>> fold(log).record
{'rules': {}, 'deals': [{'dealer': 0, 'trump': 'AH', 'plays': ['2S']}]}
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from scorekeeper.rules import MAX_PLAYS, parse_record, seat_label
from scorekeeper.store.events import (
    CardCorrected,
    CardPlayed,
    DealCorrected,
    DealStarted,
    DealThrownIn,
    DoubtRaised,
    DoubtSettled,
    MatchStarted,
    RecordReplaced,
    RenunciaConfirmed,
    RenunciaDismissed,
    RulesChanged,
    SeatNamed,
    StoredEvent,
    StoreError,
    TrickGathered,
    Undone,
)

if TYPE_CHECKING:
    from scorekeeper.store.state import MatchSummary

RevokeKey = tuple[int, int, int]
"""(deal, trick, seat), deal and trick counted from 1: how a renúncia is named."""


@dataclass
class Match:
    """One match of the table: its record and what the table decided about its renúncias."""

    record: dict[str, Any] = field(default_factory=lambda: {"rules": {}, "deals": []})
    decisions: dict[RevokeKey, str] = field(default_factory=dict)
    """``"confirmed"`` or ``"dismissed"`` per renúncia."""
    doubts: dict[int, DoubtRaised] = field(default_factory=dict)
    """The tracker's doubts still open, by the ``seq`` of their ``doubt_raised``."""
    names: dict[int, str] = field(default_factory=dict)
    """The players' names by seat, carried from one match to the next (the same people sit on)."""
    summary: MatchSummary | None = field(default=None, compare=False, repr=False)
    """Its line in the history, kept once it is over (a finished match never changes)."""


@dataclass
class Folded:
    matches: list[Match]
    """Every match of the table in order; the last is the one being played."""
    in_effect: list[StoredEvent]
    starts: list[int] = field(default_factory=list)
    """Where in ``in_effect`` each match after the first began (its ``MatchStarted``)."""

    @property
    def current(self) -> Match:
        return self.matches[-1]

    @property
    def record(self) -> dict[str, Any]:
        return self.current.record

    def extend(self, events: Iterable[StoredEvent]) -> Folded:
        """This fold with ``events`` after it (raises like :func:`fold`); ``self`` is unchanged."""
        stack = list(self.in_effect)
        starts = list(self.starts)
        matches = list(self.matches)
        owned = False  # is matches[-1] a copy this call may change?
        for stored in events:
            event = stored.event
            if isinstance(event, Undone):
                _check_undo(stack, event)
                stack.pop()
                if starts and starts[-1] == len(
                    stack
                ):  # the undone event started the current match
                    starts.pop()
                    matches.pop()
                    owned = False
                else:
                    matches[-1] = _refold_current(stack, starts, matches)
                    owned = True
                continue
            if not owned:
                matches[-1] = copy.deepcopy(matches[-1])
                matches[-1].summary = None
                owned = True
            if isinstance(event, MatchStarted):
                starts.append(len(stack))
            stack.append(stored)
            _apply(matches, stored)
        return Folded(matches=matches, in_effect=stack, starts=starts)


def _check_undo(stack: list[StoredEvent], event: Undone) -> None:
    if not stack:
        raise StoreError("nothing to undo: the log of this table is empty")
    if stack[-1].seq != event.seq:
        raise StoreError(
            f"undo of event {event.seq}: "
            f"only the latest event in effect ({stack[-1].seq}) can be undone"
        )


def _refold_current(stack: list[StoredEvent], starts: list[int], matches: list[Match]) -> Match:
    """The current match folded again from its start, from the events in effect."""
    if starts:
        previous = matches[-2]
        scratch = [previous, _next_match(previous)]
        begin = starts[-1] + 1
    else:
        scratch = [Match()]
        begin = 0
    for stored in stack[begin:]:
        _apply(scratch, stored)
    return scratch[-1]


def in_effect(events: Iterable[StoredEvent]) -> list[StoredEvent]:
    """The events left once every undo has cancelled its target (always the latest in effect)."""
    stack: list[StoredEvent] = []
    for stored in events:
        if isinstance(stored.event, Undone):
            _check_undo(stack, stored.event)
            stack.pop()
        else:
            stack.append(stored)
    return stack


def fold(events: Sequence[StoredEvent]) -> Folded:
    return Folded(matches=[Match()], in_effect=[]).extend(events)


def _apply(matches: list[Match], stored: StoredEvent) -> None:
    event = stored.event
    match = matches[-1]
    deals: list[dict[str, Any]] = match.record["deals"]
    if isinstance(event, DealStarted):
        deals.append({"dealer": event.dealer, "trump": event.turned, "plays": []})
    elif isinstance(event, CardPlayed):
        if not deals:
            raise StoreError(
                f"card {event.card}: no deal started yet: start one with its dealer and turned card"
            )
        if "thrown_in" in deals[-1]:
            raise StoreError(
                f"card {event.card}: deal {len(deals)} was thrown in ({deals[-1]['thrown_in']}): "
                f"the same dealer ({seat_label(deals[-1]['dealer'])}) deals again, "
                "start the next deal"
            )
        plays = deals[-1]["plays"]
        if len(plays) >= MAX_PLAYS:
            raise StoreError(
                f"card {event.card}: deal {len(deals)} already has its {MAX_PLAYS} cards: "
                "start a new deal"
            )
        plays.append(event.card)
    elif isinstance(event, TrickGathered):
        pass  # the engine closes a vaza on its fourth card; kept in the log for audits
    elif isinstance(event, CardCorrected):
        deal = _deal(deals, event.deal)
        if event.play > len(deal["plays"]):
            raise StoreError(
                f"correction of play {event.play} of deal {event.deal}: that deal has "
                f"{len(deal['plays'])} plays"
            )
        deal["plays"][event.play - 1] = event.card
    elif isinstance(event, DealCorrected):
        deal = _deal(deals, event.deal)
        if event.dealer is not None:
            deal["dealer"] = event.dealer
        if event.turned is not None:
            deal["trump"] = event.turned
    elif isinstance(event, RenunciaConfirmed | RenunciaDismissed):
        deal = _deal(deals, event.deal)
        status = "confirmed" if isinstance(event, RenunciaConfirmed) else "dismissed"
        match.decisions[(event.deal, event.trick, event.seat)] = status
        # The engine scores from the record alone, so a dismissal must travel in it.
        named = {"trick": event.trick, "seat": event.seat}
        kept = [entry for entry in deal.get("dismissed", []) if entry != named]
        if status == "dismissed":
            kept.append(named)
        if kept:
            deal["dismissed"] = kept
        else:
            deal.pop("dismissed", None)
    elif isinstance(event, RulesChanged):
        match.record["rules"] = {**match.record.get("rules", {}), **event.rules}
    elif isinstance(event, MatchStarted):
        matches.append(_next_match(match))
    elif isinstance(event, RecordReplaced):
        # The engine's parser checks the shape, so later events can rely on it.
        matches[-1] = Match(
            record=copy.deepcopy(parse_record(event.record).to_json()), names=match.names
        )
    elif isinstance(event, SeatNamed):
        if event.name:
            match.names[event.seat] = event.name
        else:
            match.names.pop(event.seat, None)
    elif isinstance(event, DealThrownIn):
        if not deals:
            raise StoreError(f"deal thrown in ({event.reason}): no deal started yet")
        if "thrown_in" in deals[-1]:
            raise StoreError(f"deal {len(deals)} was already thrown in ({deals[-1]['thrown_in']})")
        deals[-1]["thrown_in"] = event.reason  # whether the rules allow it is the engine's call
        # A void deal has nothing left to settle: its open doubts go with it (an undo brings them
        # back).
        match.doubts = {seq: d for seq, d in match.doubts.items() if d.deal != len(deals)}
    elif isinstance(event, DoubtRaised):
        _deal(deals, event.deal)
        match.doubts[stored.seq] = event
    elif isinstance(event, DoubtSettled):
        _settle(match, event)
    else:  # pragma: no cover - every event type is handled above
        raise StoreError(f"event {event!r} has no meaning for a match")


def _settle(match: Match, event: DoubtSettled) -> None:
    doubt = match.doubts.get(event.doubt)
    if doubt is None:
        raise StoreError(
            f"doubt {event.doubt} is not open in this match: "
            'see the open ones in the state\'s "doubts"'
        )
    if event.card is not None:
        if event.card not in doubt.options:
            raise StoreError(
                f"doubt {event.doubt}: {event.card} is not one of its options "
                f"{', '.join(doubt.options)}"
            )
        if doubt.play is not None:
            plays = _deal(match.record["deals"], doubt.deal)["plays"]
            if doubt.play > len(plays):
                raise StoreError(
                    f"doubt {event.doubt} is about play {doubt.play} of deal {doubt.deal}, "
                    f"which has {len(plays)} plays: "
                    "settle it without a card, or once the play is recorded"
                )
            plays[doubt.play - 1] = event.card  # the same as a card correction of that play
    del match.doubts[event.doubt]


def _next_match(match: Match) -> Match:
    """The match after ``match``, same rules and names. A deal still being played goes on in it:
    the cards on the table keep being played, so the table's "Nova partida" never loses them. The
    match left keeps that deal as it stood, unscored; nothing of it is changed, so a fold can be
    extended or redone from any match's start."""
    deals: list[dict[str, Any]] = match.record["deals"]
    following = Match(
        record={"rules": dict(match.record.get("rules", {})), "deals": []}, names=dict(match.names)
    )
    last = deals[-1] if deals else None
    if last is not None and len(last["plays"]) < MAX_PLAYS and "thrown_in" not in last:
        following.record["deals"].append(copy.deepcopy(last))
        following.decisions = {
            (1, trick, seat): status
            for (deal, trick, seat), status in match.decisions.items()
            if deal == len(deals)
        }
    return following


def _deal(deals: list[dict[str, Any]], number: int) -> dict[str, Any]:
    if not 1 <= number <= len(deals):
        raise StoreError(f"deal {number} does not exist: this match has {len(deals)} deals")
    return deals[number - 1]
