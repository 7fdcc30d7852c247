"""`scorekeeper run` and `detect` as a café sees them: which model they load, the page kept up
when a video file ends, the favicon, and the project's one-line errors without OpenCV's chatter."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from scorekeeper.cli import main
from tests.test_models_registry import _enrolled

ROOT = Path(__file__).resolve().parents[1]


def short_video(path: Path, frames: int = 6) -> Path:
    import cv2

    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"mp4v"), 10.0, (320, 240))
    for _ in range(frames):
        writer.write(np.full((240, 320, 3), (40, 110, 30), np.uint8))
    writer.release()
    return path


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def scorekeeper(*args: str, home: Path) -> subprocess.Popen[str]:
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "SCOREKEEPER_HOME": str(home),
        "PYTHONUNBUFFERED": "1",
        # A process that hangs is ended with SIGABRT, which then prints every thread's stack.
        "PYTHONFAULTHANDLER": "1",
    }
    env.pop("OPENCV_LOG_LEVEL", None)
    return subprocess.Popen(
        [sys.executable, "-m", "scorekeeper.cli", *args],
        cwd=ROOT,
        env=env,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


@pytest.fixture
def ctrl_c_reaches_children() -> Iterator[None]:
    """At a terminal Ctrl-C always reaches the command. A command started here inherits SIGINT
    ignored or blocked (a full CI run once left it so: the command never saw the signal); a
    handler set here is reset to the default in the child instead, and the mask is inherited."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    blocked = signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    yield
    signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
    signal.signal(signal.SIGINT, previous)


def stderr_after_stop(process: subprocess.Popen[str], *, seconds: float) -> str:
    """The process's stderr once it has exited; one still running after ``seconds`` is aborted
    and the test fails with the stacks its threads were in."""
    try:
        return process.communicate(timeout=seconds)[1]
    except subprocess.TimeoutExpired:
        status = Path(f"/proc/{process.pid}/status")
        signals = [ln for ln in status.read_text().splitlines() if ln.startswith("Sig")]
        process.send_signal(signal.SIGABRT)
        _out, err = process.communicate(timeout=20)
        pytest.fail(
            f"still running {seconds} s after it was told to stop ({', '.join(signals)}); "
            f"its threads:\n{err}"
        )


@pytest.mark.slow
@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "kill"])
@pytest.mark.usefixtures("ctrl_c_reaches_children")
def test_run_on_a_file_keeps_the_page_up_and_says_which_model_it_reads_with(
    tmp_path: Path, stop: signal.Signals
) -> None:
    port = free_port()
    process = scorekeeper(
        "run",
        "--source",
        str(short_video(tmp_path / "clip.mp4")),
        "--db",
        str(tmp_path / "m.db"),
        "--pin",
        "1357",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--no-qr",
        home=tmp_path,
    )
    try:
        assert process.stdout is not None
        lines = []
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            line = process.stdout.readline()
            if not line:
                break
            lines.append(line)
            if "The page stays up" in line:
                break
        assert lines[0].startswith("Card reader: sueca-reader (") and "the active model" in lines[0]
        assert any("Source ended after 6 frames" in line for line in lines), lines
        time.sleep(0.3)
        assert process.poll() is None, "the page is still served after the file ended"
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=5) as reply:
            assert json.loads(reply.read())["table"] == "mesa"
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/favicon.ico", timeout=5) as reply:
            assert reply.headers["Content-Type"] == "image/x-icon"
    finally:
        process.send_signal(stop)
        err = stderr_after_stop(process, seconds=20)
    assert process.returncode == 0 and "Stopped; the match is stored" in err


def test_a_camera_that_is_not_there_is_our_line_alone(tmp_path: Path) -> None:
    process = scorekeeper(
        "run",
        "--source",
        "7",
        "--db",
        str(tmp_path / "m.db"),
        "--port",
        str(free_port()),
        "--host",
        "127.0.0.1",
        "--no-qr",
        home=tmp_path,
    )
    _, err = process.communicate(timeout=60)
    assert process.returncode == 2
    assert err.splitlines() == [
        (
            "scorekeeper run: cannot open camera 7: check that the camera is plugged in "
            "and not used by another program"
        )
    ], "no [ WARN:0@…] lines from OpenCV"


def test_detect_names_the_model_a_background_enrolment_made_active(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from scorekeeper.vision.registry import set_active_model

    _enrolled("cafe-central")
    set_active_model("cafe-central", reason="adapted to deck cafe-central")
    image = tmp_path / "table.png"
    import cv2

    cv2.imwrite(str(image), np.full((240, 320, 3), (40, 110, 30), np.uint8))
    assert main(["detect", str(image), "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)[0]["cards"] == [], "stdout stays the JSON alone"
    assert captured.err.startswith("Card reader: cafe-central (")
    assert (
        "the active model, chosen on " in captured.err
        and "(adapted to deck cafe-central)" in captured.err
    )
    assert main(["detect", str(image), "--model", "sueca-reader"]) == 0
    assert "sueca-reader" in capsys.readouterr().err.splitlines()[0]
