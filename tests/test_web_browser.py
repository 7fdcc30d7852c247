"""A real browser (Debian's headless chromium, driven by Playwright) on the live page.

Skipped only when chromium or Playwright is missing; .ci/run installs both. Set
``SCOREKEEPER_SCREENSHOT=docs/phone.png`` to save the phone-size screenshot the README shows.
"""

from __future__ import annotations

import json
import os
import shutil
import threading
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from scorekeeper.store import CardPlayed, DealStarted, DoubtRaised, RulesChanged, SeatNamed, Store
from scorekeeper.web import create_app
from tests.test_store import legal_deal, revoke_deal

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
playwright_sync = pytest.importorskip("playwright.sync_api", reason="pip install playwright")
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian chromium is not installed"),
]
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
PIN = "1357"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, Store]]:
    from werkzeug.serving import make_server

    app = create_app({"DATABASE": str(tmp_path / "live.db"), "PIN": PIN, "HEARTBEAT": 0.5})
    httpd = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_port}", Store.open(app.config["DATABASE"])
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with playwright_sync.sync_playwright() as pw:
        # Playwright gives each launch a fresh temporary profile (user data dir).
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Any, server: tuple[str, Store]) -> Iterator[Any]:
    # Playwright evaluates its waits as strings; the page itself runs under the CSP in
    # test_web_robust.
    context = browser.new_context(
        viewport={"width": 390, "height": 844},
        device_scale_factor=2,
        is_mobile=True,
        bypass_csp=True,
    )
    yield context.new_page()
    context.close()


