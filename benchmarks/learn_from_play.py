"""Learning from play on a deck: simulated deals kept the way ``scorekeeper run`` keeps them, then
``scorekeeper learn``.

For each seed a deal is simulated with the deck's faces, rendered to a video and read frame by
frame through the play keeper (:class:`scorekeeper.learning.recording.PlayKeeper`) beside the
tracker, exactly as ``scorekeeper run`` does. The table then "accepts the deal with its
corrections": the record the keeper names the crops by is the simulation's true record, as if every
misread play had been corrected on the page. Then ``scorekeeper learn`` fine-tunes ``--model`` on
the kept deals (in this benchmark's own data folder, never the user's) and says whether the new
model is better on the held-out kept deals.

Per deal it prints the tiles and boxes kept and, against the simulation's own index boxes, how many
kept boxes are named right, named wrong, or lie on no true index (a measure of the labelling).

    python benchmarks/learn_from_play.py --pack DECKS/egy --model egy --seeds 19500-19502 \
        --minutes 5
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


class TruthStore:
    """The store as the keeper reads it, holding the true deal: the table corrected every play."""

    def __init__(self, record: dict[str, Any]) -> None:
        self.record = record

    def folded(self, _table: str) -> Any:
        match = SimpleNamespace(record=self.record, doubts={})
        return SimpleNamespace(matches=[match], record=self.record)


def _truth_keeper() -> type:
    from scorekeeper.learning.recording import PlayKeeper

    class TruthKeeper(PlayKeeper):
        """The keeper with the one-deal truth store: the deal is always the store's first."""

        def _where_in_store(self, started: Any) -> tuple[int, int]:
            return 1, 1

    return TruthKeeper


def keep_deal_of_play(
    seed: int, *, pack: Path, model: str | None, deck: str, fps: float, camera: str
) -> dict[str, Any]:
    """Simulate, render and read one deal through the keeper; the labelling's figures."""
    import cv2

    from scorekeeper.learning.keep import kept_deals
    from scorekeeper.rules import Rules
    from scorekeeper.synth.faces import FacePack
    from scorekeeper.synth.simulate import simulate, write_clip
    from scorekeeper.synth.truth import face_regions, index_boxes
    from scorekeeper.tracking import TableGeometry, Tracker
    from scorekeeper.vision.reader import CardReader

    keeper_type = _truth_keeper()
    simulation = simulate(seed, fps=fps, camera=camera)
    truth = simulation.truth
    geometry = TableGeometry.from_json(truth["geometry"])
    tracker = Tracker(geometry, Rules.from_json(truth["record"]["rules"]), fps=fps)
    keeper = keeper_type(deck=deck, table_id=f"play{seed}", log=lambda line: None)
    reader = keeper.watch(
        CardReader(model, threads=1), store=TruthStore(truth["record"]), geometry=geometry, fps=fps
    )
    before = {d.folder for d in kept_deals(deck)}
    with tempfile.TemporaryDirectory(prefix="learn-play-") as scratch:
        video = Path(scratch) / f"deal-{seed}.mp4"
        write_clip(video, simulation, faces=pack)
        capture = cv2.VideoCapture(str(video))
        index = 0
        while True:
            ok, image = capture.read()
            if not ok:
                break
            for event in tracker.update(reader.read(image, index)):
                keeper.on_event(event)
            index += 1
        capture.release()
    for event in tracker.finish():
        keeper.on_event(event)
    keeper.close()
    new = [d for d in kept_deals(deck) if d.folder not in before]
    figures: dict[str, Any] = {"seed": seed, "frames": index, "kept": len(new)}
    if new:
        truth_boxes = index_boxes(simulation.timeline, face_regions(FacePack.load(pack)))
        figures.update(label_quality(new[0], truth_boxes))
    return figures


