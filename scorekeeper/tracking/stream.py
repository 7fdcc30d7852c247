"""Detection streams on disk: what a card reader saw, frame by frame, as JSON Lines.

One JSON object per line. An optional first line is the header ``{"fps": 10, "geometry": {...}}``
(:meth:`TableGeometry.to_json`, or the simulator's table JSON); every other line is one frame::

    {"frame": 12, "width": 1280, "height": 720,
     "cards": [{"card": "7H", "confidence": 0.93, "box": [600, 300, 630, 340], "corners": 1,
                "alternatives": [["7D", 0.04], ["6H", 0.01]]}]}

``alternatives`` (the reader's runners-up for that index, likeliest first) may be left out: a
stream with one card per read is read the same way.

A ``.json`` file holding ``{"fps": ..., "geometry": ..., "frames": [...]}`` is read the same way.
Errors name the file and line and say what to fix.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from scorekeeper.errors import ScorekeeperError, SourceError
from scorekeeper.rules import Card
from scorekeeper.tracking.geometry import TableGeometry
from scorekeeper.vision.detections import CardDetection, FrameDetections

STREAM_SUFFIXES = (".jsonl", ".json")


@dataclass(frozen=True, slots=True)
class StreamHeader:
    fps: float | None = None
    geometry: TableGeometry | None = None

    def to_json(self) -> dict[str, object]:
        return {"fps": self.fps, "geometry": self.geometry.to_json() if self.geometry else None}


def frame_to_json(frame: FrameDetections) -> dict[str, object]:
    return {
        "frame": frame.frame_index,
        "width": frame.width,
        "height": frame.height,
        "cards": [dict(d.to_json(), corners=d.corners) for d in frame.cards],
    }


def frame_from_json(data: Any, where: str) -> FrameDetections:
    if not isinstance(data, dict) or "frame" not in data:
        raise SourceError(f'{where}: expected a frame like {{"frame": 0, "cards": []}}')
    try:
        cards = tuple(
            CardDetection(
                card=Card.parse(item["card"]),
                confidence=float(item.get("confidence", 1.0)),
                box=_box(item["box"]),
                corners=int(item.get("corners", 1)),
                alternatives=tuple(
                    (Card.parse(card), float(p)) for card, p in item.get("alternatives", ())
                ),
            )
            for item in data.get("cards", [])
        )
        return FrameDetections(
            int(data["frame"]), cards, int(data.get("width", 0)), int(data.get("height", 0))
        )
    except ScorekeeperError as error:
        raise SourceError(f"{where}: {error}") from None
    except (KeyError, TypeError, ValueError) as error:
        raise SourceError(
            f'{where}: {error!s}; a card is {{"card": "7H", "confidence": 0.9, '
            '"box": [x1, y1, x2, y2], "alternatives": [["7D", 0.05]]}} (alternatives '
            "optional)"
        ) from None


def _box(value: Any) -> tuple[float, float, float, float]:
    x1, y1, x2, y2 = (float(v) for v in value)
    return (x1, y1, x2, y2)


def header_from_json(data: dict[str, Any], where: str) -> StreamHeader:
    fps = data.get("fps")
    geometry = data.get("geometry")
    try:
        return StreamHeader(
            fps=float(fps) if fps is not None else None,
            geometry=TableGeometry.from_json(geometry) if geometry is not None else None,
        )
    except (TypeError, ValueError) as error:
        raise SourceError(f"{where}: {error}") from None


def write_stream(
    out: TextIO, frames: Iterable[FrameDetections], header: StreamHeader | None = None
) -> None:
    if header is not None:
        out.write(json.dumps(header.to_json()) + "\n")
    out.writelines(json.dumps(frame_to_json(frame)) + "\n" for frame in frames)


def read_stream(path: Path) -> tuple[StreamHeader, Iterator[FrameDetections]]:
    """The header (empty when the file has none) and the frames, read lazily for JSON Lines.

    The file is opened again by the frames' iterator, and only once it is iterated, so a stream
    abandoned before its first frame leaves no file open.
    """
    try:
        with path.open(encoding="utf-8") as handle:
            first = handle.readline() if path.suffix != ".json" else handle.read()
    except OSError as error:
        raise SourceError(f"cannot open detection stream {str(path)!r}: {error.strerror}") from None
    except UnicodeDecodeError as error:
        raise SourceError(f"{path}: not a text detection stream ({error.reason})") from None
    if path.suffix == ".json":
        data = _load(first, str(path))
        if not isinstance(data, dict) or not isinstance(data.get("frames"), list):
            raise SourceError(f'{path}: expected {{"fps": ..., "geometry": ..., "frames": [...]}}')
        frames = data["frames"]
        header = header_from_json(data, str(path))
        return header, (frame_from_json(f, f"{path}, frame {i}") for i, f in enumerate(frames))
    data = _load(first, f"{path}, line 1") if first.strip() else None
    if isinstance(data, dict) and "frame" not in data:
        return header_from_json(data, f"{path}, line 1"), _frames(path, skip=1)
    return StreamHeader(), _frames(path, skip=0)


def _frames(path: Path, skip: int) -> Iterator[FrameDetections]:
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if number > skip and line.strip():
                where = f"{path}, line {number}"
                yield frame_from_json(_load(line, where), where)


def _load(text: str, where: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise SourceError(f"{where}: not JSON ({error.msg} at column {error.colno})") from None
