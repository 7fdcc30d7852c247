"""Naming a flat face with the current card reader, using what a flat face tells for free.

On a flat, upright face the printed indices sit near two opposite corners (top-left, and
bottom-right upside down; some decks print all four corners). So instead of asking the reader to
find them in a whole frame, each corner is read in two ways and the evidence is pooled:

1. fixed crops around where indices are printed, at a few sizes (decks print them 10-20 % of the
   card's height), the bottom corners turned half round so every crop shows an upright index;
2. the reader's own index detector, run on the face padded into a frame, keeping only boxes in a
   corner.

Each corner's crops vote with their card probabilities, weighted by how sure the classifier is that
the crop is a card at all; the face's reading is the mean of its two main corners (plus the other
two when they clearly hold an index). A reading is *doubtful* when its confidence is below a
threshold or when the two main corners name different cards: those go to a person to confirm.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import cv2
import numpy as np

from scorekeeper.rules.cards import DECK, Card
from scorekeeper.vision.boxes import Box

DOUBT_BELOW = 0.5
"""Confidence under which a reading goes to a person. Raising it asks about more cards (slower
enrolment, fewer wrong names saved); lowering it trusts a reader that is right about half the time.
"""

INDEX_SIZES: tuple[float, ...] = (0.2, 0.27, 0.34)
"""Heights of the fixed corner crops' index box, as fractions of the card's height (rank + pip)."""

CORNER_ZONE = (0.42, 0.36)
"""How far in from a corner (fractions of width, height) a detected index still belongs to it."""

DETECTOR_FACE_HEIGHT = 240
"""Height the face is shrunk to inside the detector's frame: near the index sizes it was trained
on."""

CORNERS: tuple[str, ...] = ("top-left", "bottom-right", "top-right", "bottom-left")
"""The two main corners first; the other two count only where a deck prints four indices."""


class IndexReader(Protocol):
    """What enrolment needs of a card reader (:class:`scorekeeper.vision.reader.CardReader`)."""

    def detect_indices(
        self, frame_bgr: np.ndarray, *, conf: float | None = None
    ) -> tuple[np.ndarray, np.ndarray]: ...

    def crop(self, frame_bgr: np.ndarray, box: Box) -> np.ndarray: ...

    def classify_crops(self, crops_bgr: list[np.ndarray] | np.ndarray) -> np.ndarray: ...


@dataclass(frozen=True, eq=False)
class Reading:
    """What the reader makes of one face (or of several views of one card, pooled)."""

    card: Card
    confidence: float
    """The pooled probability of ``card`` (0-1)."""
    guesses: tuple[tuple[Card, float], ...]
    """The three likeliest cards with their probabilities, best first."""
    corners_agree: bool
    """The two main corners named the same card."""
    doubtful: bool
    probs: np.ndarray
    """Pooled probabilities over the 40 cards in :data:`DECK` order (sums to 1)."""

    def describe(self) -> str:
        """``7H 62% (QH 20%, 7D 5%)``, for the terminal."""
        others = ", ".join(f"{c.notation} {p:.0%}" for c, p in self.guesses[1:])
        return f"{self.card.notation} {self.confidence:.0%}" + (f" ({others})" if others else "")


def reading_from_probs(
    probs: np.ndarray, *, corners_agree: bool = True, doubt_below: float = DOUBT_BELOW
) -> Reading:
    """A reading from 40 card probabilities (normalised here)."""
    p = np.asarray(probs, np.float64)[: len(DECK)].clip(min=0)
    total = float(p.sum())
    p = p / total if total > 0 else np.full(len(DECK), 1.0 / len(DECK))
    order = np.argsort(-p)[:3]
    best = int(order[0])
    confidence = float(p[best])
    return Reading(
        card=DECK[best],
        confidence=confidence,
        guesses=tuple((DECK[int(i)], float(p[int(i)])) for i in order),
        corners_agree=corners_agree,
        doubtful=confidence < doubt_below or not corners_agree,
        probs=p.astype(np.float32),
    )


def corner_vote(probs: np.ndarray) -> tuple[np.ndarray, float]:
    """Pool a corner's crops (N x 41): card probabilities weighted by 1 - P(not a card).

    Returns the corner's 40 card probabilities and its weight (mean card-ness of its crops), so a
    blank corner of a two-index deck barely counts.
    """
    if len(probs) == 0:
        return np.full(len(DECK), 1.0 / len(DECK)), 0.0
    cards = probs[:, : len(DECK)].astype(np.float64)
    weights = cards.sum(axis=1)
    if float(weights.sum()) <= 1e-9:
        return np.full(len(DECK), 1.0 / len(DECK)), 0.0
    pooled = (cards * weights[:, None]).sum(axis=0)  # each crop's card part, by its own weight
    return pooled / pooled.sum(), float(weights.mean())


def combine_corners(corners: dict[str, np.ndarray], *, doubt_below: float = DOUBT_BELOW) -> Reading:
    """One reading from each corner's crop probabilities (name -> N x 41)."""
    votes = {name: corner_vote(probs) for name, probs in corners.items()}
    pooled = np.zeros(len(DECK))
    total = 0.0
    for name, (vote, weight) in votes.items():
        main = name in CORNERS[:2]
        if not main and weight < 0.5:
            continue  # the empty corners of a two-index deck
        pooled += vote * max(weight, 1e-3)
        total += max(weight, 1e-3)
    if total == 0:
        pooled[:] = 1.0
    main_votes = [votes[n] for n in CORNERS[:2] if n in votes and votes[n][1] > 0.2]
    agree = len(main_votes) == 2 and int(np.argmax(main_votes[0][0])) == int(
        np.argmax(main_votes[1][0])
    )
    return reading_from_probs(pooled, corners_agree=agree, doubt_below=doubt_below)


