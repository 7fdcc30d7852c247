"""The page and the JSON API through Flask's test client: every route, every refusal."""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from scorekeeper.pipeline.recorder import StoreRecorder
from scorekeeper.rules import Card
from scorekeeper.store import CardPlayed, DealStarted, DoubtRaised, Store
from scorekeeper.tracking import events as game
from scorekeeper.web import create_app
from scorekeeper.web.page import script_json
from tests.test_store import legal_deal, revoke_deal

PIN = "2468"
AUTH = {"X-Scorekeeper-Pin": PIN}


@pytest.fixture
def app(tmp_path: Path) -> Flask:
    return create_app(
        {
            "TESTING": True,
            "DATABASE": str(tmp_path / "web.db"),
            "PIN": PIN,
            "HEARTBEAT": 0.05,
            "WATCH_INTERVAL": 0.02,
        }
    )


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def state(client: FlaskClient, table: str = "") -> dict[str, Any]:
    response = client.get(f"{table}/api/state")
    assert response.status_code == 200
    data: dict[str, Any] = response.get_json()
    return data


def post(client: FlaskClient, path: str, body: Any = None, **kwargs: Any) -> Any:
    return client.post(
        path, json=body if body is not None else {}, headers=kwargs.pop("headers", AUTH), **kwargs
    )


def started(client: FlaskClient, plays: int = 0, seed: int = 5) -> list[str]:
    turned, cards = legal_deal(seed)
    assert post(client, "/api/deal", {"dealer": 0, "turned": turned}).status_code == 200
    if plays:
        assert post(client, "/api/plays", {"cards": cards[:plays]}).status_code == 200
    return cards


# -- the page ----------------------------------------------------------------------------------


def test_the_page_shows_both_teams_and_the_score(client: FlaskClient) -> None:
    page = client.get("/").get_data(as_text=True)
    assert "Nós" in page and "Eles" in page and 'id="score-nos">0<' in page
    assert 'lang="pt"' in page and "Vazas da mão" in page


@pytest.mark.parametrize(
    ("lang", "words"),
    [("en", "Vazas of the deal"), ("fr", "Vazas de la donne"), ("xx", "Vazas da mão")],
)
def test_the_page_speaks_three_languages(client: FlaskClient, lang: str, words: str) -> None:
    assert words in client.get(f"/?lang={lang}").get_data(as_text=True)


def test_the_page_needs_nothing_from_outside(client: FlaskClient) -> None:
    page = client.get("/t/mesa-2").get_data(as_text=True)
    assert not re.search(r"""(src|href)=["'](https?:)?//""", page), (
        "every asset comes from this server"
    )
    for name in ("app.js", "app.css", "i18n.json"):
        response = client.get(f"/static/{name}")
        assert response.status_code == 200
        assert not re.search(rb"(https?:)?//[a-z0-9.-]+\.[a-z]{2,}/", response.data)
        response.close()


def test_the_page_embeds_the_state_safely(client: FlaskClient) -> None:
    started(client, plays=3)
    page = client.get("/").get_data(as_text=True)
    embedded = page.split('<script id="initial-state" type="application/json">')[1].split(
        "</script>"
    )[0]
    assert json.loads(embedded)["seq"] == 4
    assert "</script>" not in script_json({"proof": "</script><script>alert(1)</script>"})


def test_a_bad_table_name_is_not_found(client: FlaskClient) -> None:
    assert client.get("/t/-nope").status_code == 404
    response = client.get("/t/-nope/api/state")
    assert response.status_code == 400 and "table id" in response.get_json()["error"]


def test_the_tables_overview_lists_each_table_with_its_score(client: FlaskClient) -> None:
    assert post(client, "/t/mesa-2/api/deal", {"turned": "7S"}).status_code == 200
    started(client)
    page = client.get("/t/?lang=en").get_data(as_text=True)
    assert (
        "Tables" in page and 'href="/t/mesa-2?lang=en"' in page and 'href="/t/mesa?lang=en"' in page
    )


