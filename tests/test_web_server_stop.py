"""Stopping the page server: its loop ends, its port and connections close, whatever state the
server got itself into."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from scorekeeper.web import create_app
from scorekeeper.web.server import PageServer, make_page_server


@pytest.fixture
def page(tmp_path: Path) -> PageServer:
    app = create_app({"DATABASE": str(tmp_path / "stop.db"), "PIN": "2468", "HEARTBEAT": 0.5})
    served = make_page_server(app, "127.0.0.1", 0)
    served.start_in_background()
    return served


def refused(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
    except ConnectionRefusedError:
        return True
    return False


def closed(conn: socket.socket) -> bool:
    try:
        return conn.recv(1024) == b""
    except ConnectionResetError:  # closed with the half-read request still unread
        return True


def test_stop_closes_the_port_and_a_connection_left_open(page: PageServer) -> None:
    with socket.create_connection(("127.0.0.1", page.port), timeout=5) as idle:
        idle.sendall(b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # headers unfinished
        page.stop()
        assert page.thread is not None and not page.thread.is_alive()
        assert closed(idle), "the half-sent request's connection is closed"
    assert refused(page.port)


def test_stop_ends_a_loop_whose_trigger_is_already_closed(page: PageServer) -> None:
    # Waitress closes its trigger when its listening socket fails; stopping must not need it.
    page.server.trigger.close()
    page.stop()
    assert page.thread is not None and not page.thread.is_alive()
    assert refused(page.port)
