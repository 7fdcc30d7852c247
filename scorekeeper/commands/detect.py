"""``scorekeeper detect IMAGE... [--conf X] [--json] [--save DIR] [--model PATH_OR_NAME]``.

Reads the Sueca cards in each image with the active card reader (ONNX, no torch), as still
photos (:attr:`scorekeeper.vision.reader.CardReader.photo`: a large photo is searched at finer
sizes too, and each index left unsure is boxed and read again), and prints one line per image,
or with ``--json`` a JSON list over images:
``[{"image": PATH, "cards": [{"card": "7H", "confidence": 0.93, "box": [x1, y1, x2, y2]}]}]``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from scorekeeper.errors import ScorekeeperError, SourceError


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "detect",
        help="read the Sueca cards in photos or frames",
        description="Read the Sueca cards in images with the card reader (see models/README.md).",
    )
    parser.add_argument("images", nargs="+", metavar="IMAGE", help="image files (jpg, png, ...)")
    parser.add_argument(
        "--conf",
        type=float,
        default=None,
        metavar="X",
        help="minimum classifier probability for a card (default: the model's own, "
        "thresholds.card_prob in its reader.json, or for a photo its photo_card_prob where an "
        "enrolment chose one)",
    )
    parser.add_argument(
        "--json", action="store_true", help="print a JSON list, one entry per image"
    )
    parser.add_argument(
        "--save",
        type=Path,
        default=None,
        metavar="DIR",
        help="write each image with the cards drawn on it into DIR",
    )
    parser.add_argument(
        "--model",
        default=None,
        metavar="PATH_OR_NAME",
        help="a model folder or an installed model name "
        "(`scorekeeper models`; default: the active one)",
    )
    parser.add_argument(
        "--size",
        type=int,
        default=None,
        metavar="PX",
        help="detector input size, a multiple of 32 (default: the model's, and for a photo "
        "larger than that also twice it, four times, ... up to the photo's own resolution, "
        "2560 at most, so that a phone photo's small indices are found)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    import cv2

    from scorekeeper.vision.reader import CardReader
    from scorekeeper.vision.registry import model_notice

    if args.conf is not None and not 0.0 <= args.conf <= 1.0:
        raise ScorekeeperError(
            f"--conf {args.conf} is not a probability: give a number from 0 to 1"
        )
    # On stderr: stdout stays one line per image, or the JSON alone.
    print(model_notice(args.model), file=sys.stderr, flush=True)
    reader = CardReader(
        args.model, card_prob=args.conf, detector_size=args.size, photo=args.size is None
    )
    if args.save is not None:
        args.save.mkdir(parents=True, exist_ok=True)
    results = []
    for name in args.images:
        frame = cv2.imread(name, cv2.IMREAD_COLOR)
        if frame is None:
            raise SourceError(f"cannot read image {name!r}: not a file OpenCV can decode")
        detections = reader.read(frame)
        entry = {"image": name, "cards": [d.to_json() for d in detections.cards]}
        results.append(entry)
        if args.save is not None:
            from scorekeeper.vision.draw import draw_detections

            target = args.save / Path(name).name
            cv2.imwrite(str(target), draw_detections(frame, detections))
        if not args.json:
            cards = (
                ", ".join(f"{d.card} {d.confidence:.2f}" for d in detections.cards) or "no cards"
            )
            print(f"{name}: {cards}")
    if args.json:
        print(json.dumps(results, indent=None))
    return 0
