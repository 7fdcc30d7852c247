"""The pipeline loop: frames → detections → events → store, one frame at a time.

Everything with a clock lives here, at the edge: the tracker and the engine only see frame indices.
With ``realtime`` a video file is paced at its own frame rate (the demo), and frames the reader
cannot keep up with are dropped rather than queued, as a live camera would drop them, so the
delay from a card landing to the phone stays bounded.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from scorekeeper.pipeline.capture import ResilientCapture
from scorekeeper.pipeline.page_deals import PageDeals
from scorekeeper.pipeline.recorder import StoreRecorder
from scorekeeper.tracking import Tracker
from scorekeeper.tracking.events import Event
from scorekeeper.vision.detections import FrameDetections


class FrameReader(Protocol):
    def read(self, frame_bgr: np.ndarray, frame_index: int = 0) -> FrameDetections: ...


EventListener = Callable[[Event, float], None]
"""Called with each game event and the wall-clock time (monotonic seconds) it was stored."""


@dataclass(slots=True)
class LoopStats:
    frames_seen: int = 0
    frames_read: int = 0
    frames_dropped: int = 0
    read_seconds: float = 0.0
    wall_seconds: float = 0.0
    events: list[Event] = field(default_factory=list)

    @property
    def read_fps(self) -> float:
        return self.frames_read / self.read_seconds if self.read_seconds else 0.0

    def to_json(self) -> dict[str, float | int]:
        return {
            "frames_seen": self.frames_seen,
            "frames_read": self.frames_read,
            "frames_dropped": self.frames_dropped,
            "read_fps": round(self.read_fps, 1),
            "wall_seconds": round(self.wall_seconds, 2),
        }


def run_loop(
    capture: ResilientCapture,
    reader: FrameReader,
    tracker: Tracker,
    recorder: StoreRecorder,
    *,
    realtime: bool = False,
    on_event: EventListener | None = None,
    page_deals: PageDeals | None = None,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> LoopStats:
    """Run until the source ends or ``capture.stop()``, then close the tracker's last deal.

    ``page_deals``: deals the table starts on the page are handed to the tracker between frames.
    """
    stats = LoopStats()
    start = clock()
    fps = None
    for frame in capture.frames():
        stats.frames_seen += 1
        fps = fps or frame.fps
        if realtime and not capture.spec.is_live:
            due = start + frame.index / fps
            now = clock()
            if now < due:
                sleep(due - now)
            elif now - due > 1.0 / fps:
                stats.frames_dropped += 1
                continue
        began = clock()
        detections = reader.read(frame.image, frame.index)
        stats.read_seconds += clock() - began
        stats.frames_read += 1
        if page_deals is not None:
            _deliver(page_deals.events(tracker), recorder, stats, on_event, clock)
        _deliver(tracker.update(detections), recorder, stats, on_event, clock)
    _deliver(tracker.finish(), recorder, stats, on_event, clock)
    stats.wall_seconds = clock() - start
    return stats


def _deliver(
    events: list[Event],
    recorder: StoreRecorder,
    stats: LoopStats,
    on_event: EventListener | None,
    clock: Callable[[], float],
) -> None:
    if not events:
        return
    recorder.record(events)
    stats.events.extend(events)
    if on_event is not None:
        stored_at = clock()
        for event in events:
            on_event(event, stored_at)
