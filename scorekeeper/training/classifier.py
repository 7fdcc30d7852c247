"""Stage 2: a small CNN that names a corner-index crop (40 cards + ``not_a_card``).

Data comes from what ``scorekeeper dataset build`` writes:

* the detection set (``images/``, ``labels/`` with the 40 card classes): every labelled index box
  is cut out with extra context once (:func:`extract_context_crops`), and each training step cuts
  the classifier's square from it with a jittered box (:func:`jittered_crop`), through the same
  :func:`scorekeeper.vision.crops.crop_square` the reader uses at run time;
* the crop set (``train/<class>/``, ``val/<class>/``), mostly for its ``not_a_card`` examples
  (8, 9, 10, jokers, backs, pips, table), resized to the classifier's square;
* where the caller hands them in, context crops cut around the detector's own boxes
  (:mod:`scorekeeper.training.framed_crops`), jittered like the others.

Checkpoints (``last.pt``, ``best.pt``) are written every epoch, so a run can be resumed.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from scorekeeper.rules.cards import DECK, Card, Suit
from scorekeeper.training.precision import autocast, choose_precision, scratch_step
from scorekeeper.vision.crops import crop_square
from scorekeeper.vision.reader_config import CLASSIFIER_CLASSES, NOT_A_CARD

GREY_SHARE = 0.25
"""Crops shown without colour. A third of the real dev photos are black and white, and a dim or
badly white-balanced camera washes colour out too: a classifier that tells hearts from spades by
colour alone misreads the suit of about one real index in five, so shape must carry it."""
STRETCH_SHARE = 0.4
"""Crops squeezed along one axis. A webcam not straight above the table foreshortens every card
(30 degrees off the vertical shortens it to 0.87), and the real dev photos were resized to 640x640
without keeping their 3:4 aspect; a classifier never shown either is sure of only ~60% of the
real labelled indices."""
STRETCH_RANGE = (0.72, 1.0)
STROKE_SHARE = 0.0
"""Crops whose ink is made a pixel bolder or thinner (:func:`stroke`); off in the shipped recipe:
at 0.3 it names real index crops better (top-1 0.895 -> 0.920) but the tracker, reading rendered
deal videos with it, rebuilt 16 of 20 deals against 19 without it."""
JPEG_SHARE = 0.3
"""Crops passed through JPEG at low quality, as a webcam's MJPEG stream and phone photos are."""
WEBCAM_SHARE = 0.7
"""Face crops made the way a webcam makes them (:func:`webcam_view`): the index rendered at
``WEBCAM_INDEX_PX``, blurred by the lens, noised by the sensor and JPEG-compressed at that size,
then enlarged to the classifier's square as the reader enlarges a small crop. A webcam a metre
above the table shows indices 13-37 px tall; a classifier that never saw one so small is sure of
the wrong suit there (a soft club and a soft spade are both a dark blob). Only the crops cut from
flat faces (:attr:`CropData.face_contexts`) are made so: a scene crop is already rendered at its
own size, blur and light, and made into a webcam view again it came out softer and darker than a
real webcam's crops (sharpness 1.3 against 1.8, brightness 84-104 against 181)."""
WEBCAM_INDEX_PX = (13.0, 37.0)
QUARTER_TURN_SHARE = 0.5
"""Crops turned a random quarter turn. Scene crops come at every angle already; the deal-video
crops lie near the four seats' angles and the face crops near upright, and the reader averages
quarter-turned views of one crop (:attr:`ReaderConfig.views`), so every turn should be as familiar
as upright."""
CLUB_SPADE_WEIGHT = 1.0
"""How much more often clubs and spades are drawn than the other classes (1.0: as often)."""
CONTEXT_MARGIN = 0.7
CONTEXT_SIZE = 96
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp")


