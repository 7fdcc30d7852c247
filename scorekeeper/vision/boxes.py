"""Box arithmetic, in one place: boxes are ``(x1, y1, x2, y2)`` in pixels of the full frame."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

Box = tuple[float, float, float, float]
"""x1, y1, x2, y2 in pixels of the full-resolution frame."""


def as_box(values: Iterable[float] | np.ndarray) -> Box:
    """The four numbers of ``values`` (a row of an N x 4 array, say) as a :data:`Box` of floats.

    >>> as_box(np.array([1, 2, 3, 4], np.float32))
    (1.0, 2.0, 3.0, 4.0)
    """
    x1, y1, x2, y2 = (float(v) for v in values)
    return x1, y1, x2, y2


def center(box: Box) -> tuple[float, float]:
    x1, y1, x2, y2 = box
    return ((x1 + x2) / 2.0, (y1 + y2) / 2.0)


def area(box: Box) -> float:
    return (box[2] - box[0]) * (box[3] - box[1])


def intersection(a: Box, b: Box) -> float:
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    return ix * iy


def iou(a: Box, b: Box) -> float:
    """Intersection over union; 0 for boxes without area."""
    inter = intersection(a, b)
    union = area(a) + area(b) - inter
    return inter / union if union > 0 else 0.0


def nested_share(a: Box, b: Box) -> float:
    """How much of the smaller box lies inside the larger (1: wholly)."""
    smaller = min(area(a), area(b))
    return intersection(a, b) / smaller if smaller > 0 else 0.0


def union_box(a: Box, b: Box) -> Box:
    return (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))


def iou_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IoU of every box of ``a`` (N x 4) with every box of ``b`` (M x 4): N x M."""
    if len(a) == 0 or len(b) == 0:
        return np.zeros((len(a), len(b)))
    x1 = np.maximum(a[:, None, 0], b[None, :, 0])
    y1 = np.maximum(a[:, None, 1], b[None, :, 1])
    x2 = np.minimum(a[:, None, 2], b[None, :, 2])
    y2 = np.minimum(a[:, None, 3], b[None, :, 3])
    inter = np.clip(x2 - x1, 0, None) * np.clip(y2 - y1, 0, None)
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    overlaps: np.ndarray = inter / np.maximum(area_a[:, None] + area_b[None, :] - inter, 1e-9)
    return overlaps


def touches_any(box: np.ndarray, boxes: np.ndarray, *, grow: float = 0.25) -> bool:
    """Whether ``box`` touches any of ``boxes`` (N x 4) grown by ``grow`` of their size on each
    side."""
    if not len(boxes):
        return False
    w = boxes[:, 2] - boxes[:, 0]
    h = boxes[:, 3] - boxes[:, 1]
    x1, y1 = boxes[:, 0] - grow * w, boxes[:, 1] - grow * h
    x2, y2 = boxes[:, 2] + grow * w, boxes[:, 3] + grow * h
    return bool(np.any((box[0] < x2) & (box[2] > x1) & (box[1] < y2) & (box[3] > y1)))