# -- reads -------------------------------------------------------------------------------------


def test_state_has_the_score_and_the_current_deal(client: FlaskClient) -> None:
    assert state(client)["score"] == {"nos": 0, "eles": 0} and state(client)["current"] is None
    cards = started(client, plays=6)
    current = state(client)["current"]
    assert current["table"]["cards"] == cards[4:6] and current["number"] == 1


def test_record_log_and_tables_read_back_what_was_written(client: FlaskClient) -> None:
    cards = started(client, plays=2)
    record = client.get("/api/record").get_json()
    assert record["deals"][0]["plays"] == cards[:2]
    log = client.get("/api/log").get_json()
    assert [entry["kind"] for entry in log] == ["deal_started", "card_played", "card_played"]
    assert client.get("/api/tables").get_json() == ["mesa"]


# -- writes need the PIN -----------------------------------------------------------------------

WRITES = [
    ("/api/record", {"deals": []}),
    ("/api/plays", {"card": "2S"}),
    ("/api/deal", {"turned": "AH"}),
    ("/api/correct", {"play": 1, "card": "3S"}),
    ("/api/dealer", {"dealer": 2}),
    ("/api/undo", {}),
    ("/api/renuncia", {"decision": "confirm", "trick": 1, "seat": 1}),
    ("/api/match", {}),
    ("/api/rules", {"tie": "carry"}),
]


@pytest.mark.parametrize(("path", "body"), WRITES)
@pytest.mark.parametrize("headers", [{}, {"X-Scorekeeper-Pin": "0000"}, {"X-Scorekeeper-Pin": ""}])
def test_writes_without_the_right_pin_change_nothing(
    client: FlaskClient, path: str, body: dict[str, Any], headers: dict[str, str]
) -> None:
    started(client, plays=1)
    before = state(client)
    response = client.post(path, json=body, headers=headers)
    assert response.status_code == 401
    assert "PIN" in response.get_json()["error"]
    assert state(client) == before


def test_guessing_the_pin_locks_out_the_guesser_only(client: FlaskClient) -> None:
    stranger = {"REMOTE_ADDR": "10.0.0.9"}
    for guess in range(5):
        wrong = client.post(
            "/api/undo",
            json={},
            headers={"X-Scorekeeper-Pin": f"{guess:04d}"},
            environ_base=stranger,
        )
        assert wrong.status_code == 401
    locked = client.post("/api/deal", json={"turned": "AH"}, headers=AUTH, environ_base=stranger)
    assert locked.status_code == 429 and "too many wrong PINs" in locked.get_json()["error"]
    assert int(locked.headers["Retry-After"]) > 0
    assert post(client, "/api/deal", {"turned": "AH"}).status_code == 200, (
        "the table's phone still writes"
    )
    assert state(client)["seq"] == 1


def test_no_pin_configured_means_no_writes(tmp_path: Path) -> None:
    client = create_app({"TESTING": True, "DATABASE": str(tmp_path / "x.db")}).test_client()
    response = client.post(
        "/api/deal", json={"turned": "AH"}, headers={"X-Scorekeeper-Pin": "None"}
    )
    assert response.status_code == 401 and "--pin" in response.get_json()["error"]


# -- each write --------------------------------------------------------------------------------


def test_a_deal_then_plays_one_or_many(client: FlaskClient) -> None:
    turned, cards = legal_deal(6)
    reply = post(client, "/api/deal", {"turned": turned})
    assert reply.status_code == 200 and reply.get_json()["current"]["dealer"] == 0
    post(client, "/api/plays", {"card": cards[0]})
    reply = post(client, "/api/plays", {"cards": cards[1:40]})
    assert reply.get_json()["current"]["complete"] is True
    assert sum(reply.get_json()["current"]["points"].values()) == 120
    second = post(client, "/api/deal", {"turned": "AH"}).get_json()
    assert second["current"]["dealer"] == 1, "the deal passes to the next seat by default"


