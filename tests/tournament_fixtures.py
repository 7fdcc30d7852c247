"""Fixtures for the tournament tests: a real PostgreSQL, the server app, a served copy, played matches.

``pg_dsn`` is ``$SCOREKEEPER_TEST_PG`` (``.ci/run`` starts a cluster and sets it) or, without it, a
throw-away cluster started here from Debian's server binaries; each test session works in a new
database of its own. Tests that need it are skipped, with the reason, only where neither exists.
"""

from __future__ import annotations

import os
import random
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from flask import Flask

from scorekeeper.rules import next_seat, random_legal_deal, replay_record
from scorekeeper.store import CardPlayed, DealStarted, RulesChanged, Store, TrickGathered
from scorekeeper.tournament.app import create_tournament_app
from scorekeeper.tournament.cluster import ClusterError, server_bin, throwaway_cluster

PIN = "1357"
ORGANISER = {"X-Scorekeeper-Pin": PIN}


@pytest.fixture(scope="session")
def pg_server() -> Iterator[str]:
    given = os.environ.get("SCOREKEEPER_TEST_PG")
    if given:
        yield given
        return
    try:
        server_bin()
    except ClusterError as error:
        pytest.skip(f"no PostgreSQL for the tournament tests: {error} (or set SCOREKEEPER_TEST_PG)")
    try:
        with throwaway_cluster() as dsn:
            yield dsn
    except ClusterError as error:
        pytest.skip(f"PostgreSQL would not start here: {error}")


@pytest.fixture(scope="session")
def pg_dsn(pg_server: str) -> Iterator[str]:
    name = f"scorekeeper_test_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(pg_server, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    dsn = pg_server.rsplit("/", 1)[0] + "/" + name
    yield dsn
    with psycopg.connect(pg_server, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE {name} WITH (FORCE)")


@pytest.fixture
def tournament_name() -> str:
    """Every test its own tournament: the database is shared, the tournament is part of every key."""
    return f"t{uuid.uuid4().hex[:12]}"


@pytest.fixture
def tournament_app(pg_dsn: str, tournament_name: str) -> Iterator[Flask]:
    app = create_tournament_app({
        "TESTING": True, "DATABASE_URL": pg_dsn, "TOURNAMENT": tournament_name, "PIN": PIN, "HEARTBEAT": 0.2,
    })
    yield app
    app.extensions["scorekeeper.tournament.hub"].stop()
    app.extensions["scorekeeper.tournament.store"].close()


class Served:
    """A tournament app served by waitress on a loopback port, in a thread."""

    def __init__(self, app: Flask) -> None:
        from waitress.server import create_server

        self.app = app
        self.server = create_server(app, host="127.0.0.1", port=0, threads=8)
        self.url = f"http://127.0.0.1:{self.server.effective_port}"
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.close()


@pytest.fixture
def served(tournament_app: Flask) -> Iterator[Served]:
    serving = Served(tournament_app)
    yield serving
    serving.close()


def play_match(store: Store, table: str, rng: random.Random, *, target: int = 4, deals: int | None = None) -> None:
    """A whole match of random legal deals (to ``target`` riscos), vazas gathered, into the table's log."""
    store.append(table, RulesChanged({"target": target}))
    dealer = rng.randrange(4)
    played = 0
    while replay_record(store.record(table))["winner"] is None and (deals is None or played < deals):
        turned, plays, _ = random_legal_deal(rng, dealer=dealer)
        store.append(table, DealStarted(dealer=dealer, turned=turned.notation))
        for index in range(0, 40, 4):
            store.append(table, *(CardPlayed(card.notation) for card in plays[index:index + 4]), TrickGathered())
        dealer = next_seat(dealer)
        played += 1


def table_store(tmp_path: Path, name: str) -> Store:
    return Store.open(tmp_path / f"{name}.db")


def push_items(store: Store, table: str) -> list[dict[str, Any]]:
    from scorekeeper.tournament.pusher import push_body

    items: list[dict[str, Any]] = push_body(store.events(table))["events"]
    return items
