"""The tournament server against a real PostgreSQL: pushes, keys, standings, rounds, exports, live
pages."""

from __future__ import annotations

import csv
import io
import itertools
import json
import random
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import psycopg
import pytest
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorekeeper.cli import main
from scorekeeper.rules import replay_record
from scorekeeper.store import Store
from scorekeeper.tournament.app import create_tournament_app
from scorekeeper.tournament.db import migrations
from scorekeeper.tournament.pusher import Pusher
from scorekeeper.tournament.standings import Game, Scoring, standings
from tests.tournament.helpers import (
    ORGANISER,
    PIN,
    Served,
    loopback_server,
    play_match,
    push_items,
    table_store,
)

KEY = "X-Scorekeeper-Key"


@pytest.fixture
def client(tournament_app: Flask) -> FlaskClient:
    return tournament_app.test_client()


def add_table(client: FlaskClient, table: str) -> str:
    response = client.post("/api/tables", json={"table": table}, headers=ORGANISER)
    assert response.status_code == 200, response.get_json()
    key: str = response.get_json()["key"]
    return key


def push(client: FlaskClient, table: str, key: str, items: Any) -> Any:
    return client.post(f"/api/tables/{table}/events", json={"events": items}, headers={KEY: key})


def held(client: FlaskClient, table: str) -> int:
    acked: int = client.get(f"/api/tables/{table}/ack").get_json()["acked"]
    return acked


def stored_rows(dsn: str, tournament: str) -> list[tuple[Any, ...]]:
    with psycopg.connect(dsn) as conn:
        return conn.execute(
            "SELECT table_id, seq, kind, data FROM events WHERE tournament = %s"
            " ORDER BY table_id, seq",
            (tournament,),
        ).fetchall()


@pytest.fixture
def a_match(tmp_path: Path) -> Store:
    store = table_store(tmp_path, "mesa-1")
    play_match(store, "mesa-1", random.Random(3))
    return store


# -- pushes ------------------------------------------------------------------------------------


def test_a_push_sent_twice_is_stored_once(
    client: FlaskClient, a_match: Store, pg_dsn: str, tournament_name: str
) -> None:
    key = add_table(client, "mesa-1")
    items = push_items(a_match, "mesa-1")
    first = push(client, "mesa-1", key, items[:30])
    again = push(client, "mesa-1", key, items[:30])
    assert first.status_code == again.status_code == 200
    assert first.get_json() == again.get_json() == {"acked": 30}
    overlapping = push(
        client, "mesa-1", key, items[20:]
    )  # a reply was lost: resent with what follows
    assert overlapping.get_json() == {"acked": len(items)}
    rows = stored_rows(pg_dsn, tournament_name)
    assert [row[1] for row in rows] == list(range(1, len(items) + 1))
    assert client.get("/api/tables/mesa-1").get_json()["score"] == a_match.state("mesa-1")["score"]


def test_a_gap_is_refused_with_where_the_server_is(
    client: FlaskClient, a_match: Store, pg_dsn: str, tournament_name: str
) -> None:
    key = add_table(client, "mesa-1")
    items = push_items(a_match, "mesa-1")
    assert push(client, "mesa-1", key, items[:5]).status_code == 200
    ahead = push(client, "mesa-1", key, items[7:10])
    assert ahead.status_code == 409 and ahead.get_json()["acked"] == 5
    shuffled = push(client, "mesa-1", key, [items[6], items[5]])
    assert shuffled.status_code == 400 and "seq order" in shuffled.get_json()["error"]
    assert held(client, "mesa-1") == 5 and len(stored_rows(pg_dsn, tournament_name)) == 5


def test_a_different_event_at_a_held_seq_is_a_conflict(client: FlaskClient, a_match: Store) -> None:
    key = add_table(client, "mesa-1")
    items = push_items(a_match, "mesa-1")
    assert push(client, "mesa-1", key, items[:3]).status_code == 200
    other = dict(items[1], data={"dealer": 2, "turned": "7C"}, kind="deal_started")
    response = push(client, "mesa-1", key, [other])
    assert response.status_code == 409 and "acked" not in response.get_json()
    assert held(client, "mesa-1") == 3