def test_corrections_of_a_card_the_turned_card_and_the_dealer(client: FlaskClient) -> None:
    cards = started(client, plays=3)
    fixed = post(client, "/api/correct", {"play": 3, "card": cards[5]}).get_json()
    assert fixed["current"]["table"]["cards"][-1] == cards[5]
    assert post(client, "/api/correct", {"turned": "2C"}).get_json()["current"]["turned"] == "2C"
    assert post(client, "/api/dealer", {"dealer": 3}).get_json()["current"]["dealer"] == 3


def test_undo_and_a_stale_undo(client: FlaskClient) -> None:
    started(client, plays=3)
    seq = state(client)["seq"]
    reply = post(client, "/api/undo", {"expect": seq})
    assert reply.status_code == 200 and len(reply.get_json()["current"]["table"]["cards"]) == 2
    stale = post(client, "/api/undo", {"expect": seq})
    assert stale.status_code == 409 and "reload" in stale.get_json()["error"]


def test_renuncia_alert_confirmed_and_dismissed(client: FlaskClient) -> None:
    turned, plays, revoke, _ = revoke_deal()
    post(client, "/api/record", {"deals": [{"dealer": 0, "trump": turned, "plays": plays}]})
    shown = state(client)["revokes"]
    assert len(shown) == 1 and shown[0]["status"] == "suspected" and shown[0]["proof"]
    key = {"trick": revoke["trick"], "seat": revoke["seat"]}
    assert (
        post(client, "/api/renuncia", {"decision": "dismiss", **key}).get_json()["revokes"][0][
            "status"
        ]
        == "dismissed"
    )
    assert (
        post(client, "/api/renuncia", {"decision": "confirm", **key}).get_json()["revokes"][0][
            "status"
        ]
        == "confirmed"
    )


def test_rules_and_a_new_match(client: FlaskClient) -> None:
    assert post(client, "/api/rules", {"target": 7}).get_json()["rules"]["target"] == 7
    cards = started(client, plays=2)
    fresh = post(client, "/api/match", {"rules": {"tie": "carry"}}).get_json()
    assert fresh["rules"]["target"] == 7 and fresh["rules"]["tie"] == "carry"
    # The deal being played moves into the new match: its cards are still on the table.
    assert fresh["match"] == 2 and fresh["current"]["number"] == 1
    assert [c for t in fresh["current"]["tricks"] for c in t["cards"]] + fresh["current"]["table"][
        "cards"
    ] == cards[:2]
    assert fresh["history"][0]["score"] == {"nos": 0, "eles": 0}, "the match left does not score it"
    assert post(client, "/api/plays", {"card": cards[2]}).status_code == 200


def test_a_whole_record_replaces_the_match(client: FlaskClient) -> None:
    started(client, plays=2)
    turned, cards = legal_deal(8)
    record = {
        "rules": {"capote": "all_points"},
        "deals": [{"dealer": 1, "trump": turned, "plays": cards}],
    }
    reply = post(client, "/api/record", record)
    assert reply.status_code == 200 and reply.get_json()["current"]["complete"]
    assert client.get("/api/record").get_json()["deals"] == record["deals"]


def test_each_table_keeps_its_own_match(client: FlaskClient) -> None:
    assert post(client, "/t/mesa-2/api/deal", {"turned": "7S", "dealer": 2}).status_code == 200
    assert state(client, "/t/mesa-2")["current"]["turned"] == "7S"
    assert state(client)["current"] is None
    assert "mesa-2" in client.get("/t/mesa-2").get_data(as_text=True)


# -- bad input: a 4xx with one line, and the match untouched -----------------------------------

FIRST_CARD = legal_deal(5)[1][0]  # what started() plays first