def write(base: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(
        base + path,
        data=json.dumps(body).encode(),
        method="POST",
        headers={"Content-Type": "application/json", "X-Scorekeeper-Pin": PIN},
    )
    with urllib.request.urlopen(request, timeout=5) as response:
        data: dict[str, Any] = json.loads(response.read())
        return data


RANK_ON_PAGE = {"K": "R", "J": "V", "Q": "D"}
"""The picker's buttons show the Portuguese letters (Rei, Valete, Dama)."""


def pick(page: Any, opener: str, card: str) -> None:
    """Open the picker with a tap on ``opener`` and choose ``card`` ("KS"): rank, then suit."""
    page.click(opener)
    page.wait_for_selector("#picker:not([hidden])")
    rank = page.locator(f"#picker [data-rank='{card[0]}']")
    assert rank.inner_text() == RANK_ON_PAGE.get(card[0], card[0])
    rank.click()
    page.click(f"#picker [data-suit='{card[1]}']")
    page.wait_for_selector("#picker", state="hidden")


def test_the_page_shows_the_score_and_follows_a_write_live(
    server: tuple[str, Store], page: Any
) -> None:
    base, store = server
    turned, plays = legal_deal(21)
    store.append(
        "mesa", DealStarted(dealer=0, turned=turned), *(CardPlayed(card) for card in plays)
    )
    score = store.state("mesa")["score"]
    page.goto(base + "/")
    page.wait_for_selector("#conn.live", timeout=5000)
    assert page.inner_text("#score-nos") == str(score["nos"])
    assert page.inner_text("#score-eles") == str(score["eles"])
    assert page.locator("#tally-nos path").count() == score["nos"]

    turned2, plays2, revoke, _ = revoke_deal(seed=3, dealer=1)
    # The page follows the write without a reload; how fast is benchmarks/sse_load.py's job.
    write(
        base,
        "/api/record",
        {
            "deals": [
                {"dealer": 0, "trump": turned, "plays": plays},
                {
                    "dealer": 1,
                    "trump": turned2,
                    "plays": plays2[: 4 * revoke["proven_in_trick"] + 2],
                },
            ]
        },
    )
    page.wait_for_selector("#alert:not([hidden]) .revoke", timeout=3000)
    expected = store.state("mesa")
    assert page.inner_text("#score-nos") == str(expected["score"]["nos"])
    assert page.inner_text("#score-eles") == str(expected["score"]["eles"])
    alert = page.inner_text("#alert")
    assert (
        "Renúncia" in alert
        and f"Vaza {revoke['trick']}" in alert
        and f"Jogador {revoke['seat'] + 1}" in alert
    )

    # Tapping a card of a vaza opens the card picker for that play; cancelling writes nothing.
    page.click("#vazas [data-play='3']")
    page.wait_for_selector("#picker:not([hidden])")
    assert "Jogada 3" in page.inner_text("#picker-title") and page.input_value("#play-no") == "3"
    page.click("#picker [data-picker='cancel']")
    page.wait_for_selector("#picker", state="hidden")
    assert store.state("mesa")["seq"] == expected["seq"]

    page.click("text=EN")
    page.wait_for_selector("text=Vazas of the deal")
    assert page.inner_text("#score-nos") == str(expected["score"]["nos"])


def test_without_event_streams_the_page_polls(server: tuple[str, Store], page: Any) -> None:
    base, store = server
    page.add_init_script("delete window.EventSource")  # an old browser, or a proxy that breaks SSE
    page.goto(base + "/t/velha")
    page.wait_for_selector("#conn.polling", timeout=5000)
    turned, plays = legal_deal(24)
    store.append("velha", DealStarted(dealer=0, turned=turned), CardPlayed(plays[0]))
    page.wait_for_selector("#mesa .slot .c", timeout=2500)
    assert page.inner_text("#pts-nos") == "0"


def test_the_table_corrects_a_card_from_the_phone(server: tuple[str, Store], page: Any) -> None:
    base, store = server
    turned, plays = legal_deal(25)
    store.append(
        "mesa", DealStarted(dealer=0, turned=turned), *(CardPlayed(card) for card in plays[:6])
    )
    page.goto(base + "/")
    page.wait_for_selector("#conn.live", timeout=5000)
    replacement = next(card for card in plays[6:] if card != turned)
    page.click("#controls summary")
    page.fill("#pin", "0000")
    pick(page, "#mesa [data-play='6']", replacement)
    page.wait_for_selector("#control-msg.err")
    assert "PIN da mesa errado" in page.inner_text("#control-msg")
    page.fill("#pin", PIN)
    pick(page, "#mesa [data-play='6']", replacement)
    page.wait_for_selector("#control-msg.ok")
    assert store.record("mesa")["deals"][0]["plays"][5] == replacement
    assert page.evaluate("document.body.dataset.seq") == "8", "the page shows the corrected state"


def test_phone_screenshot(server: tuple[str, Store], page: Any) -> None:
    """A mid-match table: one deal scored, a vaza on the table, a suspected renúncia."""
    base, store = server
    store.append(
        "mesa",
        RulesChanged(rules={"target": 7}),
        SeatNamed(seat=0, name="Ana"),
        SeatNamed(seat=3, name="Rui"),
    )
    for dealer, seed in ((0, 22), (1, 23)):
        turned, plays = legal_deal(seed, dealer=dealer)
        store.append(
            "mesa", DealStarted(dealer=dealer, turned=turned), *(CardPlayed(card) for card in plays)
        )
    turned, plays, revoke, _ = revoke_deal(seed=4, dealer=2)
    store.append("mesa", DealStarted(dealer=2, turned=turned))
    store.append("mesa", *(CardPlayed(card) for card in plays[: 4 * revoke["proven_in_trick"] + 2]))
    page.goto(base + "/")
    page.wait_for_selector("#conn.live", timeout=5000)
    assert page.locator("#mesa .slot .c").count() == 2
    assert page.inner_text("#mesa .seat[data-seat='3'] .who").startswith("Rui")
    target = os.environ.get("SCOREKEEPER_SCREENSHOT")
    if target:
        page.screenshot(path=target, full_page=True)


def test_the_table_settles_a_doubt_by_tapping_a_card(server: tuple[str, Store], page: Any) -> None:
    base, store = server
    turned, plays = legal_deal(26)
    other = next(card for card in plays[2:] if card[1] == plays[1][1] and card != turned)
    store.append(
        "mesa", DealStarted(dealer=0, turned=turned), CardPlayed(plays[0]), CardPlayed(plays[1])
    )
    page.goto(base + "/")
    page.wait_for_selector("#conn.live", timeout=5000)
    [raised] = store.append(
        "mesa", DoubtRaised(deal=1, play=2, reason="suit_swap", options=(plays[1], other))
    )
    page.wait_for_selector("#doubts:not([hidden]) .doubt", timeout=3000)
    assert "Vaza 1 (Jogador 3):" in page.inner_text("#doubts") and " ou " in page.inner_text(
        "#doubts"
    )
    page.click(f"#doubts button[data-card='{other}']")  # without the PIN: the page asks for it
    page.wait_for_selector("#controls[open]")
    assert store.state("mesa")["doubts"] != []
    page.fill("#pin", PIN)
    page.click(f"#doubts button[data-card='{other}']")
    page.wait_for_selector("#doubts[hidden]", state="attached", timeout=3000)
    assert store.record("mesa")["deals"][0]["plays"][1] == other
    assert store.state("mesa")["doubts"] == [] and raised.seq == 4


def serve_on(database: Path, port: int) -> Any:
    """The page as `scorekeeper serve` serves it, on a fixed port: a phone's address stays."""
    from scorekeeper.web.server import make_page_server

    app = create_app({"DATABASE": str(database), "PIN": PIN, "HEARTBEAT": 0.5})
    page_server = make_page_server(app, "127.0.0.1", port)
    page_server.start_in_background()
    return page_server


def test_an_evening_at_the_cafe_on_a_phone(browser: Any, tmp_path: Path) -> None:
    """Correct a card with the picker, undo it, name a player, play a match to 4, see the next
    match start at the next trunfo, restart the server and carry on with the same PIN."""
    database = tmp_path / "cafe.db"
    first = serve_on(database, 0)
    port = int(first.url.rsplit(":", 1)[1].strip("/"))
    base = f"http://127.0.0.1:{port}"
    store = Store.open(database)
    turned, plays = legal_deal(31)
    store.append(
        "mesa", DealStarted(dealer=0, turned=turned), *(CardPlayed(card) for card in plays[:6])
    )
    # Playwright evaluates its waits as strings; the page itself runs under the CSP in
    # test_web_robust.
    context = browser.new_context(
        viewport={"width": 390, "height": 844},
        device_scale_factor=2,
        is_mobile=True,
        bypass_csp=True,
    )
    page = context.new_page()
    try:
        page.goto(base + "/")
        page.wait_for_selector("#conn.live", timeout=5000)
        page.click("#controls summary")
        page.fill("#pin", PIN)

        # A card the camera misread: tap it, pick the right one. A card already played is refused,
        # in Portuguese.
        pick(page, "#mesa [data-play='6']", plays[0])
        page.wait_for_selector("#control-msg.err")
        assert "já foi jogada na vaza 1" in page.inner_text("#control-msg")
        right = next(card for card in plays[6:] if card[1] == plays[5][1] and card != turned)
        pick(page, "#mesa [data-play='6']", right)
        page.wait_for_selector("#control-msg.ok")
        assert store.record("mesa")["deals"][0]["plays"][5] == right
        before = store.last_seq("mesa")
        page.click("#controls button[data-action='undo']")
        page.wait_for_function(f"Number(document.body.dataset.seq) > {before}")
        assert store.record("mesa")["deals"][0]["plays"][5] == plays[5], (
            "undo put the camera's card back"
        )

        # A name, typed with markup: stored as text, shown as text on the vaza cross.
        page.fill("#name-1", "Rui <i>o novo</i>")
        page.click("#controls button[data-action='names']")
        page.wait_for_selector("#control-msg.ok")
        assert store.state("mesa")["names"][1] == "Rui <i>o novo</i>"
        page.wait_for_selector("#mesa .seat[data-seat='1'] .who:has-text('Rui')")
        assert "Rui <i>o novo</i>" in page.inner_text("#mesa .seat[data-seat='1'] .who")
        assert page.locator("#mesa i").count() == 0

        # The sheet as the north draws it: one dot per risco at the ends of a cross.
        page.select_option("#sheet-style", "cruz")

        # The rest of the match, as the camera would feed it.
        store.append("mesa", *(CardPlayed(card) for card in plays[6:]))
        seed = 100
        while not store.state("mesa")["winner"]:
            dealer = store.state("mesa")["next_dealer"]
            turned, cards = legal_deal(seed, dealer=dealer)
            store.append("mesa", DealStarted(dealer=dealer, turned=turned), next_match=True)
            store.append("mesa", *(CardPlayed(card) for card in cards))
            seed += 1
        won = store.state("mesa")
        page.wait_for_selector("#winner:not([hidden])")
        assert "A próxima partida começa com o próximo trunfo" in page.inner_text("#winner")
        score = won["score"]
        assert page.locator("#cross circle.nos:not(.pente)").count() == score["nos"]
        assert page.locator("#cross circle.eles:not(.pente)").count() == score["eles"]
        assert max(score.values()) >= 4
        assert page.locator("#cross circle.pente").count() == (1 if min(score.values()) == 0 else 0)

        # The next trunfo the camera sees: the next match starts by itself, the won one is kept.
        dealer = won["next_dealer"]
        turned, cards = legal_deal(seed, dealer=dealer)
        store.append("mesa", DealStarted(dealer=dealer, turned=turned), next_match=True)
        page.wait_for_selector("#winner", state="hidden")
        assert page.inner_text("#target").startswith("Partida 2")
        assert page.inner_text("#score-nos") == "0" and page.inner_text("#score-eles") == "0"
        history = page.inner_text("#history")
        assert f"Partida 1: Nós {score['nos']}" in history and "Rui" in history

        # The server restarts (the café's laptop slept): same address, same PIN.
        first.stop()
        second = serve_on(database, port)
        try:
            page.reload()
            page.wait_for_selector("#conn.live", timeout=5000)
            assert page.inner_text("#target").startswith("Partida 2")
            page.click("#controls summary")
            page.fill("#pin", "")
            page.fill("#pin", PIN)
            new_turned = next(card for card in cards if card != turned)
            pick(page, "#controls button[data-action='turned']", new_turned)
            page.wait_for_selector("#control-msg.ok")
            assert store.state("mesa")["current"]["turned"] == new_turned
        finally:
            second.stop()
    finally:
        context.close()
        first.stop()


def test_the_page_asks_the_table_to_start_a_deal_the_camera_cannot_see_the_trunfo_of(
    browser: Any, tmp_path: Path
) -> None:
    from werkzeug.serving import make_server

    from scorekeeper.web.db import notify_live

    live = {"camera": "live", "detail": "", "trunfo": "unread"}
    app = create_app(
        {
            "DATABASE": str(tmp_path / "live.db"),
            "PIN": PIN,
            "HEARTBEAT": 0.5,
            "LIVE_STATUS": lambda: dict(live),
        }
    )
    httpd = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    context = browser.new_context(viewport={"width": 390, "height": 844}, bypass_csp=True)
    page = context.new_page()
    try:
        page.goto(f"http://127.0.0.1:{httpd.server_port}/")
        page.wait_for_selector("#camera:not([hidden])")
        assert "não leu o trunfo" in page.inner_text("#camera")
        page.click("#controls summary")
        page.fill("#pin", PIN)
        page.select_option("#dealer-in", "2")
        pick(page, "#controls button[data-action='deal']", "7C")
        page.wait_for_selector("#control-msg.ok")
        store = Store.open(app.config["DATABASE"])
        assert store.record("mesa")["deals"] == [{"dealer": 2, "trump": "7C", "plays": []}]
        live["trunfo"] = ""  # the tracker took the deal up
        notify_live(app)
        page.wait_for_selector("#camera", state="hidden")
    finally:
        context.close()
        httpd.shutdown()
        httpd.server_close()
