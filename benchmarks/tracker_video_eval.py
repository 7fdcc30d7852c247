"""Tracker with the shipped card reader on rendered deal videos whose seeds nothing was tuned on.

For each seed a whole deal is simulated and rendered to an .mp4 (webcam effects on), every frame
is read by the card reader (ONNX), the tracker rebuilds the deal, and the record is compared with
the simulator's truth. Prints, per deal and in total, how many deals have every card, seat and
trick winner right (the tracker's target: at least 95%), plus reading speed.

    python benchmarks/tracker_video_eval.py                      # 20 deals, seeds 7200-7219
    python benchmarks/tracker_video_eval.py --seeds 4 --workers 1 --model path/to/model

Seeds below 1000 were used while tuning the tracker, 5000-5100 by tracker_eval.py, 7000-7019 to
tune the tracker against the shipped reader's reads, 7100-7119 to tune it again;
these start at 7200. A later change tuned on them should measure on 7300 on.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def evaluate_seed(
    seed: int, *, fps: float, model: str | None, camera: str, keep: Path | None = None
) -> dict[str, Any]:
    import cv2

    from scorekeeper.pipeline.session import reader_thresholds
    from scorekeeper.rules import Rules
    from scorekeeper.synth.simulate import simulate, write_clip
    from scorekeeper.tracking import TableGeometry, Tracker
    from scorekeeper.tracking.evaluate import compare
    from scorekeeper.tracking.offline import track_stream
    from scorekeeper.vision.reader import CardReader

    reader = CardReader(model, threads=1)
    with tempfile.TemporaryDirectory() as scratch:
        video = Path(scratch) / f"deal-{seed}.mp4"
        began = time.perf_counter()
        write_clip(video, simulate(seed, fps=fps, camera=camera))
        truth = json.loads(video.with_suffix(".json").read_text())
        rendered = time.perf_counter() - began
        capture = cv2.VideoCapture(str(video))
        frames, read_seconds, index = [], 0.0, 0
        while True:
            ok, image = capture.read()
            if not ok:
                break
            started = time.perf_counter()
            frames.append(reader.read(image, index))
            read_seconds += time.perf_counter() - started
            index += 1
        capture.release()
    if keep is not None:
        from scorekeeper.tracking.stream import StreamHeader, write_stream

        keep.mkdir(parents=True, exist_ok=True)
        (keep / f"deal-{seed}.json").write_text(json.dumps(truth))
        with open(keep / f"deal-{seed}.jsonl", "w") as out:
            write_stream(
                out,
                frames,
                StreamHeader(fps=fps, geometry=TableGeometry.from_json(truth["geometry"])),
            )
    tracker = Tracker(
        TableGeometry.from_json(truth["geometry"]),
        Rules.from_json(truth["record"]["rules"]),
        fps=fps,
        thresholds=reader_thresholds(reader),
    )
    tracked = track_stream(frames, tracker)
    comparison = compare(truth["record"], tracked.record)
    return {
        "seed": seed,
        "frames": len(frames),
        "render_seconds": round(rendered, 1),
        "read_ms": round(1000 * read_seconds / max(len(frames), 1), 1),
        **comparison.to_json(),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=20, help="how many deals (default 20)")
    parser.add_argument("--first", type=int, default=7200, help="first seed (default 7200)")
    parser.add_argument("--fps", type=float, default=10.0, help="frame rate (default 10)")
    parser.add_argument("--camera", default="full", help="simulated camera effects (default full)")
    parser.add_argument("--model", default=None, help="card reader model (default: the active one)")
    parser.add_argument("--workers", type=int, default=2, help="processes (default 2)")
    parser.add_argument(
        "--keep",
        type=Path,
        default=None,
        help="also write each deal's reads (a detection stream `scorekeeper track` reads) "
        "and its truth here, to re-track without reading the frames again",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    seeds = range(args.first, args.first + args.seeds)
    rows: list[dict[str, Any]] = []
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        futures = [
            pool.submit(
                evaluate_seed, s, fps=args.fps, model=args.model, camera=args.camera, keep=args.keep
            )
            for s in seeds
        ]
        for future in futures:
            row = future.result()
            rows.append(row)
            if not args.json:
                print(
                    f"seed {row['seed']}: plays {row['plays_right']}/{row['plays']}, "
                    f"seats {row['seats_right']}/{row['plays']}, "
                    f"tricks {row['tricks_right']}/{row['tricks']}, "
                    f"deal {'right' if row['deals_right'] == row['deals'] else 'WRONG'}, "
                    f"score {'right' if row['score_right'] else 'wrong'}; "
                    f"read {row['read_ms']} ms/frame",
                    flush=True,
                )
    deals_right = sum(r["deals_right"] == r["deals"] for r in rows)
    summary = {
        "deals": len(rows),
        "deals_all_right": deals_right,
        "deals_all_right_share": round(deals_right / len(rows), 3),
        "plays_right_share": round(
            sum(r["plays_right"] for r in rows) / sum(r["plays"] for r in rows), 3
        ),
        "tricks_right_share": round(
            sum(r["tricks_right"] for r in rows) / sum(r["tricks"] for r in rows), 3
        ),
        "scores_right": sum(bool(r["score_right"]) for r in rows),
        "read_ms_median": statistics.median(r["read_ms"] for r in rows),
    }
    if args.json:
        print(json.dumps({"summary": summary, "deals": rows}, indent=2))
    else:
        print(
            f"deals with every card, seat and trick winner right: {deals_right}/{len(rows)} "
            f"({100 * summary['deals_all_right_share']:.0f}%; target 95%); plays right "
            f"{100 * summary['plays_right_share']:.1f}%, "
            f"tricks right {100 * summary['tricks_right_share']:.1f}%, "
            f"scores right {summary['scores_right']}/{len(rows)}; "
            f"reading {summary['read_ms_median']} ms/frame"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
