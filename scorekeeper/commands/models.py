"""``scorekeeper models [--json] [--use NAME]``: the card-reader models installed, and the default.

The shipped model always stays; models adapted to a café's deck (``scorekeeper enrol``) sit beside
it. ``run`` and ``detect`` use the active one unless ``--model`` names another.
"""

from __future__ import annotations

import argparse
import json


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "models",
        help="list the card-reader models and choose the default",
        description="List the installed card-reader models (shipped and enrolled), marking the active one.",
    )
    parser.add_argument("--use", metavar="NAME", default=None,
                        help="make NAME the default model for run and detect (sueca-reader: the shipped one)")
    parser.add_argument("--json", action="store_true", help="print a JSON list")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from scorekeeper.training.jobs import running_jobs
    from scorekeeper.vision.registry import installed_models, set_active_model

    if args.use is not None:
        set_active_model(args.use, reason="chosen with `scorekeeper models --use`")
    models = installed_models()
    jobs = running_jobs()
    if args.json:
        print(json.dumps({"models": [m.to_json() for m in models], "enrolling": jobs}, indent=2))
        return 0
    for model in models:
        mark = "*" if model.active else " "
        summary = model.summary()
        print(f"{mark} {model.name:<20} {model.origin:<9} {summary}".rstrip())
    for job in jobs:
        left = f", ~{job['seconds_left'] / 60:.0f} min left" if job.get("seconds_left") is not None else ""
        print(f"  {job['name']:<20} enrolling: {job['stage']} {100 * job['fraction']:.0f}%{left}")
    return 0
