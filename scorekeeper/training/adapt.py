"""Adapt the card reader to one table: a short fine-tune of both stages, then a fair comparison.

One code path for two kinds of teaching material (:class:`TeachingSet`):

- ``scorekeeper enrol``: scenes rendered from the deck's 40 faces, and to judge on, held-back scenes
  of the deck alone (another seed) with the frames of a deal of it rendered as the camera sees a
  game (:func:`adapt`, :func:`build_scenes`);
- ``scorekeeper learn``: the table's own accepted deals, and held-out deals of that table
  (:mod:`scorekeeper.learning.learn`).

:func:`run_adaptation` then, within ``minutes`` of training measured in the run itself:

1. decides whether the detector (stage 1) needs teaching: it does when the base model's detector
   finds fewer than :data:`DETECTOR_PAYS_BELOW` of the labelled indices on the calibration half of
   the judged images (a deck in an unusual style); otherwise the whole budget goes to the
   classifier;
2. fine-tunes the classifier from the base model's checkpoint (and the detector, from its
   ``checkpoints/index-detector.pt``, sharing the budget), the step rate measured inside the run;
3. stages candidates (the base model with thresholds fitted to the table; the new classifier; the
   new classifier with the new detector), each with its temperature and thresholds chosen on the
   calibration half (:func:`scorekeeper.training.thresholds.choose_on`, recall at precision
   :data:`MIN_PRECISION`; learning from play holds it at the lower end of its
   :data:`PLAY_CHOICE_CONFIDENCE` interval);
4. measures the base model as installed and every candidate on the judging half (the other images,
   the same for all), keeps the best candidate, and makes it the default only if its card F1 beats
   the base model's by more than noise (:func:`is_better`). The base model is never changed;
5. chooses the kept model's photo threshold on rendered phone photos of the deck's fanned hands,
   where there are some (:func:`scorekeeper.training.thresholds.choose_photo_card_prob`,
   :data:`PHOTO_CHOICE_CONFIDENCE`).

Work goes to ``<user data>/work/<name>``; the model is installed under
:func:`scorekeeper.paths.user_models_dir` with ``enrol.json`` (what it learned from, all figures,
minutes taken).
"""

from __future__ import annotations

import contextlib
import json
import math
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scorekeeper.paths import user_data_dir, user_models_dir
from scorekeeper.training import TrainingSetupError
from scorekeeper.training.precision import check_precision

Progress = Callable[[str, float, float | None], None]
"""``progress(stage, fraction_done, seconds_left_or_None)``."""
Log = Callable[[str], None]

DETECTOR_PAYS_BELOW = 0.97
"""Index recall of the base detector (at its threshold) below which it is fine-tuned too."""
DETECTOR_SHARE = 0.5
"""Share of the budget the detector gets when fine-tuned (ultralytics fits its epochs to it), up
to :data:`DETECTOR_MINUTES`."""
DETECTOR_MINUTES = 7.5
"""Most minutes the detector's fine-tune gets: the rest of a longer budget goes to the classifier.
Once a photo's unsure indices are boxed a second time, what a longer enrolment still has to buy is
naming, not finding: photo_deck_mit's classifier fine-tuned for 40 minutes instead of 7.6 (the
same 7.6-minute detector) read 60 rendered phone photos of its fanned hands at 0.931 recall
instead of 0.910, at the same precision (0.981)."""
MIN_PRECISION = 0.97
"""Thresholds for one table buy recall only while card precision on its images stays this high."""
PLAY_CHOICE_CONFIDENCE = 0.95
"""Learning from play holds the precision floor at the lower end of this interval on the
calibration half (:attr:`AdaptJob.choice_confidence`): two held-out deals of play give ~300 cards
a half, and the pair with the most recall among a hundred is the one whose precision there was
luckiest. With the floor alone, nicu-ornamental's learned classifier took a pair read at 0.985 on
the calibration half and 0.956 on the other (refused); standard's learned model one read at 0.978
and 0.977 (taken), which lost one of the unseen-deck benchmark's two deals to its false cards.
Held to this interval they took pairs read at 0.996 / 0.977 and 1.000 / 0.993, and standard's
lost no deal. Enrolment does not: its held-back scenes read lower precision than a game of the
deck does, so the plain floor is already strict there; with the interval nicu-ornamental's
enrolled model took detector threshold 0.25 for 0.05 and named 0.839 of the benchmark deals'
sharp sightings for 0.931, at precision 0.998 for 0.995, every play right either way."""
PHOTO_CHOICE_CONFIDENCE = 0.95
"""The photo threshold (:func:`scorekeeper.training.thresholds.choose_photo_card_prob`) buys
recall only where the lower end of this interval of card precision on the deck's rendered phone
photos reaches :data:`MIN_PRECISION`. A photo is read once, with no later frame to outvote a false
card as a game's frames do, and the probability with the most recall among several is the one
whose precision on these photos was luckiest. Two 15-minute enrolments of photo_deck_mit read 100
photos at 0.979 and 0.983 at 0.75 (0.970 and 0.975 at the lower end) and took it, and at 0.974 and
0.976 at 0.7 (0.965 and 0.967), which they did not. On 40 photos the interval is wider: one step
under their live ``card_prob`` on the 0.1 grid, neither would have gone lower (0.979 and 0.978;
0.965 and 0.964)."""
PHOTO_SCENE = {"fan_probability": 1.0, "fans": [2, 4], "index_px": [24, 64]}
"""Phone photos of the deck: two to four hands fanned on a table 60-80 cm across, photographed
from above at 2560 px, where a card's index is 24-64 px tall."""
PHOTO_BUILD = ("--imgsz", "2560", "--render-scale", "1.0", "--camera", "phone")
"""``dataset build`` options that render a scene as a phone's still photo (no webcam blur)."""
PHOTO_SEED = 2000
"""Added to the plan's seed for the photos: clear of its scenes (+0) and held-back ones (+1000)."""
DETECTOR_MODES = ("auto", "on", "off")
ADAPTED_TRACKER = {"min_confidence": 0.15, "play_confidence": 0.25}
"""Tracker thresholds every adapted model sets for its own reads (``reader.json``'s ``tracker``).
Its confidences are fitted on the deck, so a faint read is a doubtful one: typically a
half-covered corner misread frame after frame at its own card's spot, which the tracker would
otherwise play as the next card and so shift every seat of the vaza. These are the values tuned on
the tracker's own deals (seeds 7000-7019); with the enrolled and learned models of three unseen
decks the tracker rebuilds all 24 of their held-out deals (4 a deck and model). The shipped model
sets none: with its reads they repair one deal and lose another in each of two fresh sets of 20."""


