"""A table's state as the page and ``GET /api/state`` show it: the engine's replay plus the table's
own decisions (renúncias upheld or dismissed), the match number and the matches already played.

:func:`build_state` makes a typed, frozen :class:`TableState`; :meth:`TableState.to_json` is the
JSON the page reads, made only where it leaves the program (the API, the page, the tournament).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from scorekeeper.errors import ScorekeeperError
from scorekeeper.rules import (
    SEATS,
    Card,
    DealResult,
    MatchRecord,
    MatchResult,
    MatchScore,
    RevokeResult,
    Team,
    match_result,
    next_seat,
    parse_record,
    score_sheet,
)
from scorekeeper.rules.trick import TRICK_SIZE
from scorekeeper.store.events import DoubtRaised
from scorekeeper.store.fold import Folded, Match, RevokeKey

SUSPECTED = "suspected"
"""A renúncia's status until the table confirms or dismisses it."""


@lru_cache(maxsize=32)  # each write makes a new record: a long memory here only holds dead states
def _replayed(record: MatchRecord) -> MatchResult:
    return match_result(record)


def replay(record: Mapping[str, Any]) -> MatchResult:
    """The engine's replay of ``record`` (a match record's JSON), memoised for a record asked for
    again (an undo, the readers of one write): parsed records are frozen, so they are the key."""
    return _replayed(parse_record(record))


@dataclass(frozen=True, slots=True, kw_only=True)
class RevokeView:
    """A renúncia of deal ``deal`` and what the table made of it: ``suspected`` (not decided yet),
    ``confirmed`` or ``dismissed``."""

    deal: int
    revoke: RevokeResult
    status: str

    def to_json(self) -> dict[str, Any]:
        return {**self.revoke.to_json(), "status": self.status}


@dataclass(frozen=True, slots=True, kw_only=True)
class DoubtView:
    """An open doubt as the page shows it: which vaza and seat, the card recorded now, the
    options."""

    seq: int
    doubt: DoubtRaised
    trick: int | None
    seat: int | None
    card: Card | None

    def to_json(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "deal": self.doubt.deal,
            "play": self.doubt.play,
            "trick": self.trick,
            "seat": self.seat,
            "reason": self.doubt.reason,
            "options": list(self.doubt.options),
            "card": self.card.notation if self.card is not None else None,
            "frame": self.doubt.frame,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class MatchSummary:
    """A finished match's line in the history; ``error`` when the engine no longer replays it."""

    match: int
    names: tuple[str, ...]
    deals: int
    score: MatchScore | None
    winner: Team | None
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "match": self.match,
            "names": list(self.names),
            "deals": self.deals,
            "score": self.score.to_json() if self.score is not None else None,
            "winner": self.winner.value if self.winner is not None else None,
        }
        if self.error is not None:
            data["error"] = self.error
        return data


@dataclass(frozen=True, slots=True, kw_only=True)
class TableState:
    """What a table shows after event ``seq``: the current match (``match``, from 1) replayed, its
    renúncias with the table's decisions, its open doubts, the players' names, the matches
    before."""

    table: str
    seq: int
    match: int
    result: MatchResult
    revokes: tuple[RevokeView, ...]
    doubts: tuple[DoubtView, ...]
    names: tuple[str, ...]
    history: tuple[MatchSummary, ...]

    @property
    def current(self) -> DealResult | None:
        return self.result.current

    def status_of(self, key: RevokeKey) -> str | None:
        """The status of the renúncia (deal, trick, seat), None where there is no such renúncia."""
        for view in self.revokes:
            if (view.deal, view.revoke.trick, view.revoke.seat) == key:
                return view.status
        return None

    def to_json(self) -> dict[str, Any]:
        result = self.result
        statuses = {
            (view.deal, view.revoke.trick, view.revoke.seat): view.status for view in self.revokes
        }
        deals = []
        for deal in result.deals:
            data = deal.to_json()
            for revoke in data["revokes"]:
                revoke["status"] = statuses[(deal.number, revoke["trick"], revoke["seat"])]
            data["number"] = deal.number
            deals.append(data)
        winner = result.winner
        return {
            "table": self.table,
            "seq": self.seq,
            "match": self.match,
            "rules": result.rules.to_json(),
            "score": result.score.to_json(),
            "winner": winner.value if winner else None,
            "deals": deals,
            "current": deals[-1] if deals else None,
            "next_dealer": result.next_dealer,
            "sheet": score_sheet(result),
            "revokes": [{**view.to_json(), "deal": view.deal} for view in self.revokes],
            "doubts": [doubt.to_json() for doubt in self.doubts],
            "names": list(self.names),
            "history": [summary.to_json() for summary in self.history],
        }


def build_state(table_id: str, seq: int, folded: Folded) -> TableState:
    """Raises the engine's error when the current match does not replay."""
    current = folded.current
    result = replay(current.record)
    revokes = tuple(
        RevokeView(
            deal=deal.number,
            revoke=revoke,
            status=current.decisions.get((deal.number, revoke.trick, revoke.seat), SUSPECTED),
        )
        for deal in result.deals
        for revoke in deal.revokes
    )
    return TableState(
        table=table_id,
        seq=seq,
        match=len(folded.matches),
        result=result,
        revokes=revokes,
        doubts=tuple(_doubt(seq, doubt, result) for seq, doubt in sorted(current.doubts.items())),
        names=names(current),
        history=tuple(
            _summary(number, match) for number, match in enumerate(folded.matches[:-1], 1)
        ),
    )


def _doubt(seq: int, doubt: DoubtRaised, result: MatchResult) -> DoubtView:
    trick = seat = card = None
    if doubt.play is not None:
        number, position = divmod(doubt.play - 1, TRICK_SIZE)
        replayed = result.deals[doubt.deal - 1]
        vazas = [(t.leader, t.cards) for t in replayed.tricks]
        vazas.append((replayed.table.leader, replayed.table.cards))
        if number < len(vazas) and position < len(vazas[number][1]):
            seat = next_seat(vazas[number][0], position)
            card = vazas[number][1][position]
        trick = number + 1
    return DoubtView(seq=seq, doubt=doubt, trick=trick, seat=seat, card=card)


def names(match: Match) -> tuple[str, ...]:
    """The four seats' player names, ``""`` where none was given."""
    return tuple(match.names.get(seat, "") for seat in SEATS)


def _summary(number: int, match: Match) -> MatchSummary:
    if match.summary is None:  # a finished match never changes: its line is worked out once
        match.summary = _summarise(number, match)
    return match.summary


def _summarise(number: int, match: Match) -> MatchSummary:
    deals = len(match.record["deals"])
    try:
        result = replay(match.record)
    except (
        ScorekeeperError
    ) as error:  # an old match the engine now reads differently: say so, go on
        return MatchSummary(
            match=number, names=names(match), deals=deals, score=None, winner=None, error=str(error)
        )
    return MatchSummary(
        match=number, names=names(match), deals=deals, score=result.score, winner=result.winner
    )
