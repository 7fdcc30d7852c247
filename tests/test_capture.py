"""Opening sources and surviving a camera that drops out mid-deal."""

import numpy as np
import pytest

from scorekeeper.errors import SourceError
from scorekeeper.pipeline.capture import ResilientCapture, SourceSpec, open_capture


def write_video(path, frames=5, size=(64, 48)):
    import cv2

    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"mp4v"), 10, size)
    for i in range(frames):
        writer.write(np.full((size[1], size[0], 3), i * 10, np.uint8))
    writer.release()


def test_missing_file_is_a_one_line_error():
    with pytest.raises(SourceError, match="no such video file 'nowhere.mp4'") as error:
        open_capture("nowhere.mp4")
    assert "\n" not in str(error.value)


def test_missing_camera_is_a_one_line_error():
    with pytest.raises(
        SourceError, match="cannot open camera 9: check that the camera is plugged in"
    ):
        open_capture("9")


def test_a_file_that_is_not_a_video(tmp_path):
    bogus = tmp_path / "notes.mp4"
    bogus.write_text("not a video")
    with pytest.raises(SourceError, match="not a video OpenCV can decode"):
        open_capture(str(bogus))


def test_a_video_file_yields_its_frames_then_ends(tmp_path):
    path = tmp_path / "clip.mp4"
    write_video(path, frames=5)
    statuses = []
    capture = ResilientCapture(str(path), on_status=lambda s, d: statuses.append(s))
    frames = list(capture.frames())
    assert [f.index for f in frames] == [0, 1, 2, 3, 4]
    assert frames[0].fps == pytest.approx(10, abs=0.5)
    assert statuses == ["live", "ended"]


class FlakyCamera:
    """Gives ``good`` frames, then fails every read until reopened."""

    def __init__(self, good):
        self.good = good

    def isOpened(self):
        return True

    def read(self):
        if self.good <= 0:
            return False, None
        self.good -= 1
        return True, np.zeros((4, 4, 3), np.uint8)

    def get(self, prop):
        return 15.0

    def release(self):
        pass


def test_a_dropped_camera_is_reopened_with_backoff_and_frames_keep_counting():
    attempts = []
    waits = []
    statuses = []

    def opener(spec):
        attempts.append(spec)
        if len(attempts) in (2, 3):  # the camera is still unplugged for two tries
            raise SourceError("cannot open camera 0: check that the camera is plugged in")
        return FlakyCamera(good=3)

    now = [100.0]

    def sleep(seconds):
        waits.append(seconds)
        now[0] += seconds

    capture = ResilientCapture(
        "0",
        opener=opener,
        on_status=lambda s, d: statuses.append(s),
        sleep=sleep,
        clock=lambda: now[0],
        stall_reads=2,
    )
    seen = []
    for frame in capture.frames():
        seen.append(frame.index)
        if len(seen) == 6:
            capture.stop()
    # 3.5 s away at 15 frames/s: the tracker's clock jumps by 52 frames, as the table's did.
    assert seen == [0, 1, 2, 55, 56, 57]
    assert waits == [0.5, 1.0, 2.0]
    assert statuses == ["live", "lost", "lost", "lost", "live"]
    assert capture.reconnects == 1


def test_spec_tells_cameras_streams_and_files_apart():
    assert SourceSpec("0").camera_index == 0 and SourceSpec("0").is_live
    assert SourceSpec("rtsp://cam/1").is_url and SourceSpec("rtsp://cam/1").is_live
    assert not SourceSpec("clip.mp4").is_live