@dataclass
class TeachingSet:
    """What one adaptation learns from and is judged on."""

    train: list[Path]
    """YOLO detection sets (``images/train``, ``labels/train``, ``images/val``; 40 card classes)."""
    judged: list[Any]
    """Labelled images (:class:`scorekeeper.vision.evaluate.LabelledImage`) no training saw; split
    in two halves: thresholds are chosen on one and the models compared on the other."""
    judged_on: str
    """What the judged images are, for people: "held-back scenes of the deck", "held-out deals"."""
    crop_sets: list[Path] = field(default_factory=list)
    """Folder crop sets (``train/<class>/``), for ``not_a_card`` examples."""
    face_crops: tuple[Any, Any] | None = None
    """Context crops cut from the deck's faces (:mod:`scorekeeper.training.face_crops`)."""
    photos: list[Any] = field(default_factory=list)
    """Labelled phone photos of the deck's fanned hands that no training saw: the kept model's
    photo threshold is chosen on them (none: photos are read at its ``card_prob``)."""
    detector_framed: bool = False
    """Also teach the classifier crops framed where the base model's detector boxes the training
    scenes' indices (:mod:`scorekeeper.training.framed_crops`). Enrolment does; learning from play
    does not (its tiles were not measured so)."""


@dataclass
class AdaptJob:
    name: str
    """The model to install (its folder under the user's models)."""
    base: Path
    work: Path
    minutes: float = 15.0
    """Training budget, both stages together; start-up, scenes and comparison come on top."""
    detector: str = "auto"
    """``auto`` (fine-tune it where it pays, see :data:`DETECTOR_PAYS_BELOW`), ``on`` or ``off``."""
    learned_from: dict[str, Any] = field(default_factory=dict)
    """Recorded in ``enrol.json``: ``{"deck": name, "deals": N}``, added to the base model's."""
    install_when_worse: bool = True
    """Install a candidate that is not better (not as the default): enrolment under a new name does,
    so the table can try it; learning does not, a worse model is left out."""
    seed: int = 7
    threads: int = 2
    precision: str = "fp32"
    """What the training steps compute in (:mod:`scorekeeper.training.precision`)."""
    extra_record: dict[str, Any] = field(default_factory=dict)
    choice_confidence: float | None = None
    """Thresholds are chosen where the lower end of this interval of card precision reaches
    :data:`MIN_PRECISION` (None: where the precision itself does); see
    :data:`PLAY_CHOICE_CONFIDENCE`."""

    @property
    def model_folder(self) -> Path:
        return user_models_dir() / self.name


@dataclass
class AdaptPlan:
    """An enrolment: the deck's face pack and how many scenes to render of it."""

    deck: Path
    """A face pack: 40 images named ``Ah.png`` ... ``2c.png``."""
    name: str
    base: Path
    """The model folder to start from (the active or shipped one)."""
    scenes: int = 400
    heldback: int = 100
    heldback_deals: int = 1
    """Deals of the deck simulated and rendered as the camera sees a game (every
    ``heldback_deal_every``-th frame, seeds from :data:`HELDBACK_DEAL_FIRST` + ``seed``), whose
    frames join the held-back scenes."""
    heldback_deal_every: int = 6
    photos: int = 100
    """Phone photos of the deck's fanned hands rendered to choose the photo threshold on
    (:data:`PHOTO_SCENE`; 0: none, photos are read at the live ``card_prob``)."""
    minutes: float = 15.0
    face_crops_per_index: int = 40
    seed: int = 7
    workers: int = 1
    threads: int = 2
    detector: str = "auto"
    precision: str = "fp32"
    extra_faces: list[Path] = field(default_factory=list)
    """Other face packs to mix in (the usual mix; procedural decks are always in)."""

    @property
    def work(self) -> Path:
        return user_data_dir() / "work" / self.name

    @property
    def model_folder(self) -> Path:
        return user_models_dir() / self.name