BAD = [
    ("/api/plays", "{not json", 400, "not valid JSON"),
    ("/api/plays", "[1, 2]", 400, "JSON object"),
    ("/api/plays", {"card": "9H"}, 400, "not in the Sueca deck"),
    ("/api/plays", {"card": "10H"}, 400, "unknown card"),
    ("/api/plays", {"cards": []}, 400, "empty"),
    ("/api/plays", {"cards": "7H"}, 400, "wrong type"),
    ("/api/plays", {"card": "PLAYED"}, 400, "unknown card"),
    ("/api/correct", {"play": 9, "card": "2S"}, 400, "has 2 plays"),
    ("/api/correct", {"play": 2, "card": FIRST_CARD}, 400, "already played"),
    ("/api/correct", {"deal": 4, "play": 1, "card": "2S"}, 400, "deal 4 does not exist"),
    ("/api/correct", {"play": "two", "card": "2S"}, 400, "wrong type"),
    ("/api/dealer", {"dealer": 7}, 400, "not a seat"),
    ("/api/deal", {"dealer": 1}, 400, "missing 'turned'"),
    ("/api/deal", {"turned": "XX"}, 400, "unknown card"),
    ("/api/renuncia", {"decision": "maybe", "trick": 1, "seat": 1}, 400, "confirm"),
    ("/api/renuncia", {"decision": "confirm", "trick": 1, "seat": 1}, 400, "no renúncia"),
    ("/api/rules", {"tie": "whatever"}, 400, "tie"),
    ("/api/rules", {"colour": "red"}, 400, "unknown rule"),
    ("/api/rules", {}, 400, "non-empty"),
    ("/api/record", {"deals": [{"dealer": 0, "trump": "AH", "plays": ["2S", "2S"]}]}, 400, "2S"),
    ("/api/record", {"deals": [], "extra": 1}, 400, "unknown key"),
    ("/api/undo", {"expect": "latest"}, 400, "expect"),
    ("/api/plays", {"card": "3S", "expect": 0}, 409, "is at event"),
]


@pytest.mark.parametrize(("path", "body", "status", "message"), BAD)
def test_bad_input_gets_one_line_and_changes_nothing(
    client: FlaskClient, path: str, body: Any, status: int, message: str
) -> None:
    started(client, plays=2)
    before = state(client)
    if isinstance(body, str):
        response = client.post(
            path, data=body, headers={**AUTH, "Content-Type": "application/json"}
        )
    else:
        response = post(client, path, body)
    assert response.status_code == status
    error = response.get_json()["error"]
    assert message in error and "\n" not in error
    assert state(client) == before


def test_undo_with_nothing_to_undo(client: FlaskClient) -> None:
    response = post(client, "/api/undo")
    assert response.status_code == 400 and "nothing to undo" in response.get_json()["error"]


def test_unknown_routes_and_methods_answer_json(client: FlaskClient) -> None:
    missing = client.get("/api/nothing")
    assert missing.status_code == 404 and missing.get_json()["error"]
    wrong = client.delete("/api/state")
    assert wrong.status_code == 405 and wrong.get_json()["error"]
    assert client.get("/nothing").status_code == 404


def test_a_huge_body_is_refused(client: FlaskClient) -> None:
    response = client.post("/api/record", data="x" * (2 << 20), headers=AUTH)
    assert response.status_code == 413 and response.get_json()["error"]


# -- live updates ------------------------------------------------------------------------------


def events_of(client: FlaskClient, table: str = "") -> Generator[dict[str, Any], None, None]:
    """Parsed Server-Sent Events from /api/stream (state events as JSON, pings as {})."""
    response = client.get(f"{table}/api/stream")
    assert response.status_code == 200 and response.mimetype == "text/event-stream"
    try:
        for chunk in response.response:
            text = chunk.decode() if isinstance(chunk, bytes) else chunk
            fields = dict(line.split(": ", 1) for line in text.strip().splitlines())
            if "event" in fields:
                yield {"event": fields["event"], **json.loads(fields["data"])}
    finally:
        response.close()


