"""Café table tops, drawn procedurally (or taken from a folder of photos).

API (kept stable; ``scorekeeper simulate`` builds on it):

- ``render_table(width, height, rng, kind=None) -> np.ndarray`` a BGR uint8 table top seen from
  straight above; ``kind`` is one of :data:`TABLE_KINDS` (random when None).
- ``TableImages.load(folder)`` photos of table tops; ``.sample(width, height, rng)`` returns a
  random crop of one, resized, with the same return type.

>>> import numpy as np
>>> render_table(64, 48, np.random.default_rng(0)).shape
(48, 64, 3)
"""

from __future__ import annotations

import os
from pathlib import Path

import cv2
import numpy as np

from scorekeeper.synth import SynthError

TABLE_KINDS: tuple[str, ...] = (
    "wood",
    "formica",
    "felt",
    "cloth",
    "gingham",
    "stripes",
    "dots",
    "marble",
    "plain",
)


def _smooth_noise(height: int, width: int, cells: int, rng: np.random.Generator) -> np.ndarray:
    """Zero-mean, unit-ish noise with blobs about ``width / cells`` wide (float32)."""
    ch = max(2, round(cells * height / max(width, 1)))
    small = rng.standard_normal((ch, max(2, cells))).astype(np.float32)
    return cv2.resize(small, (width, height), interpolation=cv2.INTER_CUBIC)


def _fine_noise(height: int, width: int, rng: np.random.Generator, sigma: float) -> np.ndarray:
    return rng.standard_normal((height, width), dtype=np.float32) * sigma


def _colour(rng: np.random.Generator, lo: int, hi: int, vivid: float = 0.6) -> np.ndarray:
    # Real table tops are muted: pull a random colour towards grey (tablecloths may stay vivid).
    c = rng.uniform(lo, hi, 3).astype(np.float32)
    grey = c.mean()
    muted: np.ndarray = grey + (c - grey) * np.float32(rng.uniform(0.15, vivid))
    return muted


def _shade(base: np.ndarray, field: np.ndarray) -> np.ndarray:
    """Multiply a BGR colour by a per-pixel brightness field (1.0 = unchanged)."""
    shaded: np.ndarray = base[None, None, :] * field[:, :, None]
    return shaded


