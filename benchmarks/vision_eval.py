"""Print every figure of the card reader's model card (models/README.md).

    python benchmarks/vision_eval.py [--model sueca-reader] [--synthetic DIR] [--realcards DIR]
        [--webcam DIR] [--real-sizes 256,320] [--no-latency] [--json OUT]

* synthetic validation (a ``scorekeeper dataset build`` set, its ``val`` split): stage-1 index AP50,
  recall and precision; stage-2 top-1 on crops of the labelled indices; end-to-end card P/R;
* ``realcards-dev`` (real phone photos, never trained on): the same, per detector size, with
  per-suit recall, the suit confusion and the classifier's calibration;
* the webcam-scale view of ``realcards-dev`` (its photos shrunk until the indices are 13-37 px
  tall, blurred, noised and JPEG'd, in 640x360 frames): the same photos as a webcam shows them;
* ``realcards-webcam`` (real laptop-webcam frames, never trained on): the same figures;
* latency: median of 50 reads of the demo clip's 1280x720 frames, both stages, beside the same
  model read the plain way (one detector size, one view of each index, no card view) in the same
  run, and the ratio of the two (do not run while training).

Runs with the light run-time install (onnxruntime + OpenCV), no torch.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scorekeeper.vision.evaluate import measure_all


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--model", default=None, help="model folder or name (default: sueca-reader)"
    )
    parser.add_argument(
        "--synthetic", type=Path, default=None, help="synthetic set with images/val"
    )
    parser.add_argument("--realcards", type=Path, default=ROOT.parent / "shared" / "realcards-dev")
    parser.add_argument("--webcam", type=Path, default=ROOT.parent / "shared" / "realcards-webcam")
    parser.add_argument(
        "--webcam-scale",
        type=Path,
        default=ROOT / "runs" / "realcards-dev-webcam-scale",
        help="where the webcam-scale view of --realcards is written",
    )
    parser.add_argument("--real-sizes", default="", help="extra detector sizes for the real photos")
    parser.add_argument("--no-latency", action="store_true")
    parser.add_argument("--limit", type=int, default=None, help="images per set (quick look)")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = parser.parse_args(argv)
    sizes = tuple(int(s) for s in args.real_sizes.split(",") if s.strip())
    figures = measure_all(
        args.model,
        synthetic=args.synthetic,
        realcards=args.realcards if args.realcards.is_dir() else None,
        webcam=args.webcam if args.webcam.is_dir() else None,
        webcam_scale=args.webcam_scale,
        real_sizes=sizes,
        latency=not args.no_latency,
        limit=args.limit,
        log=lambda _line: None,
    )
    print_figures(figures)
    if args.json is not None:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 0


def print_figures(figures: dict[str, Any]) -> None:
    print(f"model: {figures.get('model')}")
    synthetic = figures.get("synthetic_val")
    if synthetic:
        _print_block(f"synthetic val (detector size {synthetic['detector_size']})", synthetic)
    for key, name in (
        ("realcards_dev", "realcards-dev"),
        ("realcards_dev_webcam_scale", "realcards-dev, webcam scale"),
        ("realcards_webcam", "realcards-webcam"),
    ):
        for size, block in (figures.get(key) or {}).items():
            _print_block(f"{name} (detector size {size})", block)
    latency = figures.get("latency")
    if latency:
        print(
            f"latency per {latency['frame']} frame, both stages: median {latency['median_ms']} ms, "
            f"p90 {latency['p90_ms']} ms over {latency['runs']} runs "
            f"({latency['cards_per_frame']} cards read a frame); read the plain way "
            f"{latency.get('baseline_median_ms')} ms, ratio {latency.get('ratio_to_baseline')}"
        )


SUIT_SIGNS = {"H": "\u2665", "S": "\u2660", "D": "\u2666", "C": "\u2663"}


def _print_block(title: str, block: dict[str, Any]) -> None:
    s1, s2, cards = block["stage1"], block["stage2"], block["cards"]
    print(f"{title}:")
    print(
        f"  stage 1 index detector: AP50 {s1['index_ap50']}, recall {s1['index_recall']}, "
        f"precision {s1['index_precision']} at conf {s1['conf']} "
        f"({s1['indices']} indices, {s1['images']} images)"
    )
    line = (
        f"  stage 2 classifier on labelled crops: top-1 {s2.get('top1')}, top-3 {s2.get('top3')}, "
        f"rank-only {s2.get('rank_only')}, suit-only {s2.get('suit_only')} ({s2['crops']} crops)"
    )
    if s2.get("non_sueca_crops"):
        line += (
            f"; 8/9/10/joker called not_a_card {s2.get('non_sueca_rejected')} "
            f"({s2['non_sueca_crops']} crops)"
        )
    print(line)
    stages = block.get("card_stages")
    if stages:
        print(
            f"  where cards are lost ({stages['cards']} cards): "
            f"found by stage 1 {stages['found']}, named by stage 2 {stages['named']}, "
            f"both {stages['found_and_named']} ({stages['found_not_named']} found and not named, "
            f"{stages['named_not_found']} named and not found, {stages['neither']} neither)"
        )
    print(
        f"  end to end, per-image cards: precision {cards['card_precision']}, "
        f"recall {cards['card_recall']}, exact sets {cards['exact_images']} "
        f"(tp {cards['tp']}, fp {cards['fp']}, fn {cards['fn']}; "
        f"{cards['images']} images)"
    )
    if cards.get("suit_recall"):
        recall = cards["suit_recall"]
        print("  recall by suit: " + ", ".join(f"{SUIT_SIGNS[s]} {recall[s]}" for s in recall))
        print(
            "  suit confusion (rows: the card present; "
            "columns: read as that suit's card of the same rank)"
        )
        print("        " + "".join(f"{SUIT_SIGNS[s]:>7}" for s in recall) + "  missed")
        for suit, row in cards["suit_confusion"].items():
            print(
                f"     {SUIT_SIGNS[suit]}  "
                + "".join(f"{row[s]:>7}" for s in recall)
                + f"{row['missed']:>8}"
            )
    calibration = block.get("calibration")
    if calibration and calibration.get("bins"):
        bins = ", ".join(
            f"{b['from']:.1f}-{b['to']:.1f}: {b['right']} right of {b['crops']}"
            for b in calibration["bins"]
        )
        print(f"  classifier calibration (ECE {calibration['ece']}): {bins}")
    kinds = cards.get("false_cards")
    if kinds and cards["fp"]:
        print(
            f"  false cards: {kinds['rank_slip']} another rank of a suit present, "
            f"{kinds['suit_slip']} another suit of a rank present, "
            f"{kinds['with_non_sueca']} in photos with an 8/9/10/joker, "
            f"{kinds['other']} other"
        )


if __name__ == "__main__":
    raise SystemExit(main())