@dataclass
class AdaptResult:
    model: Path | None
    """The installed model (None: the candidate was worse and not installed)."""
    before: dict[str, Any]
    after: dict[str, Any]
    better: bool
    minutes: dict[str, float]
    judged_on: str = "held-back scenes of the deck"
    chosen: str = ""
    """Which candidate was kept: ``thresholds``, ``classifier`` or ``classifier+detector``."""

    def line(self) -> str:
        b, a = self.before, self.after
        if self.better:
            verdict = "now the default model"
        elif self.model is None:
            verdict = "not better: not installed, the default is unchanged"
        else:
            verdict = "kept the previous model as default"
        name = self.model.name if self.model is not None else "the new model"
        return (
            f"{name}: card precision/recall on {self.judged_on} "
            f"{b['card_precision']:.2f}/{b['card_recall']:.2f} -> {a['card_precision']:.2f}/"
            f"{a['card_recall']:.2f} ({self.chosen}, {self.minutes.get('train', 0):.1f} min "
            f"training); {verdict}"
        )


PRECISION_GIVEN_UP = 0.02
"""Card precision an adapted model may lose against the one it replaces (unless it still reads at
:data:`MIN_PRECISION`): a false card costs the tracker more than a missed one, which the next
frames usually find, so recall bought with false cards is not an improvement."""
PRECISION_FLOOR = 0.95
"""Where the judged images are too few to tell a loss of :data:`PRECISION_GIVEN_UP` from chance,
the allowance widens to the sampling noise, but never below this precision."""


def precision_noise(before: dict[str, float], after: dict[str, float]) -> float:
    """Two standard errors of the difference of the two card precisions, from their counts of
    named cards (``tp`` + ``fp``); 0 when the figures carry no counts."""
    variance = 0.0
    for figures in (before, after):
        named = figures.get("tp", 0) + figures.get("fp", 0)
        if not named:
            return 0.0
        precision = figures["tp"] / named
        variance += precision * (1 - precision) / named
    return 2 * math.sqrt(variance)


def is_better(before: dict[str, float], after: dict[str, float], *, margin: float = 0.005) -> bool:
    """The adapted model replaces the default only if its card F1 is higher by more than noise
    and it does not buy that with false cards (:data:`PRECISION_GIVEN_UP`, or the precisions'
    sampling noise down to :data:`PRECISION_FLOOR`)."""
    from scorekeeper.vision.metrics import card_f1

    lost = before["card_precision"] - after["card_precision"]
    keeps_precision = (
        after["card_precision"] >= MIN_PRECISION
        or lost <= PRECISION_GIVEN_UP
        or (lost <= precision_noise(before, after) and after["card_precision"] >= PRECISION_FLOOR)
    )
    return keeps_precision and card_f1(after) > card_f1(before) + margin


def check_detector_mode(mode: str) -> str:
    if mode not in DETECTOR_MODES:
        raise TrainingSetupError(f"--detector {mode!r}: use one of {', '.join(DETECTOR_MODES)}")
    return mode


# -- enrolment's teaching set ----------------------------------------------------------------------


HELDBACK_DEAL_FIRST = 20000
"""Where the held-back deals' seeds start: clear of the seeds the benchmarks measure on (below
10000, and 19000-19999 for the unseen decks)."""


@dataclass
class DeckScenes:
    """What :func:`build_scenes` rendered of a deck."""

    train: Path
    heldback: Path
    deal_frames: Path | None
    """The held-back deals' frames (None when the plan has none)."""
    photos: Path | None
    """Phone photos of fanned hands (None when the plan has none)."""