def render_table(
    width: int, height: int, rng: np.random.Generator, kind: str | None = None
) -> np.ndarray:
    """A table top ``width`` x ``height`` (BGR uint8) of a random or given ``kind``."""
    if kind is None:
        kind = str(rng.choice(TABLE_KINDS))
    if kind not in TABLE_KINDS:
        raise SynthError(f"unknown table kind {kind!r}: use one of {' '.join(TABLE_KINDS)}")
    h, w = height, width
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    if kind == "wood":
        base = np.array(
            [rng.uniform(20, 90), rng.uniform(50, 120), rng.uniform(90, 190)], np.float32
        )
        angle = rng.uniform(0, np.pi)
        u = xs * np.cos(angle) + ys * np.sin(angle)
        warp = _smooth_noise(h, w, int(rng.integers(2, 5)), rng) * rng.uniform(5, 20)
        period = rng.uniform(6, 30)
        grain = np.sin((u + warp) / period * 2 * np.pi) * 0.5 + 0.5
        grain = grain ** rng.uniform(1, 4)
        planks = rng.random() < 0.5
        field = 0.85 + 0.25 * grain + _smooth_noise(h, w, 40, rng) * 0.04
        if planks:
            v = -xs * np.sin(angle) + ys * np.cos(angle)
            plank_w = rng.uniform(60, 200)
            seam = (np.abs(v % plank_w) < 2).astype(np.float32)
            field = field * (1 - 0.35 * seam)
        out = _shade(base, field)
    elif kind == "formica":
        base = _colour(rng, 40, 235)
        field = 1 + _fine_noise(h, w, rng, 0.025) + _smooth_noise(h, w, 8, rng) * 0.03
        out = _shade(base, field)
        speck = rng.random((h, w)) < rng.uniform(0.0, 0.02)
        out[speck] *= rng.uniform(0.5, 1.4)
    elif kind == "felt":
        base = np.array(
            rng.choice([[40, 100, 25], [100, 60, 25], [35, 35, 110], [50, 50, 50]]), np.float32
        ) * np.float32(rng.uniform(0.7, 1.3))
        field = 1 + _fine_noise(h, w, rng, 0.06) + _smooth_noise(h, w, 12, rng) * 0.05
        out = _shade(base, field)
    elif kind == "cloth":
        base = _colour(rng, 60, 240)
        pitch = rng.uniform(2.5, 6)
        weave = (np.sin(xs / pitch * np.pi) * np.sin(ys / pitch * np.pi)) * 0.06
        field = 1 + weave + _fine_noise(h, w, rng, 0.03) + _smooth_noise(h, w, 6, rng) * 0.05
        out = _shade(base, field)
    elif kind in ("gingham", "stripes", "dots"):
        a, b = _colour(rng, 180, 250), _colour(rng, 20, 200, vivid=1.0)
        size = rng.uniform(12, 60)
        angle = rng.uniform(-0.3, 0.3) + (np.pi / 4 if rng.random() < 0.2 else 0)
        u = xs * np.cos(angle) + ys * np.sin(angle)
        v = -xs * np.sin(angle) + ys * np.cos(angle)
        if kind == "gingham":
            mix = (((u // size) % 2) + ((v // size) % 2)) / 2.0
        elif kind == "stripes":
            mix = ((u // size) % 2).astype(np.float32)
        else:
            mix = (
                ((u % size) - size / 2) ** 2 + ((v % size) - size / 2) ** 2
                < (size * rng.uniform(0.15, 0.35)) ** 2
            ).astype(np.float32)
        mix = cv2.GaussianBlur(mix.astype(np.float32), (0, 0), 0.8)
        out = a[None, None, :] * (1 - mix[:, :, None]) + b[None, None, :] * mix[:, :, None]
        out *= (1 + _fine_noise(h, w, rng, 0.03) + _smooth_noise(h, w, 5, rng) * 0.04)[:, :, None]
    elif kind == "marble":
        base = _colour(rng, 150, 245)
        veins = np.abs(np.sin((xs * 0.01 + _smooth_noise(h, w, 5, rng) * 2.5) * np.pi * 2))
        field = 0.8 + 0.2 * veins**0.3 + _fine_noise(h, w, rng, 0.015)
        out = _shade(base, field)
    else:
        base = _colour(rng, 30, 230)
        out = _shade(base, 1 + _smooth_noise(h, w, 4, rng) * 0.04 + _fine_noise(h, w, rng, 0.01))
    table: np.ndarray = np.clip(out, 0, 255).astype(np.uint8)
    return table


class TableImages:
    """Photos of table tops (any .jpg/.png in a folder) to crop backgrounds from."""

    def __init__(self, files: list[Path]) -> None:
        self.files = files
        self._cache: dict[Path, np.ndarray] = {}

    @classmethod
    def load(cls, folder: str | os.PathLike[str]) -> TableImages:
        path = Path(folder)
        files = sorted(p for p in path.glob("*") if p.suffix.lower() in (".jpg", ".jpeg", ".png"))
        if not path.is_dir() or not files:
            raise SynthError(f"table folder {str(folder)!r} has no .jpg or .png images")
        return cls(files)

    def sample(self, width: int, height: int, rng: np.random.Generator) -> np.ndarray:
        file = self.files[int(rng.integers(len(self.files)))]
        if file not in self._cache:
            image = cv2.imread(str(file), cv2.IMREAD_COLOR)
            if image is None:
                raise SynthError(f"cannot read table image {str(file)!r}")
            self._cache[file] = image
        image = self._cache[file]
        ih, iw = image.shape[:2]
        scale = rng.uniform(0.5, 1.0)
        cw, ch = max(8, int(iw * scale)), max(8, int(ih * scale))
        x, y = int(rng.integers(0, iw - cw + 1)), int(rng.integers(0, ih - ch + 1))
        return cv2.resize(
            image[y : y + ch, x : x + cw], (width, height), interpolation=cv2.INTER_AREA
        )