def build_network(
    num_classes: int = len(CLASSIFIER_CLASSES), width: int = 32, *, first_stride: int = 1
) -> Any:
    """A 7-conv CNN for 48 x 48 crops (0.29 M parameters at width 24, 0.52 M at 32); takes RGB in
    [0, 1]. With ``first_stride`` 2 the first layer halves its input: the same network for inputs
    twice as large (the card view's 80 x 80) at about the same cost."""
    from torch import nn

    def block(cin: int, cout: int, stride: int = 1) -> list[Any]:
        return [
            nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False),
            nn.BatchNorm2d(cout),
            nn.ReLU(inplace=True),
        ]

    w = width
    layers = [
        *block(3, w, first_stride),
        *block(w, w),
        nn.MaxPool2d(2),
        *block(w, 2 * w),
        *block(2 * w, 2 * w),
        nn.MaxPool2d(2),
        *block(2 * w, 4 * w),
        *block(4 * w, 4 * w),
        nn.MaxPool2d(2),
        *block(4 * w, 6 * w),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Dropout(0.2),
        nn.Linear(6 * w, num_classes),
    ]
    return nn.Sequential(*layers)


# -- data ------------------------------------------------------------------------------------------


def _class_of_folder(name: str) -> int | None:
    if name.lower() in {NOT_A_CARD, "not-a-card", "notacard", "other", "background"}:
        return len(DECK)
    try:
        return Card.parse(name).index
    except ValueError:
        pass
    if name.isdigit() and 0 <= int(name) <= len(DECK):
        return int(name)
    return None


def detection_images(
    dataset: Path, split: str, *, limit: int | None = None, seed: int = 0
) -> list[Path]:
    """The images of a YOLO detection set's ``split``, sorted; ``limit`` of them drawn at random."""
    images = sorted(
        p for p in (dataset / "images" / split).iterdir() if p.suffix.lower() in IMAGE_SUFFIXES
    )
    if limit is not None and len(images) > limit:
        rng = np.random.default_rng(seed)
        images = [images[i] for i in sorted(rng.choice(len(images), limit, replace=False))]
    return images


def extract_context_crops(
    dataset: Path, split: str, *, limit: int | None = None, seed: int = 0, min_px: float = 12.0
) -> tuple[np.ndarray, np.ndarray]:
    """Context crops (N x 96 x 96 x 3 BGR) around the labelled indices of a YOLO detection set.

    Indices whose box is under ``min_px`` on its longer side are skipped: at 4-10 px nobody can
    read them, and training on them only slows the classifier down.
    """
    import cv2

    crops: list[np.ndarray] = []
    labels: list[int] = []
    for image_path in detection_images(dataset, split, limit=limit, seed=seed):
        label_path = dataset / "labels" / split / (image_path.stem + ".txt")
        if not label_path.is_file():
            continue
        rows = [line.split() for line in label_path.read_text().splitlines() if line.strip()]
        if not rows:
            continue
        frame = cv2.imread(str(image_path), cv2.IMREAD_COLOR)
        if frame is None:
            continue
        height, width = frame.shape[:2]
        for row in rows:
            cls = int(float(row[0]))
            if not 0 <= cls < len(DECK):
                continue
            cx, cy, bw, bh = (float(v) for v in row[1:5])
            box = (
                (cx - bw / 2) * width,
                (cy - bh / 2) * height,
                (cx + bw / 2) * width,
                (cy + bh / 2) * height,
            )
            if max(bw * width, bh * height) < min_px:
                continue
            crops.append(crop_square(frame, box, margin=CONTEXT_MARGIN, size=CONTEXT_SIZE))
            labels.append(cls)
    if not crops:
        return np.zeros((0, CONTEXT_SIZE, CONTEXT_SIZE, 3), np.uint8), np.zeros((0,), np.int64)
    return np.stack(crops), np.asarray(labels, np.int64)


