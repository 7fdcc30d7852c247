"""Fixtures for the tournament tests: a real PostgreSQL, the server app, a served copy.

``pg_dsn`` is ``$SCOREKEEPER_TEST_PG`` (``.ci/run`` starts a cluster and sets it) or, without it, a
throw-away cluster started here from Debian's server binaries; each test session works in a new
database of its own. Tests that need it are skipped, with the reason, only where neither exists.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import psycopg
import pytest
from flask import Flask

from scorekeeper.tournament.app import create_tournament_app
from scorekeeper.tournament.cluster import ClusterError, server_bin, throwaway_cluster
from tests.tournament.helpers import PIN, Served


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
    """Each test its own tournament: the database is shared, the tournament is part of every key."""
    return f"t{uuid.uuid4().hex[:12]}"


@pytest.fixture
def tournament_app(pg_dsn: str, tournament_name: str) -> Iterator[Flask]:
    app = create_tournament_app(
        {
            "TESTING": True,
            "DATABASE_URL": pg_dsn,
            "TOURNAMENT": tournament_name,
            "PIN": PIN,
            "HEARTBEAT": 0.2,
        }
    )
    yield app
    app.extensions["scorekeeper.tournament.hub"].stop()
    app.extensions["scorekeeper.tournament.store"].close()


@pytest.fixture
def served(tournament_app: Flask) -> Iterator[Served]:
    serving = Served(tournament_app)
    yield serving
    serving.close()