def build_scenes(plan: AdaptPlan, log: Log = print) -> DeckScenes:
    """Training scenes (the deck + the usual mix), held-back scenes of the deck alone, the
    frames of its held-back deals, and phone photos of its fanned hands.

    Thresholds chosen on still scenes alone were too strict for a game: the scenes show whole,
    sharp indices, a deal shows them half covered, sliding and small. Enrolled so, a deck with
    tall indices (``nicu-ornamental``) took detector threshold 0.35 and its model named 0.82 of the
    sharp sightings of the unseen-deck benchmark's deals; enrolled with a deal's frames beside the
    scenes, 0.05 and 0.93, at the same precision (``benchmarks/enrol_unseen_decks.py``)."""
    train, heldback = plan.work / "scenes", plan.work / "heldback"
    deals = plan.work / "heldback-deals"
    dataset = [sys.executable, "-m", "scorekeeper", "dataset"]
    common = [
        *dataset,
        "build",
        "--crops",
        "--quiet",
        "--workers",
        str(plan.workers),
        "--overwrite",
    ]
    mix = [arg for folder in plan.extra_faces for arg in ("--faces", str(folder))]
    jobs = [
        (
            train,
            [
                *common,
                "--out",
                str(train),
                "--images",
                str(plan.scenes),
                "--seed",
                str(plan.seed),
                "--faces",
                str(plan.deck),
                *mix,
                "--procedural-share",
                "0.3",
            ],
        ),
        (
            heldback,
            [
                *common,
                "--out",
                str(heldback),
                "--images",
                str(plan.heldback),
                "--seed",
                str(plan.seed + 1000),
                "--faces",
                str(plan.deck),
                "--procedural-share",
                "0",
            ],
        ),
    ]
    if plan.heldback_deals > 0:
        first = HELDBACK_DEAL_FIRST + plan.seed
        jobs.append(
            (
                deals,
                [
                    *dataset,
                    "video",
                    "--out",
                    str(deals),
                    "--seeds",
                    f"{first}-{first + plan.heldback_deals - 1}",
                    "--every",
                    str(plan.heldback_deal_every),
                    "--faces",
                    str(plan.deck),
                    "--workers",
                    str(plan.workers),
                ],
            )
        )
    photos = plan.work / "photos"
    if plan.photos > 0:
        jobs.append((photos, photo_command(plan, photos)))
    for folder, command in jobs:
        if (folder / "data.yaml").is_file() or (folder / "summary.json").is_file():
            log(f"scenes: {folder} exists, kept")
            continue
        log(f"scenes: rendering {folder.name}")
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
            raise TrainingSetupError(f"rendering scenes of {plan.deck} failed: {tail[0]}")
    return DeckScenes(
        train=train,
        heldback=heldback,
        deal_frames=deals / "frames" if plan.heldback_deals > 0 else None,
        photos=photos if plan.photos > 0 else None,
    )


def photo_command(plan: AdaptPlan, out: Path) -> list[str]:
    """The ``dataset build`` command that renders ``plan.photos`` phone photos of the deck's
    fanned hands into ``out``."""
    return deck_scenes_command(
        plan.deck,
        out,
        images=plan.photos,
        seed=plan.seed + PHOTO_SEED,
        scene=PHOTO_SCENE,
        build_options=PHOTO_BUILD,
        workers=plan.workers,
    )


def deck_scenes_command(
    deck: Path,
    out: Path,
    *,
    images: int,
    seed: int,
    scene: dict[str, object],
    build_options: tuple[str, ...] = (),
    workers: int = 1,
) -> list[str]:
    """The ``dataset build`` command that renders ``images`` scenes of ``deck`` alone (no other
    pack, no procedural deck, no validation split) into ``out``, with the scene ranges of
    ``datasets/scenes.json`` changed by ``scene``: those settings are written beside ``out``, as
    ``<out's name>.json``."""
    from scorekeeper.paths import scene_config_path

    default = scene_config_path()
    settings = json.loads(default.read_text()) if default.is_file() else {}
    settings.update(scene)
    out.parent.mkdir(parents=True, exist_ok=True)
    config = out.parent / f"{out.name}.json"
    config.write_text(json.dumps(settings, indent=2) + "\n", encoding="utf-8")
    return [
        *(sys.executable, "-m", "scorekeeper", "dataset", "build", "--quiet", "--overwrite"),
        *("--workers", str(workers), "--out", str(out), "--images", str(images)),
        *("--val", "0", "--seed", str(seed), "--faces", str(deck)),
        *("--procedural-share", "0", "--config", str(config), *build_options),
    ]


def labelled_set(folder: Path) -> list[Any]:
    """Every labelled image of a YOLO set, both splits."""
    from scorekeeper.vision import evaluate

    return [
        image
        for split in ("train", "val")
        if (folder / "images" / split).is_dir()
        for image in evaluate.labelled_images(folder, split)
    ]


def deck_face_crops(deck: Path, *, per_index: int, seed: int) -> tuple[Any, Any] | None:
    from scorekeeper.synth.faces import FacePack
    from scorekeeper.training.face_crops import training_face_crops

    pack: Any = FacePack.load(deck)
    # Procedural decks keep 8/9/10/joker (not_a_card) and other fonts in view: no forgetting them.
    return training_face_crops(
        [pack], per_index=per_index, procedural=8, procedural_per_index=2, seed=seed
    )


