"""The enrolment page: which of the 40 cards are captured, the doubtful ones to rename, and save.

A blueprint on the same footing as the score page: reads for anyone who opens it (the grid fills
while the camera runs), writes (rename, save) only with the table PIN, refused in one line of JSON
like the score API. :func:`create_enrol_app` builds an app holding just this page, which is what
``scorekeeper enrol --page`` serves; the blueprint can also join the score app.

Routes, under ``/enrol``: ``GET /`` the page, ``GET /face/<id>.jpg`` a thumbnail, ``GET /api/state``
the grid as JSON, ``POST /api/rename`` ``{"sighting": 3, "card": "7H"}`` (``null`` or ``"skip"``
leaves it out), ``POST /api/save`` ``{"partial": false}``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
from flask import Blueprint, Flask, Response, current_app, jsonify, render_template, request
from werkzeug.exceptions import HTTPException

from scorekeeper.enrol.collection import Collection, Sighting
from scorekeeper.errors import InvalidCardError, ScorekeeperError
from scorekeeper.rules.cards import DECK, Card
from scorekeeper.web.auth import PINS, install_pin, pin_required
from scorekeeper.web.page import language, script_json, translations
from scorekeeper.web.replies import error

ENROL = "scorekeeper.enrol"
"""``app.extensions`` key of the :class:`EnrolSession` the page shows."""

THUMB_SIZE = (120, 168)

bp = Blueprint("enrol", __name__, url_prefix="/enrol")


@dataclass
class EnrolSession:
    """What the page works on: the collection, and how to save it (the capture decides where)."""

    collection: Collection
    save: Callable[[bool], Path]
    """Called with ``allow_partial``; returns the pack's folder or raises a one-line error."""
    name: str = ""
    saved: Path | None = None
    done: threading.Event = field(default_factory=threading.Event)
    """Set once the deck is saved: the capture stops serving the page then."""


class PageInputError(ScorekeeperError):
    """A malformed request to the enrolment page's API."""


@bp.record_once
def _setup(state: Any) -> None:
    if PINS not in state.app.extensions:
        install_pin(state.app, database=None)


@bp.errorhandler(ScorekeeperError)
def _bad_input(exc: ScorekeeperError) -> Response:
    return error(400, str(exc))


def session() -> EnrolSession:
    found: EnrolSession | None = current_app.extensions.get(ENROL)
    if found is None:
        raise PageInputError("no enrolment is running: start one with `scorekeeper enrol --page`")
    return found


def _json_body() -> dict[str, Any]:
    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        raise PageInputError('the body must be a JSON object, like {"sighting": 3, "card": "7H"}')
    return data


def state_json(enrol: EnrolSession) -> dict[str, Any]:
    """The grid as the page and its script see it."""
    collection = enrol.collection
    best = collection.best()
    filed = collection.by_card()
    return {
        "name": enrol.name,
        "summary": collection.summary(),
        "count": len(best),
        "sightings": len(collection),
        "saved": str(enrol.saved) if enrol.saved is not None else None,
        "slots": [
            {
                "card": card.notation,
                "sighting": best[card].id if card in best else None,
                "times": len(filed.get(card, ())),
                "doubtful": card in best and best[card].doubtful,
            }
            for card in DECK
        ],
        "doubtful": [_sighting_json(s) for s in collection.doubtful()],
        "missing": [c.notation for c in collection.missing()],
        "twice": [c.notation for c in collection.duplicates()],
    }


def _sighting_json(sighting: Sighting) -> dict[str, Any]:
    return {
        "id": sighting.id,
        "card": sighting.card.notation if sighting.card is not None else None,
        "origin": sighting.origin,
        "guesses": [[c.notation, round(p, 3)] for c, p in sighting.reading.guesses],
    }


@bp.get("/")
def show() -> Any:
    lang = language()
    words = translations(str(current_app.static_folder))
    enrol = session()
    return render_template(
        "enrol.html",
        state=state_json(enrol),
        words=words[lang],
        words_json=script_json(words[lang]),
        lang=lang,
        deck=[c.notation for c in DECK],
    )


@bp.get("/face/<int:sighting_id>.jpg")
def face(sighting_id: int) -> Response:
    sighting = session().collection.get(sighting_id)
    thumb = cv2.resize(sighting.face, THUMB_SIZE, interpolation=cv2.INTER_AREA)
    ok, data = cv2.imencode(".jpg", thumb, [cv2.IMWRITE_JPEG_QUALITY, 85])
    if not ok:
        return error(500, f"cannot encode the face of card {sighting_id}")
    response = Response(data.tobytes(), mimetype="image/jpeg")
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/api/state")
def state() -> Response:
    return jsonify(state_json(session()))


@bp.post("/api/rename")
@pin_required
def rename() -> Response:
    data = _json_body()
    sighting_id = data.get("sighting")
    if isinstance(sighting_id, bool) or not isinstance(sighting_id, int):
        raise PageInputError(f"'sighting' must be a card number from the page, not {sighting_id!r}")
    text = data.get("card", "")
    if text is None or (isinstance(text, str) and text.strip().lower() == "skip"):
        card: Card | None = None
    elif isinstance(text, str):
        card = Card.parse(text)
    else:
        raise InvalidCardError(f"'card' must be text like \"7H\" or null, not {text!r}")
    enrol = session()
    enrol.collection.rename(sighting_id, card)
    return jsonify(state_json(enrol))


@bp.post("/api/save")
@pin_required
def save() -> Response:
    data = _json_body() if request.get_data(as_text=True).strip() else {}
    partial = data.get("partial", False)
    if not isinstance(partial, bool):
        raise PageInputError(f"'partial' must be true or false, not {partial!r}")
    enrol = session()
    enrol.saved = enrol.save(partial)
    enrol.done.set()
    return jsonify(state_json(enrol))


def _http_error(exc: HTTPException) -> Response | HTTPException:
    if "/api/" in request.path:
        return error(exc.code or 500, exc.description or exc.name)
    return exc


def create_enrol_app(
    enrol: EnrolSession, *, pin: str | None, test_config: Mapping[str, Any] | None = None
) -> Flask:
    """An app serving only the enrolment page for ``enrol``, writes guarded by ``pin``."""
    from scorekeeper.paths import web_assets_dir
    from scorekeeper.web.headers import install_security_headers

    assets = web_assets_dir()
    app = Flask(
        __name__, template_folder=str(assets / "templates"), static_folder=str(assets / "static")
    )
    app.config.from_mapping(PIN=pin, PIN_TRIES=5, PIN_LOCKOUT=60.0, MAX_CONTENT_LENGTH=1 << 16)
    if test_config is not None:
        app.config.update(test_config)
    app.json.ensure_ascii = False  # type: ignore[attr-defined]
    app.extensions[ENROL] = enrol
    app.register_blueprint(bp)
    install_security_headers(app)
    app.register_error_handler(HTTPException, _http_error)
    app.add_url_rule("/", "root", lambda: Response(status=302, headers={"Location": "/enrol/"}))
    return app