def test_the_stream_sends_the_state_then_each_change(client: FlaskClient) -> None:
    started(client, plays=1)
    stream = events_of(client)
    first = next(stream)
    assert first["event"] == "state" and first["seq"] == 2
    post(client, "/api/plays", {"card": legal_deal(5)[1][1]})
    second = next(stream)
    assert second["event"] == "state" and second["seq"] == 3
    assert next(stream) == {"event": "ping"}, "an idle stream pings so dead phones are noticed"
    stream.close()


def test_a_write_from_another_process_reaches_the_stream_within_a_second(
    app: Flask, client: FlaskClient
) -> None:
    stream = events_of(client, "/t/mesa-3")
    assert next(stream)["seq"] == 0
    tracker = Store.open(app.config["DATABASE"])  # not the app's store: only the file is shared
    turned, cards = legal_deal(9)

    def write() -> None:
        time.sleep(0.1)
        tracker.append("mesa-3", DealStarted(dealer=0, turned=turned), CardPlayed(cards[0]))

    writer = threading.Thread(target=write)
    began = time.monotonic()
    writer.start()
    update = next(event for event in stream if event["event"] == "state")
    writer.join()
    assert update["seq"] == 2 and time.monotonic() - began < 1.1
    stream.close()


def test_a_lost_camera_shows_on_the_page_and_reaches_open_streams(tmp_path: Path) -> None:
    from scorekeeper.web.db import notify_live

    live = {"camera": "live"}
    app = create_app(
        {
            "TESTING": True,
            "DATABASE": str(tmp_path / "live.db"),
            "PIN": PIN,
            "HEARTBEAT": 0.05,
            "WATCH_INTERVAL": 0.02,
            "LIVE_STATUS": lambda: dict(live),
        }
    )
    client = app.test_client()
    stream = events_of(client)
    assert next(stream)["live"] == {"camera": "live"}
    live["camera"] = "lost"
    notify_live(app)
    update = next(event for event in stream if event["event"] == "state")
    assert update["live"] == {"camera": "lost"} and update["seq"] == 0, "no match event was needed"
    stream.close()
    assert state(client)["live"] == {"camera": "lost"}
    page = client.get("/?lang=en").get_data(as_text=True)
    initial = re.search(
        r'<script id="initial-state" type="application/json">(.*?)</script>', page, re.DOTALL
    )
    assert initial is not None and json.loads(initial.group(1))["live"] == {"camera": "lost"}
    assert 'id="camera"' in page


def test_a_page_without_a_camera_says_nothing_about_one(client: FlaskClient) -> None:
    assert state(client)["live"] is None


# -- the camera's doubts -----------------------------------------------------------------------


def doubted(app: Flask, client: FlaskClient) -> tuple[int, list[str]]:
    """Two plays recorded and a doubt about the second: the recorded card or the one after it."""
    cards = started(client, plays=2)
    other = next(card for card in cards[2:] if card[1] == cards[1][1])  # same suit: still legal
    store = Store.open(app.config["DATABASE"])
    [raised] = store.append(
        "mesa", DoubtRaised(deal=1, play=2, reason="suit_swap", options=(cards[1], other))
    )
    return raised.seq, [cards[1], other]


def test_an_open_doubt_is_on_the_page_until_the_table_settles_it(
    app: Flask, client: FlaskClient
) -> None:
    seq, options = doubted(app, client)
    [shown] = state(client)["doubts"]
    assert (shown["seq"], shown["trick"], shown["options"], shown["card"]) == (
        seq,
        1,
        options,
        options[0],
    )
    assert post(client, "/api/doubt", {"doubt": seq, "card": options[1]}).status_code == 200
    after = state(client)
    assert after["doubts"] == [] and after["current"]["table"]["cards"][1] == options[1]
    assert post(client, "/api/undo").status_code == 200
    again = state(client)
    assert [d["seq"] for d in again["doubts"]] == [seq] and again["current"]["table"]["cards"][
        1
    ] == options[0]
    assert post(client, "/api/doubt", {"doubt": seq, "card": None}).status_code == 200
    assert (
        state(client)["doubts"] == []
        and state(client)["current"]["table"]["cards"][1] == options[0]
    )