def adapt(plan: AdaptPlan, *, progress: Progress | None = None, log: Log = print) -> AdaptResult:
    """Enrolment: scenes of the deck, then :func:`run_adaptation`."""
    began = time.time()
    if progress:
        progress("scenes", 0.0, None)
    rendered_sets = build_scenes(plan, log)
    scenes = rendered_sets.train
    scene_minutes = round((time.time() - began) / 60, 2)
    judged, judged_on = labelled_set(rendered_sets.heldback), "held-back scenes of the deck"
    if rendered_sets.deal_frames is not None:
        # split_judged halves by alternate positions, so each half gets half of both kinds.
        judged += labelled_set(rendered_sets.deal_frames)
        rendered = (
            "a rendered deal"
            if plan.heldback_deals == 1
            else f"{plan.heldback_deals} rendered deals"
        )
        judged_on = f"held-back scenes and {rendered} of the deck"
    teaching = TeachingSet(
        train=[scenes],
        crop_sets=[scenes / "crops"],
        judged=judged,
        judged_on=judged_on,
        face_crops=deck_face_crops(plan.deck, per_index=plan.face_crops_per_index, seed=plan.seed),
        photos=labelled_set(rendered_sets.photos) if rendered_sets.photos else [],
        detector_framed=True,
    )
    job = AdaptJob(
        name=plan.name,
        base=plan.base,
        work=plan.work,
        minutes=plan.minutes,
        detector=check_detector_mode(plan.detector),
        precision=check_precision(plan.precision),
        seed=plan.seed,
        threads=plan.threads,
        learned_from={"deck": plan.deck.name},
        extra_record={
            "deck": plan.deck.name,
            "deck_folder": str(plan.deck),
            "heldback_scenes": plan.heldback,
            "heldback_deals": plan.heldback_deals,
            "train_scenes": plan.scenes,
            "photos": plan.photos,
        },
    )
    result = run_adaptation(job, teaching, progress=progress, log=log)
    result.minutes["scenes"] = scene_minutes
    return result


# -- the one path: fine-tune, stage, choose thresholds, compare, install ---------------------------


Trainer = Callable[["AdaptJob", TeachingSet, bool, Progress | None, Log], "Trained"]
"""The fine-tune step (``job, teaching, with_detector, progress, log``); tests inject a fake."""


@dataclass
class Trained:
    classifier: Path
    """The fine-tuned classifier checkpoint."""
    detector: Path | None
    """The fine-tuned detector's weights (None: the detector was not fine-tuned)."""
    minutes: dict[str, float]
    steps: dict[str, Any] = field(default_factory=dict)


def split_judged(images: Sequence[Any]) -> tuple[list[Any], list[Any]]:
    """Calibration half (even positions) and judging half (odd positions)."""
    return list(images[0::2]), list(images[1::2])


def run_adaptation(
    job: AdaptJob,
    teaching: TeachingSet,
    *,
    progress: Progress | None = None,
    log: Log = print,
    trainer: Trainer | None = None,
) -> AdaptResult:
    """Fine-tune ``job.base`` on ``teaching``; keep the result only if it is better (see module)."""
    from scorekeeper.training.thresholds import choose_photo_card_prob
    from scorekeeper.vision.evaluate import labelled_truth, measure_cards
    from scorekeeper.vision.metrics import card_f1
    from scorekeeper.vision.reader import CardReader
    from scorekeeper.vision.registry import set_active_model

    calibrate, judge = split_judged(teaching.judged)
    if len(calibrate) < 2 or len(judge) < 2:
        raise TrainingSetupError(
            f"only {len(teaching.judged)} labelled images of {teaching.judged_on} to judge on: "
            "at least 4 are needed"
        )
    began = time.time()
    with_detector, detector_figures = _detector_pays(job, calibrate, log)
    trained = (trainer or finetune)(job, teaching, with_detector, progress, log)

    started = time.time()
    if progress:
        progress("compare", 0.9, None)
    candidates = stage_candidates(job, trained, calibrate, teaching.judged_on)
    truth = labelled_truth(judge)
    before = measure_cards(CardReader(job.base), truth)
    figures = {
        kind: measure_cards(CardReader(folder), truth) for kind, folder in candidates.items()
    }
    chosen = max(figures, key=lambda kind: card_f1(figures[kind]))
    after = figures[chosen]
    better = is_better(before, after)
    compared = time.time()
    photo_threshold = (
        choose_photo_card_prob(
            candidates[chosen],
            teaching.photos,
            on=f"{len(teaching.photos)} rendered phone photos of the deck's fanned hands",
            min_precision=MIN_PRECISION,
            confidence=PHOTO_CHOICE_CONFIDENCE,
        )
        if teaching.photos and (better or job.install_when_worse)
        else None
    )
    minutes = {
        **trained.minutes,
        "compare": round((compared - started) / 60, 2),
        "photo_threshold": round((time.time() - compared) / 60, 2),
        "total": round((time.time() - began) / 60, 2),
    }
    record = {
        **job.extra_record,
        "base": str(job.base),
        "learned_from": _learned_from(job),
        "judged_on": teaching.judged_on,
        "calibration_images": len(calibrate),
        "judged_images": len(judge),
        "before": before,
        "after": after,
        "chosen": chosen,
        "candidates": figures,
        "better": better,
        "detector": {
            "mode": job.detector,
            "fine_tuned": trained.detector is not None,
            "base_on_calibration": detector_figures,
        },
        "photo_threshold": photo_threshold,
        "minutes": minutes,
        "budget_minutes": job.minutes,
        "steps": trained.steps,
        "finished": time.strftime("%Y-%m-%dT%H:%M:%S"),
    }
    model: Path | None = None
    replaces_active = job.model_folder.resolve() == job.base.resolve()
    if better or (job.install_when_worse and not replaces_active):
        model = install(job, candidates[chosen], record)
        if better:
            set_active_model(
                job.name,
                reason=f"{_reason(job)}: card F1 {card_f1(before):.3f} -> "
                f"{card_f1(after):.3f} on {teaching.judged_on}",
            )
    else:
        job.work.mkdir(parents=True, exist_ok=True)
        (job.work / "last-attempt.json").write_text(
            json.dumps(record, indent=2) + "\n", encoding="utf-8"
        )
    if progress:
        progress("done", 1.0, 0.0)
    return AdaptResult(model, before, after, better, minutes, teaching.judged_on, chosen)


