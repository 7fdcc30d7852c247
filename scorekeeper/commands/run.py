"""``scorekeeper run``: camera to phone in one process."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from scorekeeper.commands.options import (
    add_rules_option,
    add_seat_options,
    add_source_option,
    parse_rules,
)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "run",
        help="watch the table with a camera and serve the live score",
        description=(
            "Capture, read the cards, follow the game, keep the match in the store "
            "and serve the page, all in one process. "
            "A won match is kept in the history and the next trunfo starts the next one. "
            "When a video file ends the page stays up. "
            "Ctrl-C stops; running again continues the same match."
        ),
    )
    add_source_option(parser)
    add_session_options(parser)
    add_rules_option(parser, what="the rules a new match starts with (default: tournament rules)")
    add_seat_options(parser)
    parser.add_argument(
        "--geometry", metavar="FILE", help="table geometry JSON: play area and seat sides"
    )
    parser.add_argument(
        "--no-keep-deals",
        action="store_true",
        help="do not keep the finished deals' card tiles for `scorekeeper learn`",
    )
    parser.set_defaults(handler=run)


def add_session_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--db", metavar="PATH", help="event store file (default: in the user's data folder)"
    )
    add_pin_options(parser)
    parser.add_argument("--table", default="mesa", help="table id in the store (default: mesa)")
    parser.add_argument(
        "--host", default="0.0.0.0", help="address the page listens on (default: all)"
    )
    parser.add_argument("--port", type=int, default=8000, help="port of the page (default: 8000)")
    parser.add_argument(
        "--model",
        help="card reader model folder or installed name "
        "(`scorekeeper models`; default: the active one)",
    )
    parser.add_argument("--no-qr", action="store_true", help="do not print the QR code")
    parser.add_argument(
        "--tournament",
        metavar="URL",
        help="also push the table's log to this tournament server (the table keeps its own)",
    )
    parser.add_argument(
        "--table-key",
        metavar="KEY",
        help="the key the organiser gave this table (with --tournament)",
    )
    parser.add_argument(
        "--confirm-next-match",
        action="store_true",
        help='once a match is won, wait for "Nova partida" on the page instead of '
        "starting the next match at the next trunfo",
    )


def add_pin_options(parser: argparse.ArgumentParser) -> None:
    pins = parser.add_mutually_exclusive_group()
    pins.add_argument(
        "--pin", help="set the table PIN for corrections (4-12 digits); kept, hashed, in the store"
    )
    pins.add_argument(
        "--new-pin",
        action="store_true",
        help="draw a new random PIN (default: keep the one set before, or draw one the first time)",
    )


def check_tournament_options(args: argparse.Namespace) -> None:
    """One line, before anything starts, for a half-given or unusable ``--tournament``."""
    from scorekeeper.tournament.pusher import PusherError, check_url

    if bool(args.tournament) != bool(args.table_key):
        raise PusherError(
            "--tournament and --table-key go together: the server's address and this table's key"
        )
    if args.tournament:
        check_url(args.tournament)


def run(args: argparse.Namespace) -> int:
    check_tournament_options(args)
    rules = parse_rules(args.rules) if args.rules else None
    from scorekeeper.paths import default_db_path
    from scorekeeper.pipeline.capture import SourceSpec
    from scorekeeper.pipeline.session import TableSession
    from scorekeeper.store import check_table_id
    from scorekeeper.tracking.geometry import load_geometry
    from scorekeeper.vision.registry import model_notice

    print(model_notice(args.model), flush=True)
    session = TableSession(
        source=args.source,
        database=args.db or str(default_db_path()),
        table_id=check_table_id(args.table),
        reader_factory=reader_factory(args.model),
        rules=rules,
        geometry=load_geometry(args.geometry) if args.geometry else None,
        seat0=args.seat0,
        clockwise=args.clockwise,
        confirm_next_match=args.confirm_next_match,
        warn=lambda line: print(line, file=sys.stderr),
    )
    if not args.no_keep_deals:
        session.play_keeper = play_keeper(args.model, session.table_id)
    # A file ends, but the table may still read or correct the score on the page.
    status = serve_session(session, args, hold_page=not SourceSpec(args.source).is_live)
    if session.play_keeper is not None:
        hint = learning_hint(session.play_keeper)
        if hint:
            print(hint, file=sys.stderr)
    return status


def play_keeper(model: str | None, table_id: str) -> Any:
    """The listener that keeps this session's accepted deals for learning, for the model's deck."""
    from scorekeeper.learning.recording import PlayKeeper
    from scorekeeper.training.adapt import deck_name
    from scorekeeper.vision.registry import find_model

    return PlayKeeper(
        deck=deck_name(find_model(model)),
        table_id=table_id,
        log=lambda line: print(line, file=sys.stderr),
    )


def learning_hint(keeper: Any) -> str:
    """One line at the end of a session: how many deals are kept, and how to learn or forget."""
    from scorekeeper.learning.learn import kept_summary

    kept = kept_summary(keeper.deck)
    if not kept["deals"]:
        return ""
    return (
        f"{kept['deals']} deals of deck {keeper.deck} kept for learning ({keeper.kept} this "
        f"session, {kept['megabytes']} MB, card tiles only): `scorekeeper learn --background` "
        "teaches the reader from them, `scorekeeper learn --forget` deletes them"
    )


def reader_factory(model: str | None) -> Any:
    def load() -> Any:
        from scorekeeper.vision.reader import CardReader

        return CardReader(model, photo=False)

    return load


def serve_session(session: Any, args: argparse.Namespace, *, hold_page: bool) -> int:
    """Store, then page, then the source: the phones see the score before the camera answers."""
    from scorekeeper.pipeline.progress import printer
    from scorekeeper.web import create_app
    from scorekeeper.web.db import notify_live
    from scorekeeper.web.server import announce, check_port, make_page_server
    from scorekeeper.web.table_pin import resolve_pin

    check_port(args.port)
    store = session.open_store()
    pusher = start_pusher(args, store, session.table_id)
    pin, origin = resolve_pin(session.database, pin=args.pin, new=args.new_pin)
    app = create_app(
        {
            "DATABASE": session.database,
            "PIN": pin,
            "DEFAULT_TABLE": session.table_id,
            "LIVE_STATUS": session.status.snapshot,
            "CONFIRM_NEXT_MATCH": session.confirm_next_match,
        }
    )
    session.status.set_listener(lambda: notify_live(app))
    page = make_page_server(app, args.host, args.port)
    page.start_in_background()
    announce(page, pin=pin, pin_origin=origin, database=session.database, qr=not args.no_qr)

    session.on_event = printer(
        store,
        session.table_id,
        waiting=lambda: session.waiting_for_next_match,
        confirm_next_match=session.confirm_next_match,
    )
    try:
        stats = session.run(store)
        print(
            f"Source ended after {stats.frames_seen} frames ({stats.read_fps:.1f} frames/s read)."
        )
        if hold_page:
            print("The page stays up: Ctrl-C stops.", flush=True)
            page.wait()
    except KeyboardInterrupt:
        session.stop()
        print("Stopped; the match is stored and continues at the next start.", file=sys.stderr)
    finally:
        page.stop()
        if pusher is not None:
            pusher.stop()
    return 0


def start_pusher(args: argparse.Namespace, store: Any, table_id: str) -> Any:
    """The tournament pusher for ``--tournament URL --table-key KEY``, running (None without
    them)."""
    check_tournament_options(args)
    if not args.tournament:
        return None
    from scorekeeper.tournament.pusher import Pusher

    url = args.tournament.rstrip("/")
    pusher = Pusher(
        store, table_id, url, args.table_key, warn=lambda line: print(line, file=sys.stderr)
    )
    store.subscribe(lambda table, seq: pusher.wake())
    print(f"Pushing table {table_id!r} to the tournament at {url}", flush=True)
    return pusher.start()
