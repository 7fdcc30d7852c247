"""Frames of simulated deal videos as a labelled data set: the reader trained on what it tracks.

The scene generator (:mod:`.dataset`) poses cards freely; a deal video has the tracker's own
views: cards sliding in under a hand, a vaza stacked half over itself, the held hand's corners at
the table's edge, webcam shake and blur. Every ``every``-th frame of each seed's deal is rendered
and written twice, in YOLO layout with one class per card (ids follow ``DECK``), one box per
readable corner index (:func:`.truth.index_boxes`):

- ``frames/``: the full frame, for the classifier (the reader cuts its crops from the full frame);
- ``detector/``: the frame shrunk to ``detector_width``, what the detector sees at run time.

JPEG at a random quality stands in for the video codec. Keep these seeds away from the ones
``benchmarks/tracker_video_eval.py`` measures on (7100 and up).
"""

from __future__ import annotations

import json
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from scorekeeper.synth.plan import SimulationError

if TYPE_CHECKING:
    from scorekeeper.synth.faces import FacePack

FIRST_MEASURED_SEED = 7000
"""Seeds from here on are the tracker benchmark's (7000-7019 tuned on, 7100+ measured)."""


@dataclass(frozen=True)
class VideoSetOptions:
    out: Path
    seeds: tuple[int, ...]
    every: int = 5
    val_fraction: float = 0.1
    """Share of the seeds whose whole deal goes to val, so val frames are of unseen deals."""
    detector_width: int = 640
    camera: str = "full"
    quality: tuple[int, int] = (55, 90)
    faces: Path | None = None
    """A face pack (40 faces) to deal with; procedural decks, one per seed, otherwise."""


def build_video_set(options: VideoSetOptions, *, workers: int = 1) -> dict[str, object]:
    """Render the frames of every seed's deal; returns counts, also written to ``summary.json``."""
    clash = [s for s in options.seeds if FIRST_MEASURED_SEED <= s < FIRST_MEASURED_SEED + 1000]
    if clash:
        raise SimulationError(
            f"seeds {clash[0]}..{clash[-1]} are the tracker benchmark's: "
            "use seeds outside 7000-7999"
        )
    if options.every < 1:
        raise SimulationError(f"--every {options.every} must be 1 or more")
    pack = None
    if options.faces is not None:
        from scorekeeper.synth.faces import FacePack

        # Locating the indices reads all 40 faces: once here (a bad pack fails before anything is
        # written); workers get the boxes and decode the pixels themselves.
        pack = FacePack.load(options.faces)
    for part in ("frames", "detector"):
        for kind in ("images", "labels"):
            for split in ("train", "val"):
                (options.out / part / kind / split).mkdir(parents=True, exist_ok=True)
    if workers > 1:
        with ProcessPoolExecutor(workers) as pool:
            count = len(options.seeds)
            counts = list(pool.map(_render_seed, [options] * count, range(count), [pack] * count))
    else:
        counts = [_render_seed(options, position, pack) for position in range(len(options.seeds))]
    summary = {
        "options": {k: (str(v) if isinstance(v, Path) else v) for k, v in asdict(options).items()},
        "frames": sum(c[0] for c in counts),
        "indices": sum(c[1] for c in counts),
    }
    (options.out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    return summary


def _render_seed(options: VideoSetOptions, position: int, pack: FacePack | None) -> tuple[int, int]:
    import cv2

    from scorekeeper.synth.dataset import split_of, yolo_row
    from scorekeeper.synth.render import Renderer
    from scorekeeper.synth.simulate import simulate
    from scorekeeper.synth.truth import face_regions, index_boxes

    seed = options.seeds[position]
    split = split_of(position, options.val_fraction)
    rng = np.random.default_rng([seed, 2])
    simulation = simulate(seed, camera=options.camera, pace=float(rng.uniform(0.6, 1.4)))
    timeline = simulation.timeline
    labels = index_boxes(timeline, face_regions(pack) if pack is not None else None)
    renderer = Renderer(timeline, np.random.default_rng([seed, 1]), pack)
    width, height = timeline.layout.width, timeline.layout.height
    small = (options.detector_width, round(height * options.detector_width / width))
    frames = indices = 0
    for number, scene in enumerate(timeline.scenes()):
        if number % options.every:
            continue
        image = renderer.render(scene)
        name = f"s{seed}-f{number:05d}"
        quality = int(rng.integers(*options.quality, endpoint=True))
        rows = "".join(
            yolo_row(card.index, box, width, height) + "\n" for card, box in labels[number]
        )
        for part, picture in (
            ("frames", image),
            ("detector", cv2.resize(image, small, interpolation=cv2.INTER_AREA)),
        ):
            folder = options.out / part
            cv2.imwrite(
                str(folder / "images" / split / f"{name}.jpg"),
                picture,
                [cv2.IMWRITE_JPEG_QUALITY, quality],
            )
            (folder / "labels" / split / f"{name}.txt").write_text(rows)
        frames += 1
        indices += len(labels[number])
    return frames, indices
