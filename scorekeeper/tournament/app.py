"""The tournament server: tables push their logs, the organiser's page watches every table.

``create_tournament_app(config)`` builds the Flask app; config keys: ``DATABASE_URL`` (a
``postgresql://`` address), ``TOURNAMENT`` (its name in the database), ``PIN`` (the organiser's
PIN; none, no organiser writes), ``SCORING`` (a :class:`Scoring` to set, or None to keep the
database's), ``HEARTBEAT`` (seconds between pings on idle streams), ``PIN_TRIES`` / ``PIN_LOCKOUT``.

Reads need no key. A table writes its own log with its key (``X-Scorekeeper-Key``); the organiser's
PIN (``X-Scorekeeper-Pin``) may write any table, add tables and teams, pair rounds and correct a
match. Errors answer ``{"error": "one line"}``: 400 for bad input, 401 without the right key or PIN,
404 for an unknown table or route, 409 for a push that does not continue the log (with ``acked``),
503 while the database cannot be reached; nothing is written.
"""

from __future__ import annotations

import hmac
import io
import json
from collections.abc import Callable, Mapping
from functools import wraps
from typing import Any

import psycopg
import psycopg_pool
from flask import (
    Blueprint,
    Flask,
    Response,
    current_app,
    jsonify,
    render_template,
    request,
    stream_with_context,
)
from werkzeug.exceptions import HTTPException

from scorekeeper.errors import ScorekeeperError
from scorekeeper.paths import web_assets_dir
from scorekeeper.store import check_table_id
from scorekeeper.tournament.db import PushConflict, TournamentStore
from scorekeeper.tournament.export import write_csv
from scorekeeper.tournament.live import TournamentHub
from scorekeeper.tournament.standings import Game, TournamentError
from scorekeeper.web.auth import PIN_HEADER, PinGuard

KEY_HEADER = "X-Scorekeeper-Key"
_STORE = "scorekeeper.tournament.store"
_HUB = "scorekeeper.tournament.hub"
_PINS = "scorekeeper.tournament.pins"

bp = Blueprint("tournament", __name__)


def create_tournament_app(config: Mapping[str, Any]) -> Flask:
    assets = web_assets_dir()
    app = Flask(
        __name__, template_folder=str(assets / "templates"), static_folder=str(assets / "static")
    )
    app.config.from_mapping(
        TOURNAMENT="torneio",
        PIN=None,
        SCORING=None,
        HEARTBEAT=15.0,
        PIN_TRIES=5,
        PIN_LOCKOUT=60.0,
        MAX_CONTENT_LENGTH=4 << 20,
        SEND_FILE_MAX_AGE_DEFAULT=300,
    )
    app.config.update(config)
    app.json.sort_keys = False  # type: ignore[attr-defined]
    app.json.ensure_ascii = False  # type: ignore[attr-defined]
    store = TournamentStore.open(
        app.config["DATABASE_URL"], app.config["TOURNAMENT"], scoring=app.config["SCORING"]
    )
    app.extensions[_STORE] = store
    app.extensions[_HUB] = TournamentHub(store, heartbeat=float(app.config["HEARTBEAT"]))
    app.extensions[_PINS] = PinGuard(
        tries=int(app.config["PIN_TRIES"]), lockout=float(app.config["PIN_LOCKOUT"])
    )
    app.register_blueprint(bp)
    app.register_error_handler(HTTPException, _http_error)
    return app


def get_store() -> TournamentStore:
    store: TournamentStore = current_app.extensions[_STORE]
    return store


def get_hub() -> TournamentHub:
    hub: TournamentHub = current_app.extensions[_HUB]
    return hub


def error(status: int, message: str, **extra: Any) -> Response:
    response = jsonify({"error": message, **extra})
    response.status_code = status
    return response


@bp.errorhandler(PushConflict)
def _conflict(exc: PushConflict) -> Response:
    return error(409, str(exc)) if exc.acked is None else error(409, str(exc), acked=exc.acked)


@bp.errorhandler(ScorekeeperError)
def _bad_input(exc: ScorekeeperError) -> Response:
    if isinstance(exc, TournamentError) and str(exc).startswith("no table "):
        return error(404, str(exc))
    return error(400, str(exc))


@bp.errorhandler(psycopg.OperationalError)
@bp.errorhandler(psycopg_pool.PoolTimeout)
def _database_down(exc: Exception) -> Response:
    response = error(
        503, "the tournament database cannot be reached: the table keeps its log and retries"
    )
    response.headers["Retry-After"] = "2"
    return response


def _http_error(exc: HTTPException) -> Response | HTTPException:
    if request.path.startswith("/api/"):
        return error(exc.code or 500, exc.description or exc.name)
    return exc