def _reason(job: AdaptJob) -> str:
    deals = job.learned_from.get("deals")
    return (
        f"learned from {deals} deals of play"
        if deals
        else f"adapted to deck {job.learned_from.get('deck')}"
    )


def _learned_from(job: AdaptJob) -> dict[str, Any]:
    """The base model's teaching plus this job's: deck faces once, deals of play added up."""
    base = _read_json(job.base / "enrol.json").get("learned_from", {})
    out = dict(base) if isinstance(base, dict) else {}
    if job.learned_from.get("deck"):
        out["deck"] = job.learned_from["deck"]
    # Deals are counted once however many learning rounds saw them.
    ids = set(out.get("deal_ids", [])) | set(job.learned_from.get("deal_ids", []))
    out["deal_ids"] = sorted(ids)
    out["deals"] = len(ids)
    return out


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _detector_pays(job: AdaptJob, calibrate: list[Any], log: Log) -> tuple[bool, dict[str, Any]]:
    from scorekeeper.vision.evaluate import measure_detector
    from scorekeeper.vision.reader import CardReader

    if job.detector == "off":
        return False, {}
    if not (job.base / "checkpoints" / "index-detector.pt").is_file():
        if job.detector == "on":
            raise TrainingSetupError(
                f"model {job.base} has no detector checkpoint (checkpoints/index-detector.pt): "
                "adapt from the shipped model, or use --detector off"
            )
        return False, {}
    figures = measure_detector(CardReader(job.base), calibrate)
    pays = job.detector == "on" or not figures["index_recall"] >= DETECTOR_PAYS_BELOW
    log(
        f"base detector finds {figures['index_recall']:.3f} of the indices: "
        f"{'fine-tuning it too' if pays else 'kept as it is'}"
    )
    return pays, figures


def budget_split(minutes: float, with_detector: bool) -> tuple[float, float]:
    """Seconds of fine-tuning for the classifier and for the detector in a budget of ``minutes``."""
    seconds = minutes * 60
    detector = min(seconds * DETECTOR_SHARE, DETECTOR_MINUTES * 60) if with_detector else 0.0
    return seconds - detector, detector


def finetune(
    job: AdaptJob, teaching: TeachingSet, with_detector: bool, progress: Progress | None, log: Log
) -> Trained:
    """The real fine-tune: the classifier, then (``with_detector``) the detector, in the budget."""
    classifier_seconds, detector_seconds = budget_split(job.minutes, with_detector)
    minutes: dict[str, float] = {}
    steps: dict[str, Any] = {}
    began = time.time()
    framed = crops_framed_by_detector(job, teaching, log) if teaching.detector_framed else None
    classifier = finetune_classifier(
        job,
        teaching,
        classifier_seconds,
        progress,
        log,
        share_of_progress=(0.0, 0.9 * classifier_seconds / max(job.minutes * 60, 1.0)),
        framed_crops=framed,
    )
    minutes["classifier"] = round((time.time() - began) / 60, 2)
    steps["classifier"] = _last_log(classifier.parent / "log.jsonl")
    if framed is not None:
        steps["classifier"]["detector_framed_crops"] = len(framed[1])
    detector = None
    if with_detector:
        started = time.time()
        detector = finetune_detector(job, teaching, detector_seconds, log)
        minutes["detector"] = round((time.time() - started) / 60, 2)
        steps["detector"] = _detector_log(detector.parent.parent)
    minutes["train"] = round((time.time() - began) / 60, 2)
    return Trained(classifier, detector, minutes, steps)


def crops_framed_by_detector(job: AdaptJob, teaching: TeachingSet, log: Log) -> tuple[Any, Any]:
    """Context crops around the boxes the base model's detector draws on the training scenes,
    each named by the labelled index it covers (:mod:`scorekeeper.training.framed_crops`)."""
    import numpy as np

    from scorekeeper.training.framed_crops import detector_framed_crops
    from scorekeeper.vision.reader import CardReader

    began = time.monotonic()
    reader = CardReader(job.base, photo=False, threads=job.threads)
    parts = [
        detector_framed_crops(folder, lambda frame: reader.detect_indices(frame)[0])
        for folder in teaching.train
    ]
    crops = np.concatenate([c for c, _ in parts])
    labels = np.concatenate([y for _, y in parts])
    log(
        f"{len(labels)} index crops framed as the detector frames them "
        f"({time.monotonic() - began:.0f} s)"
    )
    return crops, labels


