"""``scorekeeper track --source SOURCE [--json] [--ground-truth FILE]``: frames to tricks and score.

SOURCE is a camera index, a video file or a stream URL (read with OpenCV and the card reader), or a
detection stream (``.jsonl`` / ``.json``, see :mod:`scorekeeper.tracking.stream`), or with
``--from-truth`` a simulated clip's ground truth (``clip.json``) whose perfect detections are
rebuilt and optionally degraded with ``--noise``.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scorekeeper.commands.options import (
    add_rules_option,
    add_seat_options,
    add_source_option,
    parse_rules,
    source_of,
)
from scorekeeper.errors import SourceError
from scorekeeper.tracking.stream import STREAM_SUFFIXES

if TYPE_CHECKING:
    from scorekeeper.tracking.thresholds import Thresholds

DEFAULT_FPS = 10.0


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "track",
        help="watch a table (camera, video or detections) and rebuild the tricks and the score",
        description="Track a Sueca table: read the cards frame by frame, rebuild deals, tricks, "
        "seats and score, and flag what could not be settled.",
    )
    add_source_option(
        parser,
        positional_alias=True,
        help="camera index (0), video file, stream URL, detection stream "
        "(.jsonl/.json), or with --from-truth a simulated clip's clip.json",
    )
    parser.add_argument(
        "--json", action="store_true", help="print {events, record, result} as JSON"
    )
    parser.add_argument(
        "--ground-truth",
        metavar="FILE",
        help="a simulated clip's clip.json: also report how many plays, seats, "
        "tricks and scores match",
    )
    parser.add_argument(
        "--from-truth",
        action="store_true",
        help="the source is a simulated clip.json: track its ground-truth detections",
    )
    noise = parser.add_argument_group("noise (for detection streams and --from-truth)")
    noise.add_argument(
        "--noise",
        action="store_true",
        help="degrade detections like the tracker's benchmark: 30%% frames dropped, 5%% misreads, "
        "ghost cards, hands covering cards",
    )
    for name, what in (
        ("drop", "share of frames dropped"),
        ("misread", "share of reads wrong"),
        ("spurious", "chance per frame of a one-frame ghost card"),
        ("cover", "chance per frame that a hand starts covering cards"),
    ):
        noise.add_argument(f"--{name}", type=float, metavar="P", help=what)
    noise.add_argument("--seed", type=int, default=0, help="seed of the noise (default 0)")
    table = parser.add_argument_group("table")
    table.add_argument(
        "--fps",
        type=float,
        help=f"frames per second of the source (default: the source's, else {DEFAULT_FPS:g})",
    )
    table.add_argument(
        "--geometry",
        metavar="FILE",
        help="table geometry JSON (play area, seat sides); default: centred play area",
    )
    add_seat_options(table)
    add_rules_option(
        table, what="score under these rules (default: the ground truth's, else tournament rules)"
    )
    table.add_argument("--model", help="card reader model folder or name (video sources)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from scorekeeper.rules import Rules
    from scorekeeper.tracking import Tracker
    from scorekeeper.tracking.evaluate import compare
    from scorekeeper.tracking.offline import track_stream

    args.source = source_of(args)
    rules = parse_rules(args.rules) if args.rules else None  # before opening anything
    truth = _read_truth(Path(args.ground_truth)) if args.ground_truth else None
    header_fps, geometry_json, frames, thresholds = _open_source(args)
    geometry = _geometry(args, geometry_json, frames)
    if rules is None:
        rules = Rules.from_json(truth["record"].get("rules")) if truth is not None else Rules()
    fps = args.fps or header_fps or DEFAULT_FPS
    tracker = Tracker(geometry, rules, fps=fps, thresholds=thresholds)
    started = time.perf_counter()  # the edge may read a clock; the tracker never does
    tracked = track_stream(frames.iterate(), tracker)
    seconds = time.perf_counter() - started
    comparison = compare(truth["record"], tracked.record) if truth is not None else None
    if args.json:
        out = tracked.to_json()
        if comparison is not None:
            out["ground_truth"] = comparison.to_json()
        print(json.dumps(out, ensure_ascii=False))
        return 0
    print(_account(tracked, comparison, fps=fps, seconds=seconds))
    return 0


class _Frames:
    """The source's detections, with the first frame peeked for its size."""

    def __init__(self, iterator: Iterator[Any]) -> None:
        self._iterator = iterator
        self._first = next(iterator, None)

    @property
    def size(self) -> tuple[int, int]:
        first = self._first
        return (first.width, first.height) if first is not None else (0, 0)

    def iterate(self) -> Iterator[Any]:
        if self._first is not None:
            yield self._first
        yield from self._iterator


