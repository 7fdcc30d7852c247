"""The card-reader recipe behind ``scorekeeper train``: data, both stages, export, measure, card.

Steps (each can be run alone with ``--steps``):

1. ``data``: ``scorekeeper dataset build --crops`` writes a detection set (40 card classes; the
   detector trains with ``single_cls``) and its crop set (40 cards + ``not_a_card``) in ``--data``;
2. ``detector``: the one-class index YOLO (:mod:`scorekeeper.training.detector`), run folder under
   ``--runs``; checkpoints every epoch;
3. ``classifier``: the index CNN (:mod:`scorekeeper.training.classifier`) on crops of the same data;
4. ``card_view``: the card-view CNN (:mod:`scorekeeper.training.card_view`) on views of the face
   packs, of procedural decks and of the same scenes;
5. ``export``: all three to ONNX in the model folder, with ``reader.json`` and small ``.pt``
   checkpoints (so a later run can start from the committed weights);
6. ``evaluate``: the figures of :mod:`scorekeeper.vision.evaluate`, written to ``metrics.json``.

``--resume`` continues an interrupted run in ``--runs``; without one it starts both stages from the
model folder's committed checkpoints and trains the given epochs more.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scorekeeper.paths import shared_data_dir
from scorekeeper.training import TrainingSetupError
from scorekeeper.training.card_view import CardViewRecipe
from scorekeeper.training.classifier import ClassifierRecipe
from scorekeeper.training.detector import DetectorRecipe

if TYPE_CHECKING:
    import numpy as np

Log = Callable[[str], None]
CropsAndLabels = tuple["np.ndarray", "np.ndarray"]

STEPS = ("data", "detector", "classifier", "card_view", "export", "evaluate")
DETECTOR_SCALES = (1.0, 0.5)
"""A new model's ``reader.json`` searches a frame at its own resolution and at half of it
(:attr:`scorekeeper.vision.reader_config.ReaderConfig.detector_scales`)."""
CLASSIFIER_VIEWS = 4
"""A new model's ``reader.json`` averages the classifier over the index crop's four quarter turns
(:attr:`scorekeeper.vision.reader_config.ReaderConfig.views`)."""
CLASSIFIER_FIRST_VIEW_SURE = 0.995
"""A new model's ``reader.json`` reads an index in its other views only when its first view is
less sure of a card than this
(:attr:`scorekeeper.vision.reader_config.ReaderConfig.first_view_sure`)."""
CLASSIFIER_JOINT_CORNERS = True
"""A new model's ``reader.json`` reads a soft index together with its card's other corner
(:attr:`scorekeeper.vision.reader_config.ReaderConfig.joint_corners`); the thresholds are chosen
so."""
CARD_VIEW_FILE = "card-view.onnx"
CARD_VIEW_WEIGHT = 1.0
"""A new model's ``reader.json`` multiplies the card view's probabilities, at this power, into an
unsure index's (:attr:`scorekeeper.vision.reader_config.ReaderConfig.card_view_weight`), until the
thresholds step chooses the weight with the thresholds."""
CLASSIFIER_FILE = "index-classifier-int8.onnx"
"""A new model's classifier runs in 8-bit integers (:mod:`scorekeeper.training.quantize`)."""
REAL_SIZES = (160, 256, 320)
"""Detector input sizes also measured on realcards-dev (its indices are large: ~110 px in 640)."""