def label_quality(deal: Any, truth: list[list[Any]]) -> dict[str, int]:
    """Kept boxes named right / wrong / on no true index, against the simulation's index boxes."""
    import cv2

    from scorekeeper.rules.cards import DECK
    from scorekeeper.vision.boxes import iou

    right = wrong = stray = boxes = 0
    for stem, where in deal.tiles.items():
        frame = int(stem)
        ox, oy = where["origin"]
        tile = cv2.imread(str(deal.folder / "tiles" / f"{stem}.jpg"))
        assert tile is not None, f"cannot read the tile {stem}"
        height, width = tile.shape[:2]
        for row in (deal.folder / "tiles" / f"{stem}.txt").read_text().splitlines():
            if not row.strip():
                continue
            cls, cx, cy, bw, bh = row.split()
            x, y = float(cx) * width + ox, float(cy) * height + oy
            w, h = float(bw) * width, float(bh) * height
            box = (x - w / 2, y - h / 2, x + w / 2, y + h / 2)
            boxes += 1
            best = max(truth[frame], key=lambda t: iou(t[1], box), default=None)
            if best is None or iou(best[1], box) < 0.3:
                stray += 1
            elif best[0] == DECK[int(cls)]:
                right += 1
            else:
                wrong += 1
    return {
        "tiles": len(deal.tiles),
        "boxes": boxes,
        "named_right": right,
        "named_wrong": wrong,
        "on_no_true_index": stray,
    }


def learned_model(
    base: str,
    *,
    pack: Path,
    seeds: range,
    fps: float,
    camera: str,
    minutes: float,
    detector: str = "auto",
    log: Any = print,
) -> tuple[str, float, str]:
    """Keep the play deals of ``seeds`` read with ``base`` (those not kept yet), learn from them;
    the model to measure (the learned one, or ``base`` when it was not better), minutes, a note."""
    from scorekeeper.learning.keep import kept_deals
    from scorekeeper.learning.learn import LearnPlan, learn
    from scorekeeper.training.adapt import deck_name

    deck = deck_name(Path(base))
    done = {d.record.get("table") for d in kept_deals(deck)}
    for seed in seeds:
        if f"play{seed}" in done:
            continue
        log(
            json.dumps(
                keep_deal_of_play(seed, pack=pack, model=base, deck=deck, fps=fps, camera=camera)
            )
        )
    result = learn(
        LearnPlan(base=Path(base), minutes=minutes, detector=detector), log=lambda line: None
    )
    log(result.line())
    model = str(result.model) if result.model is not None and result.better else base
    note = f"learned from {len(kept_deals(deck))} kept deals; " + (
        "made active" if result.better else "not better on the held-out kept deals: base kept"
    )
    return model, float(result.minutes.get("total", 0.0)), note


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pack", type=Path, required=True, help="the deck's face pack folder")
    parser.add_argument(
        "--model", default=None, help="model to play and to learn from (default: active)"
    )
    parser.add_argument(
        "--seeds", default="19500-19509", help="play deals' seeds, A-B (default 19500-19509)"
    )
    parser.add_argument("--fps", type=float, default=10.0)
    parser.add_argument("--camera", default="full")
    parser.add_argument("--minutes", type=float, default=10.0, help="learning budget (default 10)")
    parser.add_argument("--detector", default="auto", choices=["auto", "on", "off"])
    parser.add_argument("--no-learn", action="store_true", help="only keep the deals")
    parser.add_argument(
        "--work",
        type=Path,
        default=Path(tempfile.gettempdir()) / "scorekeeper-learn-play",
        help="the benchmark's data folder (SCOREKEEPER_HOME for it)",
    )
    args = parser.parse_args(argv)
    os.environ.setdefault("SCOREKEEPER_HOME", str(args.work.resolve()))

    from scorekeeper.training.adapt import deck_name
    from scorekeeper.vision.registry import find_model

    first, _, last = args.seeds.partition("-")
    seeds = range(int(first), int(last or first) + 1)
    model = str(find_model(args.model))
    deck = deck_name(Path(model))
    began = time.perf_counter()
    for seed in seeds:
        figures = keep_deal_of_play(
            seed, pack=args.pack, model=model, deck=deck, fps=args.fps, camera=args.camera
        )
        print(json.dumps(figures), flush=True)
    print(f"kept in {(time.perf_counter() - began) / 60:.1f} min", flush=True)
    if args.no_learn:
        return 0
    from scorekeeper.learning.learn import LearnPlan, learn

    result = learn(
        LearnPlan(base=Path(model), minutes=args.minutes, detector=args.detector),
        log=lambda line: print(line, flush=True),
    )
    print(result.line())
    print(
        json.dumps(
            {
                "model": str(result.model) if result.model else None,
                "before": result.before,
                "after": result.after,
                "chosen": result.chosen,
                "minutes": result.minutes,
            },
            indent=2,
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
