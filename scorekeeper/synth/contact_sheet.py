"""A contact sheet of a YOLO data set: a few images with their boxes and class names drawn on,
so a person can check by eye that every visible index has a box and no box sits elsewhere."""

from __future__ import annotations

import re
from pathlib import Path

import cv2
import numpy as np

from scorekeeper.synth import SynthError


def read_names(dataset: Path) -> list[str]:
    """Class names from ``data.yaml`` (the ``names:`` block this package writes)."""
    path = dataset / "data.yaml"
    if not path.is_file():
        raise SynthError(
            f"{str(dataset)!r} has no data.yaml: build it with 'scorekeeper dataset build'"
        )
    names: dict[int, str] = {}
    for line in path.read_text().splitlines():
        m = re.match(r"\s+(\d+):\s*(\S+)\s*$", line)
        if m:
            names[int(m.group(1))] = m.group(2)
    return [names[k] for k in sorted(names)]


def _draw(image: np.ndarray, label_file: Path, names: list[str]) -> np.ndarray:
    h, w = image.shape[:2]
    out = image.copy()
    lines = label_file.read_text().split("\n") if label_file.exists() else []
    for line in lines:
        if not line.strip():
            continue
        cls, cx, cy, bw, bh = line.split()
        x1 = int((float(cx) - float(bw) / 2) * w)
        y1 = int((float(cy) - float(bh) / 2) * h)
        x2 = int((float(cx) + float(bw) / 2) * w)
        y2 = int((float(cy) + float(bh) / 2) * h)
        name = names[int(cls)] if int(cls) < len(names) else cls
        red = name[-1:] in ("H", "D")
        colour = (40, 40, 255) if red else (255, 200, 0)
        cv2.rectangle(out, (x1, y1), (x2, y2), (0, 0, 0), 3)
        cv2.rectangle(out, (x1, y1), (x2, y2), colour, 1)
        ty = y1 - 3 if y1 > 12 else y2 + 11
        cv2.putText(out, name, (x1, ty), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (0, 0, 0), 3, cv2.LINE_AA)
        cv2.putText(out, name, (x1, ty), cv2.FONT_HERSHEY_SIMPLEX, 0.4, colour, 1, cv2.LINE_AA)
    n = sum(1 for line in lines if line.strip())
    cv2.putText(
        out,
        f"{label_file.stem}: {n} boxes",
        (4, h - 6),
        cv2.FONT_HERSHEY_SIMPLEX,
        0.45,
        (0, 0, 0),
        3,
        cv2.LINE_AA,
    )
    cv2.putText(
        out,
        f"{label_file.stem}: {n} boxes",
        (4, h - 6),
        cv2.FONT_HERSHEY_SIMPLEX,
        0.45,
        (255, 255, 255),
        1,
        cv2.LINE_AA,
    )
    return out


def contact_sheet(
    dataset: str | Path,
    *,
    count: int = 12,
    split: str = "train",
    columns: int = 3,
    tile_width: int = 640,
    start: int = 0,
) -> np.ndarray:
    """The first ``count`` images of ``split`` from ``start`` with their labels, in a grid."""
    root = Path(dataset)
    names = read_names(root)
    images = sorted((root / "images" / split).glob("*.jpg"))[start : start + count]
    if not images:
        raise SynthError(f"{str(root / 'images' / split)!r} has no images to show")
    tiles = []
    for path in images:
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            raise SynthError(f"cannot read {str(path)!r}")
        drawn = _draw(image, root / "labels" / split / f"{path.stem}.txt", names)
        scale = tile_width / drawn.shape[1]
        tiles.append(cv2.resize(drawn, (tile_width, int(drawn.shape[0] * scale))))
    tile_h = max(t.shape[0] for t in tiles)
    padded = [
        cv2.copyMakeBorder(
            t, 0, tile_h - t.shape[0] + 4, 0, 4, cv2.BORDER_CONSTANT, value=(255, 255, 255)
        )
        for t in tiles
    ]
    while len(padded) % columns:
        padded.append(np.full_like(padded[0], 255))
    rows = [np.hstack(padded[i : i + columns]) for i in range(0, len(padded), columns)]
    return np.vstack(rows)


def crop_sheet(dataset: str | Path, *, split: str = "train", per_class: int = 12) -> np.ndarray:
    """One row per crop class (the 40 cards, then not_a_card): the first crops of each."""
    root = Path(dataset) / "crops" / split
    if not root.is_dir():
        raise SynthError(f"{str(root)!r} does not exist: build with --crops")
    from scorekeeper.synth.dataset import CROP_CLASSES

    rows = []
    for cls in CROP_CLASSES:
        files = sorted((root / cls).glob("*.jpg"))[:per_class]
        read = [cv2.imread(str(f), cv2.IMREAD_COLOR) for f in files]
        crops = [c for c in read if c is not None]
        if not crops:
            continue
        h, w = crops[0].shape[:2]
        label = np.full((h, 90, 3), 255, np.uint8)
        cv2.putText(
            label, cls, (3, h // 2 + 5), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 0), 1, cv2.LINE_AA
        )
        row = [label] + [cv2.resize(c, (w, h)) for c in crops]
        row += [np.full((h, w, 3), 255, np.uint8)] * (per_class - len(crops))
        rows.append(np.hstack(row))
    if not rows:
        raise SynthError(f"{str(root)!r} holds no crops")
    return np.vstack(rows)


def write_sheet(sheet: np.ndarray, out: str | Path) -> Path:
    path = Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    if not cv2.imwrite(str(path), sheet):
        raise SynthError(
            f"cannot write {str(path)!r}: use a .png or .jpg name in a writable folder"
        )
    return path
