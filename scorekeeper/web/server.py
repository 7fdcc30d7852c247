"""Serving the page: bind a port, run werkzeug's threaded server, tell the table where to look.

Shared by ``scorekeeper serve`` (the page alone) and ``scorekeeper run`` / ``demo`` (the page in a
thread beside the camera pipeline). One thread per connection, so every phone holds its event stream.
"""

from __future__ import annotations

import logging
import secrets
import socket
import threading
from dataclasses import dataclass
from typing import Any

from scorekeeper.errors import ScorekeeperError


class ServeError(ScorekeeperError):
    """The page cannot be served (the port is busy, the address is not this machine's)."""


def new_pin() -> str:
    return f"{secrets.randbelow(10_000):04d}"


def lan_address() -> str:
    """This machine's address on the LAN, as a phone would reach it (no packet is sent)."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("192.0.2.1", 9))  # a documentation address: connect() on UDP only picks a route
        address: str = probe.getsockname()[0]
        return address
    except OSError:
        return "127.0.0.1"
    finally:
        probe.close()


def qr_text(url: str) -> str:
    """The URL as a QR code in half-block characters; inverted, so it scans on a dark terminal."""
    import io

    import qrcode  # type: ignore[import-untyped]

    code = qrcode.QRCode(border=2)
    code.add_data(url)
    out = io.StringIO()
    code.print_ascii(out=out, invert=True)
    return out.getvalue().rstrip("\n")


def listen(host: str, port: int) -> socket.socket:
    """Bind here, so a busy port is our one-line error and not werkzeug's exit(1) with advice."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # restart at once after Ctrl-C
        sock.bind((host, port))
        sock.listen(128)
    except OSError as error:
        sock.close()
        raise ServeError(
            f"cannot listen on {host}:{port}: {error.strerror}: choose another --port"
        ) from None
    return sock


@dataclass
class PageServer:
    server: Any
    url: str
    thread: threading.Thread | None = None

    def serve_forever(self) -> None:
        self.server.serve_forever()

    def start_in_background(self) -> None:
        self.thread = threading.Thread(target=self.server.serve_forever, name="scorekeeper-web", daemon=True)
        self.thread.start()

    def wait(self) -> None:
        """Block until the background server stops (Ctrl-C in the main thread ends the wait)."""
        if self.thread is not None:
            self.thread.join()

    def stop(self) -> None:
        if self.thread is not None:
            self.server.shutdown()
            self.thread.join(timeout=5)
        self.server.server_close()


def make_page_server(app: Any, host: str, port: int) -> PageServer:
    from werkzeug.serving import make_server

    listener = listen(host, port)
    with listener:  # werkzeug works on a duplicate of this socket
        server = make_server(host, port, app, threaded=True, fd=listener.fileno())
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # not a line per poll of every phone
    shown = lan_address() if host in ("0.0.0.0", "::") else host
    return PageServer(server=server, url=f"http://{shown}:{server.port}/")


def announce(page: PageServer, *, pin: str, database: str, qr: bool) -> None:
    print(f"Score page: {page.url}  (open it on a phone on the same network)")
    if qr:
        print(qr_text(page.url))
    print(f"Table PIN for corrections: {pin}")
    print(f"Event store: {database}", flush=True)
