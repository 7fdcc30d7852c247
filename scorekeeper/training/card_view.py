"""The card-view classifier: the card around an index, seen whole, names the card.

At webcam scale the printed index is 13-37 px tall and an unfamiliar font's 3 and 5, or 2 and 6,
are a few soft pixels apart; the index classifier hesitates between them. The card's body does
not: three pips are not five, and the big centre pips keep their suit's shape where the small one
in the index has blurred. This network sees a square around the index, :data:`CARD_VIEW_SPAN`
index lengths wide, so the card's centre and the pips near it are in view whichever way it lies
from its corner, and names the card whose corner is in the middle. The reader multiplies its
probabilities into an unsure index's (:func:`scorekeeper.vision.naming.with_card_view`).

Training views come from two places, both rendered here, never from real photos: the flat faces
of the face packs (the training packs and procedural decks), turned, scaled, laid on a table
colour with other cards under and over them and a hand passing; and the labelled indices of the
rendered scenes, where the cards overlap the way a game lays them.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from scorekeeper.rules.cards import DECK
from scorekeeper.training import TrainingSetupError
from scorekeeper.training.classifier import (
    IMAGE_SUFFIXES,
    build_network,
    evaluate_classifier,
    export_onnx,
    jpeg,
    motion_smear,
    to_tensor,
)
from scorekeeper.training.face_crops import class_of_label, table_patch, turned_bound
from scorekeeper.vision.crops import crop_square
from scorekeeper.vision.reader_config import CARD_VIEW_MARGIN, CARD_VIEW_SPAN, CLASSIFIER_CLASSES

CARD_VIEW_SIZE = 80
"""Pixels a side of the card view: around a webcam index ~20 px tall the view is ~160 px, shrunk
about twice, its pips kept 5-6 px across."""
FAN_SHARE = 0.3
"""Views whose card is covered by the next card of a fan, all but its index strip."""
CARD_SCALE = (0.9, 1.8)
"""A face's index is drawn this many times the length the reader frames. Packs print their
indices a fifth to a third of the card's height; a café deck's are often smaller (a seventh), so
its card fills more of the view: the views lean large."""


# -- the network -----------------------------------------------------------------------------------


def build_card_view_network(num_classes: int = len(CLASSIFIER_CLASSES), width: int = 24) -> Any:
    """The index classifier's network for 80 x 80 card views (RGB in [0, 1]): its strided first
    layer keeps it about as cheap."""
    return build_network(num_classes, width, first_stride=2)


# -- rendering views from faces --------------------------------------------------------------------


def _warp_face(
    face: Any, centre: tuple[float, float], angle: float, scale: float, at: tuple[float, float]
) -> tuple[np.ndarray, np.ndarray]:
    """``face`` turned by ``angle`` and scaled, its point ``centre`` placed at ``at``: the image
    and its coverage (0-1), CARD_VIEW_SIZE square."""
    import cv2

    image, mask = face.image, face.mask
    # Shrinking a big face in one warp aliases thin strokes: shrink it with averaging first.
    pre = min(1.0, 2.0 * scale)
    if pre < 1.0:
        size = (max(2, round(image.shape[1] * pre)), max(2, round(image.shape[0] * pre)))
        image = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
        mask = cv2.resize(mask, size, interpolation=cv2.INTER_AREA)
        centre = (centre[0] * pre, centre[1] * pre)
        scale = scale / pre
    matrix = np.asarray(cv2.getRotationMatrix2D(centre, angle, scale), np.float64)
    matrix[:, 2] += (at[0] - centre[0], at[1] - centre[1])
    out = (CARD_VIEW_SIZE, CARD_VIEW_SIZE)
    card = cv2.warpAffine(image, matrix, out, flags=cv2.INTER_LINEAR)
    cover = cv2.warpAffine(mask, matrix, out, flags=cv2.INTER_LINEAR, borderValue=0)
    return card.astype(np.float32), (cover.astype(np.float32) / 255.0)[:, :, None]


def render_card_view(
    face: Any, box: Sequence[float], rng: np.random.Generator, *, others: Sequence[Any] = ()
) -> np.ndarray:
    """One card view of the index ``box`` of ``face``: turned by a random angle, scaled so the
    turned box's longer side is what the reader frames, on a table colour, with sometimes a card
    of ``others`` under it, one over all but its index (a fan) or over its far side, and a
    hand."""
    import cv2

    x1, y1, x2, y2 = (float(v) for v in box)
    centre = ((x1 + x2) / 2.0, (y1 + y2) / 2.0)
    angle = float(rng.uniform(0.0, 360.0))
    theta = math.radians(angle)
    w, h = x2 - x1, y2 - y1
    bound = turned_bound(w, h, theta)
    scale = CARD_VIEW_SIZE / CARD_VIEW_SPAN / max(bound, 1.0) * rng.uniform(*CARD_SCALE)
    jitter = 0.12 * CARD_VIEW_SIZE / CARD_VIEW_SPAN
    mid = CARD_VIEW_SIZE / 2.0
    at = (mid + rng.uniform(-jitter, jitter), mid + rng.uniform(-jitter, jitter))
    view = table_patch(rng, CARD_VIEW_SIZE, colours=(15, 210)).astype(np.float32)
    if others and rng.random() < 0.4:  # a card under this one
        other = others[int(rng.integers(len(others)))]
        oh, ow = other.image.shape[:2]
        spot = (rng.uniform(0, CARD_VIEW_SIZE), rng.uniform(0, CARD_VIEW_SIZE))
        card, cover = _warp_face(other, (ow / 2, oh / 2), rng.uniform(0, 360), scale, spot)
        view = card * cover + view * (1.0 - cover)
    card, cover = _warp_face(face, centre, angle, scale, at)
    view = card * cover + view * (1.0 - cover)
    index_radius = 0.6 * CARD_VIEW_SIZE / CARD_VIEW_SPAN
    if others and rng.random() < FAN_SHARE:
        # A fanned hand or a stacked vaza: the next card lies over this one, shifted towards its
        # body, so only the index strip shows; the pips in view are the other card's.
        other = others[int(rng.integers(len(others)))]
        fh, fw = face.image.shape[:2]
        toward_x = 1.0 if centre[0] < fw / 2 else -1.0
        toward_y = 1.0 if centre[1] < fh / 2 else -1.0
        if rng.random() < 0.7:
            shift = (rng.uniform(1.1, 2.5) * w * toward_x, rng.uniform(-0.2, 0.4) * h * toward_y)
        else:
            shift = (rng.uniform(-0.2, 0.4) * w * toward_x, rng.uniform(1.1, 2.0) * h * toward_y)
        oh, ow = other.image.shape[:2]
        # The same point of the other face, scaled to its size, sits shifted from this index.
        point = ((centre[0] - shift[0]) * ow / fw, (centre[1] - shift[1]) * oh / fh)
        card, cover = _warp_face(other, point, angle + rng.uniform(-15, 15), scale, at)
        view = card * cover + view * (1.0 - cover)
    elif others and rng.random() < 0.25:  # a card over part of this one, its index left clear
        other = others[int(rng.integers(len(others)))]
        oh, ow = other.image.shape[:2]
        far = rng.uniform(0.45, 0.8) * CARD_VIEW_SIZE
        turn = rng.uniform(0, 2 * math.pi)
        spot = (at[0] + far * math.cos(turn), at[1] + far * math.sin(turn))
        card, cover = _warp_face(other, (ow / 2, oh / 2), rng.uniform(0, 360), scale, spot)
        yy, xx = np.mgrid[0:CARD_VIEW_SIZE, 0:CARD_VIEW_SIZE]
        clear = np.hypot(xx - at[0], yy - at[1]) > index_radius * 2.0
        cover = cover * clear[:, :, None]
        view = card * cover + view * (1.0 - cover)
    if rng.random() < 0.25:  # a hand: a skin-coloured blob away from the index
        skin = np.array([rng.uniform(60, 170), rng.uniform(90, 190), rng.uniform(140, 235)])
        turn = rng.uniform(0, 2 * math.pi)
        far = rng.uniform(0.35, 0.6) * CARD_VIEW_SIZE
        blob: np.ndarray = np.zeros((CARD_VIEW_SIZE, CARD_VIEW_SIZE), np.float32)
        cv2.ellipse(
            blob,
            (int(at[0] + far * math.cos(turn)), int(at[1] + far * math.sin(turn))),
            (int(rng.uniform(8, 22)), int(rng.uniform(14, 40))),
            float(rng.uniform(0, 180)),
            0,
            360,
            1.0,
            -1,
        )
        hand = np.asarray(cv2.GaussianBlur(blob, (0, 0), 1.5), np.float32)[:, :, None]
        view = skin[None, None, :] * hand + view * (1.0 - hand)
    rendered: np.ndarray = np.clip(view, 0, 255).astype(np.uint8)
    return rendered


def face_card_views(
    packs: Sequence[Any], *, per_index: int, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """``per_index`` card views of each index of each face in ``packs`` (N x 80 x 80 x 3 BGR), the
    8, 9, 10 and joker of procedural decks labelled ``not_a_card``."""
    rng = np.random.default_rng(seed)
    views: list[np.ndarray] = []
    classes: list[int] = []
    for pack in packs:
        labels = [label for label in pack.labels() if class_of_label(label) is not None]
        faces = {label: pack.face(label) for label in labels}
        others = list(faces.values())
        for label, face in faces.items():
            cls = class_of_label(label)
            assert cls is not None
            for box in face.index_boxes:
                for _ in range(per_index):
                    views.append(render_card_view(face, box, rng, others=others))
                    classes.append(cls)
    if not views:
        return _no_views()
    return np.stack(views), np.asarray(classes, np.int64)


def scene_card_views(
    dataset: Path, split: str, *, min_px: float = 12.0
) -> tuple[np.ndarray, np.ndarray]:
    """Card views around the labelled Sueca indices of a rendered YOLO scene set, framed as the
    reader frames a detected index."""
    import cv2

    folder = dataset / "images" / split
    if not folder.is_dir():
        return _no_views()
    views: list[np.ndarray] = []
    classes: list[int] = []
    for image_path in sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES):
        label_path = dataset / "labels" / split / (image_path.stem + ".txt")
        if not label_path.is_file():
            continue
        rows = [line.split() for line in label_path.read_text().splitlines() if line.strip()]
        frame = cv2.imread(str(image_path), cv2.IMREAD_COLOR) if rows else None
        if frame is None:
            continue
        height, width = frame.shape[:2]
        for row in rows:
            cls = int(float(row[0]))
            cx, cy, bw, bh = (float(v) for v in row[1:5])
            if not 0 <= cls < len(DECK) or max(bw * width, bh * height) < min_px:
                continue
            box = ((cx - bw / 2) * width, (cy - bh / 2) * height,
                   (cx + bw / 2) * width, (cy + bh / 2) * height)  # fmt: skip
            views.append(crop_square(frame, box, margin=CARD_VIEW_MARGIN, size=CARD_VIEW_SIZE))
            classes.append(cls)
    if not views:
        return _no_views()
    return np.stack(views), np.asarray(classes, np.int64)


def _no_views() -> tuple[np.ndarray, np.ndarray]:
    return np.zeros((0, CARD_VIEW_SIZE, CARD_VIEW_SIZE, 3), np.uint8), np.zeros((0,), np.int64)


# -- what a webcam does to a view ------------------------------------------------------------------


def webcam_look(view: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Turns, soft focus, motion, dim light, colour cast, noise and JPEG: a webcam's copy."""
    import cv2

    out = np.ascontiguousarray(np.rot90(view, int(rng.integers(4))))
    image: np.ndarray = out.astype(np.float32)
    if rng.random() < 0.6:
        image = cv2.GaussianBlur(image, (0, 0), rng.uniform(0.3, 1.3))
    if rng.random() < 0.2:
        length = int(rng.integers(2, 5))
        image = motion_smear(image, length, rng.uniform(0, 180))
    if rng.random() < 0.1:
        image = np.repeat(image.mean(axis=2, keepdims=True), 3, axis=2)
    light = rng.uniform(0.3, 0.75) if rng.random() < 0.35 else rng.uniform(0.75, 1.3)
    cast = rng.uniform(0.85, 1.15, size=3)
    image = image * light * cast[None, None, :] + rng.uniform(-20, 20)
    image = image + rng.normal(0.0, rng.uniform(1.0, 8.0), image.shape)
    out = np.clip(image, 0, 255).astype(np.uint8)
    if rng.random() < 0.7:
        out = jpeg(out, rng)
    return out


