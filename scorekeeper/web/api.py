"""The JSON API: ``GET`` reads for anyone on the page, ``POST`` writes for whoever has the table
PIN.

Every route exists twice: ``/api/<name>`` for the default table and ``/t/<table>/api/<name>``.
Writes take a JSON body and an optional ``"expect"`` (the ``seq`` the caller last saw: 409 if the
log moved since) and answer the new state. Errors answer ``{"error": "one line"}``: 400 for bad
input (malformed JSON, unknown card, a play the engine refuses), 401 without the right PIN,
404 for an unknown route, 409 for a stale ``expect``; the log is untouched.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request, stream_with_context
from werkzeug.exceptions import HTTPException

from scorekeeper.errors import ScorekeeperError
from scorekeeper.store import (
    CardCorrected,
    CardPlayed,
    ConflictError,
    DealCorrected,
    DealStarted,
    DoubtSettled,
    Event,
    MatchStarted,
    RecordReplaced,
    RenunciaConfirmed,
    RenunciaDismissed,
    RulesChanged,
    SeatNamed,
    StoreError,
    check_table_id,
    event_to_json,
)
from scorekeeper.strict_json import loads
from scorekeeper.web.auth import pin_required
from scorekeeper.web.db import get_hub, get_store, table_state
from scorekeeper.web.live import HANG_UP, StreamsFull
from scorekeeper.web.replies import error

bp = Blueprint("api", __name__)


def route(rule: str, **options: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register a view for the default table and for ``/t/<table>``."""

    def decorate(view: Callable[..., Any]) -> Callable[..., Any]:
        bp.add_url_rule(f"/api/{rule}", defaults={"table": None}, view_func=view, **options)
        bp.add_url_rule(f"/t/<table>/api/{rule}", view_func=view, **options)
        return view

    return decorate


def table_id(table: str | None) -> str:
    return check_table_id(table or current_app.config["DEFAULT_TABLE"])


@bp.errorhandler(ConflictError)
def conflict(exc: ConflictError) -> Response:
    return error(409, str(exc))


@bp.errorhandler(ScorekeeperError)
def bad_input(exc: ScorekeeperError) -> Response:
    return error(400, str(exc))


def api_http_error(exc: HTTPException) -> Response | HTTPException:
    """404/405/413 under /api answer JSON like the rest of the API (registered on the app)."""
    if "/api/" in request.path:
        return error(exc.code or 500, exc.description or exc.name)
    return exc


BODY_FIELDS: dict[str, tuple[str, ...] | None] = {
    "plays": ("card", "cards", "expect"),
    "deal": ("turned", "dealer", "expect"),
    "correct": ("deal", "play", "card", "turned", "expect"),
    "dealer": ("deal", "dealer", "expect"),
    "undo": ("expect",),
    "renuncia": ("decision", "deal", "trick", "seat", "expect"),
    "match": ("rules", "expect"),
    "doubt": ("doubt", "card", "expect"),
    "name": ("seat", "name", "expect"),
    "rules": None,  # the rules themselves, checked by the engine (an unknown rule is refused)
    "record": None,  # a match record, checked by the engine's parser
}
"""The fields each write takes; any other is refused by name, so a typo never passes silently."""

ONE_OF: dict[str, tuple[str, ...]] = {
    "plays": ("card", "cards"),
    "correct": ("turned", "play"),
}
"""Fields a write takes one of: both at once would leave one unread."""


def body(route: str) -> dict[str, Any]:
    """The request's JSON object for write ``route``, checked against its fields (one-line 400s)."""
    raw = request.get_data(cache=True)
    data = loads(raw, what="the body", error=StoreError) if raw.strip() else {}
    if not isinstance(data, dict):
        raise StoreError("the body must be a JSON object")
    allowed = BODY_FIELDS[route]
    if allowed is not None:
        unknown = sorted(set(data) - set(allowed))
        if unknown:
            raise StoreError(
                f"unknown field {unknown[0]!r} for POST /api/{route}: it takes {', '.join(allowed)}"
            )
    both = [name for name in ONE_OF.get(route, ()) if name in data]
    if len(both) > 1:
        raise StoreError(
            f"{both[0]!r} and {both[1]!r} together: POST /api/{route} takes one of them"
        )
    return data


def field(data: dict[str, Any], name: str, kind: type | tuple[type, ...], *, example: str) -> Any:
    if name not in data:
        raise StoreError(f"missing {name!r}: send {example}")
    value = data[name]
    if isinstance(value, bool) or not isinstance(value, kind):
        raise StoreError(f"{name!r} has the wrong type ({value!r}): send {example}")
    return value


def expect(data: dict[str, Any]) -> int | None:
    value = data.get("expect")
    if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
        raise StoreError(f"'expect' must be the seq number you last saw, not {value!r}")
    return value


def write(table: str | None, data: dict[str, Any], *events: Event) -> Response:
    tid = table_id(table)
    # A deal turned once the match is won opens the next match, unless the table confirms it.
    next_match = not current_app.config["CONFIRM_NEXT_MATCH"]
    get_store().append(tid, *events, expect=expect(data), next_match=next_match)
    return jsonify(get_store().state(tid))


def current_deal(tid: str, data: dict[str, Any]) -> int:
    if "deal" in data:
        return int(field(data, "deal", int, example='"deal": 1'))
    deals = len(get_store().record(tid)["deals"])
    if not deals:
        raise StoreError("no deal yet: start one with POST /api/deal")
    return deals


# -- reads -------------------------------------------------------------------------------------


@route("state")
def state(table: str | None) -> Response:
    return jsonify(table_state(table_id(table)))


@route("record")
def record(table: str | None) -> Response:
    return jsonify(get_store().record(table_id(table)))


