"""Tiles of the detection set at native resolution, mixed with the whole (shrunk) frames.

Training the detector at ``imgsz`` 320 on 640-px scenes halves every index: the median index
(~17 px in the scenes) would reach the network at ~9 px, too small to learn well. Cutting a
``tile`` x ``tile`` window out of each training frame keeps indices at their rendered size, while
the whole frames (shrunk by the trainer) still teach the large ones. The detector then trains on
both: ``data.yaml`` lists the frames and the tiles.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from scorekeeper.vision.evaluate import read_yolo_labels

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png")


def write_tiles(
    dataset: Path,
    out: Path,
    *,
    tile: int = 320,
    per_image: int = 1,
    seed: int = 0,
    min_inside: float = 0.6,
) -> int:
    """Cut ``per_image`` random tiles from each training frame into ``out`` (YOLO layout).

    A box keeps its label when at least ``min_inside`` of it lies in the tile (clipped to it).
    Tiles prefer windows with indices in them. Returns the number of tiles written.
    """
    import cv2

    rng = np.random.default_rng(seed)
    (out / "images").mkdir(parents=True, exist_ok=True)
    (out / "labels").mkdir(parents=True, exist_ok=True)
    written = 0
    for image_path in sorted((dataset / "images" / "train").iterdir()):
        if image_path.suffix.lower() not in IMAGE_SUFFIXES:
            continue
        frame = cv2.imread(str(image_path))
        if frame is None:
            continue
        height, width = frame.shape[:2]
        classes, xyxy = read_yolo_labels(
            dataset / "labels" / "train" / (image_path.stem + ".txt"), width, height
        )
        tw, th = min(tile, width), min(tile, height)
        for k in range(per_image):
            if len(xyxy) and rng.random() < 0.8:  # centre a window near a random index
                cx, cy = (xyxy[rng.integers(len(xyxy))][:2] + xyxy[rng.integers(len(xyxy))][2:]) / 2
                x0 = int(np.clip(cx - tw / 2 + rng.uniform(-tw / 3, tw / 3), 0, width - tw))
                y0 = int(np.clip(cy - th / 2 + rng.uniform(-th / 3, th / 3), 0, height - th))
            else:
                x0 = int(rng.integers(0, width - tw + 1))
                y0 = int(rng.integers(0, height - th + 1))
            crop = frame[y0 : y0 + th, x0 : x0 + tw]
            lines = []
            for cls, (x1, y1, x2, y2) in zip(classes, xyxy):
                cx1, cy1 = max(x1, x0), max(y1, y0)
                cx2, cy2 = min(x2, x0 + tw), min(y2, y0 + th)
                area = max(x2 - x1, 1e-6) * max(y2 - y1, 1e-6)
                if cx2 <= cx1 or cy2 <= cy1 or (cx2 - cx1) * (cy2 - cy1) < min_inside * area:
                    continue
                lines.append(
                    f"{cls} {((cx1 + cx2) / 2 - x0) / tw:.6f} {((cy1 + cy2) / 2 - y0) / th:.6f} "
                    f"{(cx2 - cx1) / tw:.6f} {(cy2 - cy1) / th:.6f}"
                )
            name = f"{image_path.stem}_t{k}"
            cv2.imwrite(str(out / "images" / f"{name}.jpg"), crop, [cv2.IMWRITE_JPEG_QUALITY, 95])
            (out / "labels" / f"{name}.txt").write_text("\n".join(lines) + ("\n" if lines else ""))
            written += 1
    return written


def write_mixed_yaml(
    dataset: Path, tiles: Path, target: Path, *, extra: list[Path] | None = None
) -> Path:
    """A ``data.yaml`` training on the frames and the tiles (and the ``extra`` images, listed in a
    file beside it), validating on the frames' val split."""
    names = "\n".join(f"  {i}: {i}" for i in range(40))
    sources = [(dataset / "images" / "train").resolve(), (tiles / "images").resolve()]
    if extra:
        listing = target.with_suffix(".extra.txt")
        listing.write_text("".join(f"{path.resolve()}\n" for path in extra))
        sources.append(listing.resolve())
    train = "".join(f"  - {source}\n" for source in sources)
    target.write_text(
        f"train:\n{train}val: {(dataset / 'images' / 'val').resolve()}\nnc: 40\nnames:\n{names}\n"
    )
    return target


def sample_tiles(tiles: Path, count: int, *, seed: int = 0) -> list[Path]:
    """``count`` tiles drawn at random (all of them when there are fewer), in a stable order."""
    found = sorted(p for p in (tiles / "images").iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
    if count >= len(found):
        return found
    chosen = np.random.default_rng(seed).choice(len(found), size=count, replace=False)
    return [found[i] for i in sorted(chosen)]
