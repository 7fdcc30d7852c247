"""Card reading and tracking on decks the shipped reader never trained on, before and after
enrolment.

The decks are SVG decks from Debian's ``kdegames-card-data-kf5`` (``/usr/share/carddecks/svg-*/``),
rendered into face packs by ``scorekeeper enrol --source deck.svgz``
(:mod:`scorekeeper.enrol.svg_deck`); the reader's training used the seven packs in
``../shared/card-faces/`` and procedural decks, none of these. For each deck, ``--deals`` held-out
deals are simulated with its faces and rendered to 10 fps videos with webcam effects; every frame is
read, and

- **per-frame card precision and recall**: in each frame, the cards the reader names against the
  cards with a corner index in view (``scorekeeper.synth.truth.detection_stream``: at least 7/9 of
  an index inside the frame and under no later card or hand, the index where that deck prints it,
  from its face pack's index boxes), summed over all frames (a card named with less of its index
  showing lies there, so it is no false card, and no hit either); and the
  recall on the **sharp** sightings alone, leaving out a card in flight that the camera smears into
  a streak (``detection_stream(..., sharp_only=True)``: 3 px of motion blur or more, ~12% of the
  sightings in a deal), which no reader can name in that frame;
- **deals exact**: the tracker's record of the deal equals the truth (every card, seat and trick).

Steps (``--step``, one or more, comma-separated), each measured the same way on the same deals:

- ``shipped``: the shipped reader (or ``--model``);
- ``enrolled``: ``scorekeeper enrol --source <the deck's pack> --name <deck>-enrolled --minutes M``
  in the benchmark's own data folder (``--work``, never the user's), then its model; a model already
  there is measured again without retraining unless ``--retrain``;
- ``learned``: ``--play-deals`` deals of play with the deck (seeds from ``PLAY_FIRST``) are read
  with the enrolled model through the play keeper beside the tracker, as ``scorekeeper run`` does,
  the table accepting each with the true record (every misread corrected on the page); then
  ``scorekeeper learn`` (``--minutes``) and its model, or the enrolled one when the learned model
  was not better on the held-out kept deals (``benchmarks/learn_from_play.py``). Needs the
  ``enrolled`` step's model.

Seeds: held-out deals from ``HELD_OUT_FIRST`` (19000), play deals from ``PLAY_FIRST`` (19500);
enrolment trains on still scenes of its own seeds and judges on those and a deal of seed 20000 +
its seed. Every other benchmark's seeds are below 10000.

On 2 shared cores a deal is ~800 frames read at ~0.1-0.2 s each, so the default is 4 deals per deck
(~3,000 frames for the per-frame figures, 4 deals for "deals exact": a coarse figure).

    python benchmarks/enrol_unseen_decks.py    # shipped, the 3 decks, 4 deals each
    python benchmarks/enrol_unseen_decks.py --step enrolled --minutes 15
    python benchmarks/enrol_unseen_decks.py --decks standard --deals 2 --model path/to/model
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

if TYPE_CHECKING:
    from scorekeeper.vision.detections import FrameDetections

CARDDECKS = Path("/usr/share/carddecks")
DECKS = ("tigullio-international", "nicu-ornamental", "standard")
"""French-suited decks with two printed corner indices (rank over pip), in three styles: an
Italian maker's French pattern (small indices, grey gradient face), bold sans-serif indices on
cream, and KDE's classic serif deck. Four-index decks (dondorf) are left out: the truth knows two
indices per card, so reads of the other two would count as false."""
HELD_OUT_FIRST = 19000
PLAY_FIRST = 19500
PLAY_DEALS = 10
STEPS = ("shipped", "enrolled", "learned")
SCORED_AS = "deck index boxes; named partly shown apart"
"""The truth takes each deck's indices where its face pack prints them, and a card named with
part of an index showing is neither a hit nor a false card."""


@dataclass
class DealFigures:
    seed: int
    frames: int
    true_positives: int
    false_positives: int
    false_negatives: int
    deal_exact: bool
    plays_right: int
    plays: int
    read_ms: float
    tracked_plays: int = -1
    """Plays in the tracker's record (fewer than 40: plays it never saw; -1: not recorded)."""
    missed: dict[str, int] = field(default_factory=dict)
    """Per card, the frames it was in view and not named."""
    misread: dict[str, int] = field(default_factory=dict)
    """Per card, the frames it was named and not in view (mostly another card read as it)."""
    sharp_true_positives: int | None = None
    """Of the sightings not smeared by motion, those named (None: measured before this count)."""
    sharp_false_negatives: int | None = None
    partly_shown: int = 0
    """Cards named where part of an index of theirs shows, too little to count it in view."""
    scored_as: str = ""
    """How the reads were scored (:data:`SCORED_AS`); figures kept from another scoring are
    measured again."""
    model_digest: str = ""
    """The model that read the deal (:func:`model_digest`); figures kept from another model under
    the same folder name are measured again."""


