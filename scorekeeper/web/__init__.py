"""The live score page and its JSON API (a Flask app in the shape of Flask's tutorial app).

``create_app(test_config=None)`` builds the app; config keys: ``DATABASE`` (the store's file),
``PIN`` (the table PIN for writes; no PIN, no writes), ``DEFAULT_TABLE`` (the table ``/`` shows),
``CONFIRM_NEXT_MATCH`` (a won match waits for "Nova partida" instead of the next deal opening the
next match), ``WATCH_INTERVAL`` (seconds between checks for another process's writes), ``HEARTBEAT``
(seconds between keep-alive pings on idle event streams), ``PIN_TRIES`` and ``PIN_LOCKOUT`` (wrong
PINs an address may send before it gets one more every that many seconds), ``MAX_STREAMS`` and
``STREAM_QUEUE`` (event streams open at once; changes a stream may fall behind before it is
dropped), ``TRUSTED_HOSTS`` (the Host headers answered; None: any). Without ``PIN``, the PIN hash
kept in the store's file (``scorekeeper serve --pin``) is the PIN. Without ``test_config`` the keys
can also come from the environment as ``SCOREKEEPER_<KEY>``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import Flask
from werkzeug.exceptions import HTTPException

from scorekeeper.paths import default_db_path, web_assets_dir
from scorekeeper.store import DEFAULT_TABLE
from scorekeeper.web import api, db, page
from scorekeeper.web.auth import install_pin
from scorekeeper.web.headers import install_security_headers


def create_app(test_config: Mapping[str, Any] | None = None) -> Flask:
    assets = web_assets_dir()
    app = Flask(
        __name__,
        template_folder=str(assets / "templates"),
        static_folder=str(assets / "static"),
    )
    app.config.from_mapping(
        DATABASE=str(default_db_path()),
        PIN=None,
        DEFAULT_TABLE=DEFAULT_TABLE,
        WATCH_INTERVAL=0.1,
        HEARTBEAT=15.0,
        PIN_TRIES=5,
        PIN_LOCKOUT=60.0,
        CONFIRM_NEXT_MATCH=False,
        MAX_STREAMS=256,
        STREAM_QUEUE=32,
        TRUSTED_HOSTS=None,
        JSON_SORT_KEYS=False,
        MAX_CONTENT_LENGTH=1 << 20,
        SEND_FILE_MAX_AGE_DEFAULT=300,
    )
    if test_config is None:
        app.config.from_prefixed_env("SCOREKEEPER")
    else:
        app.config.update(test_config)
    app.json.sort_keys = False  # type: ignore[attr-defined]
    app.json.ensure_ascii = False  # type: ignore[attr-defined]
    db.init_app(app)
    install_pin(app, database=app.config["DATABASE"])
    install_security_headers(app)
    app.register_blueprint(page.bp)
    app.register_blueprint(api.bp)
    app.register_error_handler(HTTPException, api.api_http_error)
    return app
