"""The API against hostile or clumsy input: strict bodies, headers, hosts, PIN guessing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorekeeper.web import create_app
from scorekeeper.web.api import BODY_FIELDS
from scorekeeper.web.auth import PinGuard
from tests.test_web import AUTH, PIN, started, state

WRITE_ROUTES = sorted(BODY_FIELDS)


def app_for(tmp_path: Path, **config: Any) -> Flask:
    return create_app(
        {"TESTING": True, "DATABASE": str(tmp_path / "robust.db"), "PIN": PIN, **config}
    )


@pytest.fixture
def client(tmp_path: Path) -> FlaskClient:
    return app_for(tmp_path).test_client()


def log_length(client: FlaskClient) -> int:
    return len(client.get("/api/log").get_json())


def post_raw(client: FlaskClient, route: str, body: bytes | str) -> Any:
    return client.post(
        f"/api/{route}", data=body, headers={**AUTH, "Content-Type": "application/json"}
    )


# -- the bodies that answered 500 or were silently half-read -----------------------------------

DEEP = "[" * 100_000 + "]" * 100_000
HUGE_INT = '{"card": ' + "9" * 5_000 + "}"
SURROGATE_DISMISSED = (
    '{"deals": [{"dealer": 0, "trump": "AH", "plays": [], '
    '"dismissed": [{"trick": 1, "seat": "\\ud800"}]}]}'
)
EXTRA_IN_DISMISSED = json.dumps(
    {
        "deals": [
            {
                "dealer": 0,
                "trump": "AH",
                "plays": [],
                "dismissed": [{"trick": 1, "seat": 1, "pad": "x" * 900}],
            }
        ]
    }
)

REFUSED = [
    ("plays", DEEP, "nested deeper"),
    ("plays", HUGE_INT, "number of 5000 characters"),
    ("record", SURROGATE_DISMISSED, "lone surrogate"),
    ("undo", '{"Expect": 0}', "unknown field 'Expect'"),
    ("match", '{"rule": {"tie": "carry"}}', "unknown field 'rule'"),
    ("plays", '{"card": "2S", "cards": ["3S"]}', "'card' and 'cards' together"),
    ("record", "{}", 'needs "deals"'),
    ("record", EXTRA_IN_DISMISSED, "unknown key 'pad'"),
    ("plays", '{"card": NaN}', "NaN"),
    ("plays", b'{"card": "\xff"}', "not UTF-8"),
    ("correct", '{"turned": "AH", "play": 1, "card": "2S"}', "together"),
]


@pytest.mark.parametrize(("route", "body", "message"), REFUSED)
def test_each_bad_body_answers_400_with_one_line_and_changes_nothing(
    client: FlaskClient, route: str, body: str | bytes, message: str
) -> None:
    started(client, plays=2)
    before, length = state(client), log_length(client)
    response = post_raw(client, route, body)
    assert response.status_code == 400, response.get_data(as_text=True)[:200]
    error = response.get_json()["error"]
    assert message in error and "\n" not in error and len(error) < 300
    assert state(client) == before and log_length(client) == length


# -- fuzz: every write route, any body ---------------------------------------------------------

FIELD_NAMES = sorted(
    {name for fields in BODY_FIELDS.values() if fields for name in fields}
    | {"Expect", "rule", "deals", "tie", "target", "x", ""}
)
LEAVES = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False)
    | st.sampled_from(["2S", "AH", "7h", "XX", "confirm", "dismiss", "carry", "", "10H"])
    | st.text(max_size=8)  # lone surrogates included: json.dumps writes them as \ud8xx escapes
)
VALUES = st.recursive(
    LEAVES,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(FIELD_NAMES) | st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=12,
)
BODIES = (
    st.dictionaries(st.sampled_from(FIELD_NAMES), VALUES, max_size=5).map(json.dumps)
    | VALUES.map(json.dumps)
    | st.binary(max_size=40)
    | st.integers(min_value=1, max_value=3000).map(lambda n: "[" * n + "]" * n)
)


def test_fuzz_every_write_route_never_5xx_and_refusals_change_nothing(tmp_path: Path) -> None:
    client = app_for(tmp_path).test_client()
    started(client, plays=3)
    answered: dict[int, int] = {}

    @settings(
        max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None
    )
    @given(route=st.sampled_from(WRITE_ROUTES), body=BODIES)
    def probe(route: str, body: str | bytes) -> None:
        before, length = state(client), log_length(client)
        response = post_raw(client, route, body)
        answered[response.status_code] = answered.get(response.status_code, 0) + 1
        assert response.status_code < 500, (route, body, response.get_data(as_text=True)[:300])
        error = response.get_json().get("error") if response.status_code != 200 else None
        if response.status_code != 200:
            assert error and "\n" not in error
            assert state(client) == before and log_length(client) == length, (route, body)

    probe()
    assert answered.get(400, 0) > 100, answered


# -- headers and hosts -------------------------------------------------------------------------


def test_every_answer_carries_the_security_headers(client: FlaskClient) -> None:
    for path in ("/", "/api/state", "/static/app.js", "/api/nothing"):
        with client.get(path) as response:
            headers = response.headers
        assert "frame-ancestors 'none'" in headers["Content-Security-Policy"], path
        assert headers["X-Content-Type-Options"] == "nosniff"


def test_the_page_inline_script_carries_the_nonce_the_policy_allows(client: FlaskClient) -> None:
    response = client.get("/")
    policy = response.headers["Content-Security-Policy"]
    nonce = policy.split("'nonce-")[1].split("'")[0]
    assert f'<script nonce="{nonce}">' in response.get_data(as_text=True)
    assert client.get("/").headers["Content-Security-Policy"] != policy, "a fresh nonce per answer"


def test_a_host_not_on_the_allow_list_is_refused(tmp_path: Path) -> None:
    client = app_for(
        tmp_path, TRUSTED_HOSTS=["192.168.1.20", "localhost", "127.0.0.1"]
    ).test_client()
    assert client.get("/api/state", headers={"Host": "192.168.1.20:8000"}).status_code == 200
    assert client.get("/api/state", headers={"Host": "localhost:8000"}).status_code == 200
    rebound = client.get("/api/state", headers={"Host": "evil.example:8000"})
    assert rebound.status_code == 400
    assert (
        client.post(
            "/api/deal", json={"turned": "AH"}, headers={**AUTH, "Host": "evil.example"}
        ).status_code
        == 400
    )
    assert client.get("/api/state", headers={"Host": "localhost"}).get_json()["seq"] == 0


# -- the PIN and its guard ---------------------------------------------------------------------


def test_requests_without_a_pin_never_lock_the_table_out(client: FlaskClient) -> None:
    for _ in range(20):  # a page elsewhere posting blind (no-cors cannot send the PIN header)
        assert client.post("/api/undo", json={}).status_code == 401
    assert client.post("/api/deal", json={"turned": "AH"}, headers=AUTH).status_code == 200


def test_wrong_pins_are_forgotten_as_time_passes() -> None:
    now = [1000.0]
    guard = PinGuard(tries=5, lockout=60.0, clock=lambda: now[0])
    for _ in range(4):
        guard.failed("10.0.0.9")
    assert guard.locked("10.0.0.9") == 0, "four wrong PINs: one more try"
    guard.failed("10.0.0.9")
    assert guard.locked("10.0.0.9") == pytest.approx(60.0)
    now[0] += 61
    assert guard.locked("10.0.0.9") == 0, "one more try a minute later"
    guard.failed("10.0.0.9")
    assert guard.locked("10.0.0.9") > 0, "...and only one"
    now[0] += 3600
    assert guard.locked("10.0.0.9") == 0


def test_the_lockout_survives_a_restart(tmp_path: Path) -> None:
    first = app_for(tmp_path).test_client()
    stranger = {"REMOTE_ADDR": "10.0.0.9"}
    for guess in range(5):
        first.post(
            "/api/undo",
            json={},
            headers={"X-Scorekeeper-Pin": f"{guess:04d}"},
            environ_base=stranger,
        )
    again = app_for(tmp_path).test_client()  # the server restarted on the same store
    locked = again.post("/api/deal", json={"turned": "AH"}, headers=AUTH, environ_base=stranger)
    assert locked.status_code == 429


def test_guessing_from_many_addresses_is_no_faster_but_the_table_phone_still_writes(
    client: FlaskClient,
) -> None:
    assert (
        client.post("/api/deal", json={"turned": "AH"}, headers=AUTH).status_code == 200
    )  # the table's phone
    checked = 0
    for guess in range(200):
        address = {
            "REMOTE_ADDR": f"10.0.{guess // 4}.{guess % 4 + 1}"
        }  # 50 addresses, 4 guesses each
        response = client.post(
            "/api/undo",
            json={},
            headers={"X-Scorekeeper-Pin": f"{guess + 3000:04d}"},
            environ_base=address,
        )
        checked += response.status_code == 401
    assert checked <= 20, f"{checked} guesses were checked"
    assert client.post("/api/plays", json={"card": "2S"}, headers=AUTH).status_code == 200


def test_the_guard_remembers_a_bounded_number_of_addresses() -> None:
    guard = PinGuard(tries=5, lockout=60.0, max_addresses=50)
    for n in range(300):
        guard.failed(f"10.1.{n // 250}.{n % 250}")
    assert guard.remembered() == 50


def test_ipv6_neighbours_in_one_block_share_a_count() -> None:
    guard = PinGuard(tries=5, lockout=60.0)
    for n in range(5):
        guard.failed(f"2001:db8:1:2::{n + 1:x}")
    assert guard.locked("2001:db8:1:2::ffff") > 0
    assert guard.locked("2001:db8:1:3::1") == 0, "the next block is another device"