@dataclass
class Recipe:
    data: Path
    runs: Path
    model_dir: Path
    images: int = 3000
    faces: list[Path] = field(default_factory=list)
    seed: int = 0
    detector: DetectorRecipe = field(default_factory=DetectorRecipe)
    classifier: ClassifierRecipe = field(default_factory=ClassifierRecipe)
    card_view: CardViewRecipe = field(default_factory=CardViewRecipe)
    realcards: Path | None = None
    resume: bool = False
    video: Path | None = None
    """A ``scorekeeper dataset video`` folder: its frames' index crops train the classifier, the
    model in ``model_dir`` (when there is one) mines its hard negatives, and tiles of its
    detector frames join the detector's data."""
    video_tiles: int = 6000
    """How many tiles of the deal-video frames the detector trains on beside the scenes: enough
    to learn the stacked, half-covered indices of a vaza without drowning the scenes' variety."""

    @property
    def detection_set(self) -> Path:
        return self.data

    @property
    def crop_set(self) -> Path:
        return self.data / "crops"

    @property
    def card_view_run(self) -> Path:
        """Where the card view trains; its ``best.pt`` is what export takes."""
        return self.runs / "card_view" / "run"

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        plain: dict[str, Any] = json.loads(json.dumps(out, default=str))
        return plain


def default_faces() -> list[Path]:
    """The face packs beside the checkout (``../shared/card-faces``), when there."""
    root = shared_data_dir() / "card-faces"
    return sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else []


def _with_negatives(
    extra: CropsAndLabels | None, recipe: Recipe, log: Log = print
) -> CropsAndLabels | None:
    """Face crops plus the hard negatives the current model's detector finds on the video frames."""
    import numpy as np

    from scorekeeper.training.negatives import mine_negatives
    from scorekeeper.vision.reader import CardReader

    if recipe.video is None or not (recipe.model_dir / "index-detector.onnx").is_file():
        return extra
    reader = CardReader(recipe.model_dir)
    crops, labels = mine_negatives(
        recipe.video / "frames",
        lambda frame: reader.detect_indices(frame, conf=0.05),
        every=4,
        log=log,
    )
    log(f"hard negatives: {len(crops)} from {recipe.video}")
    if extra is None:
        return crops, labels
    return np.concatenate([extra[0], crops]), np.concatenate([extra[1], labels])


def build_data(recipe: Recipe, log: Log = print) -> None:
    """One ``scorekeeper dataset build --crops``: the 40-class detection set and the crop set."""
    if (recipe.detection_set / "data.yaml").is_file():
        log(f"data: {recipe.detection_set} exists, kept")
        return
    faces: list[str] = []
    for folder in recipe.faces:
        faces += ["--faces", str(folder)]
    command = [
        sys.executable,
        "-m",
        "scorekeeper",
        "dataset",
        "build",
        "--out",
        str(recipe.data),
        "--images",
        str(recipe.images),
        "--seed",
        str(recipe.seed),
        "--crops",
        # One process: two forked workers hung on this machine (2026-11-30, 0% CPU, no output).
        "--workers",
        "1",
        *faces,
    ]
    log("data: " + " ".join(command))
    subprocess.run(command, check=True)


def render_face_crops(recipe: Recipe) -> CropsAndLabels | None:
    """Sharp, turned index crops from the recipe's face packs and from procedural decks."""
    from scorekeeper.synth.faces import FacePack, load_face_packs
    from scorekeeper.training.face_crops import training_face_crops

    packs: list[FacePack] = load_face_packs(recipe.faces) if recipe.faces else []
    return training_face_crops(
        packs,
        per_index=recipe.classifier.face_crops_per_index,
        procedural=recipe.classifier.procedural_packs,
        procedural_per_index=3,
        seed=recipe.seed,
    )


