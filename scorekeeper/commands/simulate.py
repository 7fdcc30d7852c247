"""``scorekeeper simulate --out clip.mp4 [--seed S] [--deals K]``: a deal video and its truth."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from scorekeeper.commands.options import add_seat_options
from scorekeeper.rules.seats import seat_label
from scorekeeper.tracking.geometry import Side


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "simulate",
        help="render a simulated deal video (overhead webcam) with its ground truth",
        description=(
            "Render whole simulated deals as an overhead webcam sees them "
            "(cards sliding in, hands, tricks gathered, shake, light, blur, noise) to an .mp4, "
            "and the ground truth (match record, table geometry, per-frame events) "
            "to the .json beside it."
        ),
    )
    parser.add_argument(
        "--out", required=True, help="video to write (.mp4); the truth goes to .json beside it"
    )
    parser.add_argument(
        "--seed", type=int, default=0, help="random seed: same seed, same video (default 0)"
    )
    parser.add_argument("--deals", type=int, default=1, help="how many deals to play (default 1)")
    parser.add_argument(
        "--revoke", action="store_true", help="one player commits a renúncia in the first deal"
    )
    add_seat_options(parser, default=Side.BOTTOM)
    parser.add_argument("--fps", type=float, default=15.0, help="frames per second (default 15)")
    parser.add_argument(
        "--pace", type=float, default=1.0, help="slower (>1) or faster (<1) players"
    )
    parser.add_argument("--size", default="1280x720", help="frame size WxH (default 1280x720)")
    parser.add_argument(
        "--faces", help="folder of 40 face images (Ah.png ... 2c.png) instead of procedural faces"
    )
    parser.add_argument(
        "--table",
        help="table top: wood, formica, felt, cloth, gingham, stripes, dots, marble or plain "
        "(default: random)",
    )
    parser.add_argument(
        "--camera",
        choices=("full", "mild", "none"),
        default="full",
        help="full: shake, light, blur, noise, JPEG (default); mild: no noise or JPEG (5x smaller "
        "files); none: a still, clean camera",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from scorekeeper.synth.plan import SimulationError
    from scorekeeper.synth.simulate import check_output, simulate, write_clip

    size = _size(args.size)
    check_output(args.out, table=args.table)
    if args.faces is not None:
        from pathlib import Path

        if not Path(args.faces).is_dir():
            raise SimulationError(f"--faces {args.faces!r} is not a folder of face images")
    simulation = simulate(
        args.seed,
        args.deals,
        revoke=args.revoke,
        clockwise=args.clockwise,
        seat0=args.seat0,
        fps=args.fps,
        pace=args.pace,
        size=size,
        camera=args.camera,
    )
    from tqdm import tqdm

    # The bar appears with the first frame, so setup errors stay one line on stderr.
    bars: list[Any] = []

    def progress(frames: int) -> None:
        if not bars:
            bars.append(
                tqdm(
                    total=simulation.timeline.frames, unit="frame", desc="simulate", file=sys.stderr
                )
            )
        bars[0].update(frames)

    try:
        figures = write_clip(
            args.out, simulation, faces=args.faces, table=args.table, progress=progress
        )
    finally:
        for bar in bars:
            bar.close()
    truth = simulation.truth
    score = truth["score"]
    print(
        f"{args.out}: {figures['frames']} frames, {figures['seconds']} s at {args.fps:g} fps, "
        f"{figures['bytes'] / 1e6:.1f} MB, rendered at {figures['render_fps']} frames/s"
    )
    for number, deal in enumerate(truth["deals"]):
        revokes = (
            f", renúncia by {seat_label(deal['revokes'][0]['seat'])}" if deal["revokes"] else ""
        )
        print(
            f"deal {number + 1}: dealer {seat_label(deal['dealer'])} turned {deal['turned']}, "
            f"Nós {deal['points']['nos']} - Eles {deal['points']['eles']}{revokes}"
        )
    print(
        f"score (riscos): Nós {score['nos']} - Eles {score['eles']}; "
        f"truth in {_truth_name(args.out)}"
    )
    return 0


def _truth_name(out: str) -> str:
    from pathlib import Path

    return str(Path(out).with_suffix(".json"))


def _size(text: str) -> tuple[int, int]:
    from scorekeeper.synth.plan import SimulationError

    try:
        width, height = (int(part) for part in text.lower().split("x"))
    except ValueError:
        raise SimulationError(f"--size {text!r} is not WIDTHxHEIGHT, like 1280x720") from None
    return width, height