def _last_log(path: Path) -> dict[str, Any]:
    try:
        lines = path.read_text(encoding="utf-8").strip().splitlines()
        record = json.loads(lines[-1])
    except (OSError, ValueError, IndexError):
        return {}
    return record if isinstance(record, dict) else {}


def _detector_log(run: Path) -> dict[str, Any]:
    """Epochs an ultralytics run finished and what its steps computed in."""
    import yaml  # ultralytics' own dependency: there is no detector run without it

    try:
        rows = (run / "results.csv").read_text(encoding="utf-8").strip().splitlines()[1:]
        amp = yaml.safe_load((run / "args.yaml").read_text(encoding="utf-8")).get("amp")
    except (OSError, yaml.YAMLError, AttributeError):
        return {}
    precision = {"bf16": "bf16", True: "fp16"}.get(amp, "fp32")
    return {"epochs": len(rows), "precision": precision}


def finetune_classifier(
    job: AdaptJob,
    teaching: TeachingSet,
    seconds: float,
    progress: Progress | None = None,
    log: Log = print,
    *,
    share_of_progress: tuple[float, float] = (0.0, 0.9),
    framed_crops: tuple[Any, Any] | None = None,
) -> Path:
    """Fine-tune the base model's classifier for ``seconds`` of steps, with ``framed_crops``
    (:func:`crops_framed_by_detector`) beside the teaching set's own; the best checkpoint."""
    from scorekeeper.training.classifier import ClassifierRecipe, load_crop_data, train_classifier

    init = job.base / "checkpoints" / "index-classifier.pt"
    if not init.is_file():
        raise TrainingSetupError(
            f"model {job.base} has no classifier checkpoint ({init}): adapt from the shipped model"
        )
    config = _read_json(job.base / "reader.json")
    size = int(config["classifier"].get("crop_size", 48))
    margin = float(config["classifier"].get("crop_margin", 0.2))
    data = load_crop_data(
        detection_sets=teaching.train,
        crop_sets=teaching.crop_sets,
        size=size,
        margin=margin,
        seed=job.seed,
        face_crops=teaching.face_crops,
        framed_crops=framed_crops,
    )
    log(f"fine-tune data: {data.summary()}")
    recipe = ClassifierRecipe(
        epochs=1,
        lr=6e-4,
        size=size,
        margin=margin,
        seed=job.seed,
        threads=job.threads,
        precision=job.precision,
    )
    out = job.work / "classifier"
    if out.exists():
        shutil.rmtree(out)
    began = time.monotonic()
    low, high = share_of_progress

    def report(done: int, total: int) -> None:
        if progress is None or done == 0:
            return
        left = max(0.0, seconds - (time.monotonic() - began))
        progress("fine-tune", low + (high - low) * min(1.0, done / max(total, 1)), left)

    return Path(
        train_classifier(
            data, out, recipe, init=init, log=log, progress=report, budget_seconds=seconds
        )
    )


def finetune_detector(
    job: AdaptJob, teaching: TeachingSet, seconds: float, log: Log = print
) -> Path:
    """Fine-tune the base detector on the teaching sets for ``seconds`` (ultralytics fits its
    epochs to the time, measured on its own first epoch); returns the best weights."""
    from scorekeeper.training.detector import DetectorRecipe, prepare_ultralytics, train_detector

    prepare_ultralytics(job.work / "ultralytics")
    log_to_stderr()
    config = _read_json(job.base / "reader.json")
    data_yaml = job.work / "detector-data.yaml"
    folders = [str(folder.resolve() / "images" / "train") for folder in teaching.train]
    vals = [
        str(folder.resolve() / "images" / "val")
        for folder in teaching.train
        if (folder / "images" / "val").is_dir()
    ]
    data_yaml.write_text(
        "# Written by scorekeeper: the sets this adaptation learns from.\n"
        f"train: {json.dumps(folders)}\nval: {json.dumps(vals or folders)}\n"
        "nc: 1\nnames:\n  0: index\n",
        encoding="utf-8",
    )
    recipe = DetectorRecipe(
        imgsz=int(config["detector"].get("train_imgsz", 320)),
        epochs=50,
        lr0=3e-4,
        warmup_epochs=0.0,
        close_mosaic=0,
        mosaic=0.5,
        time=seconds / 3600,
        seed=job.seed,
        patience=50,
        precision=job.precision,
    )
    project = job.work / "detector"
    if project.exists():
        shutil.rmtree(project)
    log(f"detector: fine-tuning for {seconds / 60:.1f} min")
    with contextlib.redirect_stdout(sys.stderr):  # its progress bars too
        run = train_detector(
            data_yaml,
            project,
            "finetune",
            recipe,
            init=job.base / "checkpoints" / "index-detector.pt",
        )
    best = run / "weights" / "best.pt"
    return best if best.is_file() else run / "weights" / "last.pt"