def run_recipe(recipe: Recipe, steps: tuple[str, ...] = STEPS, log: Log = print) -> dict[str, Any]:
    """Run the chosen steps in order; returns the figures measured (if ``evaluate`` ran)."""
    from scorekeeper.training.detector import prepare_ultralytics

    prepare_ultralytics(recipe.runs / "yolo-config")
    recipe.runs.mkdir(parents=True, exist_ok=True)
    model_dir = recipe.model_dir
    checkpoints = model_dir / "checkpoints"
    began = time.time()
    timings: dict[str, float] = {}

    if "data" in steps:
        build_data(recipe, log)
        timings["data_minutes"] = round((time.time() - began) / 60, 1)

    if "detector" in steps:
        from scorekeeper.training.detector import train_detector
        from scorekeeper.training.tiles import sample_tiles, write_mixed_yaml, write_tiles

        if not (recipe.detection_set / "data.yaml").is_file():
            raise TrainingSetupError(
                f"no detection set at {recipe.detection_set / 'data.yaml'}: run the data step first"
            )
        tiles = recipe.data.parent / (recipe.data.name + "-tiles")
        if not (tiles / "images").is_dir():
            written = write_tiles(
                recipe.detection_set, tiles, tile=recipe.detector.imgsz, seed=recipe.seed
            )
            log(f"tiles: {written}")
        extra_tiles = None
        if recipe.video is not None:
            video_tiles = recipe.video / "detector-tiles"
            if not (video_tiles / "images").is_dir():
                written = write_tiles(
                    recipe.video / "detector",
                    video_tiles,
                    tile=recipe.detector.imgsz,
                    seed=recipe.seed,
                )
                log(f"video tiles: {written}")
            extra_tiles = sample_tiles(video_tiles, recipe.video_tiles, seed=recipe.seed)
        data_yaml = write_mixed_yaml(
            recipe.detection_set,
            tiles,
            recipe.data.parent / (recipe.data.name + "-mixed.yaml"),
            extra=extra_tiles,
        )
        init = checkpoints / "index-detector.pt"
        started = time.time()
        train_detector(
            data_yaml,
            recipe.runs / "detector",
            "run",
            recipe.detector,
            init=init if recipe.resume and init.is_file() else None,
            resume=recipe.resume,
        )
        timings["detector_minutes"] = round((time.time() - started) / 60, 1)

    if "classifier" in steps:
        from scorekeeper.training.classifier import load_crop_data, train_classifier

        started = time.time()
        detection_sets = [recipe.detection_set]
        extra_crops = render_face_crops(recipe)
        if recipe.video is not None:
            detection_sets.append(recipe.video / "frames")
            extra_crops = _with_negatives(extra_crops, recipe, log)
        data = load_crop_data(
            detection_sets=detection_sets,
            crop_sets=[recipe.crop_set],
            size=recipe.classifier.size,
            margin=recipe.classifier.margin,
            seed=recipe.seed,
            face_crops=extra_crops,
        )
        log(f"classifier data: {data.summary()}")
        init = checkpoints / "index-classifier.pt"
        out = recipe.runs / "classifier" / "run"
        interrupted = recipe.resume and (out / "last.pt").is_file()
        train_classifier(
            data,
            out,
            recipe.classifier,
            init=init if recipe.resume and not interrupted and init.is_file() else None,
            resume=interrupted,
            log=log,
        )
        timings["classifier_minutes"] = round((time.time() - started) / 60, 1)

    if "card_view" in steps:
        started = time.time()
        train_card_view_step(recipe, log)
        timings["card_view_minutes"] = round((time.time() - started) / 60, 1)

    if "export" in steps:
        export_model(recipe, log)

    figures: dict[str, Any] = {}
    if "evaluate" in steps:
        figures = evaluate_model(
            model_dir, detection_set=recipe.detection_set, realcards=recipe.realcards, log=log
        )
        figures["timings"] = timings
        (model_dir / "metrics.json").write_text(json.dumps(figures, indent=2) + "\n")
        from scorekeeper.training.modelcard import update_model_card

        update_model_card(model_dir.parent / "README.md", figures)
    return figures