def test_a_doubt_the_camera_raised_mid_deal_is_on_the_page_after_a_restart(tmp_path: Path) -> None:
    database = tmp_path / "table.db"
    turned, cards = legal_deal(5)
    recorder = StoreRecorder(Store.open(database), "mesa", warn=pytest.fail)
    recorder.record(
        [
            game.DealStarted(frame=1, deal=1, dealer=0, turned=Card.parse(turned), confidence=0.9),
            *(
                game.CardPlayed(
                    frame=10 * n,
                    deal=1,
                    trick=1,
                    seat=(1 + n) % 4,
                    card=Card.parse(c),
                    confidence=0.9,
                )
                for n, c in enumerate(cards[:3])
            ),
            game.Uncertain(
                frame=25,
                deal=1,
                reason="weak_read",
                detail="seen twice",
                card=Card.parse(cards[1]),
                seat=2,
                confidence=0.3,
            ),
        ]
    )
    del recorder  # the pipeline stops mid-deal; the page's process opens the same file
    page = create_app({"TESTING": True, "DATABASE": str(database), "PIN": PIN}).test_client()
    [shown] = state(page)["doubts"]
    assert (shown["trick"], shown["play"], shown["options"], shown["reason"]) == (
        1,
        2,
        [cards[1]],
        "weak_read",
    )
    assert post(page, "/api/doubt", {"doubt": shown["seq"], "card": cards[1]}).status_code == 200
    assert state(page)["doubts"] == [] and state(page)["current"]["table"]["cards"] == cards[:3]


@pytest.mark.parametrize(
    ("body", "headers", "status", "message"),
    [
        ({"doubt": 99, "card": None}, AUTH, 400, "not open"),
        ({"doubt": "first", "card": None}, AUTH, 400, "wrong type"),
        ({"card": None}, AUTH, 400, "missing 'doubt'"),
        ({"doubt": None, "card": "OTHER"}, AUTH, 400, "wrong type"),
        ({"doubt": "SEQ", "card": ["OTHER"]}, AUTH, 400, "'card' has the wrong type"),
        ({"doubt": "SEQ", "card": "XX"}, AUTH, 400, "unknown card"),
        ({"doubt": "SEQ", "card": "OTHER", "play": 2}, AUTH, 400, "unknown field 'play'"),
        ({"doubt": "SEQ", "card": "OTHER"}, {"X-Scorekeeper-Pin": "0000"}, 401, ""),
    ],
)
def test_a_malformed_settlement_gets_one_line_and_changes_nothing(
    app: Flask, client: FlaskClient, body: Any, headers: dict[str, str], status: int, message: str
) -> None:
    seq, options = doubted(app, client)
    fill = {"SEQ": seq, "OTHER": options[1]}
    body = {
        name: [fill[v[0]]] if isinstance(v, list) else fill.get(v, v) for name, v in body.items()
    }
    before = state(client)
    response = post(client, "/api/doubt", body, headers=headers)
    assert response.status_code == status
    error = response.get_json()["error"]
    assert message in error and "\n" not in error
    assert state(client) == before


def test_a_settlement_with_a_card_outside_the_options_is_refused(
    app: Flask, client: FlaskClient
) -> None:
    seq, options = doubted(app, client)
    before = state(client)
    response = post(
        client, "/api/doubt", {"doubt": seq, "card": "AD" if "AD" not in options else "AC"}
    )
    assert response.status_code == 400 and "not one of its options" in response.get_json()["error"]
    assert state(client) == before


# -- a café evening: names, the next match, errors the page can word -----------------------------


def win_a_match(client: FlaskClient) -> None:
    """A match to 1 risco, won by its first deal (a deal that is not a 60-60 tie)."""
    post(client, "/api/rules", {"target": 1})
    for seed in range(1, 40):
        turned, cards = legal_deal(seed)
        post(client, "/api/deal", {"dealer": 0, "turned": turned})
        if post(client, "/api/plays", {"cards": cards}).get_json()["winner"]:
            return
        post(client, "/api/undo")  # the 40 cards, in one write
        post(client, "/api/undo")  # the deal
    raise AssertionError("no winning deal in 39 seeds")


