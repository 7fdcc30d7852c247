"""Tracker benchmark on simulated deals whose seeds no test or tuning used.

For each seed: the simulator's perfect per-frame detections (occlusion by cards and hands, camera
shake) are degraded the way the tracker's target is stated (30% of frames dropped, 5% of reads
wrong for 1-2 frames, one-frame ghost cards, hands covering cards), tracked, and the rebuilt record
compared with the truth through the rules engine. Prints the share of tricks right (target 100%),
the tracker's speed in frames per second, and the delay from a card landing to its
``card_played``.

    python benchmarks/tracker_eval.py                 # 24 deals, seeds 5000-5023, 15 fps
    python benchmarks/tracker_eval.py --seeds 40 --first 9000 --fps 10 --json

Seeds below 1000 were used while tuning the tracker; keep benchmark seeds above that.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scorekeeper.rules import Rules
from scorekeeper.synth.simulate import simulate_detections
from scorekeeper.tracking import CardPlayed, TableGeometry, Tracker, Uncertain
from scorekeeper.tracking.evaluate import compare
from scorekeeper.tracking.noise import Noise, degrade
from scorekeeper.tracking.offline import track_stream


def evaluate_seed(seed: int, *, fps: float, deals: int, noise: Noise) -> dict[str, Any]:
    clean, truth = simulate_detections(seed, deals, fps=fps)
    frames = list(degrade(clean, noise, random.Random(seed)))
    tracker = Tracker(
        TableGeometry.from_json(truth["geometry"]),
        Rules.from_json(truth["record"]["rules"]),
        fps=fps,
    )
    started = time.perf_counter()
    tracked = track_stream(frames, tracker)
    seconds = time.perf_counter() - started
    comparison = compare(truth["record"], tracked.record)
    landed = {
        (e["deal"], e["card"]): e["frame"] for e in truth["events"] if e["type"] == "card_played"
    }
    delays = [
        tracked.emitted_at[i] - landed[(e.deal, e.card.notation)]
        for i, e in enumerate(tracked.events)
        if isinstance(e, CardPlayed) and (e.deal, e.card.notation) in landed
    ]
    flags: dict[str, int] = {}
    for e in tracked.events:
        if isinstance(e, Uncertain):
            flags[e.reason] = flags.get(e.reason, 0) + 1
    return {
        "seed": seed,
        "frames": len(frames),
        "seconds": seconds,
        "delays": delays,
        "flags": flags,
        **comparison.to_json(),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=24, help="how many deals (default 24)")
    parser.add_argument("--first", type=int, default=5000, help="first seed (default 5000)")
    parser.add_argument("--fps", type=float, default=15.0, help="frame rate (default 15)")
    parser.add_argument("--deals", type=int, default=1, help="deals per seed (default 1)")
    parser.add_argument("--clean", action="store_true", help="no noise: perfect detections")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    noise = Noise.none() if args.clean else Noise()
    rows = [
        evaluate_seed(seed, fps=args.fps, deals=args.deals, noise=noise)
        for seed in range(args.first, args.first + args.seeds)
    ]
    tricks = sum(r["tricks"] for r in rows)
    tricks_right = sum(r["tricks_right"] for r in rows)
    deals = sum(r["deals"] for r in rows)
    deals_right = sum(r["deals_right"] for r in rows)
    frames = sum(r["frames"] for r in rows)
    seconds = sum(r["seconds"] for r in rows)
    delays = [d for r in rows for d in r["delays"]]
    flags: dict[str, int] = {}
    for r in rows:
        for reason, count in r["flags"].items():
            flags[reason] = flags.get(reason, 0) + count
    summary = {
        "seeds": [args.first, args.first + args.seeds - 1],
        "fps": args.fps,
        "noise": "none" if args.clean else "drop 30%, misread 5% for 1-2 frames, ghosts, hands",
        "tricks_right_pct": round(100 * tricks_right / tricks, 2) if tricks else 0.0,
        "tricks": [tricks_right, tricks],
        "deals_all_right": [deals_right, deals],
        "plays_right": [sum(r["plays_right"] for r in rows), sum(r["plays"] for r in rows)],
        "seats_right": [sum(r["seats_right"] for r in rows), sum(r["plays"] for r in rows)],
        "tracker_fps": round(frames / seconds) if seconds else 0,
        "delay_frames": {
            "median": statistics.median(delays),
            "p95": _p95(delays),
            "max": max(delays),
        }
        if delays
        else None,
        "delay_seconds": {
            "median": round(statistics.median(delays) / args.fps, 2),
            "p95": round(_p95(delays) / args.fps, 2),
            "max": round(max(delays) / args.fps, 2),
        }
        if delays
        else None,
        "uncertain": flags,
        "wrong_seeds": [r["seed"] for r in rows if r["deals_right"] < r["deals"]],
    }
    if args.json:
        print(json.dumps(summary))
        return 0
    print(
        f"seeds {args.first}-{args.first + args.seeds - 1} at {args.fps:g} fps, noise: "
        f"{summary['noise']}"
    )
    print(
        f"tricks right: {summary['tricks_right_pct']}% ({tricks_right}/{tricks}); deals with "
        f"every card, seat and trick right: {deals_right}/{deals}"
    )
    print(
        f"plays right {summary['plays_right'][0]}/{summary['plays_right'][1]}, seats right "
        f"{summary['seats_right'][0]}/{summary['seats_right'][1]}"
    )
    print(
        f"tracker speed: {summary['tracker_fps']:,} frames/s "
        f"({summary['tracker_fps'] / args.fps:,.0f}x real time at {args.fps:g} fps)"
    )
    if delays:
        d, s = summary["delay_frames"], summary["delay_seconds"]
        print(
            f"delay from a card landing to its card_played: median {d['median']} frames "
            f"({s['median']} s), 95th percentile {d['p95']} ({s['p95']} s), max {d['max']} "
            f"({s['max']} s)"
        )
    print(f"uncertain events: {flags or 'none'}")
    if summary["wrong_seeds"]:
        print(f"seeds with a wrong deal: {summary['wrong_seeds']}")
    return 0


def _p95(values: list[int]) -> int:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


if __name__ == "__main__":
    sys.exit(main())
