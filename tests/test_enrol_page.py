"""The enrolment page through Flask's test client: the grid, renames with the PIN, saving."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from flask import Flask
from flask.testing import FlaskClient

from scorekeeper.enrol.collection import Collection
from scorekeeper.enrol.identify import reading_from_probs
from scorekeeper.enrol.pack import save_face_pack
from scorekeeper.enrol.page import EnrolSession, create_enrol_app
from scorekeeper.rules.cards import DECK, Card

PIN = "2468"
AUTH = {"X-Scorekeeper-Pin": PIN}
FACE = np.full((560, 400, 3), 230, np.uint8)


def reading(card: str, p: float):
    probs = np.full(40, (1 - p) / 39)
    probs[Card.parse(card).index] = p
    return reading_from_probs(probs)


@pytest.fixture
def enrol(tmp_path: Path) -> EnrolSession:
    collection = Collection()
    for card in [c for c in DECK if c.notation not in ("7C", "6C", "2C")]:
        collection.add(FACE, reading(card.notation, 0.9), origin=f"photo {card}")
    collection.add(FACE, reading("7C", 0.3), origin="photo 9 card 1")  # doubtful: really 6C
    return EnrolSession(
        collection=collection,
        save=lambda partial: save_face_pack(
            collection, "mesa", allow_partial=partial, root=tmp_path / "decks"
        ),
        name="mesa",
    )


@pytest.fixture
def app(enrol: EnrolSession) -> Flask:
    return create_enrol_app(enrol, pin=PIN, test_config={"TESTING": True})


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def test_the_grid_shows_40_slots_and_the_doubtful_card(client: FlaskClient) -> None:
    page = client.get("/enrol/").get_data(as_text=True)
    assert page.count('class="slot') == 40
    assert page.count('class="slot have') == 38
    assert "Guardar baralho" in page and "Cartas a confirmar" in page
    assert 'data-rename="37"' in page and "/enrol/face/37.jpg" in page
    assert "38 of 40 cards: missing 6C 2C; 1 to confirm" in page
    assert "Save deck" in client.get("/enrol/?lang=en").get_data(as_text=True)


def test_a_thumbnail_is_a_jpeg_and_an_unknown_one_is_refused(client: FlaskClient) -> None:
    response = client.get("/enrol/face/3.jpg")
    assert (
        response.status_code == 200
        and response.mimetype == "image/jpeg"
        and response.data[:2] == b"\xff\xd8"
    )
    assert client.get("/enrol/face/99.jpg").status_code == 400


def test_the_state_lists_slots_doubtful_and_missing(client: FlaskClient) -> None:
    state = client.get("/enrol/api/state").get_json()
    assert len(state["slots"]) == 40 and state["count"] == 38 and state["missing"] == ["6C", "2C"]
    assert [d["id"] for d in state["doubtful"]] == [37] and state["doubtful"][0]["card"] == "7C"


def test_renaming_needs_the_pin(client: FlaskClient, enrol: EnrolSession) -> None:
    body = {"sighting": 37, "card": "6C"}
    assert client.post("/enrol/api/rename", json=body).status_code == 401
    assert (
        client.post(
            "/enrol/api/rename", json=body, headers={"X-Scorekeeper-Pin": "0000"}
        ).status_code
        == 401
    )
    assert enrol.collection.sightings[37].card == Card.parse("7C")
    response = client.post("/enrol/api/rename", json=body, headers=AUTH)
    assert response.status_code == 200
    state = response.get_json()
    assert state["doubtful"] == [] and "7C" in state["missing"] and "6C" not in state["missing"]


def test_skip_leaves_a_card_out(client: FlaskClient, enrol: EnrolSession) -> None:
    assert (
        client.post(
            "/enrol/api/rename", json={"sighting": 37, "card": None}, headers=AUTH
        ).status_code
        == 200
    )
    assert enrol.collection.sightings[37].card is None


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ("{not json", "JSON object"),
        ("[1, 2]", "JSON object"),
        (json.dumps({"sighting": "38", "card": "6C"}), "card number"),
        (json.dumps({"sighting": 37, "card": "10C"}), "unknown card '10C'"),
        (json.dumps({"sighting": 37, "card": 7}), "'card' must be text"),
        (json.dumps({"sighting": 99, "card": "6C"}), "no card number 99"),
    ],
)
def test_a_malformed_request_is_a_400_with_one_line(
    client: FlaskClient, body: str, words: str
) -> None:
    response = client.post(
        "/enrol/api/rename", data=body, headers={**AUTH, "Content-Type": "application/json"}
    )
    assert response.status_code == 400
    message = response.get_json()["error"]
    assert words in message and "\n" not in message


def test_saving_an_incomplete_deck_is_refused_then_allowed_on_purpose(
    client: FlaskClient, enrol: EnrolSession, tmp_path: Path
) -> None:
    assert client.post("/enrol/api/save", json={}).status_code == 401
    refused = client.post("/enrol/api/save", json={}, headers=AUTH)
    assert refused.status_code == 400 and "2C" in refused.get_json()["error"]
    assert not enrol.done.is_set()
    assert client.post("/enrol/api/save", json={"partial": "yes"}, headers=AUTH).status_code == 400
    saved = client.post("/enrol/api/save", json={"partial": True}, headers=AUTH)
    assert saved.status_code == 200 and enrol.done.is_set()
    assert saved.get_json()["saved"] == str(tmp_path / "decks" / "mesa")
    assert len(list((tmp_path / "decks" / "mesa").iterdir())) == 38


def test_without_a_pin_the_page_reads_but_never_writes(enrol: EnrolSession) -> None:
    client = create_enrol_app(enrol, pin=None, test_config={"TESTING": True}).test_client()
    assert client.get("/enrol/").status_code == 200
    response = client.post("/enrol/api/rename", json={"sighting": 37, "card": "6C"}, headers=AUTH)
    assert response.status_code == 401 and "PIN" in response.get_json()["error"]


def test_unknown_api_routes_answer_json(client: FlaskClient) -> None:
    response = client.get("/enrol/api/nothing")
    assert response.status_code == 404 and "error" in response.get_json()