def test_a_key_writes_only_its_own_table(
    client: FlaskClient, a_match: Store, pg_dsn: str, tournament_name: str
) -> None:
    key1 = add_table(client, "mesa-1")
    key2 = add_table(client, "mesa-2")
    items = push_items(a_match, "mesa-1")
    for table, key in (
        ("mesa-2", key1),
        ("mesa-1", key2),
        ("mesa-1", "not-a-key"),
        ("mesa-9", key1),
    ):
        response = push(client, table, key, items[:4])
        assert response.status_code == 401, (table, response.get_json())
    no_key = client.post("/api/tables/mesa-1/events", json={"events": items[:4]})
    assert no_key.status_code == 401
    assert stored_rows(pg_dsn, tournament_name) == []
    assert push(client, "mesa-1", key1, items[:4]).status_code == 200


def test_the_organiser_pin_writes_any_table_and_a_wrong_one_nothing(
    client: FlaskClient, a_match: Store
) -> None:
    add_table(client, "mesa-1")
    items = push_items(a_match, "mesa-1")
    wrong = client.post(
        "/api/tables/mesa-1/events",
        json={"events": items[:2]},
        headers={"X-Scorekeeper-Pin": "0000"},
    )
    assert wrong.status_code == 401 and held(client, "mesa-1") == 0
    right = client.post("/api/tables/mesa-1/events", json={"events": items[:2]}, headers=ORGANISER)
    assert right.status_code == 200 and held(client, "mesa-1") == 2


def test_a_push_whose_log_would_not_replay_is_refused(client: FlaskClient) -> None:
    key = add_table(client, "mesa-1")
    at = "2026-05-01T20:00:00+00:00"
    start = {"seq": 1, "kind": "deal_started", "data": {"dealer": 0, "turned": "AH"}, "at": at}
    twice = [
        start,
        {"seq": 2, "kind": "card_played", "data": {"card": "2S", "frame": None}, "at": at},
        {"seq": 3, "kind": "card_played", "data": {"card": "2S", "frame": None}, "at": at},
    ]
    response = push(client, "mesa-1", key, twice)
    assert response.status_code == 400 and "would not replay" in response.get_json()["error"]
    assert held(client, "mesa-1") == 0


def test_a_nul_character_is_refused_not_a_server_error(client: FlaskClient, a_match: Store) -> None:
    key = add_table(client, "mesa-1")
    items = push_items(a_match, "mesa-1")
    assert items[2]["kind"] == "card_played"
    sneaky = dict(items[2], data=dict(items[2]["data"], frame="\x00"))
    response = push(client, "mesa-1", key, [*items[:2], sneaky])
    assert response.status_code == 400 and "NUL" in response.get_json()["error"]
    assert held(client, "mesa-1") == 0


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 2**40)
    | st.text(max_size=6)
    | st.sampled_from(["AH", "7C", "2S"]),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)
event_like = st.fixed_dictionaries(
    {
        "seq": st.one_of(st.integers(-2, 4), json_values),
        "kind": st.one_of(
            st.sampled_from(
                ["deal_started", "card_played", "undone", "record_replaced", "rules_changed"]
            ),
            json_values,
        ),
        "data": st.one_of(
            st.fixed_dictionaries({"dealer": json_values, "turned": json_values}),
            st.fixed_dictionaries({"card": json_values}),
            json_values,
        ),
        "at": st.one_of(
            st.just("2026-05-01T20:00:00+00:00"), st.just("2026-05-01T20:00:00"), json_values
        ),
    },
    optional={"extra": json_values},
)
push_bodies = st.one_of(
    st.builds(lambda events: {"events": events}, st.lists(event_like, max_size=4)),
    st.builds(lambda value: {"events": value}, json_values),
    json_values,
)


