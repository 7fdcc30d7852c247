"""Index crops framed the way the detector frames them, named by the labelled box they cover.

The classifier's scene crops are cut around the labelled index box and jittered by an eighth of
its size. The detector frames an index in a fanned hand's strip more loosely: on rendered phone
photos of fanned hands its box overlapped the labelled one by a median 0.66 (0.81 for every index
found), shifted or resized by up to a fifth of the index, with the next card's index beside it.
Named from such crops the right card came first at a median 0.48, under any deck's ``card_prob``.
Cutting training crops around the boxes the detector itself draws on the training scenes teaches
the classifier the framing it will be handed.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from scorekeeper.rules.cards import DECK
from scorekeeper.training.classifier import CONTEXT_MARGIN, CONTEXT_SIZE, detection_images
from scorekeeper.vision.boxes import iou_matrix
from scorekeeper.vision.crops import crop_square
from scorekeeper.vision.evaluate import read_yolo_labels

Detect = Callable[[np.ndarray], np.ndarray]
"""A frame (H x W x 3 BGR) -> the detector's index boxes (N x 4, x1 y1 x2 y2, frame pixels)."""

MIN_OVERLAP = 0.35
"""A box overlapping a labelled index by this much is a framing of it (IoU)."""
MIN_PX = 12.0
"""Boxes smaller than this on their longer side are left out, as the scene crops leave them."""


def detector_framed_crops(
    dataset: Path,
    detect: Detect,
    *,
    split: str = "train",
) -> tuple[np.ndarray, np.ndarray]:
    """Context crops (N x 96 x 96 x 3 BGR) around each box ``detect`` draws on a detection set's
    images that covers a labelled index, with that index's class.

    Boxes covering no labelled index are left out: an index the labels leave out (half under
    another card, or under the size the labels keep) is not known to be no card."""
    import cv2

    crops: list[np.ndarray] = []
    labels: list[int] = []
    for image_path in detection_images(dataset, split):
        frame = cv2.imread(str(image_path), cv2.IMREAD_COLOR)
        if frame is None:
            continue
        label_path = dataset / "labels" / split / (image_path.stem + ".txt")
        classes, truth = read_yolo_labels(label_path, frame.shape[1], frame.shape[0])
        cards = classes < len(DECK)
        classes, truth = classes[cards], truth[cards].astype(np.float32)
        if not len(truth):
            continue
        found = np.asarray(detect(frame), np.float32).reshape(-1, 4)
        if not len(found):
            continue
        overlaps = iou_matrix(found, truth)
        for box, row in zip(found, overlaps):
            best = int(np.argmax(row))
            if row[best] < MIN_OVERLAP or max(box[2] - box[0], box[3] - box[1]) < MIN_PX:
                continue
            x0, y0, x1, y1 = (float(v) for v in box)
            crops.append(
                crop_square(frame, (x0, y0, x1, y1), margin=CONTEXT_MARGIN, size=CONTEXT_SIZE)
            )
            labels.append(int(classes[best]))
    if not crops:
        return np.zeros((0, CONTEXT_SIZE, CONTEXT_SIZE, 3), np.uint8), np.zeros((0,), np.int64)
    return np.stack(crops), np.asarray(labels, np.int64)
