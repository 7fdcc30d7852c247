"""``scorekeeper serve`` as a user starts it: address, QR code, PIN, a working server."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from scorekeeper.web.server import lan_address, qr_text

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], list[str]]]:
    process = subprocess.Popen(
        [sys.executable, "-m", "scorekeeper", "serve", "--host", "127.0.0.1", "--port", "0",
         "--db", str(tmp_path / "serve.db")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert process.stdout is not None
    lines: list[str] = []
    for line in process.stdout:
        lines.append(line.rstrip("\n"))
        if line.startswith("Ctrl-C"):
            break
    try:
        yield process, lines
    finally:
        process.terminate()
        process.wait(timeout=10)
        assert process.stdout is not None and process.stderr is not None
        process.stdout.close()
        process.stderr.close()


def test_serve_prints_where_to_go_a_qr_code_and_a_pin(served: tuple[subprocess.Popen[str], list[str]]) -> None:
    _, lines = served
    text = "\n".join(lines)
    url = re.search(r"Score page: (http://127\.0\.0\.1:\d+/)", text)
    pin = re.search(r"Table PIN for corrections: (\d{4})  \(new; kept for the next start\)$", text, re.MULTILINE)
    assert url and pin, text
    assert "█" in text, "a QR code in the terminal"
    with urllib.request.urlopen(url.group(1) + "api/state", timeout=5) as response:
        assert json.loads(response.read())["score"] == {"nos": 0, "eles": 0}
    request = urllib.request.Request(
        url.group(1) + "api/deal", data=b'{"turned": "AH"}', method="POST",
        headers={"Content-Type": "application/json", "X-Scorekeeper-Pin": pin.group(1)},
    )
    with urllib.request.urlopen(request, timeout=5) as response:
        assert json.loads(response.read())["current"]["turned"] == "AH"


def test_a_busy_port_is_one_line_and_status_2(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = subprocess.run(
            [sys.executable, "-m", "scorekeeper", "serve", "--host", "127.0.0.1", "--port", str(port),
             "--db", str(tmp_path / "x.db"), "--pin", "4321"],
            check=False, capture_output=True, text=True, cwd=ROOT, timeout=60,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and f"cannot listen on 127.0.0.1:{port}" in result.stderr


def test_the_qr_code_and_the_lan_address() -> None:
    code = qr_text("http://192.168.1.20:8000/").splitlines()
    assert len(code) > 10 and len({len(line) for line in code}) == 1, "a square of half blocks"
    assert re.fullmatch(r"\d+\.\d+\.\d+\.\d+", lan_address())