@dataclass
class StepRow:
    deck: str
    step: str
    model: str
    frames: int
    precision: float
    recall: float
    sharp_recall: float
    """Recall on the sightings the camera does not smear (cards lying or sliding slowly)."""
    deals_exact: int
    deals: int
    plays_right: int
    plays: int
    training_minutes: float | None
    note: str = ""
    most_missed: str = ""


def deck_source(carddecks: Path, deck: str) -> Path:
    folder = carddecks / f"svg-{deck}"
    found = sorted(folder.glob("*.svgz")) + sorted(folder.glob("*.svg"))
    if not found:
        raise SystemExit(
            f"no SVG deck in {folder}: install kdegames-card-data-kf5 or pass --carddecks"
        )
    return found[0]


def face_pack(carddecks: Path, deck: str) -> Path:
    """The deck's face pack in the benchmark's data folder, rendered from its SVG the first time."""
    from scorekeeper.enrol.pack import decks_dir, is_face_pack
    from scorekeeper.enrol.svg_deck import import_svg_deck

    folder = decks_dir() / deck
    if is_face_pack(folder):
        return folder
    began = time.perf_counter()
    folder = import_svg_deck(deck_source(carddecks, deck), deck, replace=True)
    print(
        f"{deck}: face pack rendered in {time.perf_counter() - began:.0f} s: {folder}", flush=True
    )
    return folder


def track_deal(
    seed: int, frames: Iterable[FrameDetections], *, fps: float, camera: str, thresholds: Any
) -> dict[str, Any]:
    """The tracker's record of a deal's reads against the truth: the :class:`DealFigures` fields
    that the tracker decides."""
    from scorekeeper.rules import Rules, replay_record
    from scorekeeper.synth.simulate import simulate
    from scorekeeper.tracking import TableGeometry, Tracker
    from scorekeeper.tracking.evaluate import compare
    from scorekeeper.tracking.offline import track_stream

    truth = simulate(seed, fps=fps, camera=camera).truth
    tracker = Tracker(
        TableGeometry.from_json(truth["geometry"]),
        Rules.from_json(truth["record"]["rules"]),
        fps=fps,
        thresholds=thresholds,
    )
    tracked = track_stream(frames, tracker).record
    comparison = compare(truth["record"], tracked)
    return {
        "deal_exact": comparison.deals_right == comparison.deals,
        "plays_right": comparison.plays_right,
        "plays": comparison.plays,
        "tracked_plays": sum(
            len(trick["cards"])
            for deal in replay_record(tracked)["deals"]
            for trick in (*deal["tricks"], deal["table"])
        ),
    }


