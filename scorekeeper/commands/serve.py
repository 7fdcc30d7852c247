"""``scorekeeper serve``: the live score page for the phones at the table.

Runs a threaded WSGI server (one thread per connection, so every phone can hold its event stream
open), prints the address to open on a phone on the same network, a QR code of it, and the table PIN.
"""

from __future__ import annotations

import argparse
import secrets
import socket
import sys
from typing import Any


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="serve the live score page to the phones at the table",
        description="Serve the live Nós/Eles score page and its JSON API.",
    )
    parser.add_argument("--host", default="0.0.0.0", help="address to listen on (default: all, for the LAN)")
    parser.add_argument("--port", type=int, default=8000, help="port (default: 8000)")
    parser.add_argument("--db", metavar="PATH", help="event store file (default: in the user's data folder)")
    parser.add_argument("--pin", help="table PIN for corrections (default: a new random 4-digit PIN)")
    parser.add_argument("--table", default=None, help="table the address and QR code point to (default: mesa)")
    parser.add_argument("--no-qr", action="store_true", help="do not print the QR code")
    parser.set_defaults(handler=run)


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
    except OSError:
        sock.close()
        raise
    return sock


def run(args: argparse.Namespace) -> int:
    import logging

    from werkzeug.serving import make_server

    from scorekeeper.store import DEFAULT_TABLE, check_table_id, default_db_path
    from scorekeeper.web import create_app

    pin = args.pin or f"{secrets.randbelow(10_000):04d}"
    table = check_table_id(args.table or DEFAULT_TABLE)
    database = args.db or str(default_db_path())
    app = create_app({"DATABASE": database, "PIN": pin, "DEFAULT_TABLE": table})
    try:
        listener = listen(args.host, args.port)
    except OSError as error:
        print(f"scorekeeper serve: cannot listen on {args.host}:{args.port}: {error.strerror}", file=sys.stderr)
        return 2
    with listener:  # werkzeug works on a duplicate of this socket
        server = make_server(args.host, args.port, app, threaded=True, fd=listener.fileno())
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # not a line per poll of every phone
    host = lan_address() if args.host in ("0.0.0.0", "::") else args.host
    url = f"http://{host}:{server.port}/"
    print(f"Score page: {url}  (open it on a phone on the same network)")
    if not args.no_qr:
        print(qr_text(url))
    print(f"Table PIN for corrections: {pin}")
    print(f"Event store: {database}")
    print("Ctrl-C stops the server.", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0
