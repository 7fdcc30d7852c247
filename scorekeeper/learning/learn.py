"""``scorekeeper learn``: the reader fine-tuned on the table's own kept deals, kept only if better.

The kept deals of the model's deck (:mod:`scorekeeper.learning.keep`) are split: every fifth,
counting back from the newest, is held out (at least one); the others are taught. Each tile is put
back at its place in a grey frame of the camera's size, so the detector sees the indices at the
scale the camera shows them. The deck's rendered scenes and faces, where enrolment left them, are
taught too, so the reader does not forget the rest of the deck, and its rendered phone photos
choose the new model's photo threshold as they did the enrolled one's. Then the one path
enrolment takes (:func:`scorekeeper.training.adapt.run_adaptation`): fine-tune, thresholds on half
the held-out frames (their precision held above the floor by more than chance on so few cards),
comparison on the other half, and the new model ``<deck>-play`` made the default only if it reads
the held-out deals better. A worse one is not installed.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from scorekeeper.errors import ScorekeeperError
from scorekeeper.learning.keep import KeptDeal, kept_deals, play_root
from scorekeeper.paths import decks_dir, user_data_dir
from scorekeeper.training.adapt import (
    PLAY_CHOICE_CONFIDENCE,
    AdaptJob,
    AdaptResult,
    Log,
    Progress,
    TeachingSet,
    Trainer,
    check_detector_mode,
    deck_face_crops,
    deck_name,
    labelled_set,
    run_adaptation,
)
from scorekeeper.training.precision import check_precision

HOLD_OUT_EVERY = 5
"""One deal in this many (the newest first) is held out to judge on, never taught."""
MIN_DEALS = 2
CANVAS_GREY = 114


class LearningError(ScorekeeperError):
    """Nothing to learn from, or an unknown deck."""


@dataclass
class LearnPlan:
    base: Path
    """The model to start from (the active one by default)."""
    minutes: float = 10.0
    detector: str = "auto"
    precision: str = "fp32"
    """What the training steps compute in (:mod:`scorekeeper.training.precision`)."""
    seed: int = 7
    threads: int = 2

    @property
    def deck(self) -> str:
        return deck_name(self.base)

    @property
    def name(self) -> str:
        return f"{self.deck}-play"

    @property
    def work(self) -> Path:
        return user_data_dir() / "work" / self.name


def decks_with_kept_deals() -> list[str]:
    root = play_root()
    return sorted(p.name for p in root.iterdir() if p.is_dir()) if root.is_dir() else []


def split_deals(deals: Sequence[KeptDeal]) -> tuple[list[KeptDeal], list[KeptDeal]]:
    """Taught and held-out deals: every :data:`HOLD_OUT_EVERY`-th from the newest is held out."""
    newest_first = list(reversed(deals))
    held = [d for i, d in enumerate(newest_first) if i % HOLD_OUT_EVERY == 0]
    taught = [d for d in deals if d not in held]
    return taught, list(reversed(held))


def check_deals(deck: str) -> list[KeptDeal]:
    """The deck's kept deals, or a one-line error saying why there is nothing to learn from."""
    deals = kept_deals(deck)
    if not deals:
        others = [d for d in decks_with_kept_deals() if d != deck]
        elsewhere = f" (kept deals exist for: {', '.join(others)})" if others else ""
        raise LearningError(
            f"no kept deals of deck {deck}{elsewhere}: play with `scorekeeper run` first; each "
            "finished deal the table accepted is kept for learning"
        )
    if len(deals) < MIN_DEALS:
        raise LearningError(
            f"only {len(deals)} kept deal of deck {deck}: learning needs at least {MIN_DEALS} "
            "(one is held out to judge the new model on); play another deal first"
        )
    return deals


