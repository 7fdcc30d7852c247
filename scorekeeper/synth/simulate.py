"""Simulated deal videos and their ground truth: ``scorekeeper simulate`` and the tracker's tests.

One seed decides everything through separate random streams (plays, table layout, motion,
camera, look), so switching the camera's flaws off or rendering no pixels leaves the plays, the
motion and the events unchanged.

>>> frames, truth = simulate_detections(7, deals=1)
>>> len(frames) == truth["frames"], truth["record"]["deals"][0]["dealer"] in range(4)
(True, True)
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scorekeeper.errors import ScorekeeperError
from scorekeeper.paths import demo_dir
from scorekeeper.rules import Rules, parse_record, replay_record
from scorekeeper.synth.geometry import random_layout
from scorekeeper.synth.plan import DealPlan, SimulationError, plan_match
from scorekeeper.synth.timeline import Timeline, build_timeline
from scorekeeper.vision.detections import FrameDetections

DEFAULT_FPS = 15.0
"""A webcam's common low setting and about what the card reader keeps up with on two CPU cores
(<= 60 ms a frame); a card rests in the middle for seconds, so the tracker loses nothing by it."""

FOURCC = "mp4v"
"""The one codec OpenCV's pip wheels both write and read without extra libraries (no avc1)."""

TRUTH_VERSION = 1

"""The shipped demo clip, relative to the package: one whole deal and its truth (``deal.json``),
made by ``scorekeeper simulate --out deal.mp4 --seed 11 --fps 10 --pace 0.6 --camera mild
--table felt`` (mild camera and felt keep it a few MB: OpenCV's MPEG-4 writer takes no bitrate)."""

CAMERAS = ("full", "mild", "none")
"""``full``: shake, bumps, light, shadows, blur, sensor noise, JPEG; ``mild``: all but the noise
and JPEG (5x smaller files); ``none``: a perfectly still, clean camera."""


@dataclass(frozen=True, slots=True)
class Simulation:
    """A simulated match: the timeline to draw or detect, and its ground truth (JSON-ready)."""

    timeline: Timeline
    plans: tuple[DealPlan, ...]
    truth: dict[str, Any]
    seed: int


def simulate(
    seed: int,
    deals: int = 1,
    *,
    revoke: bool = False,
    clockwise: bool = False,
    seat0: str = "bottom",
    fps: float = DEFAULT_FPS,
    pace: float = 1.0,
    size: tuple[int, int] = (1280, 720),
    camera: str = "full",
) -> Simulation:
    """Plan, stage and describe ``deals`` deals; nothing is rendered."""
    if camera not in CAMERAS:
        raise SimulationError(f"camera {camera!r} is not one of {', '.join(CAMERAS)}")
    if not 1 <= fps <= 60:
        raise SimulationError(f"--fps {fps:g} is not a webcam frame rate: use 10 to 30")
    if not 0.25 <= pace <= 4:
        raise SimulationError(f"--pace {pace:g} is out of range: use 0.25 (fast) to 4 (slow)")
    if deals > 100:
        raise SimulationError(f"--deals {deals} is more than a match needs: use 1 to 100")
    plans = tuple(plan_match(_stream(seed, "plan"), deals=deals, rules=Rules(), revoke=revoke))
    rules = _rules_for(plans)
    layout = random_layout(
        _stream(seed, "layout"), width=size[0], height=size[1], clockwise=clockwise, seat0=seat0
    )
    timeline = build_timeline(
        list(plans),
        layout,
        _stream(seed, "motion"),
        fps=fps,
        pace=pace,
        camera_rng=_stream(seed, "camera") if camera != "none" else None,
        mild=camera == "mild",
    )
    record = {"rules": rules.to_json(), "deals": [plan.record_json() for plan in plans]}
    result = replay_record(record)
    truth = {
        "version": TRUTH_VERSION,
        "seed": seed,
        "options": {
            "deals": deals,
            "revoke": revoke,
            "clockwise": clockwise,
            "seat0": seat0,
            "fps": fps,
            "pace": pace,
            "size": list(size),
            "camera": camera,
        },
        "fps": fps,
        "frames": timeline.frames,
        "width": layout.width,
        "height": layout.height,
        "record": record,
        "geometry": layout.to_json(),
        "deals": [
            {
                "dealer": plan.dealer,
                "turned": plan.turned.notation,
                "points": plan.points,
                "tricks": [
                    {
                        "leader": trick.leader,
                        "seats": list(trick.seats),
                        "cards": [card.notation for card in trick.cards],
                        "winner": trick.winner,
                        "points": trick.points,
                    }
                    for trick in plan.tricks
                ],
                "revokes": list(plan.revokes),
            }
            for plan in plans
        ],
        "score": result["score"],
        "events": timeline.events,
    }
    return Simulation(timeline=timeline, plans=plans, truth=truth, seed=seed)


def simulate_detections(
    seed: int, deals: int = 1, *, box: str = "index", **options: Any
) -> tuple[list[FrameDetections], dict[str, Any]]:
    """What a perfect card reader would report on each frame of the video ``seed`` would give.

    Occlusion-aware (cards under a later card or a hand drop out), camera shake included, no
    pixels drawn: fast enough for tests over dozens of deals. ``options`` as :func:`simulate`.
    """
    from scorekeeper.synth.truth import detection_stream

    simulation = simulate(seed, deals, **options)
    return detection_stream(simulation.timeline, box=box), simulation.truth


