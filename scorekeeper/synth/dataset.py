"""``scorekeeper dataset build``: synthetic café frames written as a YOLO data set (+ index crops).

Layout of ``--out DIR``::

    images/{train,val}/000123.jpg     the frames at --imgsz (long side), JPEG
    labels/{train,val}/000123.txt     "class cx cy w h" (normalised), one line per visible index
    data.yaml                         40 classes in DECK order (1 class "index": --single-class)
    crops/{train,val}/<7H|...|not_a_card>/000123_0.jpg   with --crops: index crops for the reader
    manifest.json                     options and counts (no clock: a seed gives identical files)

Image ``i`` draws everything from ``numpy.random.default_rng([seed, i])`` (its deck from its block
of 32), so the output does not depend on the number of workers.
"""

from __future__ import annotations

import json
import shutil
import time
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from multiprocessing import get_context
from pathlib import Path

import cv2
import numpy as np

from scorekeeper.rules.cards import DECK
from scorekeeper.synth import SynthError
from scorekeeper.synth.effects import EffectsConfig, apply_effects
from scorekeeper.synth.faces import FacePack, FaceStyle, ProceduralPack
from scorekeeper.synth.scene import Pack, Scene, SceneConfig, compose_scene
from scorekeeper.synth.tables import TableImages
from scorekeeper.vision.boxes import Box

NOT_A_CARD = "not_a_card"
CROP_CLASSES: tuple[str, ...] = tuple(c.notation for c in DECK) + (NOT_A_CARD,)
"""Folder names of the crop classifier's 41 classes: the 40 cards in DECK order, then the rest."""

BLOCK = 32
"""Consecutive images share a deck: faces are drawn once per block and workers take whole blocks."""


@dataclass(frozen=True)
class BuildOptions:
    out: Path
    images: int
    seed: int = 0
    imgsz: int = 640
    render_scale: float = 2.0
    """Frames are drawn at ``imgsz * render_scale`` (a 1280 px webcam for 640) and shrunk."""
    val_fraction: float = 0.1
    crops: bool = False
    crop_size: tuple[int, int] = (48, 64)
    """(width, height) of index crops: the classifier's input."""
    crop_jitter: float = 0.15
    single_class: bool = False
    procedural_fraction: float = 0.5
    """Share of blocks drawn with a procedural deck when ``--faces`` packs are given."""
    jpeg_quality: int = 92
    workers: int = 2
    scene: SceneConfig = field(default_factory=SceneConfig)
    effects: EffectsConfig = field(default_factory=EffectsConfig)

    def check(self) -> None:
        if self.images < 1:
            raise SynthError(f"--images {self.images}: ask for at least one image")
        if self.imgsz < 32:
            raise SynthError(f"--imgsz {self.imgsz}: use at least 32 pixels")
        if not 0 <= self.val_fraction < 1:
            raise SynthError(f"--val {self.val_fraction}: use a fraction from 0 to below 1")
        if self.render_scale < 1:
            raise SynthError(f"--render-scale {self.render_scale}: use 1 or more")


@dataclass
class ImageResult:
    index: int
    split: str
    class_ids: list[int]
    heights: list[float]
    """Heights of the labelled boxes in output pixels."""
    negatives: int
    crops: Counter[str]


@dataclass
class BuildReport:
    images: int = 0
    train: int = 0
    val: int = 0
    boxes: int = 0
    empty_images: int = 0
    per_class: Counter[int] = field(default_factory=Counter)
    heights: list[float] = field(default_factory=list)
    crops: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0

    @property
    def images_per_second(self) -> float:
        return self.images / self.seconds if self.seconds else 0.0

    def height_quantiles(self) -> dict[str, float]:
        if not self.heights:
            return {}
        q = np.percentile(self.heights, [0, 5, 25, 50, 75, 95, 100])
        return {
            k: round(float(v), 1)
            for k, v in zip(("min", "p5", "p25", "median", "p75", "p95", "max"), q, strict=True)
        }

    def to_json(self) -> dict[str, object]:
        """Counts only: the manifest must not change from run to run (no timings)."""
        return {
            "images": self.images,
            "train": self.train,
            "val": self.val,
            "boxes": self.boxes,
            "images_without_boxes": self.empty_images,
            "boxes_per_class": {DECK[k].notation: self.per_class[k] for k in range(len(DECK))},
            "index_height_px": self.height_quantiles(),
            "crops": dict(sorted(self.crops.items())),
        }


