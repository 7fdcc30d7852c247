"""``scorekeeper serve``: the live score page for the phones at the table.

Runs waitress (read timeouts, a cap on connections, one worker per open event stream), prints the
address to open on a phone on the same network, a QR code of it, and the table PIN when it is new.
"""

from __future__ import annotations

import argparse
from typing import Any

from scorekeeper.commands.run import add_pin_options


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="serve the live score page to the phones at the table",
        description="Serve the live Nós/Eles score page and its JSON API.",
    )
    parser.add_argument(
        "--host", default="0.0.0.0", help="address to listen on (default: all, for the LAN)"
    )
    parser.add_argument("--port", type=int, default=8000, help="port (default: 8000)")
    parser.add_argument(
        "--db", metavar="PATH", help="event store file (default: in the user's data folder)"
    )
    add_pin_options(parser)
    parser.add_argument(
        "--table", default=None, help="table the address and QR code point to (default: mesa)"
    )
    parser.add_argument("--no-qr", action="store_true", help="do not print the QR code")
    parser.add_argument(
        "--confirm-next-match",
        action="store_true",
        help='once a match is won, wait for "Nova partida" instead of starting the '
        "next match with the next deal",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from scorekeeper.paths import default_db_path
    from scorekeeper.store import DEFAULT_TABLE, Store, check_table_id
    from scorekeeper.web import create_app
    from scorekeeper.web.server import announce, check_port, make_page_server
    from scorekeeper.web.table_pin import resolve_pin

    check_port(args.port)
    table = check_table_id(args.table or DEFAULT_TABLE)
    database = args.db or str(default_db_path())
    Store.open(database)  # the folder, the file and its check, before anything is printed
    pin, origin = resolve_pin(database, pin=args.pin, new=args.new_pin)
    app = create_app(
        {
            "DATABASE": database,
            "PIN": pin,
            "DEFAULT_TABLE": table,  # PIN None: the stored hash
            "CONFIRM_NEXT_MATCH": args.confirm_next_match,
        }
    )
    page = make_page_server(app, args.host, args.port)
    announce(page, pin=pin, pin_origin=origin, database=database, qr=not args.no_qr)
    try:
        # Inside the try: a stop right after the hint, before serving, still closes the page.
        print("Ctrl-C stops the server.", flush=True)
        page.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        page.stop()
    return 0
