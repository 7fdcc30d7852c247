"""Helpers for the tournament tests: the organiser's PIN, a served app, matches played into a
table's log."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from flask import Flask
from waitress.server import BaseWSGIServer, create_server

from scorekeeper.rules import next_seat, random_legal_deal, replay_record
from scorekeeper.store import CardPlayed, DealStarted, RulesChanged, Store, TrickGathered
from scorekeeper.web.server import PageServer

PIN = "1357"
ORGANISER = {"X-Scorekeeper-Pin": PIN}


def loopback_server(app: Flask, *, port: int = 0, threads: int) -> tuple[BaseWSGIServer, int]:
    """A waitress server for ``app`` on 127.0.0.1 (not running yet) and the port it bound."""
    server = create_server(app, host="127.0.0.1", port=port, threads=threads)
    assert isinstance(server, BaseWSGIServer)  # one address, so one server
    # types-waitress leaves out effective_port, which BaseWSGIServer.__init__ sets.
    bound: int = server.effective_port  # type: ignore[attr-defined]
    return server, bound


class Served:
    """A tournament app served by waitress on a loopback port, in a thread."""

    def __init__(self, app: Flask, *, port: int = 0, threads: int = 8) -> None:
        self.app = app
        server, port = loopback_server(app, port=port, threads=threads)
        self.url = f"http://127.0.0.1:{port}"
        # Stopped as the table's page server is: streams ended first, then the loop, then its
        # sockets. Closing them while that loop waited on them failed its select with EBADF,
        # and could close a descriptor number the next test's server had been given.
        self.serving = PageServer(
            server=server,
            url=self.url,
            port=port,
            on_stop=[app.extensions["scorekeeper.tournament.hub"].stop],
        )
        self.serving.start_in_background()

    def close(self) -> None:
        self.serving.stop()
        thread = self.serving.thread
        assert thread is not None and not thread.is_alive(), "the server's loop did not stop"


def play_match(
    store: Store, table: str, rng: random.Random, *, target: int = 4, deals: int | None = None
) -> None:
    """A whole match of random legal deals to ``target`` riscos, vazas gathered, into the table's
    log."""
    store.append(table, RulesChanged({"target": target}))
    dealer = rng.randrange(4)
    played = 0
    while replay_record(store.record(table))["winner"] is None and (
        deals is None or played < deals
    ):
        turned, plays, _ = random_legal_deal(rng, dealer=dealer)
        store.append(table, DealStarted(dealer=dealer, turned=turned.notation))
        for index in range(0, 40, 4):
            store.append(
                table,
                *(CardPlayed(card.notation) for card in plays[index : index + 4]),
                TrickGathered(),
            )
        dealer = next_seat(dealer)
        played += 1


def table_store(tmp_path: Path, name: str) -> Store:
    return Store.open(tmp_path / f"{name}.db")


def push_items(store: Store, table: str) -> list[dict[str, Any]]:
    from scorekeeper.tournament.pusher import push_body

    items: list[dict[str, Any]] = push_body(store.events(table))["events"]
    return items