def split_of(index: int, val_fraction: float) -> str:
    """Every k-th image goes to val (k = 1 / fraction): stable whatever the total."""
    if val_fraction <= 0:
        return "train"
    k = max(2, round(1 / val_fraction))
    return "val" if index % k == k - 1 else "train"


def yolo_row(cls: int, box: Box, width: float, height: float) -> str:
    """One line of a YOLO label file: class, the box's centre and size as shares of the frame."""
    x1, y1, x2, y2 = box
    return (
        f"{cls} {(x1 + x2) / 2 / width:.6f} {(y1 + y2) / 2 / height:.6f} "
        f"{(x2 - x1) / width:.6f} {(y2 - y1) / height:.6f}"
    )


def data_yaml(*, single_class: bool) -> str:
    names = ["index"] if single_class else [c.notation for c in DECK]
    lines = [
        "# Written by scorekeeper dataset build. Class ids follow scorekeeper.rules.DECK.",
        (
            "# No 'path:': ultralytics then reads images/ and labels/ beside this file, "
            "wherever it is."
        ),
        "train: images/train",
        "val: images/val",
        f"nc: {len(names)}",
        "names:",
    ] + [f"  {i}: {name}" for i, name in enumerate(names)]
    return "\n".join(lines) + "\n"


def _prepare(out: Path, overwrite: bool) -> None:
    parts = ("images", "labels", "crops")
    if any((out / p).exists() and any((out / p).iterdir()) for p in parts):
        if not overwrite:
            raise SynthError(
                f"{str(out)!r} already holds a data set: choose a new --out or pass --overwrite"
            )
        for p in parts:
            shutil.rmtree(out / p, ignore_errors=True)
    for p in ("images", "labels"):
        for split in ("train", "val"):
            (out / p / split).mkdir(parents=True, exist_ok=True)


# ---------------------------------------------------------------------------------------------
# Workers


@dataclass
class _WorkerState:
    """What each worker process is handed once, then renders many images from."""

    options: BuildOptions
    packs: list[FacePack]
    tables: TableImages | None
    procedural: dict[tuple[int, ...], ProceduralPack] = field(default_factory=dict)


_STATE: _WorkerState | None = None


def _init_worker(
    options: BuildOptions, packs: Sequence[FacePack], tables: TableImages | None, threads: int
) -> None:
    global _STATE
    cv2.setNumThreads(threads)
    _STATE = _WorkerState(options=options, packs=list(packs), tables=tables)


def _worker_state() -> _WorkerState:
    if _STATE is None:
        raise RuntimeError("dataset worker used before _init_worker")
    return _STATE


def _procedural(seed_key: Sequence[int]) -> ProceduralPack:
    cache = _worker_state().procedural
    key = tuple(seed_key)
    if key not in cache:
        if len(cache) >= 6:
            cache.pop(next(iter(cache)))
        cache[key] = ProceduralPack(FaceStyle.random(np.random.default_rng(list(key))))
    return cache[key]


def _decks_for(
    index: int, options: BuildOptions, packs: Sequence[FacePack]
) -> tuple[Pack, ProceduralPack]:
    block = index // BLOCK
    rng = np.random.default_rng([options.seed, 1, block])
    distractors = _procedural((options.seed, 3, block))
    if packs and rng.random() >= options.procedural_fraction:
        return packs[int(rng.integers(len(packs)))], distractors
    return _procedural((options.seed, 2, block)), distractors