def write_frames(deals: Sequence[KeptDeal], out: Path, *, val_every: int | None) -> Path:
    """A YOLO set of the deals' tiles, each put back at its place in a grey frame of the camera's
    size (``val_every``: every n-th image goes to ``val``; None: every image does)."""
    import cv2

    from scorekeeper.synth.dataset import data_yaml

    if out.exists():
        shutil.rmtree(out)
    for split in ("train", "val"):
        (out / "images" / split).mkdir(parents=True)
        (out / "labels" / split).mkdir(parents=True)
    count = 0
    for deal in deals:
        for stem, where in sorted(deal.tiles.items()):
            tile = cv2.imread(str(deal.folder / "tiles" / f"{stem}.jpg"), cv2.IMREAD_COLOR)
            label = deal.folder / "tiles" / f"{stem}.txt"
            if tile is None or not label.is_file():
                continue
            width, height = (int(v) for v in where["frame_size"])
            x, y = (int(v) for v in where["origin"])
            canvas = np.full((height, width, 3), CANVAS_GREY, np.uint8)
            th, tw = tile.shape[:2]
            th, tw = min(th, height - y), min(tw, width - x)
            canvas[y : y + th, x : x + tw] = tile[:th, :tw]
            rows = []
            for line in label.read_text(encoding="utf-8").splitlines():
                parts = line.split()
                if len(parts) != 5:
                    continue
                cls, cx, cy, bw, bh = int(parts[0]), *(float(v) for v in parts[1:])
                rows.append(
                    f"{cls} {(x + cx * tile.shape[1]) / width:.6f} "
                    f"{(y + cy * tile.shape[0]) / height:.6f} {bw * tile.shape[1] / width:.6f} "
                    f"{bh * tile.shape[0] / height:.6f}"
                )
            split = "val" if val_every is None or count % val_every == val_every - 1 else "train"
            name = f"{deal.folder.name}-{stem}"
            cv2.imwrite(
                str(out / "images" / split / f"{name}.jpg"), canvas, [cv2.IMWRITE_JPEG_QUALITY, 95]
            )
            (out / "labels" / split / f"{name}.txt").write_text(
                "\n".join(rows) + "\n", encoding="utf-8"
            )
            count += 1
    (out / "data.yaml").write_text(data_yaml(single_class=False), encoding="utf-8")
    return out


def teaching_set(
    plan: LearnPlan, taught: Sequence[KeptDeal], held: Sequence[KeptDeal]
) -> TeachingSet:
    deck = plan.deck
    train = [write_frames(taught, plan.work / "play-taught", val_every=10)]
    judged = write_frames(held, plan.work / "play-held-out", val_every=None)
    scenes = user_data_dir() / "work" / deck / "scenes"
    crop_sets = []
    if (scenes / "data.yaml").is_file():
        train.append(scenes)
        if (scenes / "crops").is_dir():
            crop_sets.append(scenes / "crops")
    pack = decks_dir() / deck
    faces = (
        deck_face_crops(pack, per_index=12, seed=plan.seed) if (pack / "Ah.png").is_file() else None
    )
    # Enrolment's phone photos of the deck: the learned model's photo threshold is chosen on them.
    photos = user_data_dir() / "work" / deck / "photos"
    return TeachingSet(
        train=train,
        judged=labelled_set(judged),
        crop_sets=crop_sets,
        face_crops=faces,
        photos=labelled_set(photos) if (photos / "data.yaml").is_file() else [],
        judged_on=f"{len(held)} held-out deal{'s' if len(held) != 1 else ''} of play",
    )


def learn(
    plan: LearnPlan,
    *,
    progress: Progress | None = None,
    log: Log = print,
    trainer: Trainer | None = None,
) -> AdaptResult:
    """Fine-tune ``plan.base`` on the deck's kept deals; the new model is kept only if better."""
    check_detector_mode(plan.detector)
    deals = check_deals(plan.deck)
    taught, held = split_deals(deals)
    if progress:
        progress("frames", 0.0, None)
    teaching = teaching_set(plan, taught, held)
    job = AdaptJob(
        name=plan.name,
        base=plan.base,
        work=plan.work,
        minutes=plan.minutes,
        detector=plan.detector,
        precision=check_precision(plan.precision),
        seed=plan.seed,
        threads=plan.threads,
        install_when_worse=False,
        choice_confidence=PLAY_CHOICE_CONFIDENCE,
        learned_from={"deals": len(taught), "deal_ids": [d.folder.name for d in taught]},
        extra_record={"deck": plan.deck, "taught_deals": len(taught), "held_out_deals": len(held)},
    )
    return run_adaptation(job, teaching, progress=progress, log=log, trainer=trainer)


def kept_summary(deck: str) -> dict[str, Any]:
    deals = kept_deals(deck)
    size = sum(d.size_bytes for d in deals)
    return {
        "deck": deck,
        "deals": len(deals),
        "megabytes": round(size / 1e6, 1),
        "tiles": sum(len(d.tiles) for d in deals),
    }