def test_malformed_pushes_answer_no_5xx_and_change_nothing(
    client: FlaskClient, a_match: Store, pg_dsn: str, tournament_name: str
) -> None:
    key = add_table(client, "mesa-1")
    items = push_items(a_match, "mesa-1")
    assert push(client, "mesa-1", key, items[:10]).status_code == 200
    before = stored_rows(pg_dsn, tournament_name)
    statuses: dict[int, int] = {}

    @settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
    @given(body=push_bodies, raw=st.booleans())
    def malformed(body: Any, raw: bool) -> None:
        text = json.dumps(body) if not raw else json.dumps(body)[:-1]  # raw: cut short, not JSON
        response = client.post(
            "/api/tables/mesa-1/events",
            data=text,
            headers={KEY: key},
            content_type="application/json",
        )
        statuses[response.status_code] = statuses.get(response.status_code, 0) + 1
        assert response.status_code < 500, response.get_json()
        assert "error" in response.get_json() or response.get_json() == {"acked": 10}

    malformed()
    assert stored_rows(pg_dsn, tournament_name) == before
    assert statuses.get(400, 0) > 300, statuses


# -- the pusher --------------------------------------------------------------------------------


def test_the_pusher_works_offline_and_catches_up(
    tmp_path: Path, tournament_app: Flask, a_match: Store
) -> None:
    key = add_table(tournament_app.test_client(), "mesa-1")
    # The server is down: nothing listens at its address yet.
    server, port = loopback_server(tournament_app, threads=4)
    server.close()
    warnings: list[str] = []
    table = table_store(tmp_path, "local")
    pusher = Pusher(
        table,
        "mesa-1",
        f"http://127.0.0.1:{port}",
        key,
        warn=warnings.append,
        base_delay=0.05,
        max_delay=0.3,
        poll=0.05,
    ).start()
    try:
        for stored in a_match.events("mesa-1")[:40]:
            table.append("mesa-1", stored.event)  # the table plays on while the server is away
        time.sleep(0.5)
        assert pusher.status.acked is None and pusher.status.failures >= 2
        assert len([w for w in warnings if "retries" in w]) == 1, (
            "one line per trouble, not one per retry"
        )
        back = Served(tournament_app, port=port, threads=4)
        try:
            assert pusher.wait_caught_up(10)
            for stored in a_match.events("mesa-1")[40:]:
                table.append("mesa-1", stored.event)
            pusher.wake()
            assert pusher.wait_caught_up(10)
        finally:
            back.close()
    finally:
        pusher.stop()
    client = tournament_app.test_client()
    assert held(client, "mesa-1") == table.last_seq("mesa-1")
    assert client.get("/api/tables/mesa-1").get_json()["score"] == table.state("mesa-1")["score"]


def test_a_refused_key_never_stops_the_table(
    tmp_path: Path, served: Served, a_match: Store
) -> None:
    add_table(served.app.test_client(), "mesa-1")
    table = table_store(tmp_path, "local")
    warnings: list[str] = []
    pusher = Pusher(
        table, "mesa-1", served.url, "wrong", warn=warnings.append, base_delay=0.05, max_delay=0.2
    ).start()
    try:
        for stored in a_match.events("mesa-1")[:20]:
            table.append("mesa-1", stored.event)
        # The table goes on at once; the server's refusal arrives when it arrives (a loaded
        # machine may take seconds), so wait for the warning rather than a fixed time.
        deadline = time.monotonic() + 15
        while not any("401" in w for w in warnings) and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        pusher.stop()
    assert table.last_seq("mesa-1") == 20
    assert (
        any("401" in w for w in warnings) and pusher.status.pushes == 0 and pusher.status.acked == 0
    )


def test_a_page_stream_ends_when_the_server_stops(tournament_app: Flask) -> None:
    hub = tournament_app.extensions["scorekeeper.tournament.hub"]
    stream = hub.stream(lambda ids: [])
    assert next(stream).startswith("retry:")
    assert next(stream).startswith("event: tables")
    hub.stop()
    # No more pings once stopped: the connection is closing, nothing may be written to it.
    assert list(itertools.islice(stream, 3)) == []