def _render_one(index: int) -> ImageResult:
    state = _worker_state()
    options, packs, tables = state.options, state.packs, state.tables
    split = split_of(index, options.val_fraction)
    pack, distractor_pack = _decks_for(index, options, packs)
    rng = np.random.default_rng([options.seed, 0, index])
    aspect = float(rng.choice(options.scene.aspects))
    out_w = options.imgsz
    out_h = int(round(options.imgsz / aspect / 2) * 2)
    frame_w = round(out_w * options.render_scale)
    frame_h = round(out_h * options.render_scale)
    scene = compose_scene(
        rng,
        pack=pack,
        distractor_pack=distractor_pack,
        width=frame_w,
        height=frame_h,
        output_scale=out_w / frame_w,
        config=options.scene,
        tables=tables,
    )
    frame = apply_effects(scene.image, rng, options.effects)
    name = f"{index:06d}"
    small = cv2.resize(frame, (out_w, out_h), interpolation=cv2.INTER_AREA)
    cv2.imwrite(
        str(options.out / "images" / split / f"{name}.jpg"),
        small,
        [cv2.IMWRITE_JPEG_QUALITY, options.jpeg_quality],
    )
    lines = []
    heights = []
    for label in scene.labels:
        _, y1, _, y2 = label.box
        cls = 0 if options.single_class else label.class_id
        lines.append(yolo_row(cls, label.box, frame_w, frame_h))
        heights.append((y2 - y1) * out_h / frame_h)
    (options.out / "labels" / split / f"{name}.txt").write_text(
        "\n".join(lines) + ("\n" if lines else "")
    )
    crops: Counter[str] = Counter()
    if options.crops:
        crops = _write_crops(frame, scene, split, name, rng, options)
    return ImageResult(
        index, split, [lb.class_id for lb in scene.labels], heights, len(scene.negatives), crops
    )


def crop_box(box: Box, rng: np.random.Generator, *, aspect: float, jitter: float) -> Box:
    """The box grown to the crop's aspect (w / h) with a small margin, then moved and resized a
    little at random, as a detector's boxes would be."""
    x1, y1, x2, y2 = box
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    w, h = x2 - x1, y2 - y1
    h = max(h, w / aspect) * 1.15
    w = h * aspect
    scale = np.exp(rng.uniform(-jitter, jitter))
    cx += rng.uniform(-jitter, jitter) * w
    cy += rng.uniform(-jitter, jitter) * h
    h *= scale
    w *= scale
    return cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2