def test_the_table_names_its_players(client: FlaskClient) -> None:
    reply = post(client, "/api/name", {"seat": 2, "name": " Maria  José "})
    assert reply.status_code == 200 and reply.get_json()["names"] == ["", "", "Maria José", ""]
    assert state(client)["names"][2] == "Maria José"
    assert post(client, "/api/name", {"seat": 2, "name": ""}).get_json()["names"][2] == ""
    assert client.post("/api/name", json={"seat": 0, "name": "Ana"}).status_code == 401
    for body, code in (
        ({"seat": 0, "name": "x" * 25}, "name_long"),
        ({"seat": 0, "name": "a\x1bb"}, "name_bad"),
        ({"seat": 0}, "other"),
        ({"seat": 0, "name": "Ana", "colour": "red"}, "other"),
    ):
        reply = post(client, "/api/name", body)
        assert reply.status_code == 400 and reply.get_json()["code"] == code, body
    assert client.get("/api/log").get_json()[-1]["name"] == "", "nothing refused reached the log"


def test_a_deal_after_a_won_match_opens_the_next_one(client: FlaskClient) -> None:
    win_a_match(client)
    assert state(client)["winner"]
    turned, _ = legal_deal(50, dealer=1)
    after = post(client, "/api/deal", {"turned": turned}).get_json()
    assert (
        after["match"] == 2
        and after["current"]["turned"] == turned
        and after["history"][0]["winner"]
    )


def test_a_table_that_confirms_is_told_to_tap_nova_partida(tmp_path: Path) -> None:
    app = create_app(
        {
            "TESTING": True,
            "DATABASE": str(tmp_path / "c.db"),
            "PIN": PIN,
            "CONFIRM_NEXT_MATCH": True,
        }
    )
    client = app.test_client()
    win_a_match(client)
    refused = post(client, "/api/deal", {"turned": "AH"})
    assert refused.status_code == 400 and refused.get_json()["code"] == "match_won"
    assert "confirmNextMatch: true" in client.get("/").get_data(as_text=True)
    assert post(client, "/api/match").get_json()["match"] == 2
    assert post(client, "/api/deal", {"turned": "AH"}).get_json()["current"]["turned"] == "AH"


def test_errors_carry_a_code_the_page_words_in_its_language(
    client: FlaskClient, app: Flask
) -> None:
    cards = started(client, plays=2)
    again = post(client, "/api/plays", {"card": cards[0]})
    assert again.status_code == 400
    assert again.get_json()["code"] == "already_played" and again.get_json()["args"] == {
        "card": cards[0],
        "trick": "1",
    }
    assert (
        post(
            client, "/api/plays", {"card": cards[2]}, headers={"X-Scorekeeper-Pin": "0000"}
        ).get_json()["code"]
        == "pin"
    )
    stale = post(client, "/api/undo", {"expect": 1})
    assert stale.status_code == 409 and stale.get_json()["code"] == "stale"
    words = json.loads((Path(str(app.static_folder)) / "i18n.json").read_text("utf-8"))
    from scorekeeper.web.messages import BY_STATUS, PATTERNS

    for code in [*BY_STATUS.values(), *(code for code, _ in PATTERNS), "other"]:
        for lang in ("pt", "en", "fr"):
            assert f"err_{code}" in words[lang], f"{lang} has no sentence for {code}"
    assert (
        "{card}" in words["pt"]["err_already_played"]
        and "vaza" in words["pt"]["err_already_played"]
    )


def test_the_favicon_is_served(client: FlaskClient) -> None:
    icon = client.get("/favicon.ico")
    assert (
        icon.status_code == 200
        and icon.mimetype == "image/x-icon"
        and icon.data[:4] == b"\x00\x00\x01\x00"
    )
    icon.close()
