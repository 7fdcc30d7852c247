"""A webcam-scale view of a labelled photo set: each photo shrunk until its corner indices are as
small as a café webcam shows them, then blurred, noised and JPEG-compressed as a webcam would.

Phone close-ups (``realcards-dev``) show indices ~100 px tall; a webcam a metre above the table
shows them 13-37 px tall (median 27). A reader can do well on the first and fail on the second
(clubs and spades become two dark blobs), so the benchmark measures both from the same photos.

The view is written as a folder in the same layout as the source (``images/``, ``labels/``,
``manifest.jsonl``), each shrunk photo placed in a 640x360 frame as the real webcam sets are, its
labels moved with it. The same seed writes the same files.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np

INDEX_PX = (13.0, 37.0)
"""The range of index heights (pixels) the view draws from: log-normal around :data:`MEDIAN_PX`,
clipped to this range (what a 640x360 webcam frame of a table shows)."""
MEDIAN_PX = 27.0
SPREAD = 0.3
"""Standard deviation of the log index height."""


def draw_index_height(rng: np.random.Generator) -> float:
    """One target index height in pixels."""
    return float(np.clip(np.exp(rng.normal(np.log(MEDIAN_PX), SPREAD)), *INDEX_PX))


def _index_heights(label_path: Path, height: int) -> list[float]:
    heights = []
    if label_path.is_file():
        for line in label_path.read_text().splitlines():
            parts = line.split()
            if len(parts) >= 5:
                heights.append(max(float(parts[3]), float(parts[4])) * height)
    return heights


FRAME = (640, 360)
"""The webcam frame the shrunk photo is placed in (width, height), as the real webcam sets are."""


def webcam_frame(
    image: np.ndarray, index_height: float, target: float, rng: np.random.Generator
) -> tuple[np.ndarray, float, float, float]:
    """``image`` shrunk so an index ``index_height`` px tall becomes ``target`` px, placed at a
    random spot of a :data:`FRAME` of its mean colour, as a webcam delivers it: lens blur, sensor
    noise, JPEG at quality 30-70. Returns the frame, the scale and the photo's (x, y) offset."""
    import cv2

    scale = min(1.0, target / max(index_height, 1.0))
    h, w = image.shape[:2]
    size = (max(8, round(w * scale)), max(8, round(h * scale)))
    blurred = cv2.GaussianBlur(image, (0, 0), max(0.3, 0.6 / scale)) if scale < 1 else image
    small = cv2.resize(blurred, size, interpolation=cv2.INTER_AREA)
    frame_w, frame_h = max(FRAME[0], size[0]), max(FRAME[1], size[1])
    frame = np.empty((frame_h, frame_w, 3), np.float32)
    frame[:] = small.reshape(-1, 3).mean(axis=0)
    x = int(rng.integers(0, frame_w - size[0] + 1))
    y = int(rng.integers(0, frame_h - size[1] + 1))
    frame[y : y + size[1], x : x + size[0]] = small
    frame += rng.normal(0.0, rng.uniform(2.0, 6.0), frame.shape)
    frame = np.clip(frame, 0, 255).astype(np.uint8)
    ok, encoded = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, int(rng.uniform(30, 70))])
    # Decoding what was just encoded does not fail; the check only tells mypy so.
    decoded = cv2.imdecode(encoded, cv2.IMREAD_COLOR) if ok else None
    return (frame if decoded is None else decoded), scale, float(x), float(y)


def _moved_labels(
    label_path: Path,
    *,
    width: int,
    height: int,
    scale: float,
    x: float,
    y: float,
    frame_w: int,
    frame_h: int,
) -> str:
    """The YOLO rows of a photo ``width`` x ``height``, for the photo shrunk by ``scale`` and placed
    at (x, y) in a frame ``frame_w`` x ``frame_h``."""
    rows = []
    for line in label_path.read_text().splitlines():
        parts = line.split()
        if len(parts) < 5:
            continue
        cx, cy, bw, bh = (float(v) for v in parts[1:5])
        rows.append(
            f"{parts[0]} {(cx * width * scale + x) / frame_w:.6f} "
            f"{(cy * height * scale + y) / frame_h:.6f} "
            f"{bw * width * scale / frame_w:.6f} {bh * height * scale / frame_h:.6f}"
        )
    return "".join(row + "\n" for row in rows)


def write_webcam_scale_view(source: Path, out: Path, *, seed: int = 0) -> Path:
    """Write the webcam-scale view of ``source`` (a realcards-style folder) to ``out``; returns
    ``out``.

    Each photo's median labelled index is brought to a height from :func:`draw_index_height`;
    photos without labels keep their size but get the same blur, noise and JPEG.
    """
    import cv2

    manifest = source / "manifest.jsonl"
    if not manifest.is_file():
        raise FileNotFoundError(f"{manifest} is missing: is {source} a labelled photo set?")
    rng = np.random.default_rng(seed)
    if out.exists():
        shutil.rmtree(out)
    (out / "images").mkdir(parents=True)
    (out / "labels").mkdir(parents=True)
    rows = []
    for line in manifest.read_text().splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        image_path = source / row["image"]
        image = cv2.imread(str(image_path))
        if image is None:
            continue
        label_path = source / "labels" / (image_path.stem + ".txt")
        heights = _index_heights(label_path, image.shape[0])
        target = draw_index_height(rng)
        index_height = float(np.median(heights)) if heights else target
        view, scale, x, y = webcam_frame(image, index_height, target, rng)
        name = image_path.stem + ".jpg"
        cv2.imwrite(str(out / "images" / name), view)
        if label_path.is_file():
            (out / "labels" / (image_path.stem + ".txt")).write_text(
                _moved_labels(
                    label_path,
                    width=image.shape[1],
                    height=image.shape[0],
                    scale=scale,
                    x=x,
                    y=y,
                    frame_w=view.shape[1],
                    frame_h=view.shape[0],
                )
            )
        rows.append(
            {**row, "image": f"images/{name}", "width": view.shape[1], "height": view.shape[0]}
        )
    (out / "manifest.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    for extra in ("classes.txt", "classes.json"):
        if (source / extra).is_file():
            shutil.copyfile(source / extra, out / extra)
    return out