def log_to_stderr() -> None:
    """ultralytics logs to stdout, where ``enrol --json`` and ``learn --json`` print outcomes.

    Only its own console handler (a plain ``StreamHandler``) is moved: a handler someone else
    attached, a log file or a test runner's capture (subclasses), keeps its stream; moved, a
    capture's stream would be swapped for one that is closed once the capture ends. A stream its
    owner already closed (an earlier run's captured stdout in one process) is replaced unflushed.
    """
    import logging

    # Its first import on a machine writes ultralytics' settings file and says so on stdout.
    with contextlib.redirect_stdout(sys.stderr):
        from ultralytics.utils import LOGGER

    for handler in LOGGER.handlers:
        if type(handler) is not logging.StreamHandler:
            continue
        if getattr(handler.stream, "closed", False):
            handler.stream = sys.stderr
        else:
            handler.setStream(sys.stderr)


def stage_candidates(
    job: AdaptJob, trained: Trained, calibrate: list[Any], judged_on: str
) -> dict[str, Path]:
    """Model folders to compare, thresholds and temperature chosen on the calibration half."""
    from scorekeeper.training.thresholds import choose_on

    staged = {
        "thresholds": _stage(job, "thresholds", classifier=None, detector=None),
        "classifier": _stage(job, "classifier", classifier=trained.classifier, detector=None),
    }
    if trained.detector is not None:
        staged["classifier+detector"] = _stage(
            job, "both", classifier=trained.classifier, detector=trained.detector
        )
    for folder in staged.values():
        choose_on(
            folder,
            calibrate,
            on=f"{judged_on}, calibration half ({len(calibrate)} images)",
            min_precision=MIN_PRECISION,
            confidence=job.choice_confidence,
        )
    return staged


def _stage(job: AdaptJob, kind: str, *, classifier: Path | None, detector: Path | None) -> Path:
    """A complete model folder: the base model with the fine-tuned parts replacing its own."""
    staging = job.work / f"candidate-{kind}"
    if staging.exists():
        shutil.rmtree(staging)
    shutil.copytree(job.base, staging, ignore=shutil.ignore_patterns("enrol.json", "metrics.json"))
    config = _read_json(job.base / "reader.json")
    if classifier is not None:
        _install_classifier(classifier, staging, config)
    if detector is not None:
        _install_detector(detector, staging, config)
    config = _read_json(staging / "reader.json")
    config["adapted_from"] = str(job.base)
    config["tracker"] = dict(ADAPTED_TRACKER)
    config["deck_name"] = (
        deck_name(job.base) if not job.learned_from.get("deck") else str(job.learned_from["deck"])
    )
    (staging / "reader.json").write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    return staging


def _install_classifier(checkpoint: Path, staging: Path, config: dict[str, Any]) -> None:
    import torch

    from scorekeeper.training.classifier import export_classifier
    from scorekeeper.training.quantize import install_classifier_onnx
    from scorekeeper.vision.reader_config import CLASSIFIER_CLASSES

    with tempfile.TemporaryDirectory(prefix="adapt-export-") as scratch:
        float_onnx = export_classifier(
            checkpoint,
            Path(scratch) / "classifier.onnx",
            size=int(config["classifier"].get("crop_size", 48)),
        )
        install_classifier_onnx(float_onnx, staging, config["classifier"])
    state = torch.load(checkpoint, map_location="cpu", weights_only=False)
    (staging / "checkpoints").mkdir(exist_ok=True)
    torch.save(
        {
            "model": state["model"],
            "recipe": state.get("recipe", {}),
            "classes": list(CLASSIFIER_CLASSES),
        },
        staging / "checkpoints" / "index-classifier.pt",
    )


def _install_detector(weights: Path, staging: Path, config: dict[str, Any]) -> None:
    from scorekeeper.training.detector import export_detector, strip_checkpoint

    log_to_stderr()
    with contextlib.redirect_stdout(sys.stderr):
        export_detector(
            weights,
            staging / config["detector"]["file"],
            imgsz=int(config["detector"].get("train_imgsz", 320)),
        )
        strip_checkpoint(weights, staging / "checkpoints" / "index-detector.pt")


def deck_name(model: Path) -> str:
    """The deck a model reads: the enrolled deck's name, else the model's folder name."""
    name = _read_json(model / "reader.json").get("deck_name")
    return str(name) if name else model.name


def install(job: AdaptJob, staging: Path, record: dict[str, Any]) -> Path:
    """Move the staged model into the user's models (replacing an older one of that name)
    atomically."""
    (staging / "enrol.json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    target = job.model_folder
    target.parent.mkdir(parents=True, exist_ok=True)
    old = target.with_name(target.name + ".old")
    if old.exists():
        shutil.rmtree(old)
    if target.exists():
        target.rename(old)
    staging.rename(target)
    if old.exists():
        shutil.rmtree(old)
    return target
