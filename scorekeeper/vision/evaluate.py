"""Measuring the card reader on labelled images (numpy + onnxruntime only; no torch).

A labelled set is YOLO-formatted: ``images/<split>/*.jpg`` (or ``images/*.jpg``) beside
``labels/...`` with one ``class cx cy w h`` row per printed corner index. Class ids 0-39 are the
Sueca cards in :data:`DECK` order (the synthetic sets and ``realcards-dev`` agree); in
``realcards-dev`` ids 40-53 are 8/9/10, joker and back (not Sueca cards) and 54-59 are ranks
without a suit.

Figures:

* stage 1: index AP at IoU 0.5 (one class) and recall/precision at the reader's threshold, over the
  Sueca indices; a detection on a non-Sueca index counts neither way;
* stage 2: top-1 of the classifier on crops cut around the labelled Sueca indices, and the share of
  labelled 8/9/10/joker indices it calls ``not_a_card``;
* end to end: per-image card identity, summed over images: a reported card that the image does not
  show (an 8, 9 or 10 read as a Sueca card included) is a false positive.
"""

from __future__ import annotations

import functools
import itertools
import json
import statistics
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from scorekeeper.paths import demo_dir
from scorekeeper.rules.cards import DECK, card_from_index
from scorekeeper.vision.boxes import as_box, iou_matrix
from scorekeeper.vision.metrics import (
    FALSE_CARD_KINDS,
    SUITS,
    average_precision,
    best_f1_threshold,
    false_card_kind,
    match_by_score,
    suit_read_as,
)
from scorekeeper.vision.naming import IndexReading, combine_indices, with_card_views
from scorekeeper.vision.reader import CardReader, Detected, view_probs
from scorekeeper.vision.webcam_scale import write_webcam_scale_view

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp")
NOT_SUECA_IDS = range(40, 54)
"""realcards-dev: 8/9/10 (40-51), joker (52), back (53)."""


@dataclass(frozen=True, slots=True)
class LabelledImage:
    path: Path
    boxes: np.ndarray  # N x 4, pixels, x1 y1 x2 y2
    classes: np.ndarray  # N

    @property
    def sueca(self) -> np.ndarray:
        return self.classes < len(DECK)

    def cards(self) -> set[str]:
        return {card_from_index(int(c)).notation for c in self.classes if c < len(DECK)}