def load_crop_folders(
    root: Path,
    split: str,
    *,
    size: int,
    margin: float = 0.2,
    only: Iterable[int] | None = None,
    limit_per_class: int | None = None,
    seed: int = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """Crops from ``root/split/<class>/*.png`` resized to ``size`` (BGR), with class ids."""
    import cv2

    wanted = set(only) if only is not None else None
    rng = np.random.default_rng(seed)
    crops: list[np.ndarray] = []
    labels: list[int] = []
    folder = root / split
    if not folder.is_dir():
        return np.zeros((0, size, size, 3), np.uint8), np.zeros((0,), np.int64)
    for class_dir in sorted(p for p in folder.iterdir() if p.is_dir()):
        cls = _class_of_folder(class_dir.name)
        if cls is None or (wanted is not None and cls not in wanted):
            continue
        files = sorted(p for p in class_dir.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if limit_per_class is not None and len(files) > limit_per_class:
            files = [
                files[i] for i in sorted(rng.choice(len(files), limit_per_class, replace=False))
            ]
        for path in files:
            image = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if image is None:
                continue
            crops.append(_square_resize(image, size, margin))
            labels.append(cls)
    if not crops:
        return np.zeros((0, size, size, 3), np.uint8), np.zeros((0,), np.int64)
    return np.stack(crops), np.asarray(labels, np.int64)


def _square_resize(image: np.ndarray, size: int, margin: float) -> np.ndarray:
    """A folder crop is framed around its index: treat the whole crop as the index box."""
    h, w = image.shape[:2]
    return crop_square(image, (0.0, 0.0, float(w), float(h)), margin=margin, size=size)


def jittered_crop(
    context: np.ndarray,
    rng: np.random.Generator,
    *,
    margin: float,
    size: int,
    shift: float = 0.12,
    zoom: tuple[float, float] = (0.85, 1.25),
) -> np.ndarray:
    """The classifier's square cut from a context crop, with the index box shifted and rescaled."""
    side = CONTEXT_SIZE / (1.0 + 2.0 * CONTEXT_MARGIN)
    centre = CONTEXT_SIZE / 2.0
    cx = centre + rng.uniform(-shift, shift) * side
    cy = centre + rng.uniform(-shift, shift) * side
    s = side * rng.uniform(*zoom)
    return crop_square(
        context, (cx - s / 2, cy - s / 2, cx + s / 2, cy + s / 2), margin=margin, size=size
    )


def centre_crop(context: np.ndarray, *, margin: float, size: int) -> np.ndarray:
    side = CONTEXT_SIZE / (1.0 + 2.0 * CONTEXT_MARGIN)
    c = CONTEXT_SIZE / 2.0
    return crop_square(
        context, (c - side / 2, c - side / 2, c + side / 2, c + side / 2), margin=margin, size=size
    )


def photometric(crop: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Colour loss, light, white balance, low resolution, blur, noise: what a café webcam does to an
    index."""
    import cv2

    out: np.ndarray = crop.astype(np.float32)
    size = crop.shape[0]
    if rng.random() < GREY_SHARE:
        out = np.repeat(out.mean(axis=2, keepdims=True), 3, axis=2)
    if rng.random() < 0.3:  # seen from further away: down to ~14-36 px and back
        small = int(rng.uniform(14, 36))
        out = cv2.resize(
            cv2.resize(out, (small, small), interpolation=cv2.INTER_AREA),
            (size, size),
            interpolation=cv2.INTER_LINEAR,
        )
    if rng.random() < 0.25:
        k = rng.choice([3, 5])
        out = cv2.GaussianBlur(out, (int(k), int(k)), 0)
    gain = rng.uniform(0.6, 1.3) * rng.uniform(0.88, 1.12, size=3)
    out = out * gain[None, None, :] + rng.uniform(-30, 30)
    if rng.random() < 0.5:
        contrast = rng.uniform(0.6, 1.2)
        out = (out - out.mean()) * contrast + out.mean()
    if rng.random() < 0.4:
        out = out + rng.normal(0, rng.uniform(2, 10), out.shape)
    return np.clip(out, 0, 255).astype(np.uint8)


def stretch(crop: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Squeeze the crop along a random direction by a factor in :data:`STRETCH_RANGE`."""
    import cv2

    size = crop.shape[0]
    angle = rng.uniform(0.0, np.pi)
    direction = np.array([np.cos(angle), np.sin(angle)])
    factor = rng.uniform(*STRETCH_RANGE)
    # Squeeze along ``direction`` and grow slightly across it, keeping the area about the same.
    linear = (np.eye(2) + (factor - 1.0) * np.outer(direction, direction)) / np.sqrt(factor)
    centre = np.array([size / 2.0, size / 2.0])
    matrix = np.hstack([linear, (centre - linear @ centre)[:, None]])
    return cv2.warpAffine(crop, matrix, (size, size), borderMode=cv2.BORDER_REPLICATE)


def stroke(crop: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Bolder or thinner ink: a 2 x 2 minimum (dark strokes grow) or maximum (they shrink)."""
    import cv2

    kernel = np.ones((2, 2), np.uint8)
    return cv2.erode(crop, kernel) if rng.random() < 0.5 else cv2.dilate(crop, kernel)


def jpeg(crop: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    import cv2

    ok, encoded = cv2.imencode(".jpg", crop, [cv2.IMWRITE_JPEG_QUALITY, int(rng.uniform(25, 85))])
    # Decoding what was just encoded does not fail; the check only tells mypy so.
    decoded = cv2.imdecode(encoded, cv2.IMREAD_COLOR) if ok else None
    return crop if decoded is None else decoded


def webcam_view(
    crop: np.ndarray,
    rng: np.random.Generator,
    *,
    margin: float,
    index_px: tuple[float, float] = WEBCAM_INDEX_PX,
) -> np.ndarray:
    """``crop`` (the classifier's square) as a webcam showing its index at a height drawn from
    ``index_px`` would deliver it, enlarged back the way
    :func:`scorekeeper.vision.crops.crop_square` enlarges."""
    import cv2

    size = crop.shape[0]
    height = rng.uniform(*index_px)
    native = max(6, round(height * (1.0 + 2.0 * margin)))
    image = crop
    lens = rng.uniform(0.0, 0.7) * size / native  # blur in native pixels, applied before sampling
    if lens > 0.3:
        image = cv2.GaussianBlur(image, (0, 0), lens)
    small: np.ndarray = cv2.resize(image, (native, native), interpolation=cv2.INTER_AREA).astype(
        np.float32
    )
    if rng.random() < 0.25:  # a hand or the camera moving during the exposure
        length = int(rng.integers(2, 4))
        small = motion_smear(small, length, rng.uniform(0, 180))
    if rng.random() < 0.3:  # a dim room: the sensor's gain lifts the noise with the picture
        small = small * rng.uniform(0.35, 0.7)
    small = small + rng.normal(0.0, rng.uniform(1.0, 8.0), small.shape)
    small = np.clip(small, 0, 255).astype(np.uint8)
    ok, encoded = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, int(rng.uniform(20, 80))])
    # Decoding what was just encoded does not fail; the check only tells mypy so.
    decoded = cv2.imdecode(encoded, cv2.IMREAD_COLOR) if ok else None
    if decoded is not None:
        small = decoded
    return cv2.resize(small, (size, size), interpolation=cv2.INTER_LINEAR)


def motion_smear(image: np.ndarray, length: int, degrees: float) -> np.ndarray:
    """``image`` smeared along a line ``length`` pixels long at ``degrees``: a hand or the camera
    moving during the exposure."""
    import cv2

    kernel = np.zeros((length, length), np.float32)
    kernel[length // 2, :] = 1.0 / length
    turn = cv2.getRotationMatrix2D(((length - 1) / 2, (length - 1) / 2), degrees, 1.0)
    turned = np.asarray(cv2.warpAffine(kernel, turn, (length, length)), np.float32)
    smeared: np.ndarray = cv2.filter2D(image, -1, turned / max(float(turned.sum()), 1e-6))
    return smeared


def rotate_small(crop: np.ndarray, rng: np.random.Generator, degrees: float = 12.0) -> np.ndarray:
    import cv2

    size = crop.shape[0]
    matrix = cv2.getRotationMatrix2D((size / 2, size / 2), rng.uniform(-degrees, degrees), 1.0)
    return cv2.warpAffine(crop, matrix, (size, size), borderMode=cv2.BORDER_REPLICATE)


@dataclass
class CropData:
    """Everything the classifier trains and validates on, held in memory."""

    context: np.ndarray  # N x 96 x 96 x 3: jittered at every step
    context_labels: np.ndarray
    fixed: np.ndarray  # M x size x size x 3: used as they are (plus photometric changes)
    fixed_labels: np.ndarray
    val: np.ndarray  # V x size x size x 3
    val_labels: np.ndarray
    face_contexts: int = 0
    """The first ``face_contexts`` context crops were cut from flat faces (with the hard negatives
    handed in beside them); the rest from rendered scenes."""

    def summary(self) -> dict[str, int]:
        return {
            "train_context_crops": len(self.context),
            "train_folder_crops": len(self.fixed),
            "train_not_a_card": int(
                (self.context_labels == len(DECK)).sum() + (self.fixed_labels == len(DECK)).sum()
            ),
            "val_crops": len(self.val),
        }


def load_crop_data(
    *,
    detection_sets: list[Path],
    crop_sets: list[Path],
    size: int,
    margin: float,
    seed: int = 0,
    max_images: int | None = None,
    face_crops: tuple[np.ndarray, np.ndarray] | None = None,
    framed_crops: tuple[np.ndarray, np.ndarray] | None = None,
) -> CropData:
    """Scene crops, folder crops and (optionally) context crops rendered from faces and context
    crops framed by a detector (:mod:`scorekeeper.training.framed_crops`), in memory."""
    contexts, context_labels, fixed, fixed_labels, val, val_labels = [], [], [], [], [], []
    if face_crops is not None:
        contexts.append(face_crops[0])
        context_labels.append(face_crops[1])
    for dataset in detection_sets:
        c, y = extract_context_crops(dataset, "train", limit=max_images, seed=seed)
        contexts.append(c)
        context_labels.append(y)
        vc, vy = extract_context_crops(dataset, "val", seed=seed)
        val.append(
            np.stack([centre_crop(x, margin=margin, size=size) for x in vc])
            if len(vc)
            else np.zeros((0, size, size, 3), np.uint8)
        )
        val_labels.append(vy)
    if framed_crops is not None:
        contexts.append(framed_crops[0])
        context_labels.append(framed_crops[1])
    for root in crop_sets:
        f, y = load_crop_folders(root, "train", size=size, margin=margin, seed=seed)
        fixed.append(f)
        fixed_labels.append(y)
        vf, vy = load_crop_folders(root, "val", size=size, margin=margin, seed=seed)
        val.append(vf)
        val_labels.append(vy)

    def cat(parts: list[np.ndarray], shape: tuple[int, ...], dtype: Any) -> np.ndarray:
        parts = [p for p in parts if len(p)]
        return np.concatenate(parts) if parts else np.zeros((0, *shape), dtype)

    return CropData(
        context=cat(contexts, (CONTEXT_SIZE, CONTEXT_SIZE, 3), np.uint8),
        context_labels=cat(context_labels, (), np.int64),
        fixed=cat(fixed, (size, size, 3), np.uint8),
        fixed_labels=cat(fixed_labels, (), np.int64),
        val=cat(val, (size, size, 3), np.uint8),
        val_labels=cat(val_labels, (), np.int64),
        face_contexts=len(face_crops[0]) if face_crops is not None else 0,
    )


def to_tensor(batch_bgr: np.ndarray) -> Any:
    import torch

    rgb = (
        np.ascontiguousarray(batch_bgr[:, :, :, ::-1].transpose(0, 3, 1, 2), dtype=np.float32)
        / 255.0
    )
    return torch.from_numpy(rgb)


# -- training --------------------------------------------------------------------------------------


@dataclass
class ClassifierRecipe:
    epochs: int = 12
    batch: int = 128
    lr: float = 2e-3
    weight_decay: float = 5e-4
    label_smoothing: float = 0.05
    size: int = 48
    margin: float = 0.2
    width: int = 32
    seed: int = 0
    threads: int = 2
    device: str = "cpu"
    steps_per_epoch: int | None = None
    """Default: one pass over the training crops."""
    face_crops_per_index: int = 12
    """Turned crops cut from each index of each face of the packs (see :mod:`.face_crops`)."""
    procedural_packs: int = 120
    """Procedural decks whose faces (8, 9, 10 and joker included) add face crops, 3 per index."""
    webcam_share: float = WEBCAM_SHARE
    webcam_index_px: tuple[float, float] = WEBCAM_INDEX_PX
    club_spade_weight: float = CLUB_SPADE_WEIGHT
    quarter_turn_share: float = QUARTER_TURN_SHARE
    precision: str = "fp32"
    """What the steps compute in (:mod:`scorekeeper.training.precision`): ``auto`` takes bfloat16
    where trial steps show it faster on this CPU. On a CPU with AMX a step of 128 crops took 0.23 s
    in bfloat16 against 0.60 s in float32."""


def training_view(
    data: CropData, i: int, rng: np.random.Generator, recipe: ClassifierRecipe
) -> np.ndarray:
    """Training crop ``i`` (context crops first, then fixed ones) as one step sees it."""
    n_context = len(data.context)
    if i < n_context:
        crop = jittered_crop(data.context[i], rng, margin=recipe.margin, size=recipe.size)
    else:
        crop = data.fixed[i - n_context]
    if recipe.quarter_turn_share and rng.random() < recipe.quarter_turn_share:
        crop = np.ascontiguousarray(np.rot90(crop, int(rng.integers(1, 4))))
    if rng.random() < 0.5:
        crop = rotate_small(crop, rng)
    if rng.random() < STRETCH_SHARE:
        crop = stretch(crop, rng)
    # Off, no draw: the random stream stays the one the shipped weights trained on.
    if STROKE_SHARE and rng.random() < STROKE_SHARE:
        crop = stroke(crop, rng)
    crop = photometric(crop, rng)
    if i < data.face_contexts and rng.random() < recipe.webcam_share:
        return webcam_view(crop, rng, margin=recipe.margin, index_px=recipe.webcam_index_px)
    if rng.random() < JPEG_SHARE:
        return jpeg(crop, rng)
    return crop


def train_classifier(
    data: CropData,
    out_dir: Path,
    recipe: ClassifierRecipe,
    *,
    init: Path | None = None,
    resume: bool = False,
    log: Callable[[str], object] = print,
    progress: Callable[[int, int], None] | None = None,
    budget_seconds: float | None = None,
) -> Path:
    """Train (or resume) the classifier; returns the path of ``best.pt``. Writes ``log.jsonl``.

    ``progress(done, total)`` is called after every step (for a progress bar with time left). With
    ``budget_seconds`` (a fine-tune; one epoch) the number of steps is not fixed beforehand: the
    step rate is measured in the run itself, after the first steps (which pay the start-up), and the
    learning-rate schedule is stretched to end when the budget does (:class:`BudgetSchedule`)."""
    import torch
    from torch import nn

    torch.set_num_threads(recipe.threads)
    torch.manual_seed(recipe.seed)
    out_dir.mkdir(parents=True, exist_ok=True)
    device = torch.device(
        recipe.device if recipe.device != "cpu" and torch.cuda.is_available() else "cpu"
    )
    last = out_dir / "last.pt"
    resuming = resume and last.is_file()
    start_from = last if resuming else init
    state = (
        torch.load(start_from, map_location=device, weights_only=False)
        if start_from is not None
        else None
    )
    if state is not None:
        # A checkpoint fixes the network's width: resuming or fine-tuning keeps the one it had.
        recipe.width = int(state.get("recipe", {}).get("width", recipe.width))
    # Channels-last convolutions take ~0.8 x the time of the default layout on these CPUs.
    model = build_network(width=recipe.width).to(device, memory_format=torch.channels_last)
    n_train = len(data.context) + len(data.fixed)
    if n_train == 0:
        raise ValueError("no classifier training crops: build the data set first")
    steps = recipe.steps_per_epoch or max(1, n_train // recipe.batch)
    trials_began = time.monotonic()
    choice = choose_precision(recipe.precision, lambda: _trial_step(model, data, recipe, device))
    precision = choice.precision
    log(f"classifier: {choice.describe()}")
    optimizer = torch.optim.AdamW(
        model.parameters(), lr=recipe.lr, weight_decay=recipe.weight_decay
    )
    budget: BudgetSchedule | None = None
    if budget_seconds is not None:
        recipe.epochs, resuming = 1, False
        # The trial steps are paid from the budget too.
        budget = BudgetSchedule(max(0.0, budget_seconds - (time.monotonic() - trials_began)))
        steps = budget.total
        scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, budget.factor)
    else:
        scheduler = torch.optim.lr_scheduler.OneCycleLR(
            optimizer, max_lr=recipe.lr, total_steps=steps * recipe.epochs, pct_start=0.1
        )
    total = steps * recipe.epochs
    start_epoch, best_acc = 0, -1.0
    if resuming and state is not None:
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        start_epoch, best_acc = int(state["epoch"]) + 1, float(state.get("best_acc", -1.0))
        log(f"classifier: resuming {last} at epoch {start_epoch}")
    elif state is not None:
        model.load_state_dict(state.get("model", state))
        log(f"classifier: starting from {init}")

    # Class balance: sample so that every class, not_a_card included, is seen about equally.
    labels = np.concatenate([data.context_labels, data.fixed_labels])
    counts = np.bincount(labels, minlength=len(CLASSIFIER_CLASSES)).astype(np.float64)
    weights = 1.0 / np.maximum(counts[labels], 1.0)
    black = np.isin(labels, [card.index for card in DECK if card.suit in (Suit.ESPADAS, Suit.PAUS)])
    weights[black] *= recipe.club_spade_weight
    weights /= weights.sum()
    criterion = nn.CrossEntropyLoss(label_smoothing=recipe.label_smoothing)
    rng = np.random.default_rng(recipe.seed + start_epoch)

    for epoch in range(start_epoch, recipe.epochs):
        model.train()
        began, seen, correct, loss_sum = time.time(), 0, 0, 0.0
        step = 0
        if budget is not None:
            budget.start(time.monotonic())
        while step < (budget.total if budget is not None else steps):
            step += 1
            picks = rng.choice(n_train, recipe.batch, p=weights)
            batch = np.empty((recipe.batch, recipe.size, recipe.size, 3), np.uint8)
            for j, i in enumerate(picks):
                batch[j] = training_view(data, int(i), rng, recipe)
            x = to_tensor(batch).to(device, memory_format=torch.channels_last)
            y = torch.from_numpy(labels[picks]).to(device)
            optimizer.zero_grad(set_to_none=True)
            with autocast(precision, device.type):
                out = model(x)
                loss = criterion(out, y)
            loss.backward()
            optimizer.step()
            if budget is not None:
                budget.observe(step, time.monotonic())
                total = budget.total
            scheduler.step()
            seen += len(picks)
            if progress is not None:
                progress(epoch * steps + seen // recipe.batch, total)
            correct += int((out.argmax(1) == y).sum())
            loss_sum += float(loss.detach()) * len(picks)
        acc = evaluate_classifier(model, data.val, data.val_labels, device=device)
        record = {
            "epoch": epoch,
            "train_loss": loss_sum / seen,
            "train_top1": correct / seen,
            "val_top1": acc,
            "seconds": round(time.time() - began, 1),
            "steps": step,
            "precision": precision,
        }
        if budget is not None and budget.seconds_per_step is not None:
            record["seconds_per_step"] = round(budget.seconds_per_step, 4)
        with (out_dir / "log.jsonl").open("a") as handle:
            handle.write(json.dumps(record) + "\n")
        log(
            f"classifier epoch {epoch + 1}/{recipe.epochs}: loss {record['train_loss']:.3f} "
            f"train {record['train_top1']:.3f} val {acc:.3f} ({record['seconds']} s)"
        )
        state = {
            "model": model.state_dict(),
            "optimizer": optimizer.state_dict(),
            "scheduler": scheduler.state_dict(),
            "epoch": epoch,
            "best_acc": max(best_acc, acc),
            "recipe": recipe.__dict__,
            "classes": list(CLASSIFIER_CLASSES),
        }
        torch.save(state, last)
        if acc >= best_acc:
            best_acc = acc
            torch.save(
                {
                    "model": model.state_dict(),
                    "epoch": epoch,
                    "val_top1": acc,
                    "recipe": recipe.__dict__,
                    "classes": list(CLASSIFIER_CLASSES),
                },
                out_dir / "best.pt",
            )
    return out_dir / "best.pt"


def _trial_step(
    model: Any, data: CropData, recipe: ClassifierRecipe, device: Any
) -> Callable[[bool], None]:
    """A classifier step on one batch of training views, for timing the two precisions (the
    training's random stream untouched)."""
    import torch
    from torch import nn

    rng = np.random.default_rng(recipe.seed + 1)
    picks = rng.choice(len(data.context) + len(data.fixed), recipe.batch)
    batch = np.stack([training_view(data, int(i), rng, recipe) for i in picks])
    x = to_tensor(batch).to(device, memory_format=torch.channels_last)
    y = torch.zeros(recipe.batch, dtype=torch.long, device=device)
    return scratch_step(model, x, lambda out: nn.functional.cross_entropy(out, y), device.type)


class BudgetSchedule:
    """A learning-rate schedule that fits itself to a time budget measured in the run.

    The rate rises linearly over the first tenth of the steps and falls on a cosine to zero. How
    many steps the budget holds is guessed from the steps timed so far, skipping the first
    :data:`UNTIMED_STEPS` (they pay for the first allocations and the threads starting), and guessed
    again every step, so a machine that slows down mid-run shortens the schedule instead of
    overrunning.
    """

    UNTIMED_STEPS = 3
    FIRST_GUESS = 10_000
    """Steps assumed until the first timing (the rate stays in its warm-up meanwhile)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = float(seconds)
        self.total = self.FIRST_GUESS
        self.seconds_per_step: float | None = None
        self._began: float | None = None
        self._timed_from: tuple[int, float] | None = None

    def start(self, now: float) -> None:
        """The budget runs from here (the first step, which pays the start-up, included)."""
        self._began = now

    def observe(self, steps_done: int, now: float) -> None:
        if self._began is None:
            self._began = now
        if steps_done == self.UNTIMED_STEPS:
            self._timed_from = (steps_done, now)
        if self._timed_from is None or steps_done <= self._timed_from[0]:
            if now - self._began >= self.seconds:  # the untimed steps alone used the budget
                self.total = steps_done
            return
        first_step, first_time = self._timed_from
        self.seconds_per_step = (now - first_time) / (steps_done - first_step)
        left = self.seconds - (now - self._began)
        self.total = max(steps_done, steps_done + int(left / max(self.seconds_per_step, 1e-6)))

    def factor(self, step: int) -> float:
        """The share of the top learning rate at ``step``."""
        total = max(self.total, 1)
        warm = max(1, total // 10)
        if step < warm:
            return 0.04 + 0.96 * step / warm
        progress = min(1.0, (step - warm) / max(1, total - warm))
        return 0.5 * (1.0 + math.cos(math.pi * progress))


def evaluate_classifier(
    model: Any, crops: np.ndarray, labels: np.ndarray, *, device: Any = "cpu", batch: int = 512
) -> float:
    import torch

    if len(crops) == 0:
        return math.nan
    model.eval()
    correct = 0
    with torch.no_grad():
        for start in range(0, len(crops), batch):
            out = model(to_tensor(crops[start : start + batch]).to(device))
            correct += int((out.argmax(1).cpu().numpy() == labels[start : start + batch]).sum())
    return correct / len(crops)


def export_classifier(
    checkpoint: Path, onnx_path: Path, *, size: int = 48, width: int = 32
) -> Path:
    """Write the classifier as ONNX: input ``crops`` (N x 3 x size x size, RGB in [0, 1]), output
    logits."""
    import torch

    state = torch.load(checkpoint, map_location="cpu", weights_only=False)
    recipe = state.get("recipe", {})
    model = build_network(width=int(recipe.get("width", width)))
    model.load_state_dict(state["model"])
    return export_onnx(model, onnx_path, size=size, input_name="crops")


def export_onnx(model: Any, onnx_path: Path, *, size: int, input_name: str) -> Path:
    """Write a network of this module's shape as ONNX: input ``input_name`` (N x 3 x size x
    size, RGB in [0, 1]), output ``logits``."""
    import torch

    model.eval()
    dummy = torch.zeros(1, 3, size, size)
    onnx_path.parent.mkdir(parents=True, exist_ok=True)
    import warnings

    with warnings.catch_warnings():
        # The TorchScript exporter is chosen on purpose: the torch.export one needs onnxscript,
        # which the train extra does not install, and this plain CNN exports the same either way.
        # Its deprecation notices are about that choice, not about anything a user can fix.
        warnings.simplefilter("ignore", DeprecationWarning)
        torch.onnx.export(
            model,
            (dummy,),
            str(onnx_path),
            input_names=[input_name],
            output_names=["logits"],
            dynamic_axes={input_name: {0: "n"}, "logits": {0: "n"}},
            opset_version=17,
            dynamo=False,
        )
    return onnx_path