# -- several server processes --------------------------------------------------------------------


def test_a_push_to_one_server_reaches_the_page_of_another(
    pg_dsn: str, tournament_name: str, tournament_app: Flask, a_match: Store
) -> None:
    other = create_tournament_app(
        {"DATABASE_URL": pg_dsn, "TOURNAMENT": tournament_name, "PIN": PIN, "HEARTBEAT": 0.2}
    )
    assert other.extensions["scorekeeper.tournament.hub"].wait_listening(10)
    key = add_table(tournament_app.test_client(), "mesa-1")
    page = Served(other)
    seen: list[dict[str, Any]] = []
    try:

        def read() -> None:
            with urllib.request.urlopen(f"{page.url}/api/stream", timeout=10) as stream:
                kind = None
                for raw in stream:
                    line = raw.decode().strip()
                    if line.startswith("event:"):
                        kind = line.split(":", 1)[1].strip()
                    elif line.startswith("data:") and kind == "table":
                        seen.append(json.loads(line[5:]))
                        if seen[-1]["seq"] >= 12:
                            return

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        time.sleep(0.5)
        items = push_items(a_match, "mesa-1")
        assert push(tournament_app.test_client(), "mesa-1", key, items[:12]).status_code == 200
        reader.join(10)
    finally:
        page.close()
        other.extensions["scorekeeper.tournament.hub"].stop()
        other.extensions["scorekeeper.tournament.store"].close()
    assert seen and seen[-1]["table"] == "mesa-1" and seen[-1]["seq"] == 12
    assert seen[-1]["current"]["number"] == 1 and seen[-1]["current"]["vazas"] == 2


# -- teams, rounds, standings, exports -----------------------------------------------------------


def play_round(
    client: FlaskClient, keys: dict[str, str], tmp_path: Path, stores: dict[str, Store], seed: int
) -> None:
    """Every table of the latest round plays its match to the end and pushes it."""
    rounds = client.get("/api/rounds").get_json()
    rng = random.Random(seed)
    for game in rounds[-1]["games"]:
        if game["table"] is None:
            continue
        table = game["table"]
        store = stores.setdefault(table, table_store(tmp_path, table))
        if store.state(table)["deals"]:
            from scorekeeper.store import MatchStarted

            store.append(table, MatchStarted())
        assert store.state(table)["match"] == game["match"]
        play_match(store, table, rng)
        items = push_items(store, table)
        new = items[held(client, table) :]
        assert push(client, table, keys[table], new).get_json() == {"acked": len(items)}


def test_standings_equal_replaying_every_tables_own_log(
    client: FlaskClient, tmp_path: Path
) -> None:
    teams = [f"Equipa {n}" for n in range(1, 10)]  # odd: someone sits each round out
    assert client.post("/api/teams", json={"teams": teams}, headers=ORGANISER).status_code == 200
    keys = {f"mesa-{n}": add_table(client, f"mesa-{n}") for n in range(1, 5)}
    stores: dict[str, Store] = {}
    opponents: set[frozenset[str]] = set()
    for number in range(1, 5):
        paired = client.post("/api/rounds", headers=ORGANISER)
        assert paired.status_code == 200, paired.get_json()
        games = paired.get_json()["games"]
        seated = [g["nos"] for g in games] + [g["eles"] for g in games if g["eles"]]
        assert sorted(seated) == sorted(teams), "each team plays once a round"
        for game in games:
            if game["eles"]:
                pair = frozenset((game["nos"], game["eles"]))
                assert pair not in opponents, f"round {number} repeats {sorted(pair)}"
                opponents.add(pair)
        refused = client.post("/api/rounds", headers=ORGANISER)
        assert refused.status_code == 400 and "still being played" in refused.get_json()["error"]
        play_round(client, keys, tmp_path, stores, seed=number)

    # The same standings from the tables' own SQLite logs, through the same engine.
    expected_games = []
    for round_info in client.get("/api/rounds").get_json():
        for game in round_info["games"]:
            if game["table"] is None:
                expected_games.append(Game(round=round_info["round"], nos=game["nos"], eles=None))
                continue
            own = stores[game["table"]].folded(game["table"]).matches[game["match"] - 1].record
            result = replay_record(own)
            expected_games.append(
                Game(
                    round=round_info["round"],
                    nos=game["nos"],
                    eles=game["eles"],
                    score=result["score"],
                    winner=result["winner"],
                )
            )
    expected = [row.to_json() for row in standings(expected_games, teams, Scoring(win=3, loss=1))]
    got = client.get("/api/standings").get_json()
    assert got["standings"] == expected
    assert got["scoring"] == {"win": 3, "loss": 1}
    assert sum(row["played"] for row in got["standings"]) == 4 * 9, (
        "every team played (or sat out) every round"
    )
    points = [row["points"] for row in got["standings"]]
    assert points == sorted(points, reverse=True)


