"""The app's store and live hub, owned by the app (flaskr's ``db`` module, for an event log)."""

from __future__ import annotations

from typing import Any

from flask import Flask, current_app

from scorekeeper.store import Store
from scorekeeper.web.live import Hub

_STORE = "scorekeeper.store"
_HUB = "scorekeeper.hub"


def init_app(app: Flask) -> None:
    store = Store.open(app.config["DATABASE"])
    app.extensions[_STORE] = store
    app.extensions[_HUB] = Hub(
        store,
        watch_interval=float(app.config["WATCH_INTERVAL"]),
        heartbeat=float(app.config["HEARTBEAT"]),
        live=app.config.get("LIVE_STATUS"),
        max_streams=int(app.config["MAX_STREAMS"]),
        queue_size=int(app.config["STREAM_QUEUE"]),
    )


def notify_live(app: Flask) -> None:
    """Tell every open page that ``LIVE_STATUS`` changed (the camera dropped or came back)."""
    hub: Hub = app.extensions[_HUB]
    hub.notify()


def table_state(table_id: str) -> dict[str, Any]:
    """The table's state from the store, plus the live status of the process feeding it."""
    hub: Hub = current_app.extensions[_HUB]
    return hub.state(table_id)


def get_store() -> Store:
    store: Store = current_app.extensions[_STORE]
    return store


def get_hub() -> Hub:
    hub: Hub = current_app.extensions[_HUB]
    return hub
