"""``scorekeeper models [--json] [--use NAME]``: the card-reader models installed, and the default.

The shipped model always stays; models adapted to a café's deck (``scorekeeper enrol``) or taught
by its own deals (``scorekeeper learn``) sit beside it, each with what it learned from and its
figures. ``run`` and ``detect`` use the active one unless ``--model`` names another.
"""

from __future__ import annotations

import argparse
import json
from typing import Any


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "models",
        help="list the card-reader models and choose the default",
        description=(
            "List the installed card-reader models (shipped and enrolled), marking the active one."
        ),
    )
    parser.add_argument(
        "--use",
        metavar="NAME",
        default=None,
        help="make NAME the default model for run and detect (sueca-reader: the shipped one)",
    )
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
        print(
            json.dumps(
                {
                    "models": [
                        {**m.to_json(), "summary": describe(m), **taught(m)} for m in models
                    ],
                    "enrolling": jobs,
                },
                indent=2,
            )
        )
        return 0
    for model in models:
        mark = "*" if model.active else " "
        print(f"{mark} {model.name:<20} {model.origin:<9} {describe(model)}".rstrip())
    for job in jobs:
        left = (
            f", ~{job['seconds_left'] / 60:.0f} min left"
            if job.get("seconds_left") is not None
            else ""
        )
        kind = job.get("kind", "enrolling")
        print(f"  {job['name']:<20} {kind}: {job['stage']} {100 * job['fraction']:.0f}%{left}")
    return 0


def taught(model: Any) -> dict[str, Any]:
    """What a model learned from and its figures, from its ``enrol.json`` (empty for the shipped
    one)."""
    record = model.figures.get("enrol")
    if not record:
        return {}
    learned = record.get("learned_from") or {"deck": record.get("deck"), "deals": 0}
    facts = {
        "learned_from": {"deck": learned.get("deck"), "deals": int(learned.get("deals", 0))},
        "judged_on": record.get("judged_on", "held-back scenes of the deck"),
        "before": record.get("before", {}),
        "after": record.get("after", {}),
    }
    photos = record.get("photo_threshold") or {}
    chosen = [
        r for r in photos.get("rows", []) if r.get("card_prob") == photos.get("photo_card_prob")
    ]
    if chosen:
        facts["photos"] = {"on": photos.get("on", "photos"), **chosen[0]}
    return facts


def describe(model: Any) -> str:
    """One line: what the model learned from (deck faces, deals of play) and how it reads."""
    facts = taught(model)
    if not facts:
        return str(model.summary())
    learned = facts["learned_from"]
    sources = [f"deck {learned['deck']} faces"] if learned.get("deck") else []
    if learned["deals"]:
        sources.append(f"{learned['deals']} deal{'s' if learned['deals'] != 1 else ''} of play")
    photos = (
        f"; as photos, card P/R {_pr(facts['photos'])} on {facts['photos']['on']} "
        f"(card_prob {facts['photos']['card_prob']:g})"
        if "photos" in facts
        else ""
    )
    return (
        f"learned from {' + '.join(sources) or 'nothing recorded'}: card P/R "
        f"{_pr(facts['after'])} on {facts['judged_on']} "
        f"(model it started from: {_pr(facts['before'])}){photos}"
    )


def _pr(figures: dict[str, Any]) -> str:
    nan = float("nan")
    return f"{figures.get('card_precision', nan):.2f}/{figures.get('card_recall', nan):.2f}"
