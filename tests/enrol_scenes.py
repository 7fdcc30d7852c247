"""Test photos for the enrolment tests: procedural card faces warped onto a procedural table top,
with a little perspective, uneven light and noise, and the truth (which card, where)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from scorekeeper.synth.faces import FaceStyle, ProceduralPack
from scorekeeper.synth.scene import Pack
from scorekeeper.synth.tables import render_table


@dataclass(frozen=True, eq=False)
class Placed:
    label: str
    corners: np.ndarray
    """The face's TL, TR, BR, BL corners in photo pixels."""


RANK_FONT = "/usr/share/fonts/truetype/liberation/LiberationSansNarrow-Bold.ttf"

DECK_STYLE = FaceStyle(
    seed=2021383041,
    paper=(244, 244, 244),
    red=(10, 46, 155),
    black=(6, 47, 31),
    rank_font=RANK_FONT if Path(RANK_FONT).is_file() else "hershey:0",
    rank_bold=0,
    suit_variant="poly",
    index_height=0.0944,
    pip_ratio=0.694,
    margin=(0.0516, 0.0341),
    court_letters="KQJ",
    corner_radius=30,
    border=(99, 29, 102),
    border_inset=12,
    centre_pip_scale=0.109,
    court_colours=((113, 159, 228), (77, 199, 48), (93, 185, 72), (160, 116, 127)),
    back_colour=(157, 98, 140),
    back_pattern="stripes",
)
"""One plain deck, spelled out rather than drawn at random, so the enrolment tests see the same
faces whatever fonts a machine has installed (the random styles draw from every family present)."""


def deck_pack() -> ProceduralPack:
    """One deck, clean enough that a flat face can be compared with its source."""
    return ProceduralPack(DECK_STYLE, name="test-deck")


def table_photo(
    labels: list[str],
    *,
    pack: Pack,
    seed: int = 0,
    kind: str = "wood",
    size: tuple[int, int] = (1024, 768),
    card_px: float = 260.0,
    tilt: float = 0.06,
    light: bool = True,
) -> tuple[np.ndarray, list[Placed]]:
    """A photo of ``labels`` lying apart on a table (at most 8), and where each one lies."""
    rng = np.random.default_rng(seed)
    width, height = size
    photo: np.ndarray = render_table(width, height, rng, kind=kind).astype(np.float32)
    cols = 2 if len(labels) == 4 else 4 if len(labels) > 3 else len(labels)
    rows = (len(labels) + cols - 1) // cols
    cell_w, cell_h = width / cols, height / rows
    placed: list[Placed] = []
    for i, label in enumerate(labels):
        face = pack.face(label)
        fh, fw = face.image.shape[:2]
        cx = (i % cols + 0.5) * cell_w + rng.uniform(-0.04, 0.04) * cell_w
        cy = (i // cols + 0.5) * cell_h + rng.uniform(-0.04, 0.04) * cell_h
        # Small enough that a card turned any way stays in its cell: cards never touch.
        fit = 0.75 * min(cell_w, cell_h) / np.hypot(fw, fh) * fh
        scale = min(card_px, fit) / fh * rng.uniform(0.9, 1.0)
        angle = rng.uniform(0, 2 * np.pi)
        c, s = np.cos(angle), np.sin(angle)
        local = np.array(
            [(-fw / 2, -fh / 2), (fw / 2, -fh / 2), (fw / 2, fh / 2), (-fw / 2, fh / 2)]
        )
        local = local * scale
        dest = np.stack(
            [cx + local[:, 0] * c - local[:, 1] * s, cy + local[:, 0] * s + local[:, 1] * c], 1
        )
        src = np.array([(0, 0), (fw - 1, 0), (fw - 1, fh - 1), (0, fh - 1)], np.float32)
        matrix = cv2.getPerspectiveTransform(src, dest.astype(np.float32))
        image = cv2.warpPerspective(face.image, matrix, (width, height), flags=cv2.INTER_AREA)
        alpha = (
            cv2.warpPerspective(face.mask, matrix, (width, height)).astype(np.float32)[..., None]
            / 255
        )
        photo = photo * (1 - alpha) + image.astype(np.float32) * alpha
        placed.append(Placed(label=label, corners=dest.astype(np.float32)))
    # The camera a little off vertical: one homography for the photo and the truth alike.
    frame = np.array([(0, 0), (width, 0), (width, height), (0, height)], np.float32)
    # Corners only move inwards, so no card is pushed out of the photo.
    inward = np.array([(1, 1), (-1, 1), (-1, -1), (1, -1)], np.float32)
    moved = frame + rng.uniform(0, tilt, (4, 2)).astype(np.float32) * inward * np.array(
        [width, height], np.float32
    )
    view = cv2.getPerspectiveTransform(frame, moved)
    photo = cv2.warpPerspective(photo, view, (width, height), borderMode=cv2.BORDER_REFLECT)
    placed = [Placed(p.label, cv2.perspectiveTransform(p.corners[None], view)[0]) for p in placed]
    if light:  # a lamp off to one side
        ys, xs = np.mgrid[0:height, 0:width].astype(np.float32)
        lx, ly = rng.uniform(0, width), rng.uniform(0, height)
        reach = np.hypot(width, height)
        field = 1.08 - 0.4 * np.hypot(xs - lx, ys - ly) / reach
        photo = photo * field[..., None]
    photo = cv2.GaussianBlur(photo, (3, 3), 0) + rng.normal(0, 3, photo.shape).astype(np.float32)
    return np.clip(photo, 0, 255).astype(np.uint8), placed


class TemplateReader:
    """A stand-in for the card reader with the same three methods: it names a crop by comparing
    it with the test deck's own top-left index crops, so it is right on that deck and the
    enrolment flow can be checked end to end without a trained model. It finds no indices itself
    (the fixed corner crops must do), and counts its calls."""

    def __init__(self, pack: ProceduralPack) -> None:
        from scorekeeper.enrol.identify import corner_boxes
        from scorekeeper.rules.cards import DECK

        self.calls = 0
        refs = []
        for card in DECK:
            image = pack.face(card).image
            for box in corner_boxes(image.shape[1], image.shape[0]):
                refs.append(self._vector(self.crop(image, box)))
        self._refs = np.stack(refs)

    @staticmethod
    def _vector(crop: np.ndarray) -> np.ndarray:
        grey = cv2.GaussianBlur(crop, (3, 3), 0).astype(np.float32).ravel()
        grey -= grey.mean()
        return grey / (np.linalg.norm(grey) + 1e-6)

    def detect_indices(
        self, frame_bgr: np.ndarray, *, conf: float | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        return np.zeros((0, 4), np.float32), np.zeros((0,), np.float32)

    def crop(self, frame_bgr: np.ndarray, box: tuple[float, float, float, float]) -> np.ndarray:
        from scorekeeper.vision.crops import crop_square

        return crop_square(frame_bgr, box, margin=0.2, size=48)

    def classify_crops(self, crops_bgr: list[np.ndarray] | np.ndarray) -> np.ndarray:
        self.calls += 1
        if len(crops_bgr) == 0:
            return np.zeros((0, 41), np.float32)
        scores = np.stack([self._vector(c) for c in crops_bgr]) @ self._refs.T
        per_card = scores.reshape(len(crops_bgr), 40, -1).max(axis=2)  # refs are card-major
        logits = np.concatenate([per_card, np.full((len(crops_bgr), 1), 0.55)], axis=1) * 60.0
        exp = np.exp(logits - logits.max(axis=1, keepdims=True))
        return (exp / exp.sum(axis=1, keepdims=True)).astype(np.float32)