def body() -> dict[str, Any]:
    text = request.get_data(as_text=True)
    try:
        data = json.loads(text) if text.strip() else {}
    except json.JSONDecodeError as exc:
        raise TournamentError(
            f"malformed JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None
    except RecursionError:
        raise TournamentError("the JSON is nested too deeply") from None
    if not isinstance(data, dict):
        raise TournamentError("the body must be a JSON object")
    return data


def _pin_ok() -> bool | Response:
    """True with the organiser's PIN, False without any, a 401/429 reply for a wrong one."""
    given = request.headers.get(PIN_HEADER)
    if given is None:
        return False
    pin = current_app.config.get("PIN")
    guard: PinGuard = current_app.extensions[_PINS]
    address = request.remote_addr or "?"
    wait = guard.locked(address)
    if wait:
        response = error(429, f"too many wrong PINs from {address}: try again in {wait:.0f} s")
        response.headers["Retry-After"] = str(int(wait) + 1)
        return response
    if not pin or not hmac.compare_digest(given.encode(), str(pin).encode()):
        guard.failed(address)
        return error(
            401, "wrong organiser PIN" if pin else "organiser writes are off: serve with --pin"
        )
    guard.passed(address)
    return True


def organiser(view: Callable[..., Any]) -> Callable[..., Any]:
    @wraps(view)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        ok = _pin_ok()
        if ok is False:
            return error(401, f"this needs the organiser's PIN in the {PIN_HEADER} header")
        if ok is not True:
            return ok
        return view(*args, **kwargs)

    return guarded


def _table(table: str) -> str:
    check_table_id(table)
    if not get_store().has_table(table):
        raise TournamentError(f"no table {table!r} in this tournament: the organiser adds it first")
    return table


# -- pages -------------------------------------------------------------------------------------


@bp.get("/")
def organiser_page() -> str:
    store = get_store()
    return render_template(
        "tournament/organiser.html", tournament=store.tournament, scoring=store.scoring()
    )


@bp.get("/results.csv")
def results_csv() -> Response:
    out = io.StringIO()
    write_csv(get_store().games(), out)
    return Response(
        out.getvalue(),
        mimetype="text/csv",
        headers={
            "Content-Disposition": f'attachment; filename="{get_store().tournament}-resultados.csv"'
        },
    )


# -- reads -------------------------------------------------------------------------------------


@bp.get("/api/tables")
def tables() -> Response:
    store = get_store()
    seated = store.seated()
    return jsonify([store.summary(t, seated) for t in store.table_ids()])


@bp.get("/api/tables/<table>")
def table_state(table: str) -> Response:
    return jsonify(get_store().state(_table(table)))


@bp.get("/api/tables/<table>/ack")
def ack(table: str) -> Response:
    return jsonify({"acked": get_store().acked(_table(table))})


@bp.get("/api/tables/<table>/matches/<int:match>/record")
def match_record(table: str, match: int) -> Response:
    record = get_store().match_record(_table(table), match)
    if record is None:
        return error(404, f"table {table!r} has no match {match}")
    return jsonify(record)


@bp.get("/api/teams")
def teams() -> Response:
    return jsonify(get_store().teams())


@bp.get("/api/standings")
def standings() -> Response:
    store = get_store()
    scoring = store.scoring()
    return jsonify(
        {
            "scoring": {"win": scoring.win, "loss": scoring.loss},
            "standings": [row.to_json() for row in store.standings()],
        }
    )


@bp.get("/api/rounds")
def rounds() -> Response:
    grouped: dict[int, list[dict[str, Any]]] = {}
    for game in get_store().games():
        grouped.setdefault(game.round, []).append(game_json(game))
    return jsonify([{"round": number, "games": games} for number, games in grouped.items()])


def game_json(game: Game) -> dict[str, Any]:
    return {
        "table": game.table,
        "match": game.match,
        "nos": game.nos,
        "eles": game.eles,
        "score": game.score,
        "winner": game.winner,
        "corrected": game.corrected,
    }


@bp.get("/api/stream")
def stream() -> Response:
    store = get_store()
    app = current_app._get_current_object()  # type: ignore[attr-defined]

    def summaries(tables: list[str] | None) -> list[dict[str, Any]]:
        with app.app_context():
            seated = store.seated()
            known = store.table_ids()
            return [store.summary(t, seated) for t in known if tables is None or t in tables]

    return Response(
        stream_with_context(get_hub().stream(summaries)),
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


# -- writes ------------------------------------------------------------------------------------


@bp.post("/api/tables/<table>/events")
def push(table: str) -> Response:
    """A table's push, ``{"events": [{"seq", "kind", "data", "at"}, ...]}``, answered with
    ``{"acked": N}``."""
    check_table_id(table)
    store = get_store()
    key = request.headers.get(KEY_HEADER)
    if key is not None:
        if not store.key_matches(table, key):
            return error(
                401, f"this key does not write table {table!r}: use the key the organiser gave it"
            )
    else:
        ok = _pin_ok()
        if ok is False:
            return error(401, f"a push needs the table's key in the {KEY_HEADER} header")
        if ok is not True:
            return ok
        _table(table)
    data = body()
    if set(data) != {"events"}:
        raise TournamentError('a push is {"events": [...]} and nothing else')
    return jsonify({"acked": store.push(table, data["events"])})


@bp.post("/api/tables")
@organiser
def add_table() -> Response:
    data = body()
    table = data.get("table")
    if not isinstance(table, str):
        raise TournamentError('send {"table": "mesa-1"}: the new table\'s id')
    key = get_store().add_table(check_table_id(table))
    get_hub().changed("")
    return jsonify({"table": table, "key": key})


@bp.post("/api/teams")
@organiser
def add_teams() -> Response:
    names = body().get("teams")
    if not isinstance(names, list):
        raise TournamentError('send {"teams": ["Águias", "Bairro Alto"]}')
    return jsonify(get_store().add_teams(names))


@bp.post("/api/rounds")
@organiser
def pair_round() -> Response:
    games = get_store().pair_next_round()
    return jsonify({"round": games[0].round, "games": [game_json(g) for g in games]})


@bp.post("/api/tables/<table>/correction")
@organiser
def correct(table: str) -> Response:
    """``{"match": 2, "record": {...}}``: the organiser's record replaces the table's for the
    match."""
    data = body()
    if set(data) != {"match", "record"}:
        raise TournamentError(
            'send {"match": 1, "record": {"deals": [...]}} (record null withdraws it)'
        )
    get_store().correct(_table(table), data["match"], data["record"])
    return jsonify({"table": table, "match": data["match"]})
