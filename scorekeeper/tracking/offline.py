"""Run a tracker over a whole recorded stream; gather what the CLI and the benchmark report."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from scorekeeper.rules import record_from_deals, replay_record
from scorekeeper.tracking.events import CardPlayed, Event
from scorekeeper.tracking.tracker import Tracker
from scorekeeper.vision.detections import FrameDetections


@dataclass(slots=True)
class TrackedStream:
    events: list[Event] = field(default_factory=list)
    frames: int = 0
    """Frames the tracker was given."""
    emitted_at: dict[int, int] = field(default_factory=dict)
    """For each event (by position in ``events``), the frame whose update produced it."""
    record: dict[str, Any] = field(default_factory=dict)
    """The match record rebuilt, as ``scorekeeper replay`` reads it."""

    def result(self) -> dict[str, Any]:
        return replay_record(self.record)

    def play_delays(self) -> list[int]:
        """Frames from each card's first steady sighting to its ``card_played`` event."""
        return [
            self.emitted_at[i] - e.frame
            for i, e in enumerate(self.events)
            if isinstance(e, CardPlayed)
        ]

    def to_json(self) -> dict[str, Any]:
        return {
            "events": [e.to_json() for e in self.events],
            "record": self.record,
            "result": self.result(),
        }


def track_stream(frames: Iterable[FrameDetections], tracker: Tracker) -> TrackedStream:
    """Feed every frame, close the stream, rebuild the record through the rules engine."""
    out = TrackedStream()
    last = 0
    for frame in frames:
        out.frames += 1
        last = frame.frame_index
        _add(out, tracker.update(frame), last)
    _add(out, tracker.finish(), last + 1)
    out.record = record_from_deals(tracker.deals, tracker.rules).to_json()
    return out


def _add(out: TrackedStream, events: list[Event], frame: int) -> None:
    for event in events:
        out.emitted_at[len(out.events)] = frame
        out.events.append(event)