def _open_source(
    args: argparse.Namespace,
) -> tuple[float | None, dict[str, Any] | None, _Frames, Thresholds | None]:
    """Frame rate, geometry, the detections, and the tracker thresholds the reader's model sets
    (None: the defaults, for detections read earlier)."""
    from scorekeeper.tracking.noise import degrade
    from scorekeeper.tracking.stream import read_stream

    noise = _noise(args)  # before opening anything, so a bad option leaves nothing open
    path = Path(args.source)
    geometry_json: dict[str, Any] | None = None
    thresholds: Thresholds | None = None
    if args.from_truth:
        fps, geometry_json, frames = _truth_detections(path)
    elif path.suffix in STREAM_SUFFIXES:
        header, frames = read_stream(path)
        fps = header.fps
        geometry_json = header.geometry.to_json() if header.geometry else None
    else:
        fps, frames, thresholds = _video_detections(args)
    if noise is not None:
        frames = degrade(frames, noise, random.Random(args.seed))
    return fps, geometry_json, _Frames(iter(frames)), thresholds


def _noise(args: argparse.Namespace) -> Any:
    """The noise asked for: ``--noise`` for the benchmark's mix, single knobs on it or on none."""
    from dataclasses import replace

    from scorekeeper.tracking.noise import Noise

    given = {
        name: getattr(args, name)
        for name in ("drop", "misread", "spurious", "cover")
        if getattr(args, name) is not None
    }
    for name, value in given.items():
        if not 0.0 <= value <= 1.0:
            raise SourceError(f"--{name} {value}: give a share between 0 and 1")
    if not args.noise and not given:
        return None
    return replace(Noise() if args.noise else Noise.none(), **given)


def _geometry(args: argparse.Namespace, from_source: dict[str, Any] | None, frames: _Frames) -> Any:
    from scorekeeper.tracking import TableGeometry
    from scorekeeper.tracking.geometry import load_geometry, seated

    if args.geometry:
        geometry = load_geometry(args.geometry)
    elif from_source is not None:
        geometry = TableGeometry.from_json(from_source)
    else:
        width, height = frames.size
        if not (width and height):
            raise SourceError(
                f"{args.source!r} does not say the frame size: give --geometry FILE "
                "with width and height"
            )
        geometry = TableGeometry.default(width, height)
    return seated(geometry, seat0=args.seat0, clockwise=args.clockwise)


def _read_truth(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SourceError(
            f"no such ground truth file {str(path)!r}: give a simulated clip's clip.json"
        ) from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise SourceError(f"cannot read ground truth {str(path)!r}: {error}") from None
    if not isinstance(data, dict) or not isinstance(data.get("record"), dict):
        raise SourceError(
            f"{str(path)!r} is not a clip's ground truth: "
            'expected {"record": ..., "events": [...]}'
        )
    return data


def _truth_detections(path: Path) -> tuple[float | None, dict[str, Any] | None, Iterator[Any]]:
    """Perfect detections of a simulated clip, rebuilt from the seed and options in its truth."""
    from scorekeeper.errors import ScorekeeperError
    from scorekeeper.synth.simulate import detections_for_truth

    truth = _read_truth(path)
    try:
        frames = detections_for_truth(truth)
    except ScorekeeperError as error:
        raise SourceError(f"{str(path)!r}: {error}") from None
    return float(truth["fps"]), truth.get("geometry"), iter(frames)


def _video_detections(
    args: argparse.Namespace,
) -> tuple[float | None, Iterator[Any], Thresholds]:
    import cv2

    from scorekeeper.pipeline.capture import ResilientCapture, SourceSpec

    # OpenCV's own warnings about a missing camera would print around our one-line error.
    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_ERROR)
    capture = ResilientCapture(SourceSpec(args.source))
    capture.open()  # a missing camera or file fails here, before any model loads
    try:
        from scorekeeper.vision.reader import CardReader
    except ImportError as error:
        capture.close()
        raise SourceError(
            f"the card reader is not installed ({error}): track a detection stream instead"
        ) from None
    from scorekeeper.pipeline.session import reader_thresholds

    reader = CardReader(args.model, photo=False)
    fps = capture.fps()

    def frames() -> Iterator[Any]:
        for frame in capture.frames():
            yield reader.read(frame.image, frame.index)

    return fps, frames(), reader_thresholds(reader)


def _account(tracked: Any, comparison: Any, *, fps: float, seconds: float) -> str:
    from scorekeeper.commands.replay import format_result
    from scorekeeper.rules import replay_match
    from scorekeeper.tracking.events import describe

    lines = [describe(e) for e in tracked.events]
    lines.append("")
    lines.append(format_result(replay_match(tracked.record)))
    delays = tracked.play_delays()
    speed = tracked.frames / seconds if seconds > 0 else float("inf")
    line = f"Tracked {tracked.frames} frames at {speed:,.0f} frames/s"
    if delays:
        line += (
            f"; a play was announced {sum(delays) / len(delays) / fps:.2f} s after the card "
            "settled (mean)"
        )
    lines.append(line)
    if comparison is not None:
        lines.append(f"Against the ground truth: {comparison.summary()}")
    return "\n".join(lines)
