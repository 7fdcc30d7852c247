"""What hostile or sleeping clients cost ``scorekeeper serve``, measured on loopback.

Starts the server on 127.0.0.1 with a temporary store, then:

1. times ``GET /api/state`` with nothing else open (the baseline), then again with ``--half-open``
   connections (default 1,000) that each sent half a request and stopped;
2. measures the server's resident memory idle (after ``--writes`` writes, default 120, with one
   phone following, so the caches hold what play fills), with ``--streams`` event streams (default
   200) that never read while as many writes again pile up for them, and after they hang up: the
   target is within 20% of the idle size.

    python benchmarks/server_load.py
    python benchmarks/server_load.py --half-open 500 --streams 100 --writes 40

Bounded: every socket has a timeout and the whole run stops after ``--max-seconds`` (default 180).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import resource
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scorekeeper.rules import random_legal_deal

PIN = "4242"


def rss_mib(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    found = re.search(r"^VmRSS:\s+(\d+) kB", status, re.MULTILINE)
    return int(found.group(1)) / 1024 if found else float("nan")


def threads(pid: int) -> int:
    found = re.search(r"^Threads:\s+(\d+)", Path(f"/proc/{pid}/status").read_text(), re.MULTILINE)
    return int(found.group(1)) if found else -1


def get_ms(url: str) -> float:
    began = time.perf_counter()
    with urllib.request.urlopen(url + "api/state", timeout=60) as response:
        response.read()
    return (time.perf_counter() - began) * 1000


def post(url: str, path: str, body: dict[str, object]) -> None:
    request = urllib.request.Request(
        url + path,
        data=json.dumps(body).encode(),
        method="POST",
        headers={"Content-Type": "application/json", "X-Scorekeeper-Pin": PIN},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        response.read()


def writes(url: str, count: int, rng: random.Random) -> int:
    """Whole deals, a write per card, until at least ``count`` writes (a new match after a win)."""
    done = 0
    while done < count:
        state = json.loads(urllib.request.urlopen(url + "api/state", timeout=60).read())
        if state["winner"]:
            post(url, "api/match", {})
            done += 1
        dealer = state["next_dealer"]
        turned, plays, _ = random_legal_deal(rng, dealer=dealer)
        post(url, "api/deal", {"dealer": dealer, "turned": turned.notation})
        done += 1
        for card in plays:
            post(url, "api/plays", {"card": card.notation})
            done += 1
    return done


def median_get(url: str, times: int = 15) -> float:
    return statistics.median(get_ms(url) for _ in range(times))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--half-open", type=int, default=1000)
    parser.add_argument("--streams", type=int, default=200)
    parser.add_argument("--writes", type=int, default=120)
    parser.add_argument("--max-seconds", type=float, default=180)
    args = parser.parse_args()
    signal.alarm(int(args.max_seconds))
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = args.half_open + args.streams + 256
    if hard == resource.RLIM_INFINITY or hard >= wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, wanted), hard))
    with tempfile.TemporaryDirectory(prefix="server-load-") as folder:
        server = subprocess.Popen(
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
                str(Path(folder) / "load.db"),
                "--pin",
                PIN,
                "--no-qr",
            ],
            stdout=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        assert server.stdout is not None
        url = ""
        for line in server.stdout:
            found = re.search(r"Score page: (http://\S+/)", line)
            url = found.group(1) if found else url
            if line.startswith("Ctrl-C"):
                break
        port = int(url.rsplit(":", 1)[1].strip("/"))
        try:
            print(f"GET /api/state, nothing else open: median {median_get(url):.1f} ms", flush=True)
            idle_sockets = []
            for _ in range(args.half_open):
                conn = socket.create_connection(("127.0.0.1", port), timeout=10)
                conn.sendall(b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\n")
                idle_sockets.append(conn)
            time.sleep(0.5)
            slowest = max(get_ms(url) for _ in range(15))
            print(
                f"GET /api/state with {args.half_open} half-open connections: "
                f"median {median_get(url):.1f} ms, "
                f"slowest of 15 {slowest:.1f} ms (target < 1000)",
                flush=True,
            )
            for conn in idle_sockets:
                conn.close()

            time.sleep(1)
            start_rss = rss_mib(server.pid)
            with socket.create_connection(("127.0.0.1", port), timeout=10) as phone:  # warm up: one
                phone.sendall(
                    b"GET /api/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                )  # phone follows
                writes(
                    url, args.writes, random.Random(7)
                )  # a game, so the caches hold what play fills
            time.sleep(1)
            idle = rss_mib(server.pid)
            print(
                f"memory at start: {start_rss:.1f} MiB; after {args.writes} writes with one phone "
                "following (the idle size used below):",
                flush=True,
            )
            threads_idle = threads(server.pid)
            print(f"memory idle: {idle:.1f} MiB ({threads(server.pid)} threads)", flush=True)
            streams = []
            for _ in range(args.streams):
                conn = socket.socket()
                conn.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)  # asleep: reads nothing
                conn.settimeout(10)
                conn.connect(("127.0.0.1", port))
                conn.sendall(b"GET /api/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                streams.append(conn)
            began = time.perf_counter()
            written = writes(url, args.writes, random.Random(8))
            spent = time.perf_counter() - began
            peak = rss_mib(server.pid)
            print(
                f"memory with {args.streams} streams that never read, after {written} writes "
                f"({spent / written * 1000:.1f} ms each): "
                f"{peak:.1f} MiB ({threads(server.pid)} threads)",
                flush=True,
            )
            for conn in streams:
                conn.close()
            time.sleep(1)
            post(url, "api/undo", {})  # a change: every stream still held notices its phone is gone
            idle_threads = threads_idle
            deadline = time.monotonic() + 30
            while threads(server.pid) > idle_threads + 1 and time.monotonic() < deadline:
                time.sleep(0.5)
            time.sleep(1)
            after = rss_mib(server.pid)
            print(
                f"memory after they hang up: {after:.1f} MiB ({threads(server.pid)} threads) = "
                f"{after / idle:.2f} x idle (target <= 1.20)"
            )
        finally:
            server.send_signal(signal.SIGINT)
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
            server.stdout.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
