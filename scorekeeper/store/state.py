"""A table's state as the page and ``GET /api/state`` show it: the engine's replay plus the table's
own decisions (renúncias upheld or dismissed), the match number and the matches already played."""

from __future__ import annotations

import copy
import json
from functools import lru_cache
from typing import Any

from scorekeeper.errors import ScorekeeperError
from scorekeeper.rules import SEATS, next_seat, replay_record, score_sheet
from scorekeeper.rules.trick import TRICK_SIZE
from scorekeeper.store.events import DoubtRaised
from scorekeeper.store.fold import Folded, Match


@lru_cache(maxsize=32)  # each write makes a new record: a long memory here only holds dead states
def _replay_text(record_text: str) -> dict[str, Any]:
    return replay_record(json.loads(record_text))


def replay(record: dict[str, Any]) -> dict[str, Any]:
    """The engine's replay of ``record``, memoised for a record asked for again (an undo, the
    readers of one write); finished matches keep their history line on the match itself."""
    return copy.deepcopy(_replay_text(json.dumps(record, sort_keys=True)))


def build_state(table_id: str, seq: int, folded: Folded) -> dict[str, Any]:
    """Raises the engine's error when the current match does not replay."""
    current = folded.current
    result = replay(current.record)
    revokes = []
    for number, deal in enumerate(result["deals"], start=1):
        deal["number"] = number
        for revoke in deal["revokes"]:
            key = (number, revoke["trick"], revoke["seat"])
            revoke["status"] = current.decisions.get(key, "suspected")
            revokes.append(dict(revoke, deal=number))
    deals = result["deals"]
    return {
        "table": table_id,
        "seq": seq,
        "match": len(folded.matches),
        "rules": result["rules"],
        "score": result["score"],
        "winner": result["winner"],
        "deals": deals,
        "current": deals[-1] if deals else None,
        "next_dealer": result["next_dealer"],
        "sheet": score_sheet(result),
        "revokes": revokes,
        "doubts": [_doubt(seq, doubt, deals) for seq, doubt in sorted(current.doubts.items())],
        "names": names(current),
        "history": [_summary(number, match) for number, match in enumerate(folded.matches[:-1], 1)],
    }


def _doubt(seq: int, doubt: DoubtRaised, deals: list[dict[str, Any]]) -> dict[str, Any]:
    """An open doubt as the page shows it: which vaza and seat, the card recorded now, the options."""
    trick = seat = card = None
    if doubt.play is not None:
        number, position = divmod(doubt.play - 1, TRICK_SIZE)
        replayed = deals[doubt.deal - 1]
        vazas = [*replayed["tricks"], replayed["table"]]
        if number < len(vazas) and position < len(vazas[number]["cards"]):
            seat = next_seat(vazas[number]["leader"], position)
            card = vazas[number]["cards"][position]
        trick = number + 1
    return {
        "seq": seq,
        "deal": doubt.deal,
        "play": doubt.play,
        "trick": trick,
        "seat": seat,
        "reason": doubt.reason,
        "options": list(doubt.options),
        "card": card,
        "frame": doubt.frame,
    }


def names(match: Match) -> list[str]:
    """The four seats' player names, ``""`` where none was given."""
    return [match.names.get(seat, "") for seat in SEATS]


def _summary(number: int, match: Match) -> dict[str, Any]:
    if match.summary is None:  # a finished match never changes: its line is worked out once
        match.summary = _summarise(number, match)
    return dict(match.summary)


def _summarise(number: int, match: Match) -> dict[str, Any]:
    record = match.record
    summary: dict[str, Any] = {"match": number, "names": names(match), "deals": len(record["deals"])}
    try:
        result = _replay_text(json.dumps(record, sort_keys=True))  # read only: no copy needed
    except ScorekeeperError as error:  # an old match the engine now reads differently: say so, go on
        return {**summary, "score": None, "winner": None, "error": str(error)}
    return {**summary, "score": result["score"], "winner": result["winner"]}