def _same_record(made: Any, kept: Any) -> bool:
    """Equal once both are read by the engine (a rule added since the clip takes its default)."""
    try:
        return bool(parse_record(made).to_json() == parse_record(kept).to_json())
    except ScorekeeperError:
        return False


def detections_for_truth(truth: dict[str, Any], *, box: str = "index") -> list[FrameDetections]:
    """The perfect detections of the clip ``truth`` (a ``clip.json``) describes, rebuilt from its
    seed and options; refuses a truth this code would no longer make (a clip from another version).
    """
    try:
        seed, options = int(truth["seed"]), dict(truth["options"])
        options["size"] = tuple(options["size"])
    except (KeyError, TypeError, ValueError):
        raise SimulationError(
            "ground truth without seed and options: not made by scorekeeper simulate"
        ) from None
    frames, again = simulate_detections(seed, box=box, **options)
    if again["events"] != truth.get("events") or not _same_record(
        again["record"], truth.get("record")
    ):
        raise SimulationError(
            f"ground truth of seed {seed} differs from what this version simulates: "
            "re-run scorekeeper simulate"
        )
    return frames


def write_clip(
    out: str | Path,
    simulation: Simulation,
    *,
    faces: str | Path | None = None,
    table: str | None = None,
    progress: Callable[[int], None] | None = None,
    limit: int | None = None,
) -> dict[str, Any]:
    """Render ``simulation`` to ``out`` (an .mp4) and its ground truth beside it (same name, .json).

    ``faces``: a folder of 40 face images instead of procedural faces (their indices may sit
    elsewhere than the truth's nominal index boxes); ``table``: a table kind (random otherwise).
    ``limit`` stops after that many frames (tests); the truth still describes the whole timeline.
    Returns figures: frames written, seconds, render fps, bytes.
    """
    import cv2
    import numpy as np

    from scorekeeper.synth.render import Renderer

    path = check_output(out, table=table)
    pack = None
    if faces is not None:
        from scorekeeper.synth.faces import FacePack

        pack = FacePack.load(faces)
    timeline = simulation.timeline
    size = (timeline.layout.width, timeline.layout.height)
    renderer = Renderer(timeline, np.random.default_rng([simulation.seed, 1]), pack, table=table)
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*FOURCC), timeline.fps, size)
    if not writer.isOpened():
        raise SimulationError(f"OpenCV cannot write {str(path)!r} with the {FOURCC} codec")
    started = time.perf_counter()
    written = 0
    try:
        for scene in timeline.scenes():
            if limit is not None and written >= limit:
                break
            writer.write(renderer.render(scene))
            written += 1
            if progress is not None:
                progress(1)
    finally:
        writer.release()
    elapsed = time.perf_counter() - started
    truth = dict(
        simulation.truth,
        video=path.name,
        codec=FOURCC,
        render={
            "faces": str(faces) if faces is not None else "procedural",
            "table": table or "random",
        },
    )
    path.with_suffix(".json").write_text(json.dumps(truth, indent=1) + "\n", encoding="utf-8")
    return {
        "frames": written,
        "seconds": round(written / timeline.fps, 1),
        "render_fps": round(written / elapsed, 1) if elapsed > 0 else 0.0,
        "bytes": path.stat().st_size,
    }


def check_output(out: str | Path, *, table: str | None = None) -> Path:
    """The video path, once it names an .mp4 in an existing folder and ``table`` is a known kind."""
    path = Path(out)
    if path.suffix.lower() != ".mp4":
        raise SimulationError(f"--out {str(out)!r} must name an .mp4 file")
    if not path.parent.exists():
        raise SimulationError(f"folder {str(path.parent)!r} does not exist: create it first")
    if table is not None:
        from scorekeeper.synth.tables import TABLE_KINDS

        if table not in TABLE_KINDS:
            raise SimulationError(f"--table {table!r} is not one of {', '.join(TABLE_KINDS)}")
    return path


def demo_clip() -> tuple[Path, Path]:
    """Paths of the shipped demo video and its ground truth."""
    video = demo_dir() / "deal.mp4"
    return video, video.with_suffix(".json")


def _rules_for(plans: tuple[DealPlan, ...]) -> Rules:
    """The default rules, with the match target raised only if the deals outlast a match.

    A record may not go on after the match is won, and a long simulation is one record.
    """
    rules = Rules()
    if len(plans) < 2:
        return rules
    earlier = {
        "rules": dict(rules.to_json(), target=10_000),
        "deals": [plan.record_json() for plan in plans[:-1]],
    }
    score = replay_record(earlier)["score"]
    reached = max(int(score["nos"]), int(score["eles"]))
    if reached < rules.target:
        return rules
    return Rules.from_json(dict(rules.to_json(), target=reached + 1))


def _stream(seed: int, purpose: str) -> random.Random:
    """An independent random stream per purpose (string seeds hash the same on every run)."""
    return random.Random(f"scorekeeper-simulate:{seed}:{purpose}")


class TruthReader:
    """A perfect card reader for a simulated clip: frame ``i`` of the video reads as its truth.

    Stands in for :class:`~scorekeeper.vision.reader.CardReader` where the question is the rest of
    the pipeline (tracker, store, page), not the model: benchmarks use it as their baseline.
    """

    def __init__(self, frames: list[FrameDetections]) -> None:
        self.frames = frames

    def read(self, frame_bgr: Any, frame_index: int = 0) -> FrameDetections:
        if not 0 <= frame_index < len(self.frames):
            return FrameDetections(frame_index)
        truth = self.frames[frame_index]
        return FrameDetections(frame_index, truth.cards, truth.width, truth.height)