def _export_classifier_run(
    recipe: Recipe, cls_best: Path, classifier_config: dict[str, Any]
) -> None:
    """The classifier run's best weights, in 8 bits, and its stripped checkpoint, in the model
    folder."""
    import torch

    from scorekeeper.training.classifier import export_classifier
    from scorekeeper.training.quantize import (
        CALIBRATION_BANK,
        install_classifier_onnx,
        write_calibration_bank,
    )
    from scorekeeper.vision.reader_config import CLASSIFIER_CLASSES

    model_dir = recipe.model_dir
    with tempfile.TemporaryDirectory(prefix="export-") as scratch:
        float_onnx = export_classifier(
            cls_best, Path(scratch) / "classifier.onnx", size=recipe.classifier.size
        )
        if recipe.crop_set.is_dir() or not (model_dir / CALIBRATION_BANK).is_file():
            write_calibration_bank(recipe.crop_set, model_dir, size=recipe.classifier.size)
        install_classifier_onnx(float_onnx, model_dir, classifier_config)
    # A float export left from before the classifier ran in 8 bits: reader.json no longer names it.
    (model_dir / "index-classifier.onnx").unlink(missing_ok=True)
    state = torch.load(cls_best, map_location="cpu", weights_only=False)
    torch.save(
        {
            "model": state["model"],
            "recipe": state.get("recipe", {}),
            "epoch": state.get("epoch"),
            "classes": list(CLASSIFIER_CLASSES),
        },
        model_dir / "checkpoints" / "index-classifier.pt",
    )


def _export_card_view(recipe: Recipe, log: Log = print) -> dict[str, Any] | None:
    """The card-view run's best weights to ONNX in the model folder; reader.json's ``card_view``
    section for it (the model folder's own when no run trained one; None when neither has one)."""
    import torch

    from scorekeeper.training.card_view import CARD_VIEW_SIZE, export_card_view
    from scorekeeper.vision.reader_config import CARD_VIEW_SPAN

    model_dir = recipe.model_dir
    best = recipe.card_view_run / "best.pt"
    if best.is_file():
        export_card_view(best, model_dir / CARD_VIEW_FILE)
        state = torch.load(best, map_location="cpu", weights_only=False)
        torch.save(
            {"model": state["model"], "recipe": state["recipe"], "step": state["step"]},
            model_dir / "checkpoints" / "card-view.pt",
        )
    elif (model_dir / CARD_VIEW_FILE).is_file():
        log(f"export: no card-view run at {best.parent}, keeping the model folder's card view")
    else:
        return None
    return {
        "file": CARD_VIEW_FILE,
        "size": CARD_VIEW_SIZE,
        "span": CARD_VIEW_SPAN,
        "weight": CARD_VIEW_WEIGHT,
    }


def train_card_view_step(recipe: Recipe, log: Log = print) -> None:
    """Render the card views (faces, procedural decks, scenes) and train the card-view network
    in ``runs/card_view/run``; an interrupted run resumes there."""
    import numpy as np

    from scorekeeper.synth.faces import load_face_packs
    from scorekeeper.training import card_view as cv
    from scorekeeper.training.face_crops import procedural_packs

    if not (recipe.detection_set / "images" / "train").is_dir():
        raise TrainingSetupError(
            f"no scenes at {recipe.detection_set / 'images' / 'train'}: run the data step first"
        )
    settings = recipe.card_view
    parts = [cv.scene_card_views(recipe.detection_set, "train")]
    if recipe.faces:
        packs = load_face_packs(recipe.faces)
        parts.append(
            cv.face_card_views(packs, per_index=settings.face_views_per_index, seed=recipe.seed)
        )
    if settings.procedural_packs:
        parts.append(
            cv.face_card_views(
                procedural_packs(settings.procedural_packs, seed=recipe.seed),
                per_index=settings.procedural_views_per_index,
                seed=recipe.seed + 1,
            )
        )
    views = np.concatenate([p[0] for p in parts])
    labels = np.concatenate([p[1] for p in parts])
    val = cv.scene_card_views(recipe.detection_set, "val")
    log(f"card views: {len(views)} to train on, {len(val[0])} to validate on")
    run = recipe.card_view_run
    committed = recipe.model_dir / "checkpoints" / "card-view.pt"
    # As for the classifier: --resume without an interrupted run starts from the committed weights.
    fresh_resume = recipe.resume and not (run / "last.pt").is_file()
    init = committed if fresh_resume and committed.is_file() else None
    cv.train_card_view(views, labels, val, run, settings, init=init, log=log)


