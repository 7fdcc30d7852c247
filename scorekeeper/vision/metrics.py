"""The reader's figures from what it saw and what was there: no model, no images, no OpenCV.

:mod:`scorekeeper.vision.evaluate` runs the reader over labelled images and hands what it found to
these; the model registry reads a model's figures with them too, so they import nothing of the
reader.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from scorekeeper.vision.boxes import iou_matrix


def match_by_score(
    pred: np.ndarray, scores: np.ndarray, gt: np.ndarray, ignore: np.ndarray, iou: float = 0.5
) -> tuple[list[tuple[float, int]], int]:
    """Greedy matching by score: (score, 1 TP / 0 FP) per counted prediction, and the GT count."""
    order = np.argsort(-scores)
    taken = np.zeros(len(gt), bool)
    overlaps = iou_matrix(pred[order], gt) if len(gt) else np.zeros((len(order), 0))
    ignore_overlaps = iou_matrix(pred[order], ignore) if len(ignore) else np.zeros((len(order), 0))
    out: list[tuple[float, int]] = []
    for row, k in enumerate(order):
        if overlaps.shape[1]:
            candidates = np.where(~taken & (overlaps[row] >= iou))[0]
            if len(candidates):
                best = candidates[np.argmax(overlaps[row, candidates])]
                taken[best] = True
                out.append((float(scores[k]), 1))
                continue
        if ignore_overlaps.shape[1] and ignore_overlaps[row].max() >= iou:
            continue
        out.append((float(scores[k]), 0))
    return out, len(gt)


def average_precision(matches: list[tuple[float, int]], total: int) -> float:
    """Area under the interpolated precision-recall curve (COCO-style 101 points)."""
    if total == 0:
        return float("nan")
    if not matches:
        return 0.0
    matches = sorted(matches, key=lambda m: -m[0])
    hits = np.cumsum([m[1] for m in matches])
    precision = hits / np.arange(1, len(matches) + 1)
    recall = hits / total
    envelope = np.maximum.accumulate(precision[::-1])[::-1]
    points = np.linspace(0, 1, 101)
    idx = np.searchsorted(recall, points, side="left")
    return float(np.mean([envelope[i] if i < len(envelope) else 0.0 for i in idx]))


def best_f1_threshold(matches: list[tuple[float, int]], total: int) -> tuple[float, float]:
    """The detector threshold with the best F1 (to set ``index_conf`` from synthetic data)."""
    if not matches or total == 0:
        return 0.0, 0.0
    ordered = sorted(matches, key=lambda m: -m[0])
    hits = np.cumsum([m[1] for m in ordered])
    precision = hits / np.arange(1, len(ordered) + 1)
    recall = hits / total
    f1 = 2 * precision * recall / np.maximum(precision + recall, 1e-9)
    best = int(np.argmax(f1))
    return float(f1[best]), float(ordered[best][0])


FALSE_CARD_KINDS = ("rank_slip", "suit_slip", "with_non_sueca", "other")
"""How a reported card that is not in the photo relates to what is: another rank of a suit present,
another suit of a rank present, a photo that also holds an 8, 9, 10 or joker, or none of these."""


def false_card_kind(card: str, truth: set[str], *, non_sueca_present: bool = False) -> str:
    """Which of :data:`FALSE_CARD_KINDS` a falsely reported ``card`` is (notation like ``"7H"``).

    >>> false_card_kind("6D", {"JD"}), false_card_kind("JS", {"JD"}), false_card_kind("2C", {"JD"})
    ('rank_slip', 'suit_slip', 'other')
    >>> false_card_kind("2C", {"JD"}, non_sueca_present=True)
    'with_non_sueca'
    """
    if non_sueca_present:
        return "with_non_sueca"
    if any(present[-1] == card[-1] for present in truth):
        return "rank_slip"
    if any(present[:-1] == card[:-1] for present in truth):
        return "suit_slip"
    return "other"


SUITS = ("H", "S", "D", "C")
"""Suit letters in the order the figures list them (copas, espadas, ouros, paus)."""


def suit_read_as(card: str, seen: set[str], truth: set[str]) -> str:
    """How a present ``card`` came out: its own suit letter when read, another suit's letter when
    that suit's card of the same rank was reported instead (and is not itself present), else
    ``missed``.

    >>> (suit_read_as("5C", {"5S"}, {"5C"}), suit_read_as("5C", {"5C"}, {"5C"}),
    ...  suit_read_as("5C", set(), {"5C"}))
    ('S', 'C', 'missed')
    """
    if card in seen:
        return card[-1]
    for suit in SUITS:
        other = card[:-1] + suit
        if other != card and other in seen and other not in truth:
            return suit
    return "missed"


def card_f1(figures: dict[str, Any]) -> float:
    """F1 of :func:`measure_cards`' precision and recall; 0 when either is missing or undefined."""
    p, r = figures.get("card_precision"), figures.get("card_recall")
    if p is None or r is None:
        return 0.0
    p, r = float(p), float(r)
    if math.isnan(p) or math.isnan(r) or p + r == 0:
        return 0.0
    return 2 * p * r / (p + r)