# -- training --------------------------------------------------------------------------------------


@dataclass
class CardViewRecipe:
    steps: int = 6000
    batch: int = 96
    lr: float = 2e-3
    weight_decay: float = 5e-4
    label_smoothing: float = 0.05
    width: int = 24
    seed: int = 0
    threads: int = 2
    device: str = "cpu"
    face_views_per_index: int = 30
    procedural_packs: int = 60
    procedural_views_per_index: int = 3
    eval_every: int = 500


def train_card_view(
    views: np.ndarray,
    labels: np.ndarray,
    val: tuple[np.ndarray, np.ndarray],
    out_dir: Path,
    recipe: CardViewRecipe,
    *,
    init: Path | None = None,
    log: Callable[[str], object] = print,
) -> Path:
    """Train the card-view network on ``views``, from scratch or from the weights in ``init``;
    keeps ``last.pt`` every ``eval_every`` steps (a run that is stopped resumes from it) and
    ``best.pt`` by val top-1."""
    import torch
    from torch import nn

    torch.set_num_threads(recipe.threads)
    torch.manual_seed(recipe.seed)
    out_dir.mkdir(parents=True, exist_ok=True)
    device = torch.device(
        recipe.device if recipe.device != "cpu" and torch.cuda.is_available() else "cpu"
    )
    model = build_card_view_network(width=recipe.width).to(
        device, memory_format=torch.channels_last
    )
    optimizer = torch.optim.AdamW(
        model.parameters(), lr=recipe.lr, weight_decay=recipe.weight_decay
    )
    scheduler = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=recipe.lr, total_steps=recipe.steps, pct_start=0.1
    )
    start, best = 0, -1.0
    last = out_dir / "last.pt"
    if last.is_file():
        state = torch.load(last, map_location=device, weights_only=False)
        planned = int(state["recipe"]["steps"])
        if planned != recipe.steps:
            raise TrainingSetupError(
                f"the card-view run in {out_dir} was planned for {planned} steps, not "
                f"{recipe.steps}: resume it with --view-steps {planned} or delete the folder"
            )
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        start, best = int(state["step"]), float(state["best"])
        log(f"card view: resuming at step {start}")
    elif init is not None:
        model.load_state_dict(torch.load(init, map_location=device, weights_only=False)["model"])
        log(f"card view: starting from {init}")
    counts = np.bincount(labels, minlength=len(CLASSIFIER_CLASSES)).astype(np.float64)
    weights = 1.0 / np.maximum(counts[labels], 1.0)
    weights /= weights.sum()
    criterion = nn.CrossEntropyLoss(label_smoothing=recipe.label_smoothing)
    rng = np.random.default_rng([recipe.seed, start])
    began, loss_sum, seen = time.time(), 0.0, 0
    for step in range(start + 1, recipe.steps + 1):
        picks = rng.choice(len(views), recipe.batch, p=weights)
        batch = np.stack([webcam_look(views[i], rng) for i in picks])
        x = to_tensor(batch).to(device, memory_format=torch.channels_last)
        loss = criterion(model(x), torch.from_numpy(labels[picks]).to(device))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        scheduler.step()
        loss_sum, seen = loss_sum + float(loss.detach()), seen + 1
        if step % recipe.eval_every == 0 or step == recipe.steps:
            acc = evaluate_classifier(model, *val, device=device)
            model.train()
            record = {
                "step": step,
                "loss": round(loss_sum / seen, 4),
                "val_top1": round(acc, 4),
                "seconds": round(time.time() - began, 1),
            }
            with (out_dir / "log.jsonl").open("a") as handle:
                handle.write(json.dumps(record) + "\n")
            log(f"card view step {step}/{recipe.steps}: {record}")
            loss_sum, seen, began = 0.0, 0, time.time()
            state = {"model": model.state_dict(), "recipe": asdict(recipe), "step": step}
            if acc >= best:
                best = acc
                torch.save({**state, "val_top1": acc}, out_dir / "best.pt")
            torch.save(
                {
                    **state,
                    "optimizer": optimizer.state_dict(),
                    "scheduler": scheduler.state_dict(),
                    "best": best,
                },
                last,
            )
    return out_dir / "best.pt"


def export_card_view(checkpoint: Path, onnx_path: Path) -> Path:
    """Write the card-view network as ONNX: input ``views`` (N x 3 x 80 x 80, RGB in [0, 1]),
    output logits."""
    import torch

    state = torch.load(checkpoint, map_location="cpu", weights_only=False)
    model = build_card_view_network(width=int(state["recipe"]["width"]))
    model.load_state_dict(state["model"])
    return export_onnx(model, onnx_path, size=CARD_VIEW_SIZE, input_name="views")