def export_model(recipe: Recipe, log: Log = print) -> None:
    """The runs' best weights to ONNX, ``reader.json`` and stripped checkpoints in the model
    folder; a stage no run trained keeps the folder's own."""
    from scorekeeper.training.detector import export_detector, strip_checkpoint
    from scorekeeper.vision.reader_config import CLASSIFIER_CLASSES

    model_dir = recipe.model_dir
    checkpoints = model_dir / "checkpoints"
    det_weights = recipe.runs / "detector" / "run" / "weights"
    det_best = (
        det_weights / "best.pt" if (det_weights / "best.pt").is_file() else det_weights / "last.pt"
    )
    cls_best = recipe.runs / "classifier" / "run" / "best.pt"
    # A run that fine-tuned only the classifier (``--steps classifier,export --resume``) keeps the
    # detector the model folder already has.
    keep_detector = not det_best.is_file() and (model_dir / "index-detector.onnx").is_file()
    # One that trained only the card view (``--steps card_view,export``) keeps both stages.
    keep_classifier = (
        not cls_best.is_file()
        and (model_dir / CLASSIFIER_FILE).is_file()
        and (model_dir / "reader.json").is_file()
    )
    for path, kept in ((det_best, keep_detector), (cls_best, keep_classifier)):
        if not kept and not path.is_file():
            raise TrainingSetupError(f"no trained weights at {path}: run the training steps first")
    if keep_detector:
        log(f"export: no detector run at {det_weights}, keeping the model folder's detector")
    else:
        export_detector(det_best, model_dir / "index-detector.onnx", imgsz=recipe.detector.imgsz)
        strip_checkpoint(det_best, checkpoints / "index-detector.pt")
    classifier_config: dict[str, Any] = {
        "file": CLASSIFIER_FILE,
        "int8": True,
        "crop_size": recipe.classifier.size,
        "crop_margin": recipe.classifier.margin,
        "views": CLASSIFIER_VIEWS,
        "first_view_sure": CLASSIFIER_FIRST_VIEW_SURE,
        "joint_corners": CLASSIFIER_JOINT_CORNERS,
        "classes": list(CLASSIFIER_CLASSES),
    }
    if keep_classifier:
        log(f"export: no classifier run at {cls_best.parent}, keeping the folder's classifier")
        kept = json.loads((model_dir / "reader.json").read_text())["classifier"]
        classifier_config = {k: v for k, v in kept.items() if k != "card_view"}
    else:
        _export_classifier_run(recipe, cls_best, classifier_config)
    card_view = _export_card_view(recipe, log)
    if card_view is not None:
        classifier_config["card_view"] = card_view
    config: dict[str, Any] = {
        "format": 1,
        "detector": {
            "file": "index-detector.onnx",
            "size": 640,
            "scales": list(DETECTOR_SCALES),
            "train_imgsz": recipe.detector.imgsz,
            "classes": ["index"],
        },
        "classifier": classifier_config,
        "thresholds": {"index_conf": 0.25, "nms_iou": 0.5, "card_prob": 0.5, "corner_reach": 7.0},
        "recipe": recipe.to_json(),
    }
    existing = model_dir / "reader.json"
    if existing.is_file():  # keep thresholds and sizes someone tuned by measuring
        old = json.loads(existing.read_text())
        config["thresholds"] = old.get("thresholds", config["thresholds"])
        config["detector"]["size"] = old.get("detector", {}).get("size", 640)
        config["detector"]["scales"] = old.get("detector", {}).get("scales", list(DETECTOR_SCALES))
        config["classifier"]["views"] = old.get("classifier", {}).get("views", CLASSIFIER_VIEWS)
        config["classifier"]["first_view_sure"] = old.get("classifier", {}).get(
            "first_view_sure", CLASSIFIER_FIRST_VIEW_SURE
        )
        config["classifier"]["joint_corners"] = old.get("classifier", {}).get(
            "joint_corners", CLASSIFIER_JOINT_CORNERS
        )
        if keep_detector:
            config["detector"]["train_imgsz"] = old.get("detector", {}).get(
                "train_imgsz", recipe.detector.imgsz
            )
        config["recipe"] = _recipe_of_kept_stages(
            config["recipe"],
            old.get("recipe"),
            detector=keep_detector,
            classifier=keep_classifier,
            card_view=not (recipe.card_view_run / "best.pt").is_file(),
        )
    (model_dir / "reader.json").write_text(json.dumps(config, indent=2) + "\n")
    log(f"export: {model_dir}")
    choose_thresholds(
        model_dir,
        recipe.detection_set,
        realcards=recipe.realcards,
        work=recipe.runs,
        # The detector the folder already had keeps the index_conf chosen for it.
        hold_index_conf=config["thresholds"].get("index_conf") if keep_detector else None,
        log=log,
    )


