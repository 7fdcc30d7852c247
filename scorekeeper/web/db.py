"""The app's store and live hub, owned by the app (flaskr's ``db`` module, for an event log)."""

from __future__ import annotations

from flask import Flask, current_app

from scorekeeper.store import Store
from scorekeeper.web.live import Hub

_STORE = "scorekeeper.store"
_HUB = "scorekeeper.hub"


def init_app(app: Flask) -> None:
    store = Store.open(app.config["DATABASE"])
    app.extensions[_STORE] = store
    app.extensions[_HUB] = Hub(
        store, watch_interval=float(app.config["WATCH_INTERVAL"]), heartbeat=float(app.config["HEARTBEAT"])
    )


def get_store() -> Store:
    store: Store = current_app.extensions[_STORE]
    return store


def get_hub() -> Hub:
    hub: Hub = current_app.extensions[_HUB]
    return hub
