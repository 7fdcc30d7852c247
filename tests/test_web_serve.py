"""``scorekeeper serve`` as a user starts it: address, QR code, PIN, a working server."""

from __future__ import annotations

import json
import os
import re
import resource
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import pytest

from scorekeeper.web.server import lan_address, qr_text

ROOT = Path(__file__).resolve().parents[1]


@contextmanager
def serving(
    database: Path, *options: str, qr: bool = False
) -> Iterator[tuple[subprocess.Popen[str], list[str]]]:
    """``scorekeeper serve`` on a free port, with the lines it printed up to its Ctrl-C hint."""
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "scorekeeper",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--db",
            str(database),
            *([] if qr else ["--no-qr"]),
            *options,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
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


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], list[str]]]:
    with serving(tmp_path / "serve.db", qr=True) as started:
        yield started


def page_url(lines: list[str]) -> str:
    found = re.search(r"Score page: (http://127\.0\.0\.1:\d+/)", "\n".join(lines))
    assert found, lines
    return found.group(1)


def write(url: str, pin: str, path: str = "api/deal", body: bytes = b'{"turned": "AH"}') -> int:
    request = urllib.request.Request(
        url + path,
        data=body,
        method="POST",
        headers={"Content-Type": "application/json", "X-Scorekeeper-Pin": pin},
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        error.close()
        return int(error.code)


def test_serve_prints_where_to_go_a_qr_code_and_a_pin(
    served: tuple[subprocess.Popen[str], list[str]],
) -> None:
    _, lines = served
    text = "\n".join(lines)
    url = re.search(r"Score page: (http://127\.0\.0\.1:\d+/)", text)
    pin = re.search(
        r"Table PIN for corrections: (\d{4})  \(new; kept for the next start\)$", text, re.MULTILINE
    )
    assert url and pin, text
    assert "█" in text, "a QR code in the terminal"
    with urllib.request.urlopen(url.group(1) + "api/state", timeout=5) as response:
        assert json.loads(response.read())["score"] == {"nos": 0, "eles": 0}
    request = urllib.request.Request(
        url.group(1) + "api/deal",
        data=b'{"turned": "AH"}',
        method="POST",
        headers={"Content-Type": "application/json", "X-Scorekeeper-Pin": pin.group(1)},
    )
    with urllib.request.urlopen(request, timeout=5) as response:
        assert json.loads(response.read())["current"]["turned"] == "AH"


def test_kill_stops_the_page_server_as_ctrl_c_does(tmp_path: Path) -> None:
    with serving(tmp_path / "m.db") as (process, _lines):
        process.terminate()
        assert process.wait(timeout=15) == 0


def test_a_busy_port_is_one_line_and_status_2(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "scorekeeper",
                "serve",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--db",
                str(tmp_path / "x.db"),
                "--pin",
                "4321",
            ],
            check=False,
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=60,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and f"cannot listen on 127.0.0.1:{port}" in result.stderr


def test_the_qr_code_and_the_lan_address() -> None:
    code = qr_text("http://192.168.1.20:8000/").splitlines()
    assert len(code) > 10 and len({len(line) for line in code}) == 1, "a square of half blocks"
    assert re.fullmatch(r"\d+\.\d+\.\d+\.\d+", lan_address())


def test_the_pin_is_kept_across_restarts_hashed_and_new_pin_draws_another(tmp_path: Path) -> None:
    database = tmp_path / "pin.db"
    with serving(database, "--pin", "4821") as (_, lines):
        assert "Table PIN for corrections: 4821  (set with --pin" in "\n".join(lines)
        assert write(page_url(lines), "4821") == 200
    assert b"4821" not in database.read_bytes(), "only a salted hash is stored"
    with serving(database) as (_, lines):
        assert "Table PIN for corrections: unchanged" in "\n".join(lines)
        assert write(page_url(lines), "4821", "api/undo", b"{}") == 200
    with serving(database, "--new-pin") as (_, lines):
        drawn = re.search(r"Table PIN for corrections: (\d{4})  \(new", "\n".join(lines))
        assert drawn, lines
        url = page_url(lines)
        if drawn.group(1) != "4821":
            assert write(url, "4821") == 401
        assert write(url, drawn.group(1)) == 200


def test_a_host_the_server_did_not_print_is_refused(tmp_path: Path) -> None:
    with serving(tmp_path / "hosts.db", "--pin", "4821") as (_, lines):
        port = int(page_url(lines).rsplit(":", 1)[1].strip("/"))
        for host, status in (("127.0.0.1", 200), ("localhost", 200), ("rebound.example", 400)):
            conn = socket.create_connection(("127.0.0.1", port), timeout=10)
            conn.sendall(f"GET /api/state HTTP/1.0\r\nHost: {host}:{port}\r\n\r\n".encode())
            reply = conn.recv(200).decode()
            conn.close()
            assert reply.startswith((f"HTTP/1.0 {status}", f"HTTP/1.1 {status}")), (host, reply)


def test_a_thousand_half_open_connections_do_not_stall_the_page(tmp_path: Path) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 1200:
        pytest.skip(f"this machine allows {hard} open files; the test needs 1,200")
    resource.setrlimit(
        resource.RLIMIT_NOFILE,
        (max(soft, 1200) if hard == resource.RLIM_INFINITY else max(soft, min(hard, 1200)), hard),
    )
    with serving(tmp_path / "busy.db", "--pin", "4821") as (server, lines), ExitStack() as idle:
        url = page_url(lines)
        port = int(url.rsplit(":", 1)[1].strip("/"))
        threads_idle = threads_of(server.pid)
        for _ in range(1000):  # each starts a request and never finishes its headers
            conn = idle.enter_context(socket.create_connection(("127.0.0.1", port), timeout=10))
            conn.sendall(b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        time.sleep(0.5)
        with urllib.request.urlopen(url + "api/state", timeout=5) as response:
            assert json.loads(response.read())["seq"] == 0
        assert threads_of(server.pid) <= threads_idle + 2, "an unfinished request holds no thread"


def threads_of(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"^Threads:\s+(\d+)", status, re.MULTILINE).group(1))  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["serve", "--db", "/proc/nope/x.sqlite"], "cannot make the folder '/proc/nope'"),
        (["serve", "--db", "{file}/x.sqlite"], "a file is in the way"),
        (["serve", "--port", "99999"], "--port 99999"),
        (
            ["serve", "--host", "no such host.invalid"],
            "--host 'no such host.invalid' is not an address",
        ),
        (["serve", "--host", "192.0.2.77"], "not an address of this machine"),
        (["serve", "--pin", "1"], "a table PIN is 4 to 12 digits"),
        (["run", "--source", "{png}", "--port", "0"], "is a still PNG image, not a video"),
    ],
)
def test_bad_arguments_are_one_line_and_status_2(
    tmp_path: Path, arguments: list[str], message: str
) -> None:
    from PIL import Image

    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    picture = tmp_path / "table.png"
    Image.new("RGB", (64, 48)).save(picture)
    filled = [arg.format(file=a_file, png=picture) for arg in arguments]
    if "--db" not in filled:
        filled += ["--db", str(tmp_path / "ok.db")]
    result = subprocess.run(
        [sys.executable, "-m", "scorekeeper", *filled, "--no-qr"],
        check=False,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and message in result.stderr, result.stderr