def cut_crop(frame: np.ndarray, box: Box, size: tuple[int, int]) -> np.ndarray:
    """``box`` of ``frame`` resampled to ``size`` (w, h); outside the frame is edge-replicated."""
    x1, y1, x2, y2 = box
    sx, sy = size[0] / max(x2 - x1, 1e-6), size[1] / max(y2 - y1, 1e-6)
    m = np.array([[sx, 0, -x1 * sx], [0, sy, -y1 * sy]], np.float32)
    shrinking = sx < 1 or sy < 1
    if shrinking and (sx < 0.5 or sy < 0.5):
        # Area-average first so big indices do not alias when shrunk to the classifier's size.
        ix1, iy1 = int(max(0, np.floor(x1))), int(max(0, np.floor(y1)))
        ix2 = int(min(frame.shape[1], np.ceil(x2)))
        iy2 = int(min(frame.shape[0], np.ceil(y2)))
        if ix2 - ix1 > 2 and iy2 - iy1 > 2:
            f = max(1, int(1 / max(sx, sy)) // 2)
            part = frame[iy1:iy2, ix1:ix2]
            part = cv2.resize(
                part,
                (max(1, part.shape[1] // f), max(1, part.shape[0] // f)),
                interpolation=cv2.INTER_AREA,
            )
            m = np.array([[sx * f, 0, (ix1 - x1) * sx], [0, sy * f, (iy1 - y1) * sy]], np.float32)
            shrunk: np.ndarray = cv2.warpAffine(
                part, m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
            )
            return shrunk
    crop: np.ndarray = cv2.warpAffine(
        frame, m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    return crop


def _write_crops(
    frame: np.ndarray,
    scene: Scene,
    split: str,
    name: str,
    rng: np.random.Generator,
    options: BuildOptions,
) -> Counter[str]:
    counts: Counter[str] = Counter()
    aspect = options.crop_size[0] / options.crop_size[1]
    root = options.out / "crops" / split
    jobs: list[tuple[str, Box]] = [(lb.label, lb.box) for lb in scene.labels]
    # Stray indices of 8/9/10/jokers are the classifier's worst confusions: keep all of them; a
    # few pips, backs and table patches besides.
    distractors = [b for kind, b in scene.negatives if kind == "distractor"]
    others = [b for kind, b in scene.negatives if kind != "distractor"]
    picked = [others[i] for i in rng.permutation(len(others))[: max(1, len(scene.labels) // 4)]]
    jobs += [(NOT_A_CARD, b) for b in distractors + picked]
    for k, (cls, box) in enumerate(jobs):
        crop = cut_crop(
            frame, crop_box(box, rng, aspect=aspect, jitter=options.crop_jitter), options.crop_size
        )
        folder = root / cls
        folder.mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(folder / f"{name}_{k}.jpg"), crop, [cv2.IMWRITE_JPEG_QUALITY, 95])
        counts[cls] += 1
    return counts


# ---------------------------------------------------------------------------------------------
# Driver


def _results(
    options: BuildOptions, packs: Sequence[FacePack], tables: TableImages | None
) -> Iterator[ImageResult]:
    indices = range(options.images)
    if options.workers <= 1:
        _init_worker(options, packs, tables, threads=cv2.getNumThreads())
        yield from map(_render_one, indices)
        return
    # Not fork: a child forked after OpenCV started its thread pool can hang on its first call.
    context = get_context("spawn")
    with context.Pool(
        options.workers, initializer=_init_worker, initargs=(options, list(packs), tables, 1)
    ) as pool:
        yield from pool.imap(_render_one, indices, chunksize=BLOCK)


def build_dataset(
    options: BuildOptions,
    packs: Sequence[FacePack] = (),
    tables: TableImages | None = None,
    *,
    overwrite: bool = False,
    progress: bool = True,
) -> BuildReport:
    """Render ``options.images`` frames into ``options.out``; returns counts and the speed."""
    options.check()
    out = options.out
    _prepare(out, overwrite)
    if options.crops:
        for split in ("train", "val"):
            for cls in CROP_CLASSES:
                (out / "crops" / split / cls).mkdir(parents=True, exist_ok=True)
    report = BuildReport()
    start = time.perf_counter()
    results: Iterable[ImageResult] = _results(options, packs, tables)
    if progress:
        from tqdm import tqdm

        results = tqdm(results, total=options.images, unit="img", desc="dataset build")
    for result in results:
        report.images += 1
        setattr(report, result.split, getattr(report, result.split) + 1)
        report.boxes += len(result.class_ids)
        report.empty_images += not result.class_ids
        report.per_class.update(result.class_ids)
        report.heights.extend(result.heights)
        report.crops.update(result.crops)
    report.seconds = time.perf_counter() - start
    (out / "data.yaml").write_text(data_yaml(single_class=options.single_class))
    manifest = {
        "generator": "scorekeeper dataset build",
        "options": {
            k: v
            for k, v in asdict(options).items()
            if k not in ("out", "workers", "scene", "effects")
        },
        "scene": asdict(options.scene),
        "effects": asdict(options.effects),
        "faces": [p.name for p in packs],
        "classes": [c.notation for c in DECK],
        "counts": report.to_json(),
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2, default=list) + "\n")
    return report
