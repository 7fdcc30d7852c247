"""Adapt the card reader to one café's deck: scenes of that deck, a short fine-tune, a fair comparison.

The classifier (stage 2) is what a new deck's fonts and pips confuse; the index detector finds a
corner index whatever its font, so by default only the classifier is fine-tuned (minutes on these
CPUs) and the detector is kept. Both the shipped model and the adapted one are then measured on
scenes of the new deck that the fine-tune never saw; the adapted model becomes the default only when
its end-to-end card F1 there is higher. The model it started from is never changed.

Steps and where they write (``work`` is ``<user data>/work/<name>``):

1. ``scenes``: ``scorekeeper dataset build`` with the deck's faces (plus procedural decks) in
   ``work/scenes``, and held-back scenes of the deck alone, another seed, in ``work/heldback``;
2. ``finetune``: the classifier from the base model's checkpoint, on those scenes' index crops and
   on crops cut straight from the deck's faces (:mod:`scorekeeper.training.face_crops`);
3. ``compare`` and ``install``: a new model folder under :func:`scorekeeper.paths.user_models_dir`
   with ``enrol.json`` (figures before/after, time taken); made active only if it is better.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from scorekeeper.paths import user_data_dir, user_models_dir
from scorekeeper.training import TrainingSetupError

Progress = Callable[[str, float, float | None], None]
"""``progress(stage, fraction_done, seconds_left_or_None)``."""


@dataclass
class AdaptPlan:
    deck: Path
    """A face pack: 40 images named ``Ah.png`` ... ``2c.png``."""
    name: str
    base: Path
    """The model folder to start from (the active or shipped one)."""
    scenes: int = 400
    heldback: int = 100
    minutes: float = 8.0
    """Fine-tuning time budget; the learning-rate schedule is fitted to it."""
    face_crops_per_index: int = 40
    seed: int = 7
    workers: int = 1
    threads: int = 2
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
    model: Path
    before: dict[str, float]
    after: dict[str, float]
    better: bool
    minutes: dict[str, float]

    def line(self) -> str:
        b, a = self.before, self.after
        verdict = "now the default model" if self.better else "kept the previous model as default"
        return (f"{self.model.name}: card precision/recall on held-back scenes of the deck "
                f"{b['card_precision']:.2f}/{b['card_recall']:.2f} -> {a['card_precision']:.2f}/"
                f"{a['card_recall']:.2f}; {verdict}")


def is_better(before: dict[str, float], after: dict[str, float], *, margin: float = 0.005) -> bool:
    """The adapted model replaces the default only if its card F1 is higher by more than noise."""
    from scorekeeper.vision.metrics import card_f1

    return card_f1(after) > card_f1(before) + margin


def build_scenes(plan: AdaptPlan, log: Callable[[str], None] = print) -> tuple[Path, Path]:
    """Training scenes (the deck + the usual mix) and held-back scenes of the deck alone."""
    train, heldback = plan.work / "scenes", plan.work / "heldback"
    common = [sys.executable, "-m", "scorekeeper", "dataset", "build", "--crops", "--quiet",
              "--workers", str(plan.workers), "--overwrite"]
    mix = [arg for folder in plan.extra_faces for arg in ("--faces", str(folder))]
    jobs = [
        (train, [*common, "--out", str(train), "--images", str(plan.scenes), "--seed", str(plan.seed),
                 "--faces", str(plan.deck), *mix, "--procedural-share", "0.3"]),
        (heldback, [*common, "--out", str(heldback), "--images", str(plan.heldback),
                    "--seed", str(plan.seed + 1000), "--faces", str(plan.deck), "--procedural-share", "0"]),
    ]
    for folder, command in jobs:
        if (folder / "data.yaml").is_file():
            log(f"scenes: {folder} exists, kept")
            continue
        log(f"scenes: rendering {folder.name}")
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
            raise TrainingSetupError(f"rendering scenes of {plan.deck} failed: {tail[0]}")
    return train, heldback


def finetune_classifier(plan: AdaptPlan, scenes: Path, progress: Progress | None = None,
                        log: Callable[[str], None] = print) -> Path:
    """Fine-tune the base model's classifier for ``plan.minutes``; returns the best checkpoint."""
    from scorekeeper.synth.faces import FacePack
    from scorekeeper.training.classifier import ClassifierRecipe, load_crop_data, train_classifier
    from scorekeeper.training.face_crops import training_face_crops

    init = plan.base / "checkpoints" / "index-classifier.pt"
    if not init.is_file():
        raise TrainingSetupError(
            f"model {plan.base} has no classifier checkpoint ({init}): adapt from the shipped model"
        )
    config = json.loads((plan.base / "reader.json").read_text(encoding="utf-8"))
    size = int(config["classifier"].get("crop_size", 48))
    margin = float(config["classifier"].get("crop_margin", 0.2))
    # Procedural decks keep 8/9/10/joker (not_a_card) and other fonts in view: no forgetting them.
    faces = training_face_crops([FacePack.load(plan.deck)], per_index=plan.face_crops_per_index,
                                procedural=8, procedural_per_index=2, seed=plan.seed)
    data = load_crop_data(detection_sets=[scenes], crop_sets=[scenes / "crops"], size=size, margin=margin,
                          seed=plan.seed, face_crops=faces)
    log(f"fine-tune data: {data.summary()}")

    recipe = ClassifierRecipe(epochs=1, lr=6e-4, size=size, margin=margin, seed=plan.seed,
                              threads=plan.threads)
    recipe.steps_per_epoch = _steps_for_budget(data, recipe, init, plan.minutes)
    recipe.epochs = max(1, min(6, recipe.steps_per_epoch // 150))
    recipe.steps_per_epoch = max(1, recipe.steps_per_epoch // recipe.epochs)
    out = plan.work / "classifier"
    if out.exists():
        shutil.rmtree(out)
    began = time.time()

    def report(done: int, total: int) -> None:
        if progress is None or done == 0:
            return
        elapsed = time.time() - began
        progress("fine-tune", done / total, elapsed / done * (total - done))

    return train_classifier(data, out, recipe, init=init, log=log, progress=report)


def _steps_for_budget(data: Any, recipe: Any, init: Path, minutes: float) -> int:
    """Time a few training steps here, then fit the step count to the budget."""
    import tempfile

    from scorekeeper.training.classifier import ClassifierRecipe, train_classifier

    probe = ClassifierRecipe(**{**asdict(recipe), "epochs": 1, "steps_per_epoch": 6})
    with tempfile.TemporaryDirectory() as scratch:
        began = time.time()
        train_classifier(data, Path(scratch), probe, init=init, log=lambda _line: None)
        per_step = (time.time() - began) / 6
    return max(20, int(minutes * 60 / max(per_step, 1e-3)))


def assemble_model(plan: AdaptPlan, classifier_checkpoint: Path) -> Path:
    """A complete model folder: the base detector, the fine-tuned classifier, the base thresholds."""
    import torch

    from scorekeeper.training.classifier import export_classifier
    from scorekeeper.vision.reader import CLASSIFIER_CLASSES

    staging = plan.work / "model"
    if staging.exists():
        shutil.rmtree(staging)
    (staging / "checkpoints").mkdir(parents=True)
    config = json.loads((plan.base / "reader.json").read_text(encoding="utf-8"))
    shutil.copyfile(plan.base / config["detector"]["file"], staging / config["detector"]["file"])
    base_detector_ckpt = plan.base / "checkpoints" / "index-detector.pt"
    if base_detector_ckpt.is_file():
        shutil.copyfile(base_detector_ckpt, staging / "checkpoints" / "index-detector.pt")
    export_classifier(classifier_checkpoint, staging / config["classifier"]["file"],
                      size=int(config["classifier"].get("crop_size", 48)))
    state = torch.load(classifier_checkpoint, map_location="cpu", weights_only=False)
    torch.save({"model": state["model"], "recipe": state.get("recipe", {}), "classes": list(CLASSIFIER_CLASSES)},
               staging / "checkpoints" / "index-classifier.pt")
    config["adapted_from"] = str(plan.base)
    config["deck"] = str(plan.deck)
    (staging / "reader.json").write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    return staging


def measure_on(model: Path, heldback: Path) -> dict[str, float]:
    """End-to-end card precision/recall of ``model`` on every held-back scene."""
    from scorekeeper.vision import evaluate
    from scorekeeper.vision.reader import CardReader

    images = [image for split in ("train", "val") if (heldback / "images" / split).is_dir()
              for image in evaluate.labelled_images(heldback, split)]
    return evaluate.measure_cards(CardReader(model), evaluate.labelled_truth(images))


def install(plan: AdaptPlan, staging: Path, record: dict[str, Any]) -> Path:
    """Move the staged model into the user's models (replacing an older one of that name) atomically."""
    (staging / "enrol.json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    target = plan.model_folder
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


def adapt(plan: AdaptPlan, *, progress: Progress | None = None,
          log: Callable[[str], None] = print) -> AdaptResult:
    """The whole adaptation; the default model changes only if the new one measures better."""
    from scorekeeper.vision.metrics import card_f1
    from scorekeeper.vision.registry import set_active_model

    minutes: dict[str, float] = {}
    began = time.time()
    if progress:
        progress("scenes", 0.0, None)
    scenes, heldback = build_scenes(plan, log)
    minutes["scenes"] = round((time.time() - began) / 60, 2)

    started = time.time()
    checkpoint = finetune_classifier(plan, scenes, progress, log)
    minutes["finetune"] = round((time.time() - started) / 60, 2)

    started = time.time()
    if progress:
        progress("compare", 0.0, None)
    staging = assemble_model(plan, checkpoint)
    before = measure_on(plan.base, heldback)
    after = measure_on(staging, heldback)
    minutes["compare"] = round((time.time() - started) / 60, 2)
    minutes["total"] = round((time.time() - began) / 60, 2)
    better = is_better(before, after)
    record = {"deck": plan.deck.name, "deck_folder": str(plan.deck), "base": str(plan.base),
              "heldback_scenes": plan.heldback, "train_scenes": plan.scenes, "before": before,
              "after": after, "better": better, "minutes": minutes,
              "finished": time.strftime("%Y-%m-%dT%H:%M:%S")}
    model = install(plan, staging, record)
    if better:
        set_active_model(plan.name, reason=f"adapted to deck {plan.deck.name}: card F1 "
                         f"{card_f1(before):.3f} -> {card_f1(after):.3f} on held-back scenes")
    if progress:
        progress("done", 1.0, 0.0)
    return AdaptResult(model, before, after, better, minutes)
