"""Frames from a camera, a video file or a stream, surviving cameras that drop out.

``open_capture`` turns what the user typed (``0``, ``clip.mp4``, ``rtsp://…``) into an open
OpenCV capture or a one-line :class:`SourceError`. :class:`ResilientCapture` yields frames and,
for live sources, reopens a lost camera with exponential backoff, reporting each change of state
(``live``, ``lost``) so the page can say "camera lost" while the match stays safe in the store.
A video file simply ends.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from scorekeeper.errors import SourceError

Clock = Callable[[], float]
Sleep = Callable[[float], None]
StatusListener = Callable[[str, str], None]
"""Called with (status, detail): status is ``live``, ``lost`` or ``ended``."""


@dataclass(frozen=True, slots=True)
class SourceSpec:
    """What to open: a camera index, a file, or a URL."""

    text: str

    @property
    def camera_index(self) -> int | None:
        return int(self.text) if self.text.isdigit() else None

    @property
    def is_url(self) -> bool:
        return "://" in self.text

    @property
    def is_live(self) -> bool:
        """Cameras and streams come back after a drop; files end."""
        return self.camera_index is not None or self.is_url

    def describe(self) -> str:
        if self.camera_index is not None:
            return f"camera {self.camera_index}"
        return f"stream {self.text}" if self.is_url else f"video file {self.text}"


_STILL_SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "PNG"),
    (b"\xff\xd8\xff", "JPEG"),
    (b"GIF87a", "GIF"),
    (b"GIF89a", "GIF"),
    (b"BM", "BMP"),
    (b"II*\x00", "TIFF"),
    (b"MM\x00*", "TIFF"),
)


def _still_image_kind(head: bytes) -> str | None:
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "WebP"
    return next((kind for signature, kind in _STILL_SIGNATURES if head.startswith(signature)), None)


def _refuse_still_image(path: Path) -> None:
    """OpenCV opens a PNG or a JPEG as a one-frame video; a table needs a video of the game.
    (The first bytes tell, whatever the name says; Pillow is not asked, since a training library
    loaded in the same process may have wrapped its ``Image.open``.)"""
    try:
        with path.open("rb") as file:
            head = file.read(16)
    except OSError:
        return  # OpenCV says what is wrong with it
    kind = _still_image_kind(head)
    if kind is not None:
        raise SourceError(
            f"{str(path)!r} is a still {kind} image, not a video: "
            "give a video file, a camera index (0) or a stream URL"
        )


def open_capture(spec: SourceSpec | str) -> Any:
    """An opened ``cv2.VideoCapture`` for ``spec``, or :class:`SourceError` saying what to check."""
    import cv2

    spec = spec if isinstance(spec, SourceSpec) else SourceSpec(str(spec))
    if spec.camera_index is None and not spec.is_url and not Path(spec.text).is_file():
        raise SourceError(
            f"no such video file {spec.text!r}: "
            "give a camera index (0), a video file or a stream URL"
        )
    if spec.camera_index is None and not spec.is_url:
        _refuse_still_image(Path(spec.text))
    capture = cv2.VideoCapture(spec.camera_index if spec.camera_index is not None else spec.text)
    if not capture.isOpened():
        capture.release()
        hint = (
            "check that the camera is plugged in and not used by another program"
            if spec.camera_index is not None
            else "check the address and that the stream is running"
            if spec.is_url
            else "the file is not a video OpenCV can decode"
        )
        raise SourceError(f"cannot open {spec.describe()}: {hint}")
    return capture


@dataclass(frozen=True, slots=True)
class Frame:
    index: int
    image: np.ndarray
    fps: float


class ResilientCapture:
    """Iterate frames; reopen a lost live source with backoff instead of ending the match.

    ``max_backoff`` caps the wait between reopen attempts: raising it spares a busy machine from
    retrying a camera that is gone for long; it also delays noticing that the camera is back.
    ``stall_reads``: consecutive failed reads that mean "lost" (one bad frame is just skipped).
    """

    def __init__(
        self,
        spec: SourceSpec | str,
        *,
        opener: Callable[[SourceSpec], Any] = open_capture,
        on_status: StatusListener | None = None,
        first_backoff: float = 0.5,
        max_backoff: float = 8.0,
        stall_reads: int = 10,
        sleep: Sleep = time.sleep,
        clock: Clock = time.monotonic,
        default_fps: float = 15.0,
    ) -> None:
        self.spec = spec if isinstance(spec, SourceSpec) else SourceSpec(str(spec))
        self._opener = opener
        self._on_status = on_status or (lambda status, detail: None)
        self._first_backoff = first_backoff
        self._max_backoff = max_backoff
        self._stall_reads = stall_reads
        self._sleep = sleep
        self._clock = clock
        self._default_fps = default_fps
        self._capture: Any = None
        self._stopped = False
        self.frames_skipped = 0
        self.reconnects = 0

    def open(self) -> None:
        """Open now, so a source that never works fails with a one-line error at start."""
        self._capture = self._opener(self.spec)
        self._on_status("live", self.spec.describe())

    def stop(self) -> None:
        self._stopped = True

    def fps(self) -> float:
        import cv2

        if self._capture is None:
            return self._default_fps
        fps = float(self._capture.get(cv2.CAP_PROP_FPS))
        return fps if 1.0 <= fps <= 120.0 else self._default_fps

    def frame_size(self) -> tuple[int, int]:
        """(width, height) the source announces, or 1280x720 when it says nothing useful."""
        import cv2

        if self._capture is None:
            return (1280, 720)
        width = int(self._capture.get(cv2.CAP_PROP_FRAME_WIDTH))
        height = int(self._capture.get(cv2.CAP_PROP_FRAME_HEIGHT))
        return (width, height) if width > 0 and height > 0 else (1280, 720)

    def frames(self) -> Iterator[Frame]:
        if self._capture is None:
            self.open()
        index = 0
        failures = 0
        while not self._stopped:
            ok, image = self._capture.read()
            if ok and image is not None and image.size:
                failures = 0
                yield Frame(index=index, image=image, fps=self.fps())
                index += 1
                continue
            failures += 1
            if not self.spec.is_live:
                self._on_status("ended", self.spec.describe())
                break
            self.frames_skipped += 1
            if failures < self._stall_reads:
                continue
            lost_at = self._clock()
            self._reconnect()
            # Frame indices are the tracker's clock: the time the camera was away still passed.
            index += round((self._clock() - lost_at) * self.fps())
            failures = 0
        self.close()

    def _reconnect(self) -> None:
        self._on_status("lost", self.spec.describe())
        self.close()
        delay = self._first_backoff
        while not self._stopped:
            self._sleep(delay)
            try:
                self._capture = self._opener(self.spec)
            except SourceError as error:
                self._on_status("lost", str(error))
                delay = min(delay * 2, self._max_backoff)
                continue
            self.reconnects += 1
            self._on_status("live", self.spec.describe())
            return

    def close(self) -> None:
        if self._capture is not None:
            self._capture.release()
            self._capture = None
