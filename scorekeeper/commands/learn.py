"""``scorekeeper learn``: teach the card reader from the table's own finished deals.

``scorekeeper run`` keeps every finished deal the table accepted as card-region tiles named by the
final record (:mod:`scorekeeper.learning`). ``learn`` fine-tunes the active model (or ``--model``)
on its deck's kept deals, compares it with the model it started from on held-out deals and makes it
the default only if it reads them better. ``--background`` leaves it to a detached, low-priority
process (``scorekeeper models`` shows its progress); ``--forget`` deletes the kept deals.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from scorekeeper.commands.options import add_precision_option
from scorekeeper.errors import ScorekeeperError


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "learn",
        help="teach the card reader from the table's own finished deals",
        description="Fine-tune the card reader on the deals this table played (kept by "
        "`scorekeeper run`), judged on held-out deals; the new model becomes the default only "
        "if better. "
        "No frame leaves this machine.",
    )
    parser.add_argument(
        "--model",
        default=None,
        metavar="PATH_OR_NAME",
        help="model to start from; its deck's deals are used (default: the active one)",
    )
    parser.add_argument(
        "--deck",
        default=None,
        metavar="NAME",
        help="the deck whose kept deals to use or forget (default: the model's deck)",
    )
    parser.add_argument(
        "--minutes",
        type=float,
        default=15.0,
        help=(
            "training minutes on this machine, both stages, the detector at most 7.5 of them "
            "(default 15)"
        ),
    )
    parser.add_argument(
        "--detector",
        default="auto",
        choices=["auto", "on", "off"],
        help="fine-tune the index detector too: auto (where it misses indices), on, off",
    )
    add_precision_option(parser)
    parser.add_argument(
        "--background",
        action="store_true",
        help="learn in a detached low-priority process; `scorekeeper models` shows progress",
    )
    parser.add_argument(
        "--forget",
        action="store_true",
        help="delete the kept deals of the deck (with --all: of every deck) and stop",
    )
    parser.add_argument("--all", action="store_true", help="with --forget: every deck's kept deals")
    parser.add_argument("--json", action="store_true", help="print the outcome as JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.forget:
        return _forget(args)
    if args.all:
        raise ScorekeeperError("--all goes with --forget (delete every deck's kept deals)")
    if args.minutes <= 0:
        raise ScorekeeperError(f"--minutes {args.minutes}: give a budget above 0")
    from scorekeeper.learning.learn import LearnPlan, check_deals

    plan = LearnPlan(
        base=_base_model(args),
        minutes=args.minutes,
        detector=args.detector,
        precision=args.precision,
    )
    check_deals(plan.deck)

    from scorekeeper.training import require_training_extra

    require_training_extra()
    if args.background:
        return _detach(args, plan)
    return _learn(args, plan)


def _base_model(args: argparse.Namespace) -> Path:
    """The model to start from: ``--model``, else the best of ``--deck``'s models, else the active
    one."""
    from scorekeeper.training.adapt import deck_name
    from scorekeeper.vision.registry import (
        active_model_name,
        check_name,
        find_model,
        installed_models,
    )

    if args.deck is None:
        return find_model(args.model)
    deck = check_name(args.deck)
    if args.model is not None:
        base = find_model(args.model)
        if deck_name(base) != deck:
            raise ScorekeeperError(
                f"--model {args.model} reads deck {deck_name(base)}, not {deck}: "
                "give one of the two"
            )
        return base
    models = [m for m in installed_models() if deck_name(m.folder) == deck]
    if not models:
        raise ScorekeeperError(_unknown_deck(deck))
    active = active_model_name()
    preferred = sorted(
        models, key=lambda m: (m.name != active, m.name != f"{deck}-play", m.name != deck)
    )
    return preferred[0].folder


def _unknown_deck(deck: str) -> str:
    from scorekeeper.learning.learn import decks_with_kept_deals
    from scorekeeper.training.adapt import deck_name
    from scorekeeper.vision.registry import installed_models

    known = sorted({deck_name(m.folder) for m in installed_models()} | set(decks_with_kept_deals()))
    return (
        f"deck {deck!r} is unknown (known decks: {', '.join(known) or 'none'}): enrol it with "
        "`scorekeeper enrol`, or name one of those"
    )


def _forget(args: argparse.Namespace) -> int:
    from scorekeeper.learning.keep import forget
    from scorekeeper.learning.learn import decks_with_kept_deals
    from scorekeeper.training.adapt import deck_name
    from scorekeeper.vision.registry import check_name, find_model

    if args.all:
        forgotten = forget(None)
    else:
        deck = check_name(args.deck) if args.deck is not None else deck_name(find_model(args.model))
        if args.deck is not None and deck not in decks_with_kept_deals():
            from scorekeeper.vision.registry import installed_models

            if deck not in {deck_name(m.folder) for m in installed_models()}:
                raise ScorekeeperError(_unknown_deck(deck))
        forgotten = forget(deck)
    if args.json:
        print(
            json.dumps(
                {
                    "forgotten": [
                        {"deck": f.deck, "deals": f.deals, "megabytes": round(f.megabytes, 2)}
                        for f in forgotten
                    ]
                },
                indent=2,
            )
        )
    elif not forgotten:
        print("no kept deals to delete")
    for item in forgotten if not args.json else ():
        print(item.line())
    return 0


def _learn(args: argparse.Namespace, plan: Any) -> int:
    from scorekeeper.learning.learn import learn
    from scorekeeper.training.jobs import write_progress

    stage = {"name": ""}

    def progress(name: str, fraction: float, seconds_left: float | None) -> None:
        write_progress(plan.name, name, fraction, seconds_left, kind="learning")
        if name != stage["name"]:
            stage["name"] = name
            print(f"learn: {name}", file=sys.stderr)

    result = learn(plan, progress=progress, log=lambda line: print(line, file=sys.stderr))
    if args.json:
        print(
            json.dumps(
                {
                    "deck": plan.deck,
                    "model": str(result.model) if result.model else None,
                    "before": result.before,
                    "after": result.after,
                    "active": result.better,
                    "chosen": result.chosen,
                    "minutes": result.minutes,
                },
                indent=2,
            )
        )
    else:
        print(result.line())
    return 0


def _detach(args: argparse.Namespace, plan: Any) -> int:
    from scorekeeper.training.jobs import start_detached, write_progress

    plan.work.mkdir(parents=True, exist_ok=True)
    log = plan.work / "learn.log"
    arguments = [
        "learn",
        "--model",
        str(plan.base),
        "--minutes",
        str(args.minutes),
        "--detector",
        args.detector,
        "--precision",
        args.precision,
        "--json",
    ]
    # Lowest but one priority: a table playing on this machine keeps its frames.
    pid = start_detached(arguments, log=log, niceness=15)
    write_progress(plan.name, "starting", 0.0, None, pid=pid, kind="learning")
    print(
        f"learning from the kept deals of deck {plan.deck} in the background (pid {pid}); "
        f"`scorekeeper models` shows progress; log: {log}"
    )
    return 0
