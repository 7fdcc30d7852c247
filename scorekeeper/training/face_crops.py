"""Index crops rendered straight from card faces, sharp and at any rotation.

Scene crops (:func:`scorekeeper.training.classifier.extract_context_crops`) are mostly small and
soft: a median index of 19 px in a 640-px scene. A phone or a webcam close to the table shows the
index large and sharp, and a classifier that never saw that misreads it (real top-1 0.47 against
0.79 on synthetic crops, 2026-11-30). Cutting the index out of the flat face, turned and scaled,
fills that gap cheaply: thousands of crops a second, no scene to render.

Each crop is framed like :func:`scorekeeper.training.classifier.extract_context_crops` frames its
context crops (the index box's axis-aligned bounds, ``CONTEXT_MARGIN`` around it, ``CONTEXT_SIZE``
pixels), so the same training-time jitter and photometric changes apply to both.

Procedural faces bring the 8, 9, 10 and joker indices a café deck may mix in, labelled
``not_a_card``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Protocol

import numpy as np

from scorekeeper.rules.cards import DECK, Card
from scorekeeper.training.classifier import CONTEXT_MARGIN, CONTEXT_SIZE

NOT_A_CARD_CLASS = len(DECK)


class _Face(Protocol):
    # Read-only, so a frozen face whose boxes are ints fits as well.
    @property
    def image(self) -> np.ndarray: ...

    @property
    def mask(self) -> np.ndarray: ...

    @property
    def index_boxes(self) -> tuple[tuple[float, float, float, float], ...]: ...

    @property
    def label(self) -> str: ...


class _Pack(Protocol):
    def labels(self) -> tuple[str, ...]: ...

    def face(self, card: str) -> _Face: ...


def class_of_label(label: str) -> int | None:
    """0-39 for the Sueca cards, ``not_a_card`` for 8/9/10/joker, None for a back."""
    if label == "BACK":
        return None
    if label == "JOKER" or label[0] in "89T":
        return NOT_A_CARD_CLASS
    return Card.parse(label).index


def turned_bound(width: float, height: float, theta: float) -> float:
    """The longer side of the axis-aligned bounds of a ``width`` x ``height`` box turned by
    ``theta`` radians: what a detector would draw around a turned index."""
    cos, sin = abs(math.cos(theta)), abs(math.sin(theta))
    return max(width * cos + height * sin, width * sin + height * cos)


def render_index_crop(
    face: _Face,
    box: Sequence[float],
    rng: np.random.Generator,
    *,
    background: np.ndarray | None = None,
) -> np.ndarray:
    """One context crop of the index ``box`` of ``face``, turned by a random angle and scaled so the
    turned box's longer side fills the classifier's framing."""
    import cv2

    x1, y1, x2, y2 = (float(v) for v in box)
    cx, cy = (x1 + x2) / 2.0, (y1 + y2) / 2.0
    angle = float(rng.uniform(0.0, 360.0))
    theta = np.deg2rad(angle)
    w, h = x2 - x1, y2 - y1
    bound = turned_bound(w, h, theta)
    target = CONTEXT_SIZE / (1.0 + 2.0 * CONTEXT_MARGIN)
    scale = target / max(bound, 1.0)
    matrix = np.asarray(cv2.getRotationMatrix2D((cx, cy), angle, scale), np.float64)
    matrix[:, 2] += (CONTEXT_SIZE / 2.0 - cx, CONTEXT_SIZE / 2.0 - cy)
    # Shrinking a big face in one warp aliases thin strokes: blur it to the target scale first.
    image = face.image
    if scale < 0.5:
        sigma = 0.5 / scale
        image = cv2.GaussianBlur(image, (0, 0), sigma * 0.6)
    card = cv2.warpAffine(
        image,
        matrix,
        (CONTEXT_SIZE, CONTEXT_SIZE),
        flags=cv2.INTER_AREA,
        borderMode=cv2.BORDER_REPLICATE,
    )
    inside = cv2.warpAffine(
        face.mask,
        matrix,
        (CONTEXT_SIZE, CONTEXT_SIZE),
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=0,
    )
    if background is None:
        background = table_patch(rng)
    alpha = (inside.astype(np.float32) / 255.0)[:, :, None]
    crop: np.ndarray = (card * alpha + background * (1.0 - alpha)).astype(np.uint8)
    return crop


def table_patch(
    rng: np.random.Generator, size: int = CONTEXT_SIZE, *, colours: tuple[float, float] = (20, 200)
) -> np.ndarray:
    """A plain table colour (each channel within ``colours``) with a little grain, ``size``
    pixels square: what shows past a card's rounded corner."""
    base = rng.uniform(*colours, size=3)
    grain = rng.normal(0, rng.uniform(2, 12), (size, size, 1))
    return np.clip(base[None, None, :] + grain, 0, 255).astype(np.uint8)


def face_context_crops(
    packs: Iterable[_Pack], *, per_index: int, seed: int = 0, labels: Iterable[str] | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """``per_index`` turned crops of each index of each face in ``packs`` (N x 96 x 96 x 3 BGR)."""
    rng = np.random.default_rng(seed)
    wanted = set(labels) if labels is not None else None
    crops: list[np.ndarray] = []
    classes: list[int] = []
    for pack in packs:
        for label in pack.labels():
            if wanted is not None and label not in wanted:
                continue
            cls = class_of_label(label)
            if cls is None:
                continue
            face = pack.face(label)
            for box in face.index_boxes:
                for _ in range(per_index):
                    crops.append(render_index_crop(face, box, rng))
                    classes.append(cls)
    if not crops:
        return np.zeros((0, CONTEXT_SIZE, CONTEXT_SIZE, 3), np.uint8), np.zeros((0,), np.int64)
    return np.stack(crops), np.asarray(classes, np.int64)


def procedural_packs(count: int, *, seed: int = 0) -> list[_Pack]:
    """``count`` procedural decks of random styles (fonts, colours, index layouts)."""
    from scorekeeper.synth.faces import FaceStyle, ProceduralPack

    return [
        ProceduralPack(FaceStyle.random(np.random.default_rng([seed, 7, i]))) for i in range(count)
    ]


def training_face_crops(
    packs: Sequence[_Pack], *, per_index: int, procedural: int, procedural_per_index: int, seed: int
) -> tuple[np.ndarray, np.ndarray] | None:
    """Face crops of ``packs`` plus those of ``procedural`` procedural decks, whose 8, 9, 10 and
    joker keep ``not_a_card`` and other fonts in view; None when both counts are zero."""
    parts = []
    if packs and per_index > 0:
        parts.append(face_context_crops(packs, per_index=per_index, seed=seed))
    if procedural > 0:
        parts.append(
            face_context_crops(
                procedural_packs(procedural, seed=seed),
                per_index=procedural_per_index,
                seed=seed + 1,
            )
        )
    if not parts:
        return None
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])