@route("log")
def log(table: str | None) -> Response:
    events = []
    for stored in get_store().events(table_id(table)):
        kind, data = event_to_json(stored.event)
        events.append({"seq": stored.seq, "at": stored.at.isoformat(), "kind": kind, **data})
    return jsonify(events)


@bp.get("/api/tables")
def tables() -> Response:
    return jsonify(get_store().tables())


@route("stream")
def stream(table: str | None) -> Response:
    tid = table_id(table)
    try:
        events = get_hub().stream(tid, hang_up=request.environ.get(HANG_UP))
    except StreamsFull as exc:
        response = error(503, str(exc))
        response.headers["Retry-After"] = "30"
        return response
    return Response(
        stream_with_context(events),
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


# -- writes ------------------------------------------------------------------------------------


@route("record", methods=["POST"])
@pin_required
def replace_record(table: str | None) -> Response:
    data = body("record")
    if "deals" not in data:
        raise StoreError('a match record needs "deals" (a list, [] for none): {"deals": [...]}')
    return write(
        table, data, RecordReplaced(record={k: v for k, v in data.items() if k != "expect"})
    )


@route("plays", methods=["POST"])
@pin_required
def plays(table: str | None) -> Response:
    data = body("plays")
    if "card" in data:
        cards = [field(data, "card", str, example='"card": "7H"')]
    else:
        cards = field(data, "cards", list, example='"cards": ["7H", "AH"]')
    if not cards:
        raise StoreError('"cards" is empty: send at least one card, like ["7H"]')
    return write(table, data, *(CardPlayed(card) for card in cards))


@route("deal", methods=["POST"])
@pin_required
def new_deal(table: str | None) -> Response:
    data = body("deal")
    turned = field(data, "turned", str, example='"turned": "AH" (the card the dealer turned)')
    dealer = data.get("dealer")
    if dealer is None:
        dealer = get_store().table_state(table_id(table)).result.next_dealer
    return write(table, data, DealStarted(dealer=dealer, turned=turned))


@route("correct", methods=["POST"])
@pin_required
def correct(table: str | None) -> Response:
    data = body("correct")
    deal = current_deal(table_id(table), data)
    if "turned" in data:
        turned = field(data, "turned", str, example='"turned": "AH"')
        return write(table, data, DealCorrected(deal=deal, turned=turned))
    play = field(data, "play", int, example='"play": 5 (counted from 1 in the deal)')
    card = field(data, "card", str, example='"card": "KS"')
    return write(table, data, CardCorrected(deal=deal, play=play, card=card))


@route("dealer", methods=["POST"])
@pin_required
def dealer(table: str | None) -> Response:
    data = body("dealer")
    deal = current_deal(table_id(table), data)
    seat = field(data, "dealer", int, example='"dealer": 0 (seat 0-3)')
    return write(table, data, DealCorrected(deal=deal, dealer=seat))


@route("undo", methods=["POST"])
@pin_required
def undo(table: str | None) -> Response:
    data = body("undo")
    tid = table_id(table)
    get_store().undo(tid, expect=expect(data))
    return jsonify(get_store().state(tid))


@route("renuncia", methods=["POST"])
@pin_required
def renuncia(table: str | None) -> Response:
    data = body("renuncia")
    decision = field(data, "decision", str, example='"decision": "confirm" or "dismiss"')
    kinds: dict[str, type[RenunciaConfirmed | RenunciaDismissed]] = {
        "confirm": RenunciaConfirmed,
        "dismiss": RenunciaDismissed,
    }
    if decision not in kinds:
        raise StoreError(f'decision {decision!r}: use "confirm" or "dismiss"')
    deal = current_deal(table_id(table), data)
    trick = field(data, "trick", int, example='"trick": 8')
    seat = field(data, "seat", int, example='"seat": 3')
    return write(table, data, kinds[decision](deal=deal, trick=trick, seat=seat))


@route("doubt", methods=["POST"])
@pin_required
def settle_doubt(table: str | None) -> Response:
    """The table's answer to an open doubt: ``{"doubt": 12, "card": "5S"}`` (one of its options,
    which corrects that play) or ``"card": null`` (leave the play as recorded)."""
    data = body("doubt")
    example = '{"doubt": 12, "card": "5S"} (the seq of an open doubt, one of its options or null)'
    unknown = sorted(set(data) - {"doubt", "card", "expect"})
    if unknown:
        raise StoreError(f"unknown field {unknown[0]!r}: send {example}")
    seq = field(data, "doubt", int, example=example)
    card = data.get("card")
    if card is not None and not isinstance(card, str):
        raise StoreError(f"'card' has the wrong type ({card!r}): send {example}")
    return write(table, data, DoubtSettled(doubt=seq, card=card))


@route("match", methods=["POST"])
@pin_required
def new_match(table: str | None) -> Response:
    data = body("match")
    events: list[Event] = [MatchStarted()]
    if "rules" in data:
        events.append(
            RulesChanged(rules=field(data, "rules", dict, example='"rules": {"tie": "carry"}'))
        )
    return write(table, data, *events)


@route("name", methods=["POST"])
@pin_required
def name(table: str | None) -> Response:
    data = body("name")
    unknown = sorted(set(data) - {"seat", "name", "expect"})
    if unknown:
        raise StoreError(f'unknown field {unknown[0]!r}: send {{"seat": 0, "name": "Ana"}}')
    seat = field(data, "seat", int, example='"seat": 0 (seat 0-3)')
    given = field(data, "name", str, example='"name": "Ana" ("" clears it)')
    return write(table, data, SeatNamed(seat=seat, name=given))


@route("rules", methods=["POST"])
@pin_required
def rules(table: str | None) -> Response:
    data = body("rules")
    return write(table, data, RulesChanged(rules={k: v for k, v in data.items() if k != "expect"}))