def _recipe_of_kept_stages(
    ran: dict[str, Any],
    before: dict[str, Any] | None,
    *,
    detector: bool,
    classifier: bool,
    card_view: bool,
) -> dict[str, Any]:
    """The recipe ``reader.json`` records: a stage this run kept is described as it was made (the
    folder's recipe), not by this run's settings for a stage it never trained. An export alone
    keeps the whole recipe."""
    if not before:
        return ran
    if detector and classifier and card_view:
        return before
    recorded = dict(ran)
    kept = {"detector": detector, "classifier": classifier, "card_view": card_view}
    for stage, was_kept in kept.items():
        if was_kept and stage in before:
            recorded[stage] = before[stage]
    return recorded


def choose_thresholds(
    model_dir: Path,
    detection_set: Path | None,
    *,
    realcards: Path | None = None,
    work: Path | None = None,
    limit: int = 100,
    hold_index_conf: float | None = None,
    log: Log = print,
) -> dict[str, Any]:
    """Fit the classifier's temperature and choose ``index_conf`` and ``card_prob`` in
    ``reader.json`` (see :mod:`scorekeeper.training.thresholds`).

    On real-like frames when ``realcards`` is given (its webcam-scale view, written under
    ``work``), else on the first ``limit`` images of the synthetic validation split."""
    from scorekeeper.rules.cards import DECK
    from scorekeeper.training.thresholds import INDEX_CONFS, choose_on
    from scorekeeper.vision import evaluate as ev

    if realcards is not None and (realcards / "manifest.jsonl").is_file():
        from scorekeeper.vision.webcam_scale import write_webcam_scale_view

        view = write_webcam_scale_view(
            realcards, (work or model_dir.parent) / "realcards-dev-webcam-scale"
        )
        # A Sueca deck has no 8, 9, 10 or joker: photos holding one are not what a table shows,
        # and the false cards they make would choose thresholds for a game nobody plays.
        images = [image for image in ev.labelled_images(view) if (image.classes < len(DECK)).all()]
        on = (
            f"the webcam-scale view of {realcards.name} ({len(images)} photos with Sueca cards "
            "only)"
        )
    elif detection_set is not None:
        images = list(ev.labelled_images(detection_set, "val", limit=limit))
        on = f"synthetic val, first {limit} images"
    else:
        raise TrainingSetupError(
            "no frames to choose the thresholds on: give --realcards or build the data"
        )
    index_confs = INDEX_CONFS if hold_index_conf is None else (hold_index_conf,)
    choice = choose_on(model_dir, images, on=on, index_confs=index_confs)
    log(f"thresholds: {choice}")
    return choice


def evaluate_model(
    model_dir: Path, *, detection_set: Path | None, realcards: Path | None, log: Log = print
) -> dict[str, Any]:
    """Every figure of the model card (``benchmarks/vision_eval.py`` prints the same)."""
    from scorekeeper.vision.evaluate import measure_all

    return measure_all(
        model_dir, synthetic=detection_set, realcards=realcards, real_sizes=REAL_SIZES, log=log
    )
