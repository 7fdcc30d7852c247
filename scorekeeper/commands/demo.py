"""``scorekeeper demo``: the shipped simulated clip through the whole pipeline, no camera needed."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from scorekeeper.commands.run import (
    add_session_options,
    check_tournament_options,
    reader_factory,
    serve_session,
    start_pusher,
)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "demo",
        help="play the built-in table video through the whole pipeline and serve the page",
        description=(
            "Plays the shipped simulated deal at real speed through the card reader, the tracker, "
            "the rules engine and the store, and serves the live page; nothing else is needed."
        ),
    )
    add_session_options(parser)
    parser.add_argument(
        "--headless", action="store_true", help="no page: print the score progression"
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="with --headless: end with the JSON `scorekeeper replay` prints for the match seen",
    )
    parser.add_argument(
        "--fast", action="store_true", help="as fast as the machine reads, not at real speed"
    )
    parser.set_defaults(handler=run, table="demo")


def demo_session(args: argparse.Namespace, *, database: str) -> Any:
    from scorekeeper.pipeline.session import TableSession
    from scorekeeper.rules import Rules
    from scorekeeper.synth.simulate import demo_clip
    from scorekeeper.tracking import TableGeometry

    video, truth_path = demo_clip()
    truth = json.loads(truth_path.read_text(encoding="utf-8"))
    return TableSession(
        source=str(video),
        database=database,
        table_id=args.table,
        reader_factory=reader_factory(args.model),
        rules=Rules.from_json(truth["record"].get("rules")),
        geometry=TableGeometry.from_json(truth["geometry"]),
        realtime=not args.fast,
        confirm_next_match=args.confirm_next_match,
        warn=lambda line: print(line, file=sys.stderr),
    )


def run(args: argparse.Namespace) -> int:
    check_tournament_options(args)
    from scorekeeper.vision.registry import model_notice

    print(model_notice(args.model), file=sys.stderr if args.json else sys.stdout, flush=True)
    with tempfile.TemporaryDirectory(prefix="scorekeeper-demo-") as scratch:
        database = args.db or str(Path(scratch) / "demo.db")
        session = demo_session(args, database=database)
        if not args.headless:
            return serve_session(session, args, hold_page=True)
        return run_headless(session, as_json=args.json, args=args)


PUSH_GRACE = 10.0
"""Seconds a headless demo waits at the end for the tournament server to hold the whole log."""


def run_headless(session: Any, *, as_json: bool, args: argparse.Namespace | None = None) -> int:
    from scorekeeper.pipeline.progress import printer
    from scorekeeper.rules import replay_record

    store = session.open_store()
    pusher = start_pusher(args, store, session.table_id) if args is not None else None

    session.on_event = printer(store, session.table_id)
    try:
        stats = session.run(store)
    finally:
        if pusher is not None:
            if not pusher.wait_caught_up(PUSH_GRACE):
                print(
                    f"The tournament server holds {pusher.status.acked or 0} of "
                    f"{store.last_seq(session.table_id)} events; "
                    f"the rest stay in {session.database}",
                    file=sys.stderr,
                )
            pusher.stop()
    result = replay_record(store.record(session.table_id))
    print(
        f"Demo: {stats.frames_read} frames read at {stats.read_fps:.1f} frames/s; "
        f"score Nós {result['score']['nos']} – Eles {result['score']['eles']}"
    )
    if as_json:
        print(json.dumps(result, ensure_ascii=False))
    return 0
