"""Event streams on the real server: a phone that stops reading is dropped, the others carry on."""

from __future__ import annotations

import random
import re
import socket
import threading
import time
from pathlib import Path

from scorekeeper.rules import random_legal_deal
from scorekeeper.store import CardPlayed, DealStarted, MatchStarted
from scorekeeper.web import create_app
from scorekeeper.web.db import get_hub, get_store
from scorekeeper.web.server import ServerLimits, make_page_server


def open_stream(port: int, *, receive_buffer: int | None = None) -> socket.socket:
    conn = socket.socket()
    if receive_buffer is not None:  # a phone that stopped reading: its window closes at once
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    conn.connect(("127.0.0.1", port))
    conn.sendall(b"GET /api/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    return conn


def test_a_stream_that_stops_reading_is_dropped_and_a_reading_one_is_not(tmp_path: Path) -> None:
    app = create_app(
        {
            "DATABASE": str(tmp_path / "streams.db"),
            "PIN": "2468",
            "STREAM_QUEUE": 8,
            "HEARTBEAT": 0.5,
        }
    )
    page = make_page_server(
        app,
        "127.0.0.1",
        0,
        limits=ServerLimits(max_streams=4, outbuf_high_watermark=1 << 14, send_buffer=4096),
    )
    page.start_in_background()
    last_seen = [0]  # the last event id the reading phone got
    done = threading.Event()

    def read() -> None:
        tail = b""
        with open_stream(page.port) as reader:
            reader.settimeout(0.5)
            while not done.is_set():
                try:
                    chunk = reader.recv(65536)
                except TimeoutError:
                    continue
                if not chunk:
                    break
                ids = re.findall(rb"(?:^|\n)id: (\d+)\n", tail + chunk)
                if ids:
                    last_seen[0] = max(last_seen[0], int(ids[-1]))
                tail = chunk[-32:]

    def seen_by_reader(seq: int) -> None:
        deadline = time.monotonic() + 10
        while last_seen[0] < seq and time.monotonic() < deadline:
            time.sleep(0.002)

    reading = threading.Thread(target=read, daemon=True)
    stuck = open_stream(page.port, receive_buffer=2048)
    try:
        reading.start()
        with app.app_context():
            hub, store = get_hub(), get_store()
        deadline = time.monotonic() + 5
        while hub.subscribers < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert hub.subscribers == 2
        rng = random.Random(3)
        dealer = 0
        deadline = time.monotonic() + 90
        while hub.dropped == 0 and time.monotonic() < deadline:
            if store.state("mesa")["winner"]:
                store.append("mesa", MatchStarted())
            turned, plays, _ = random_legal_deal(rng, dealer=dealer)
            seen_by_reader(
                store.append("mesa", DealStarted(dealer=dealer, turned=turned.notation))[-1].seq
            )
            for card in plays:
                seq = store.append("mesa", CardPlayed(card.notation))[-1].seq
                seen_by_reader(seq)  # the reading phone keeps up, however slow this machine is
                if hub.dropped:
                    break
            dealer = (dealer + 1) % 4
        assert hub.dropped == 1, "the stream that stopped reading was dropped"
        seq = store.last_seq("mesa")
        seen_by_reader(seq)
        assert last_seen[0] == seq, "the reading phone got every change up to the last"
        assert hub.subscribers == 1
        stuck.settimeout(20)
        try:
            while stuck.recv(65536):  # what was in flight, then the end: the server hung up
                pass
        except ConnectionResetError:
            pass
    finally:
        done.set()
        stuck.close()
        reading.join(timeout=5)
        page.stop()


def test_more_streams_than_the_server_holds_answer_503_and_the_page_polls(tmp_path: Path) -> None:
    app = create_app({"DATABASE": str(tmp_path / "full.db"), "PIN": "2468", "HEARTBEAT": 0.5})
    page = make_page_server(app, "127.0.0.1", 0, limits=ServerLimits(max_streams=2))
    page.start_in_background()
    streams = [open_stream(page.port), open_stream(page.port)]
    try:
        for stream in streams:
            stream.settimeout(5)
            assert stream.recv(100).startswith(b"HTTP/1.1 200")
        with open_stream(page.port) as third:
            third.settimeout(5)
            reply = b""
            while b"}" not in reply:
                chunk = third.recv(1000)
                if not chunk:
                    break
                reply += chunk
        assert reply.startswith(b"HTTP/1.1 503") and b"poll /api/state" in reply
    finally:
        for stream in streams:
            stream.close()
        page.stop()