def evaluate_deal(
    seed: int, *, pack: Path, model: str | None, fps: float, camera: str, reads: Path
) -> DealFigures:
    """Render one deal with ``pack``'s faces, read every frame (the reads kept in ``reads``),
    compare per frame and as a deal."""
    import cv2

    from scorekeeper.pipeline.session import reader_thresholds
    from scorekeeper.synth.faces import FacePack
    from scorekeeper.synth.simulate import simulate, write_clip
    from scorekeeper.synth.truth import face_regions, score_reads
    from scorekeeper.tracking.stream import write_stream
    from scorekeeper.vision.reader import CardReader

    reader = CardReader(model, threads=1)
    simulation = simulate(seed, fps=fps, camera=camera)
    frames: list[FrameDetections] = []
    read_seconds = 0.0
    with tempfile.TemporaryDirectory(prefix="enrol-unseen-") as scratch:
        video = Path(scratch) / f"deal-{seed}.mp4"
        write_clip(video, simulation, faces=pack)
        capture = cv2.VideoCapture(str(video))
        while True:
            ok, image = capture.read()
            if not ok:
                break
            started = time.perf_counter()
            frames.append(reader.read(image, len(frames)))
            read_seconds += time.perf_counter() - started
        capture.release()
    with reads.open("w", encoding="utf-8") as out:
        write_stream(out, frames)
    score = score_reads(frames, simulation.timeline, face_regions(FacePack.load(pack)))
    return DealFigures(
        seed=seed,
        frames=len(frames),
        true_positives=score.named_right,
        false_positives=score.named_wrong,
        false_negatives=score.missed,
        **track_deal(seed, frames, fps=fps, camera=camera, thresholds=reader_thresholds(reader)),
        read_ms=round(1000 * read_seconds / max(len(frames), 1), 1),
        missed=dict(score.missed_cards),
        misread=dict(score.misread_cards),
        sharp_true_positives=score.sharp_named,
        sharp_false_negatives=score.sharp_missed,
        partly_shown=score.named_partly_shown,
        scored_as=SCORED_AS,
    )


def model_digest(model: str | None) -> str:
    """A hash of what reads: the model folder's ``reader.json`` and every network in it. A model
    learned again in a reused ``--work`` keeps its folder name, and its deals must be read anew."""
    import hashlib

    from scorekeeper.vision.registry import find_model

    folder = find_model(model)
    digest = hashlib.sha256()
    for path in [folder / "reader.json", *sorted(folder.glob("*.onnx"))]:
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def results_dir(deck: str, step: str) -> Path:
    """Each measured deal's figures and reads, kept so an interrupted run goes on where it stopped
    (the tracker's figures are measured again from the reads on every run)."""
    from scorekeeper.paths import user_data_dir

    return user_data_dir() / "results" / f"{deck}-{step}"


def measure(
    deck: str,
    step: str,
    *,
    pack: Path,
    model: str | None,
    seeds: range,
    fps: float,
    camera: str,
    workers: int,
    minutes: float | None,
    note: str = "",
) -> StepRow:
    from scorekeeper.pipeline.session import reader_thresholds
    from scorekeeper.vision.reader import CardReader

    kept = results_dir(deck, step)
    kept.mkdir(parents=True, exist_ok=True)

    def kept_file(seed: int) -> Path:
        return kept / f"{model and Path(model).name or 'shipped'}-{seed}-{fps:g}fps-{camera}.json"

    def reads_file(seed: int) -> Path:
        return kept_file(seed).with_suffix(".jsonl")

    reading_with = model_digest(model)

    def measured(seed: int) -> bool:
        if not (kept_file(seed).is_file() and reads_file(seed).is_file()):
            return False
        kept_deal = json.loads(kept_file(seed).read_text())
        return (kept_deal.get("scored_as"), kept_deal.get("model_digest")) == (
            SCORED_AS,
            reading_with,
        )

    todo = [s for s in seeds if not measured(s)]
    jobs = [(s, pack, model, fps, camera, reads_file(s)) for s in todo]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for deal in pool.map(_evaluate, jobs):
            deal.model_digest = reading_with
            kept_file(deal.seed).write_text(json.dumps(asdict(deal)) + "\n")
    thresholds = reader_thresholds(CardReader(model))
    # Deals read just now were tracked as they were read; the others are tracked again.
    deals = [
        DealFigures(**json.loads(kept_file(s).read_text()))
        if s in todo
        else retracked(
            DealFigures(**json.loads(kept_file(s).read_text())),
            reads_file(s),
            fps=fps,
            camera=camera,
            thresholds=thresholds,
        )
        for s in seeds
    ]
    for deal in deals:
        print(
            f"  {deck} {step} seed {deal.seed}: {deal.frames} frames, TP {deal.true_positives} "
            f"FP {deal.false_positives} FN {deal.false_negatives}, "
            f"plays {deal.plays_right}/{deal.plays} "
            f"({deal.tracked_plays} tracked), "
            f"deal {'exact' if deal.deal_exact else 'WRONG'}, read {deal.read_ms} ms/frame",
            flush=True,
        )
    missed = sum((Counter(d.missed) for d in deals), Counter())
    tp = sum(d.true_positives for d in deals)
    fp = sum(d.false_positives for d in deals)
    partly = sum(d.partly_shown for d in deals)
    fn = sum(d.false_negatives for d in deals)
    from scorekeeper.synth.truth import ReadScore

    read = ReadScore(
        named_right=tp,
        named_partly_shown=partly,
        named_wrong=fp,
        missed=fn,
        sharp_named=sum(d.sharp_true_positives or 0 for d in deals),
        sharp_missed=sum(d.sharp_false_negatives or 0 for d in deals),
    )
    return StepRow(
        deck=deck,
        step=step,
        model=model or "shipped",
        frames=sum(d.frames for d in deals),
        precision=round(read.precision, 3),
        recall=round(read.recall, 3),
        sharp_recall=round(read.sharp_recall, 3),
        deals_exact=sum(d.deal_exact for d in deals),
        deals=len(deals),
        plays_right=sum(d.plays_right for d in deals),
        plays=sum(d.plays for d in deals),
        training_minutes=minutes,
        note=note,
        most_missed=" ".join(f"{card} {count}" for card, count in missed.most_common(6)),
    )


