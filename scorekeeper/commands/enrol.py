"""``scorekeeper enrol --source 0|FILE|DIR --name NAME``: learn a café's own deck.

Two halves. First the deck's 40 faces are collected (camera, video, photos, a folder that already is
a face pack, or an SVG card deck) and saved as a face pack under the user's data folder
(:mod:`scorekeeper.enrol`). Then the card reader is adapted to it
(:mod:`scorekeeper.training.adapt`): scenes of the deck, a fine-tune of the active model's
classifier (and of its detector where it misses the deck's indices) within ``--minutes``, thresholds
chosen for the deck, and a comparison on held-back scenes; the adapted model becomes the default
only if it reads the deck better. ``--background`` leaves the adapting to a detached, lower-priority
process (``scorekeeper models`` shows its progress).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from scorekeeper.commands.options import add_precision_option, add_source_option
from scorekeeper.errors import ScorekeeperError


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "enrol",
        help="photograph a café's own deck once and adapt the card reader to it",
        description="Collect the 40 faces of a deck (camera, video, photos or a face-pack folder), "
        "save them, and fine-tune the card reader on them.",
    )
    add_source_option(
        parser,
        metavar="0|FILE|DIR",
        help="camera index, a video or photo, a folder of photos, a face-pack folder, "
        "or an SVG card deck (.svg/.svgz, rendered with rsvg-convert)",
    )
    parser.add_argument("--name", required=True, help="the deck's name (letters, digits, - and _)")
    parser.add_argument(
        "--model",
        default=None,
        metavar="PATH_OR_NAME",
        help="model to read the faces with and to adapt (default: the active one)",
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
        help="fine-tune the index detector too: auto (where it misses the deck's indices), on, off",
    )
    add_precision_option(parser)
    parser.add_argument("--scenes", type=int, default=400, help="training scenes of the deck (400)")
    parser.add_argument(
        "--heldback",
        type=int,
        default=100,
        help="held-back scenes of the deck to compare the models on (100)",
    )
    parser.add_argument(
        "--heldback-deals",
        type=int,
        default=1,
        help="rendered deals of the deck whose frames join the held-back scenes (1; 0: none)",
    )
    parser.add_argument(
        "--photos",
        type=int,
        default=100,
        help="rendered phone photos of the deck's fanned hands to choose the photo threshold on "
        "(100; 0: photos read at the live threshold)",
    )
    parser.add_argument(
        "--accept-guesses",
        action="store_true",
        help="take the reader's best guess for doubtful cards instead of asking",
    )
    parser.add_argument(
        "--page",
        action="store_true",
        help="also show the enrolment on a web page (confirm doubtful cards from a phone)",
    )
    parser.add_argument("--no-adapt", action="store_true", help="only save the face pack")
    parser.add_argument(
        "--background",
        action="store_true",
        help="adapt in a detached low-priority process; `scorekeeper models` shows progress",
    )
    parser.add_argument("--json", action="store_true", help="print the outcome as JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from scorekeeper.vision.registry import DEFAULT_MODEL, check_name, find_model

    name = check_name(args.name)
    if name == DEFAULT_MODEL:
        raise ScorekeeperError(
            f"{DEFAULT_MODEL!r} is the shipped model's name: give the deck another name"
        )
    if (
        args.minutes <= 0
        or args.scenes < 10
        or args.heldback < 10
        or args.heldback_deals < 0
        or args.photos < 0
    ):
        raise ScorekeeperError(
            "--minutes must be above 0, --scenes and --heldback at least 10, "
            "--heldback-deals and --photos 0 or more"
        )
    base = find_model(args.model)
    pack = _collect(args, name, base)
    print(f"face pack saved: {pack}", file=sys.stderr)
    if args.no_adapt:
        return _report(args, {"deck": str(pack), "adapted": False})

    from scorekeeper.training import require_training_extra

    try:
        require_training_extra()
    except ScorekeeperError as error:
        raise ScorekeeperError(
            f"deck saved at {pack}, "
            f"but adapting the reader needs the train extra ({error}); "
            f"then run `scorekeeper enrol --source {pack} --name {name}`"
        ) from None
    if args.background:
        return _detach(args, name, pack, base)
    return _adapt(args, name, pack, base)


def _collect(args: argparse.Namespace, name: str, base: Path) -> Path:
    from scorekeeper.enrol.capture import capture_deck
    from scorekeeper.vision.reader import CardReader

    return capture_deck(
        str(args.source),
        name=name,
        reader=_LazyReader(lambda: CardReader(base)),
        interactive=sys.stdin.isatty() and not args.accept_guesses,
        accept_guesses=args.accept_guesses,
        page=args.page,
        log=lambda line: print(line, file=sys.stderr),
    )


class _LazyReader:
    """Loads the models only if a face has to be read (a face-pack folder needs no reading)."""

    def __init__(self, factory: Callable[[], Any]) -> None:
        self._factory = factory
        self._reader: Any = None

    def __getattr__(self, attribute: str) -> Any:
        if self._reader is None:
            self._reader = self._factory()
        return getattr(self._reader, attribute)


def _adapt(args: argparse.Namespace, name: str, pack: Path, base: Path) -> int:
    from tqdm import tqdm

    from scorekeeper.training.adapt import AdaptPlan, adapt
    from scorekeeper.training.jobs import write_progress

    plan = AdaptPlan(
        deck=pack,
        name=name,
        base=base,
        scenes=args.scenes,
        heldback=args.heldback,
        heldback_deals=args.heldback_deals,
        photos=args.photos,
        minutes=args.minutes,
        detector=args.detector,
        precision=args.precision,
    )
    bar = tqdm(
        total=100,
        unit="%",
        desc="enrol",
        file=sys.stderr,
        disable=not sys.stderr.isatty(),
        bar_format="{desc}: {bar} {n:.0f}% {postfix}",
    )
    state = {"stage": ""}

    def progress(stage: str, fraction: float, seconds_left: float | None) -> None:
        write_progress(name, stage, fraction, seconds_left)
        if stage != state["stage"]:
            state["stage"] = stage
            bar.set_description(f"enrol: {stage}")
            if bar.disable:
                print(f"enrol: {stage}", file=sys.stderr)
        bar.n = round(100 * fraction, 1)
        if seconds_left is not None:
            bar.set_postfix_str(f"~{seconds_left / 60:.1f} min left", refresh=False)
        bar.refresh()

    try:
        result = adapt(plan, progress=progress, log=lambda line: None)
    finally:
        bar.close()
    if not args.json:
        print(result.line())
    return _report(
        args,
        {
            "deck": str(pack),
            "adapted": True,
            "model": str(result.model) if result.model is not None else None,
            "before": result.before,
            "after": result.after,
            "active": result.better,
            "chosen": result.chosen,
            "minutes": result.minutes,
        },
    )


def _detach(args: argparse.Namespace, name: str, pack: Path, base: Path) -> int:
    from scorekeeper.training.adapt import AdaptPlan
    from scorekeeper.training.jobs import start_detached, write_progress

    work = AdaptPlan(deck=pack, name=name, base=base).work
    work.mkdir(parents=True, exist_ok=True)
    log = work / "enrol.log"
    arguments = [
        "enrol",
        "--source",
        str(pack),
        "--name",
        name,
        "--model",
        str(base),
        "--minutes",
        str(args.minutes),
        "--scenes",
        str(args.scenes),
        "--heldback",
        str(args.heldback),
        "--heldback-deals",
        str(args.heldback_deals),
        "--photos",
        str(args.photos),
        "--detector",
        args.detector,
        "--precision",
        args.precision,
        "--accept-guesses",
        "--json",
    ]
    # A lower priority keeps a running `scorekeeper run` responsive while the deck is learnt.
    pid = start_detached(arguments, log=log, niceness=10)
    write_progress(name, "starting", 0.0, None, pid=pid)
    print(
        f"adapting in the background (pid {pid}); `scorekeeper models` shows progress; log: {log}"
    )
    return 0


def _report(args: argparse.Namespace, outcome: dict[str, object]) -> int:
    if args.json:
        print(json.dumps(outcome, indent=2))
    return 0