def corner_boxes(width: int, height: int, *, right: bool = False) -> list[Box]:
    """Fixed boxes around where a top index is printed, at :data:`INDEX_SIZES`: the top-left one,
    or with ``right`` the top-right one (four-index decks)."""
    boxes: list[Box] = []
    for size in INDEX_SIZES:
        h = size * height
        w = 0.5 * h
        x1, y1 = 0.035 * width, 0.025 * height
        if right:
            x1 = width - x1 - w
        boxes.append((x1, y1, x1 + w, y1 + h))
    return boxes


def fixed_crops(reader: IndexReader, face: np.ndarray) -> dict[str, list[np.ndarray]]:
    """The classifier's crops of each corner, from the fixed boxes; the bottom corners are read on
    the face turned half round, so every crop shows an index the right way up."""
    height, width = face.shape[:2]
    turned = np.ascontiguousarray(face[::-1, ::-1])
    crops: dict[str, list[np.ndarray]] = {}
    for corner in CORNERS:
        source = turned if corner.startswith("bottom") else face
        right = corner in ("top-right", "bottom-left")
        crops[corner] = [
            reader.crop(source, box) for box in corner_boxes(width, height, right=right)
        ]
    return crops


def detected_crops(reader: IndexReader, face: np.ndarray) -> dict[str, list[np.ndarray]]:
    """The classifier's crops of the indices the detector finds in each corner of the face."""
    height, width = face.shape[:2]
    scale = DETECTOR_FACE_HEIGHT / height
    small = cv2.resize(
        face, (max(1, round(width * scale)), DETECTOR_FACE_HEIGHT), interpolation=cv2.INTER_AREA
    )
    side = 2 * DETECTOR_FACE_HEIGHT
    frame = np.full((side, side, 3), 114, np.uint8)
    top, left = (side - small.shape[0]) // 2, (side - small.shape[1]) // 2
    frame[top : top + small.shape[0], left : left + small.shape[1]] = small
    boxes, _scores = reader.detect_indices(frame)
    crops: dict[str, list[np.ndarray]] = {corner: [] for corner in CORNERS}
    zx, zy = CORNER_ZONE
    sh, sw = small.shape[:2]
    for box in boxes[:12]:
        x1, y1, x2, y2 = (float(v) for v in box)
        u = ((x1 + x2) / 2 - left) / sw
        v = ((y1 + y2) / 2 - top) / sh
        corner = None
        if v < zy:
            corner = "top-left" if u < zx else "top-right" if u > 1 - zx else None
        elif v > 1 - zy:
            corner = "bottom-left" if u < zx else "bottom-right" if u > 1 - zx else None
        if corner is None:
            continue
        crop = reader.crop(frame, (x1, y1, x2, y2))
        if corner.startswith("bottom"):
            crop = np.ascontiguousarray(crop[::-1, ::-1])
        crops[corner].append(crop)
    return crops


def read_face(
    reader: IndexReader,
    face: np.ndarray,
    *,
    doubt_below: float = DOUBT_BELOW,
    use_detector: bool = True,
) -> Reading:
    """Name one flat, upright-ish face (BGR). ``use_detector=False`` skips the detector pass: about
    ten times faster, and blind to decks that print their indices away from the usual place."""
    crops = fixed_crops(reader, face)
    if use_detector:
        for corner, more in detected_crops(reader, face).items():
            crops[corner] += more
    flat: list[np.ndarray] = []
    spans: dict[str, slice] = {}
    for corner in CORNERS:
        spans[corner] = slice(len(flat), len(flat) + len(crops[corner]))
        flat += crops[corner]
    probs = reader.classify_crops(flat)
    return combine_corners({c: probs[spans[c]] for c in CORNERS}, doubt_below=doubt_below)


def pool_readings(readings: Sequence[Reading], *, doubt_below: float = DOUBT_BELOW) -> Reading:
    """One reading from several views of the same physical card (mean probabilities); the corners
    agree when most views' corners agreed on the pooled card."""
    if not readings:
        raise ValueError("pool_readings needs at least one reading")
    mean = np.mean([r.probs for r in readings], axis=0)
    best = DECK[int(np.argmax(mean))]
    agreeing = sum(1 for r in readings if r.corners_agree and r.card == best)
    return reading_from_probs(
        mean, corners_agree=2 * agreeing >= len(readings), doubt_below=doubt_below
    )