def _evaluate(job: tuple[int, Path, str | None, float, str, Path]) -> DealFigures:
    seed, pack, model, fps, camera, reads = job
    return evaluate_deal(seed, pack=pack, model=model, fps=fps, camera=camera, reads=reads)


def retracked(
    deal: DealFigures, reads: Path, *, fps: float, camera: str, thresholds: Any
) -> DealFigures:
    """``deal`` with its tracker figures measured again from its kept reads: reading a deal takes
    a minute, tracking it a second, and kept figures must follow the tracker as it is now."""
    from scorekeeper.tracking.stream import read_stream

    _, frames = read_stream(reads)
    figures = track_deal(deal.seed, frames, fps=fps, camera=camera, thresholds=thresholds)
    return replace(deal, **figures)


def enrolled_model(
    deck: str, pack: Path, *, minutes: float, retrain: bool
) -> tuple[str, float, str]:
    """Enrol ``pack`` as ``<deck>-enrolled`` (unless done already): model folder, minutes, note."""
    from scorekeeper.paths import decks_dir, user_models_dir

    name = f"{deck}-enrolled"
    folder = user_models_dir() / name
    record = folder / "enrol.json"
    if retrain or not record.is_file():
        for stale in (folder, decks_dir() / name, results_dir(deck, "enrolled")):
            if stale.exists():
                import shutil

                shutil.rmtree(stale)
        command = [
            sys.executable,
            "-m",
            "scorekeeper",
            "enrol",
            "--source",
            str(pack),
            "--name",
            name,
            "--minutes",
            f"{minutes:g}",
            "--accept-guesses",
            "--json",
        ]
        print(f"{deck}: enrolling ({minutes:g} min budget): {' '.join(command[2:])}", flush=True)
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise SystemExit(f"{deck}: enrol failed: {done.stderr.strip().splitlines()[-1:]}")
    enrol = json.loads(record.read_text())
    spent = enrol.get("minutes", {})
    taken = float(spent.get("total", 0.0) if isinstance(spent, dict) else spent)
    note = (
        "made active"
        if enrol.get("better")
        else f"not better on enrol's {enrol.get('judged_on', 'held-back scenes')}"
    )
    return str(folder), taken, note


