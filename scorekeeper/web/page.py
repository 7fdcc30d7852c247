"""The page the phones open: ``/`` for the default table, ``/t/<table>`` for the others."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from flask import Blueprint, abort, current_app, render_template, request, send_from_directory

from scorekeeper.errors import ScorekeeperError
from scorekeeper.store import check_table_id
from scorekeeper.web.db import get_store, table_state

LANGUAGES = ("pt", "en", "fr")

bp = Blueprint("page", __name__)


@lru_cache(maxsize=4)
def translations(static_folder: str) -> dict[str, dict[str, str]]:
    data: dict[str, dict[str, str]] = json.loads(
        (Path(static_folder) / "i18n.json").read_text("utf-8")
    )
    return data


def script_json(value: Any) -> str:
    """JSON safe inside a <script> element: no "</" can close it early."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")


def language() -> str:
    lang = request.args.get("lang", "pt")
    return lang if lang in LANGUAGES else "pt"


@bp.get("/favicon.ico")
def favicon() -> Any:
    """Browsers ask for it whatever the page links; one small icon instead of a 404 in every log."""
    return send_from_directory(
        str(current_app.static_folder), "favicon.ico", mimetype="image/x-icon"
    )


@bp.get("/t/")
def tables() -> Any:
    """Every table in the file (a tournament), with its score: the organiser's overview."""
    lang = language()
    store = get_store()
    rows = [store.state(table) for table in store.tables()]
    words = translations(str(current_app.static_folder))[lang]
    return render_template("tables.html", tables=rows, words=words, lang=lang)


@bp.get("/", defaults={"table": None})
@bp.get("/t/<table>")
def show(table: str | None) -> Any:
    try:
        tid = check_table_id(table or current_app.config["DEFAULT_TABLE"])
    except ScorekeeperError:
        abort(404)
    lang = language()
    words = translations(str(current_app.static_folder))
    state = table_state(tid)
    base = "" if table is None else f"/t/{tid}"
    return render_template(
        "page.html",
        state=state,
        state_json=script_json(state),
        words=words[lang],
        words_json=script_json(words),
        lang=lang,
        api=f"{base}/api",
        table=tid,
        default_table=table is None,
        confirm_next_match=bool(current_app.config["CONFIRM_NEXT_MATCH"]),
    )