def test_a_team_is_entered_once(client: FlaskClient) -> None:
    assert (
        client.post("/api/teams", json={"teams": ["Águias"]}, headers=ORGANISER).status_code == 200
    )
    again = client.post("/api/teams", json={"teams": ["Bairro", "Águias"]}, headers=ORGANISER)
    assert again.status_code == 400 and "already entered" in again.get_json()["error"]
    assert client.get("/api/teams").get_json() == ["Águias"]
    assert client.post("/api/teams", json={"teams": ["X"]}).status_code == 401


def test_results_round_trip_through_csv_and_replay(
    client: FlaskClient,
    tmp_path: Path,
    pg_dsn: str,
    tournament_name: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    client.post("/api/teams", json={"teams": ["A", "B", "C", "D"]}, headers=ORGANISER)
    keys = {t: add_table(client, t) for t in ("mesa-1", "mesa-2")}
    client.post("/api/rounds", headers=ORGANISER)
    play_round(client, keys, tmp_path, {}, seed=11)
    games = client.get("/api/rounds").get_json()[0]["games"]

    rows = list(csv.DictReader(io.StringIO(client.get("/results.csv").get_data(as_text=True))))
    assert [(r["mesa"], r["nos"], r["eles"]) for r in rows] == [
        (g["table"], g["nos"], g["eles"]) for g in games
    ]
    for row, game in zip(rows, games, strict=True):
        assert (int(row["riscos_nos"]), int(row["riscos_eles"])) == (
            game["score"]["nos"],
            game["score"]["eles"],
        )
        assert row["vencedor"] == game[game["winner"]]

    folder = tmp_path / "records"
    assert (
        main(
            [
                "tournament",
                "results",
                "--db",
                pg_dsn,
                "--name",
                tournament_name,
                "--records",
                str(folder),
                "--csv",
                str(tmp_path / "r.csv"),
                "--json",
            ]
        )
        == 0
    )
    standings_printed = json.loads(capsys.readouterr().out)
    assert {row["team"] for row in standings_printed} == {"A", "B", "C", "D"}
    with open(tmp_path / "r.csv", encoding="utf-8", newline="") as written:
        assert written.read() == client.get("/results.csv").get_data(as_text=True)
    for game in games:
        path = folder / f"ronda1-{game['table']}.json"
        assert main(["replay", str(path), "--json"]) == 0
        replayed = json.loads(capsys.readouterr().out)
        assert replayed["score"] == game["score"] and replayed["winner"] == game["winner"]
        served_record = client.get(
            f"/api/tables/{game['table']}/matches/{game['match']}/record"
        ).get_json()
        assert json.loads(path.read_text(encoding="utf-8")) == served_record


def test_the_organiser_corrects_a_match_and_a_table_key_cannot(
    client: FlaskClient, tmp_path: Path
) -> None:
    client.post("/api/teams", json={"teams": ["A", "B"]}, headers=ORGANISER)
    keys = {"mesa-1": add_table(client, "mesa-1")}
    client.post("/api/rounds", headers=ORGANISER)
    play_round(client, keys, tmp_path, {}, seed=5)
    game = client.get("/api/rounds").get_json()[0]["games"][0]
    # The organiser's record: another match altogether (say the table's laptop recorded the wrong
    # one).
    rng_store = table_store(tmp_path, "fix")
    play_match(rng_store, "fix", random.Random(99))
    record = rng_store.record("fix")
    flipped_winner = replay_record(record)["winner"]
    body = {"match": game["match"], "record": record}
    assert (
        client.post(
            "/api/tables/mesa-1/correction", json=body, headers={KEY: keys["mesa-1"]}
        ).status_code
        == 401
    )
    assert (
        client.post("/api/tables/mesa-1/correction", json=body, headers=ORGANISER).status_code
        == 200
    )
    corrected = client.get("/api/rounds").get_json()[0]["games"][0]
    assert corrected["corrected"] and corrected["winner"] == flipped_winner
    assert corrected["score"] == replay_record(record)["score"]
    bad = client.post(
        "/api/tables/mesa-1/correction",
        json={"match": 1, "record": {"deals": [{"dealer": 9}]}},
        headers=ORGANISER,
    )
    assert bad.status_code == 400
    withdrawn = client.post(
        "/api/tables/mesa-1/correction",
        json={"match": game["match"], "record": None},
        headers=ORGANISER,
    )
    assert withdrawn.status_code == 200
    assert client.get("/api/rounds").get_json()[0]["games"][0]["winner"] == game["winner"]


def test_the_organiser_page_shows_every_table_in_portuguese(
    client: FlaskClient, a_match: Store
) -> None:
    key = add_table(client, "mesa-1")
    push(client, "mesa-1", key, push_items(a_match, "mesa-1")[:6])
    page = client.get("/").get_data(as_text=True)
    assert 'lang="pt"' in page and "Classificação" in page and "Mesas" in page and "Rondas" in page
    assert "vitória 3, derrota 1" in page
    tables = client.get("/api/tables").get_json()
    assert [t["table"] for t in tables] == ["mesa-1"]
    assert tables[0]["current"]["number"] == 1 and tables[0]["score"] == {"nos": 0, "eles": 0}


# -- the schema and the command line -------------------------------------------------------------


def test_migrations_are_applied_once_in_order(pg_dsn: str, tournament_app: Flask) -> None:
    with psycopg.connect(pg_dsn) as conn:
        applied = conn.execute(
            "SELECT version, name FROM schema_version ORDER BY version"
        ).fetchall()
        with pytest.raises(psycopg.errors.RaiseException, match="append-only"):
            conn.execute("DELETE FROM events")
    assert applied == [(version, name) for version, name, _ in migrations()]
    assert applied[0] == (1, "001_tournament.sql")


def test_the_command_line_adds_tables_and_teams_and_pairs(
    pg_dsn: str, tournament_name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    common = ["--db", pg_dsn, "--name", tournament_name]
    assert main(["tournament", "add-table", *common, "mesa-1", "mesa-2", "--json"]) == 0
    keys = json.loads(capsys.readouterr().out)
    assert set(keys) == {"mesa-1", "mesa-2"} and keys["mesa-1"] != keys["mesa-2"]
    assert main(["tournament", "add-table", *common, "mesa-1"]) == 2
    assert "already in the tournament" in capsys.readouterr().err
    assert main(["tournament", "add-team", *common, "Águias", "Bairro", "Cais"]) == 0
    assert main(["tournament", "pair", *common]) == 0
    out = capsys.readouterr().out
    assert "Ronda 1" in out and "folga: " in out and "mesa-1: Nós " in out


@pytest.mark.parametrize(
    "argv",
    [
        ["tournament", "serve", "--db", "sqlite:///x.db"],
        ["tournament", "add-table", "--db", "postgresql://nobody@127.0.0.1:1/none", "mesa-1"],
        ["run", "--source", "0", "--tournament", "http://127.0.0.1:8100"],
        ["demo", "--headless", "--tournament", "ftp://x", "--table-key", "k"],
    ],
)
def test_bad_tournament_options_are_one_line_and_status_2(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