def print_table(rows: list[StepRow]) -> None:
    print(
        f"{'deck':24} {'step':9} {'frames':>6} {'card P':>7} {'card R':>7} {'R sharp':>7} "
        f"{'deals exact':>11} "
        f"{'plays right':>11} {'training min':>12}  note"
    )
    for row in rows:
        trained = "-" if row.training_minutes is None else f"{row.training_minutes:.1f}"
        print(
            f"{row.deck:24} {row.step:9} {row.frames:6d} {row.precision:7.3f} {row.recall:7.3f} "
            f"{row.sharp_recall:7.3f} {f'{row.deals_exact}/{row.deals}':>11} "
            f"{f'{row.plays_right}/{row.plays}':>11} "
            f"{trained:>12}  {row.note}"
        )
    for row in rows:
        if row.most_missed:
            print(f"  {row.deck} {row.step}: frames in view and not named, most: {row.most_missed}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--decks",
        default=",".join(DECKS),
        help=f"kdegames deck folders without svg- (default {','.join(DECKS)})",
    )
    parser.add_argument(
        "--step",
        default="shipped",
        help=f"steps to measure, comma-separated, of {', '.join(STEPS)} (default shipped)",
    )
    parser.add_argument("--deals", type=int, default=4, help="held-out deals per deck (default 4)")
    parser.add_argument(
        "--first",
        type=int,
        default=HELD_OUT_FIRST,
        help=f"first held-out seed (default {HELD_OUT_FIRST})",
    )
    parser.add_argument("--fps", type=float, default=10.0, help="frame rate (default 10)")
    parser.add_argument("--camera", default="full", help="simulated camera effects (default full)")
    parser.add_argument(
        "--model", default=None, help="model for the shipped step (default: the shipped one)"
    )
    parser.add_argument("--minutes", type=float, default=15.0, help="enrolment budget (default 15)")
    parser.add_argument(
        "--retrain", action="store_true", help="enrol again even if a model is there"
    )
    parser.add_argument(
        "--work",
        type=Path,
        default=Path(tempfile.gettempdir()) / "scorekeeper-enrol-unseen",
        help="the benchmark's data folder: packs, enrolled models (never the user's)",
    )
    parser.add_argument("--carddecks", type=Path, default=CARDDECKS, help=f"default {CARDDECKS}")
    parser.add_argument("--workers", type=int, default=2, help="processes (default 2)")
    parser.add_argument(
        "--play-deals",
        type=int,
        default=PLAY_DEALS,
        help=f"deals of play kept for the learned step (default {PLAY_DEALS})",
    )
    parser.add_argument("--json", action="store_true", help="also print the rows as JSON")
    args = parser.parse_args(argv)

    steps = [s.strip() for s in args.step.split(",") if s.strip()]
    unknown = [s for s in steps if s not in STEPS]
    if unknown or args.first + args.deals > PLAY_FIRST:
        parser.error(
            f"--step takes {', '.join(STEPS)}; held-out seeds must stay below {PLAY_FIRST}"
        )
    # Enrolment writes decks, models and the active-model choice: all into the benchmark's folder.
    os.environ["SCOREKEEPER_HOME"] = str(args.work.resolve())
    from scorekeeper.paths import shipped_models_dir
    from scorekeeper.vision.registry import DEFAULT_MODEL

    seeds = range(args.first, args.first + args.deals)
    rows: list[StepRow] = []
    began = time.perf_counter()
    for deck in [d.strip() for d in args.decks.split(",") if d.strip()]:
        pack = face_pack(args.carddecks, deck)
        for step in steps:
            common: dict[str, Any] = {
                "pack": pack,
                "seeds": seeds,
                "fps": args.fps,
                "camera": args.camera,
                "workers": args.workers,
            }
            if step == "shipped":
                # Named, not left to the active model: an enrolment in --work makes its model
                # the active one there.
                shipped = args.model or str(shipped_models_dir() / DEFAULT_MODEL)
                rows.append(measure(deck, step, model=shipped, minutes=None, **common))
            elif step == "enrolled":
                model, minutes, note = enrolled_model(
                    deck, pack, minutes=args.minutes, retrain=args.retrain
                )
                rows.append(measure(deck, step, model=model, minutes=minutes, note=note, **common))
            else:
                from benchmarks.learn_from_play import learned_model

                base, _minutes, _note = enrolled_model(
                    deck, pack, minutes=args.minutes, retrain=False
                )
                model, minutes, note = learned_model(
                    base,
                    pack=pack,
                    seeds=range(PLAY_FIRST, PLAY_FIRST + args.play_deals),
                    fps=args.fps,
                    camera=args.camera,
                    minutes=args.minutes,
                )
                rows.append(measure(deck, step, model=model, minutes=minutes, note=note, **common))
            print_table(rows[-1:] if rows else [])
    print(
        f"\nseeds {seeds.start}-{seeds.stop - 1}, {args.fps:g} fps, camera {args.camera}; "
        f"{(time.perf_counter() - began) / 60:.1f} min in all"
    )
    print_table(rows)
    if args.json:
        print(json.dumps([asdict(row) for row in rows], indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