def labelled_images(
    root: Path, split: str | None = None, *, limit: int | None = None
) -> Iterator[LabelledImage]:
    """Images of a YOLO set with their labels in pixels (skipping images without a label file)."""
    import cv2

    image_dir = root / "images" / split if split else root / "images"
    label_dir = root / "labels" / split if split else root / "labels"
    paths = sorted(p for p in image_dir.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
    if limit is not None:
        paths = paths[:limit]
    for path in paths:
        label_path = label_dir / (path.stem + ".txt")
        if not label_path.is_file():
            continue
        image = cv2.imread(str(path))
        if image is None:
            continue
        height, width = image.shape[:2]
        classes, boxes = read_yolo_labels(label_path, width, height)
        yield LabelledImage(path=path, boxes=boxes, classes=classes)


def read_yolo_labels(label_path: Path, width: int, height: int) -> tuple[np.ndarray, np.ndarray]:
    """A YOLO label file's class ids (N) and boxes in pixels (N x 4, x1 y1 x2 y2); none when
    there is no file."""
    rows = (
        [r.split() for r in label_path.read_text().splitlines() if r.strip()]
        if label_path.is_file()
        else []
    )
    classes = np.array([int(float(r[0])) for r in rows], np.int64)
    xywh = np.array([[float(v) for v in r[1:5]] for r in rows], np.float64).reshape(-1, 4)
    boxes = np.stack(
        [
            (xywh[:, 0] - xywh[:, 2] / 2) * width,
            (xywh[:, 1] - xywh[:, 3] / 2) * height,
            (xywh[:, 0] + xywh[:, 2] / 2) * width,
            (xywh[:, 1] + xywh[:, 3] / 2) * height,
        ],
        axis=1,
    )
    return classes, boxes


def measure_detector(reader: CardReader, images: Iterable[LabelledImage]) -> dict[str, float]:
    """Stage 1 on Sueca indices: AP50 (scores down to 0.01), recall and precision at index_conf."""
    import cv2

    all_matches: list[tuple[float, int]] = []
    total = 0
    count = 0
    for item in images:
        frame = cv2.imread(str(item.path))
        if frame is None:
            continue
        count += 1
        boxes, scores = reader.detect_indices(frame, conf=0.01)
        gt = item.boxes[item.sueca]
        ignore = item.boxes[~item.sueca]
        matches, n = match_by_score(boxes, scores, gt, ignore)
        all_matches += matches
        total += n
    conf = reader.config.index_conf
    best_f1, best_conf = best_f1_threshold(all_matches, total)
    kept = [m for m in all_matches if m[0] >= conf]
    tp = sum(m[1] for m in kept)
    return {
        "images": count,
        "indices": total,
        "index_ap50": round(average_precision(all_matches, total), 4),
        "index_recall": round(tp / total, 4) if total else float("nan"),
        "index_precision": round(tp / len(kept), 4) if kept else float("nan"),
        "conf": conf,
        "best_f1": round(best_f1, 4),
        "best_f1_conf": round(best_conf, 4),
    }


def measure_classifier(reader: CardReader, images: Iterable[LabelledImage]) -> dict[str, float]:
    """Stage 2 on crops around the labelled indices (top-1, top-3, rank-only, suit-only)."""
    import cv2

    probs_all: list[np.ndarray] = []
    labels: list[int] = []
    not_card_probs: list[np.ndarray] = []
    for item in images:
        frame = cv2.imread(str(item.path))
        if frame is None:
            continue
        boxes, kinds = [], []
        for box, cls in zip(item.boxes, item.classes):
            if cls < len(DECK) or cls in NOT_SUECA_IDS:
                boxes.append(as_box(box))
                kinds.append(int(cls))
        if not boxes:
            continue
        probs = reader.classify_boxes(frame, boxes)
        for p, cls in zip(probs, kinds):
            if cls < len(DECK):
                probs_all.append(p)
                labels.append(cls)
            else:
                not_card_probs.append(p)
    result: dict[str, float] = {"crops": len(labels), "non_sueca_crops": len(not_card_probs)}
    if labels:
        probs = np.stack(probs_all)
        y = np.asarray(labels)
        top = np.argsort(-probs, axis=1)
        pred = top[:, 0]
        valid = pred < len(DECK)
        result["top1"] = round(float((pred == y).mean()), 4)
        result["top3"] = round(float((top[:, :3] == y[:, None]).any(axis=1).mean()), 4)
        rank_ok = valid & ((pred % 10) == (y % 10))
        suit_ok = valid & ((pred // 10) == (y // 10))
        result["rank_only"] = round(float(rank_ok.mean()), 4)
        result["suit_only"] = round(float(suit_ok.mean()), 4)
        result["called_not_a_card"] = round(float((~valid).mean()), 4)
    if not_card_probs:
        result["non_sueca_rejected"] = round(
            float((np.stack(not_card_probs).argmax(axis=1) == len(DECK)).mean()), 4
        )
    return result


def measure_cards(
    reader: CardReader,
    images: Iterable[tuple[Path, set[str]]],
    *,
    non_sueca_images: Collection[Path] = (),
    detected: Mapping[Path, Detected] | None = None,
) -> dict[str, Any]:
    """End to end: per-image sets of cards reported vs present, summed over images, and the false
    cards by :func:`false_card_kind` (``non_sueca_images``: photos that also hold an 8, 9, 10 or
    joker). ``detected``: each image's index boxes already found (:meth:`CardReader.read`), for
    readings that differ only after the detector and so can share its search."""
    import cv2

    tp = fp = fn = 0
    exact = count = 0
    kinds = dict.fromkeys(FALSE_CARD_KINDS, 0)
    confusion = {suit: dict.fromkeys((*SUITS, "missed"), 0) for suit in SUITS}
    for path, truth in images:
        frame = cv2.imread(str(path))
        if frame is None:
            continue
        count += 1
        found = detected.get(path) if detected is not None else None
        read = reader.read(frame) if found is None else reader.read(frame, detected=found)
        seen = {d.card.notation for d in read.cards}
        false = seen - truth
        tp += len(seen & truth)
        fp += len(false)
        fn += len(truth - seen)
        exact += seen == truth
        for card in false:
            kinds[false_card_kind(card, truth, non_sueca_present=path in non_sueca_images)] += 1
        for card in truth:
            confusion[card[-1]][suit_read_as(card, seen, truth)] += 1
    return {
        "images": count,
        "card_precision": round(tp / (tp + fp), 4) if tp + fp else float("nan"),
        "card_recall": round(tp / (tp + fn), 4) if tp + fn else float("nan"),
        "exact_images": round(exact / count, 4) if count else float("nan"),
        "tp": tp,
        "fp": fp,
        "fn": fn,
        "false_cards": kinds,
        "suit_recall": {
            suit: round(row[suit] / total, 4) if (total := sum(row.values())) else float("nan")
            for suit, row in confusion.items()
        },
        "suit_confusion": confusion,
    }


def measure_card_stages(
    reader: CardReader, images: Iterable[LabelledImage], iou: float = 0.5
) -> dict[str, float]:
    """Which stage loses each labelled Sueca card. A card is *found* when a detector box overlaps
    one of its labelled corners (IoU ``iou``) and *named* when the classifier, shown a labelled
    corner, calls it that card with at least ``card_prob``; a card must be both to be read."""
    import cv2

    found_named = found_only = named_only = neither = 0
    for item in images:
        frame = cv2.imread(str(item.path))
        if frame is None:
            continue
        boxes, _ = reader.detect_indices(frame)
        corners: dict[int, list[np.ndarray]] = {}
        for box, cls in zip(item.boxes, item.classes):
            if cls < len(DECK):
                corners.setdefault(int(cls), []).append(box)
        for label, card_boxes in corners.items():
            stacked = np.asarray(card_boxes, dtype=np.float32)
            found = bool(len(boxes)) and bool((iou_matrix(stacked, boxes) >= iou).any())
            probs = reader.classify_boxes(frame, [as_box(b) for b in stacked])
            named = bool(
                (
                    (probs.argmax(axis=1) == label) & (probs.max(axis=1) >= reader.config.card_prob)
                ).any()
            )
            found_named += found and named
            found_only += found and not named
            named_only += named and not found
            neither += not found and not named
    total = found_named + found_only + named_only + neither
    share = (lambda n: round(n / total, 4)) if total else (lambda n: float("nan"))
    return {
        "cards": total,
        "found": share(found_named + found_only),
        "named": share(found_named + named_only),
        "found_and_named": share(found_named),
        "found_not_named": found_only,
        "named_not_found": named_only,
        "neither": neither,
    }


def _realcards_manifest(root: Path) -> Iterator[dict[str, Any]]:
    """The rows of ``realcards-dev/manifest.jsonl``, one per photo."""
    for line in (root / "manifest.jsonl").read_text().splitlines():
        if line.strip():
            yield json.loads(line)


def realcards_truth(root: Path) -> list[tuple[Path, set[str]]]:
    """``realcards-dev/manifest.jsonl``: each image with its Sueca cards (upper-case notation)."""
    return [
        (root / row["image"], {c.upper() for c in row["sueca_cards"]})
        for row in _realcards_manifest(root)
    ]


def realcards_with_non_sueca(root: Path) -> set[Path]:
    """The ``realcards-dev`` photos that also show an 8, 9, 10 or joker (``other_objects``)."""
    return {root / row["image"] for row in _realcards_manifest(root) if row.get("other_objects")}


def labelled_truth(images: Iterable[LabelledImage]) -> list[tuple[Path, set[str]]]:
    return [(item.path, item.cards()) for item in images]


LATENCY_BLOCK = 10
"""Reads in a row by one reader before the other takes its turn."""


def measure_latency(
    reader: CardReader,
    *,
    frames: Sequence[np.ndarray],
    baseline: CardReader | None = None,
    runs: int = 50,
) -> dict[str, Any]:
    """Milliseconds of :meth:`CardReader.read` (both stages) per frame, after warm-ups, cycling
    through ``frames``. With a ``baseline`` reader, the two take turns in blocks of
    :data:`LATENCY_BLOCK` reads, so both figures come from the same minutes of a machine whose
    load may change, and their ratio is given. Not read by read: a reader's detector threads
    spin for a while after each frame, and the other reader's next frame would share the cores
    with them (that inflated both figures by half)."""
    readers = [reader] if baseline is None else [reader, baseline]
    for frame in frames[:3]:
        for each in readers:
            each.read(frame)
    times: dict[int, list[float]] = {id(each): [] for each in readers}
    cards = 0
    for start in range(0, runs, LATENCY_BLOCK):
        for each in readers:
            for run in range(start, min(start + LATENCY_BLOCK, runs)):
                frame = frames[run % len(frames)]
                began = time.perf_counter()
                found = len(each.read(frame).cards)
                times[id(each)].append((time.perf_counter() - began) * 1000.0)
                if each is reader:
                    cards += found
    ours = times[id(reader)]
    height, width = frames[0].shape[:2]
    result: dict[str, Any] = {
        "median_ms": round(statistics.median(ours), 1),
        "p90_ms": round(float(np.percentile(ours, 90)), 1),
        "runs": runs,
        "frames": len(frames),
        "cards_per_frame": round(cards / runs, 1),
        "frame": f"{width}x{height}",
    }
    if baseline is not None:
        base = times[id(baseline)]
        result["baseline_median_ms"] = round(statistics.median(base), 1)
        result["ratio_to_baseline"] = round(statistics.median(ours) / statistics.median(base), 3)
    return result


def latency_frames(count: int = 10) -> list[np.ndarray]:
    """Frames of the shipped demo clip (1280x720, a vaza on the table), spread over the deal."""
    import cv2

    capture = cv2.VideoCapture(str(demo_dir() / "deal.mp4"))
    total = int(capture.get(cv2.CAP_PROP_FRAME_COUNT)) or 1
    frames = []
    for i in range(count):
        capture.set(cv2.CAP_PROP_POS_FRAMES, (i * total) // count + total // (2 * count))
        ok, frame = capture.read()
        if ok and frame is not None:
            frames.append(frame)
    capture.release()
    if not frames:
        frames.append(np.full((720, 1280, 3), 120, np.uint8))
    return frames


def measure_real_set(
    model: Path | str | None,
    root: Path,
    *,
    sizes: tuple[int, ...],
    limit: int | None = None,
    log: Callable[[str], None] = print,
    name: str = "",
) -> dict[str, Any]:
    """Stage 1, stage 2, cards (with per-suit recall) and where cards are lost, on a labelled real
    set (``realcards-dev``, ``realcards-webcam`` or a webcam-scale view), at each detector size."""
    real = list(labelled_images(root, limit=limit))
    truth = realcards_truth(root)
    with_non_sueca = realcards_with_non_sueca(root)
    if limit is not None:
        truth = truth[:limit]
    results: dict[str, Any] = {}
    for size in sizes:
        sized = CardReader(model, detector_size=size)
        results[str(size)] = {
            "stage1": measure_detector(sized, real),
            "stage2": measure_classifier(sized, real),
            "calibration": measure_calibration(sized, real),
            "cards": measure_cards(sized, truth, non_sueca_images=with_non_sueca),
            "card_stages": measure_card_stages(sized, real),
        }
        log(f"{name or root.name} at detector size {size}: {results[str(size)]}")
    return results


def measure_all(
    model: Path | str | None,
    *,
    synthetic: Path | None,
    realcards: Path | None,
    webcam: Path | None = None,
    webcam_scale: Path | None = None,
    real_sizes: tuple[int, ...] = (),
    latency: bool = True,
    limit: int | None = None,
    log: Callable[[str], None] = print,
) -> dict[str, object]:
    """Every figure of the model card: synthetic val, realcards-dev (at each detector size), its
    webcam-scale view (written to ``webcam_scale`` when given), realcards-webcam, latency.

    ``real_sizes`` are detector input sizes to try on the real photos (their indices are large:
    a smaller input suits them); the model's own size is always measured.
    """

    figures: dict[str, object] = {}
    reader = CardReader(model)
    own = reader.config.detector_size
    figures["model"] = str(reader.config.folder)
    if synthetic is not None and (synthetic / "images" / "val").is_dir():
        val = list(labelled_images(synthetic, "val", limit=limit))
        figures["synthetic_val"] = {
            "detector_size": own,
            "stage1": measure_detector(reader, val),
            "stage2": measure_classifier(reader, val),
            "cards": measure_cards(reader, labelled_truth(val)),
        }
        log(f"synthetic val: {figures['synthetic_val']}")
    if realcards is not None and (realcards / "manifest.jsonl").is_file():
        figures["realcards_dev"] = measure_real_set(
            model, realcards, sizes=tuple(dict.fromkeys((own, *real_sizes))), limit=limit, log=log
        )
        if webcam_scale is not None:
            view = write_webcam_scale_view(realcards, webcam_scale)
            figures["realcards_dev_webcam_scale"] = measure_real_set(
                model, view, sizes=(own,), limit=limit, log=log, name="realcards-dev, webcam scale"
            )
    if webcam is not None and (webcam / "manifest.jsonl").is_file():
        figures["realcards_webcam"] = measure_real_set(
            model, webcam, sizes=(own,), limit=limit, log=log
        )
    if latency:
        # The same networks read the plain way (one detector size, one view of each index, no
        # card view): what the extra sizes, views and card views cost, measured in the same run.
        plain = CardReader(model, detector_scales=(1.0,), views=1, card_view=False)
        figures["latency"] = measure_latency(reader, frames=latency_frames(), baseline=plain)
        log(f"latency: {figures['latency']}")
    return figures


CALIBRATION_BINS = (0.0, 0.3, 0.5, 0.7, 0.8, 0.9, 1.0)


def labelled_corner_logits(
    reader: CardReader, images: Iterable[LabelledImage]
) -> tuple[np.ndarray, np.ndarray]:
    """The classifier's raw logits (N x views x 41) on each labelled Sueca corner, and their
    labels (N)."""
    import cv2

    parts: list[np.ndarray] = []
    labels: list[int] = []
    for item in images:
        frame = cv2.imread(str(item.path))
        if frame is None:
            continue
        boxes = [as_box(b) for b, c in zip(item.boxes, item.classes) if c < len(DECK)]
        if not boxes:
            continue
        parts.append(reader.view_logits(frame, boxes))
        labels += [int(c) for c in item.classes if c < len(DECK)]
    if not parts:
        return np.zeros((0, reader.config.views, len(DECK) + 1)), np.zeros((0,), np.int64)
    return np.concatenate(parts), np.asarray(labels, np.int64)


def labelled_corner_probs(
    reader: CardReader, images: Iterable[LabelledImage]
) -> tuple[np.ndarray, np.ndarray]:
    """The classifier's probabilities (N x 41) on each labelled Sueca corner, as the reader
    gives them, and their labels (N)."""
    logits, labels = labelled_corner_logits(reader, images)
    return view_probs(logits, reader.config.temperature), labels


def measure_calibration(reader: CardReader, images: Iterable[LabelledImage]) -> dict[str, Any]:
    """How often the classifier's top card is right at each confidence, on the labelled Sueca
    corners: per bin of :data:`CALIBRATION_BINS` the crops, their mean confidence and the share
    right, and the expected calibration error (0 when a 0.8 is right 8 times in 10)."""
    probs, labels = labelled_corner_probs(reader, images)
    top = probs.argmax(axis=1) if len(probs) else np.zeros((0,), np.int64)
    conf = probs.max(axis=1).astype(np.float64) if len(probs) else np.zeros((0,))
    ok = (top == labels).astype(np.float64)
    bins = []
    ece = 0.0
    for low, high in itertools.pairwise(CALIBRATION_BINS):
        inside = (conf >= low) & ((conf < high) | (high == 1.0))
        n = int(inside.sum())
        if n:
            mean_conf, share = float(conf[inside].mean()), float(ok[inside].mean())
            ece += n / len(conf) * abs(mean_conf - share)
            bins.append(
                {
                    "from": low,
                    "to": high,
                    "crops": n,
                    "confidence": round(mean_conf, 3),
                    "right": round(share, 3),
                }
            )
    return {"crops": len(conf), "ece": round(ece, 4) if len(conf) else float("nan"), "bins": bins}


def sweep_thresholds(
    reader: CardReader,
    images: Iterable[tuple[Path, set[str]]],
    *,
    index_confs: Iterable[float],
    card_probs: Iterable[float],
    card_view_weights: Iterable[float] | None = None,
) -> list[dict[str, float]]:
    """End-to-end card P/R for each (index_conf, card_prob) pair, reading each image once; for a
    reader with a card view, for each of ``card_view_weights`` too (default: its own weight), the
    rows then carrying ``card_view_weight``.

    For choosing the reader's thresholds on real-like frames (never on the real photos).
    """
    import cv2

    index_confs, card_probs = list(index_confs), list(card_probs)
    lowest = min(index_confs)
    per_image = []
    for path, truth in images:
        frame = cv2.imread(str(path))
        if frame is None:
            continue
        boxes, scores = reader.detect_indices(frame, conf=lowest)
        box_list = [as_box(b) for b in boxes]
        probs = reader.classify_boxes(frame, box_list)
        views = reader.card_view_probs(frame, box_list) if reader.has_card_view else None
        per_image.append((truth, box_list, scores, probs, views))
    weights: list[float | None] = [None]
    if reader.has_card_view:
        weights = list(card_view_weights or [reader.config.card_view_weight])
    rows = []
    for conf, prob, weight in itertools.product(index_confs, card_probs, weights):
        tp = fp = fn = 0
        for truth, box_list, scores, probs, views in per_image:
            kept = [i for i, s in enumerate(scores) if s >= conf]
            readings = [
                IndexReading(box=box_list[i], score=float(scores[i]), probs=probs[i]) for i in kept
            ]
            if views is not None and weight is not None:
                readings = with_card_views(
                    readings,
                    functools.partial(np.take, views[kept], axis=0),
                    card_prob=prob,
                    weight=weight,
                )
            seen = {
                d.card.notation
                for d in combine_indices(
                    readings,
                    card_prob=prob,
                    corner_reach=reader.config.corner_reach,
                    joint_corners=reader.config.joint_corners,
                )
            }
            tp += len(seen & truth)
            fp += len(seen - truth)
            fn += len(truth - seen)
        precision = tp / (tp + fp) if tp + fp else float("nan")
        recall = tp / (tp + fn) if tp + fn else float("nan")
        row = {
            "index_conf": conf,
            "card_prob": prob,
            "card_precision": round(precision, 4),
            "card_recall": round(recall, 4),
            "tp": tp,
            "fp": fp,
            "fn": fn,
        }
        if weight is not None:
            row["card_view_weight"] = weight
        rows.append(row)
    return rows
