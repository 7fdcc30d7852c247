"""Hard negatives: what the detector boxes on labelled frames where no index is, for stage 2.

The classifier learns ``not_a_card`` from the generator's distractors (8, 9, 10, backs, pips);
on deal videos the detector also fires on a card's back pattern, a hand's fingers, a face's
picture or a half-hidden corner. Boxes of a trained detector that overlap no labelled index are
cut as context crops labelled ``not_a_card``, so stage 2 learns to drop them.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from scorekeeper.training.classifier import CONTEXT_MARGIN, CONTEXT_SIZE, IMAGE_SUFFIXES
from scorekeeper.training.face_crops import NOT_A_CARD_CLASS
from scorekeeper.vision.boxes import touches_any
from scorekeeper.vision.crops import crop_square
from scorekeeper.vision.evaluate import read_yolo_labels


def mine_negatives(
    dataset: Path,
    detect: Callable[[np.ndarray], tuple[np.ndarray, Any]],
    *,
    split: str = "train",
    every: int = 1,
    min_px: float = 8.0,
    log: Callable[[str], None] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Context crops (N x 96 x 96 x 3) of ``detect``'s boxes clear of every labelled index.

    ``detect(frame)`` returns boxes (N x 4 pixels) and scores, as
    :meth:`scorekeeper.vision.CardReader.detect_indices`. A box near a labelled index (a
    corner seen askew, a second box on the same index) is not a negative and is skipped.
    """
    import cv2

    images = sorted(
        p for p in (dataset / "images" / split).iterdir() if p.suffix.lower() in IMAGE_SUFFIXES
    )
    crops: list[np.ndarray] = []
    for number, image_path in enumerate(images[::every]):
        frame = cv2.imread(str(image_path), cv2.IMREAD_COLOR)
        if frame is None:
            continue
        height, width = frame.shape[:2]
        _, truth = read_yolo_labels(
            dataset / "labels" / split / (image_path.stem + ".txt"), width, height
        )
        boxes, _ = detect(frame)
        for box in np.asarray(boxes, dtype=np.float64):
            if max(box[2] - box[0], box[3] - box[1]) < min_px or touches_any(box, truth):
                continue
            crops.append(crop_square(frame, tuple(box), margin=CONTEXT_MARGIN, size=CONTEXT_SIZE))
        if log is not None and number % 500 == 0:
            log(f"negatives: {number} frames, {len(crops)} crops")
    if not crops:
        return np.zeros((0, CONTEXT_SIZE, CONTEXT_SIZE, 3), np.uint8), np.zeros((0,), np.int64)
    return np.stack(crops), np.full(len(crops), NOT_A_CARD_CLASS, np.int64)
