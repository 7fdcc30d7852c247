"""``scorekeeper calibrate``: confirm where the seats are from the camera's first frame."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from scorekeeper.commands.options import SIDES, add_seat_options, add_source_option
from scorekeeper.errors import SourceError


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "calibrate",
        help="draw the seats on the camera's first frame and save the table geometry",
        description=(
            "Grabs the first frame, draws the play area and each seat on it, "
            "and (once confirmed) saves the geometry for `run --geometry` and `track --geometry`."
        ),
    )
    add_source_option(parser)
    add_seat_options(parser)
    parser.add_argument(
        "--image",
        default="calibration.png",
        help="where to write the picture (default: %(default)s)",
    )
    parser.add_argument(
        "--out", default="geometry.json", help="where to write the geometry (default: %(default)s)"
    )
    parser.add_argument("--yes", action="store_true", help="save without asking (for scripts)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    import cv2

    from scorekeeper.pipeline.capture import ResilientCapture
    from scorekeeper.tracking import TableGeometry
    from scorekeeper.tracking.calibration import draw_geometry
    from scorekeeper.tracking.geometry import seated

    capture = ResilientCapture(args.source)
    capture.open()
    frame = next(iter(capture.frames()), None)
    capture.close()
    if frame is None:
        raise SourceError(f"{args.source!r} gave no frame: check the camera or the file")
    height, width = frame.image.shape[:2]
    geometry = seated(
        TableGeometry.default(width, height), seat0=args.seat0, clockwise=args.clockwise
    )
    if not cv2.imwrite(args.image, draw_geometry(frame.image, geometry)):
        raise SourceError(f"cannot write {args.image!r}: check the folder exists and is writable")
    print(
        f"Open {args.image}: Jogador 1 (Nós) should be the player "
        f"by the {geometry.seat0.value} edge, "
        f"and Jogador 2, 3 and 4 should follow in playing order "
        f"({'clockwise' if geometry.clockwise else 'counter-clockwise'})."
    )
    if not args.yes:
        if not sys.stdin.isatty():
            print("Not saved: confirm with --yes, or run this in a terminal.", file=sys.stderr)
            return 1
        answer = input("Is that right? [y/N] ").strip().lower()
        if answer not in ("y", "yes", "s", "sim"):
            print(f"Not saved: try again with --seat0 {'|'.join(SIDES)} and/or --clockwise.")
            return 1
    Path(args.out).write_text(json.dumps(geometry.to_json(), indent=1) + "\n", encoding="utf-8")
    print(
        f"Saved {args.out}: "
        f"use it with `scorekeeper run --source {args.source} --geometry {args.out}`."
    )
    return 0
