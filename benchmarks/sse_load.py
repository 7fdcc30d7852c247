"""Load benchmark on loopback: N phones hold the live event stream open, writes arrive, how fast?

Starts ``scorekeeper serve`` on 127.0.0.1 with a temporary database, opens ``--clients`` Server-Sent
Event streams (one non-blocking socket each, all in this process), then makes ``--rounds`` writes,
alternately through the API (a phone's correction) and straight into the database file (the tracker
in another process), and times how long each write takes to reach every stream. Prints p50/p99/max,
how many streams missed the 1 s budget, and the page's total transfer size.

    python benchmarks/sse_load.py                  # 200 clients, 10 rounds
    python benchmarks/sse_load.py --clients 50 --rounds 4

Bounded: at most 1000 clients, 100 rounds, and ``--max-seconds`` (default 120) for the whole run.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import re
import selectors
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scorekeeper.rules import random_legal_deal
from scorekeeper.store import CardPlayed, Store

PIN = "4242"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def post(base: str, path: str, body: dict[str, object]) -> dict[str, object]:
    request = urllib.request.Request(
        base + path,
        data=json.dumps(body).encode(),
        method="POST",
        headers={"Content-Type": "application/json", "X-Scorekeeper-Pin": PIN},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        data: dict[str, object] = json.loads(response.read())
        return data


def fetch(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=10) as response:
        body: bytes = response.read()
        return body


class Stream:
    """One phone's event stream, read without a thread."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.sendall(
            b"GET /api/stream HTTP/1.0\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n"
        )
        self.sock.setblocking(False)
        self.tail = b""
        self.seen: set[int] = set()

    def read(self) -> bool:
        try:
            data = self.sock.recv(65536)
        except BlockingIOError:
            return True
        if not data:
            return False
        text = self.tail + data
        self.seen.update(int(n) for n in re.findall(rb"\nid: (\d+)\n", b"\n" + text))
        self.tail = text[-32:]
        return True


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--max-seconds", type=float, default=120.0)
    args = parser.parse_args()
    clients = max(1, min(args.clients, 1000))
    rounds = max(1, min(args.rounds, 100))
    deadline = time.monotonic() + args.max_seconds

    workdir = tempfile.mkdtemp(prefix="sse-load-")
    db = os.path.join(workdir, "load.db")
    port = free_port()
    server = subprocess.Popen(
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
            db,
            "--pin",
            PIN,
            "--no-qr",
        ],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    base = f"http://127.0.0.1:{port}"
    streams: list[Stream] = []
    try:
        while True:
            try:
                fetch(base + "/api/state")
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise SystemExit("the server did not start") from None
                time.sleep(0.1)

        html = fetch(base + "/")
        assets = [fetch(base + "/static/" + name) for name in ("app.css", "app.js")]
        total = len(html) + sum(map(len, assets))
        zipped = len(gzip.compress(html)) + sum(len(gzip.compress(a)) for a in assets)
        print(
            f"page transfer: {total / 1024:.1f} KiB (HTML {len(html) / 1024:.1f} "
            f"+ CSS {len(assets[0]) / 1024:.1f} + JS {len(assets[1]) / 1024:.1f}), "
            f"{zipped / 1024:.1f} KiB if gzipped; no other request"
        )

        turned, plays, _ = random_legal_deal(random.Random(7), dealer=0)
        post(base, "/api/deal", {"dealer": 0, "turned": turned.notation})
        tracker = Store.open(db)  # another process's writes: only the file is shared

        selector = selectors.DefaultSelector()
        for _ in range(clients):
            stream = Stream(port)
            streams.append(stream)
            selector.register(stream.sock, selectors.EVENT_READ, stream)

        def pump(until: float, done: Callable[[], bool]) -> None:
            while time.monotonic() < until and not done():
                for key, _ in selector.select(timeout=0.05):
                    if not key.data.read():
                        selector.unregister(key.fileobj)

        pump(min(deadline, time.monotonic() + 30), lambda: all(1 in s.seen for s in streams))
        connected = sum(1 in s.seen for s in streams)
        print(f"{connected}/{clients} streams connected and got the state")

        delays: dict[str, list[float]] = {"api": [], "db": []}
        missed = 0
        for number in range(rounds):
            if time.monotonic() > deadline:
                print("stopped: --max-seconds reached")
                break
            via = "api" if number % 2 == 0 else "db"
            began = time.monotonic()
            card = plays[number].notation
            if via == "api":
                answer = post(base, "/api/plays", {"card": card})["seq"]
                assert isinstance(answer, int), answer
                seq = answer
            else:
                seq = tracker.append("mesa", CardPlayed(card))[-1].seq
            arrived: dict[int, float] = {}

            def everyone(
                arrived: dict[int, float] = arrived, seq: int = seq, began: float = began
            ) -> bool:
                now = time.monotonic()
                for index, stream in enumerate(streams):
                    if index not in arrived and seq in stream.seen:
                        arrived[index] = now - began
                return len(arrived) == len(streams)

            pump(min(deadline, began + 5.0), everyone)
            delays[via].extend(arrived.values())
            missed += sum(1 for d in arrived.values() if d > 1.0) + len(streams) - len(arrived)
            time.sleep(0.2)

        everything = delays["api"] + delays["db"]
        for label, values in (
            ("write via the API", delays["api"]),
            ("write by another process", delays["db"]),
            ("all", everything),
        ):
            if values:
                print(
                    f"{label:>25}: p50 {percentile(values, 0.5) * 1000:6.1f} ms   p99 "
                    f"{percentile(values, 0.99) * 1000:6.1f} ms   "
                    f"max {max(values) * 1000:6.1f} ms   "
                    f"({len(values)} deliveries)"
                )
        print(f"deliveries later than 1 s or missing: {missed}")
        print(
            f"clients {clients}, rounds {rounds}, mean {statistics.fmean(everything) * 1000:.1f} ms"
            if everything
            else ""
        )
        return 0 if missed == 0 and connected == clients else 1
    finally:
        for stream in streams:
            stream.sock.close()
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        if server.stderr is not None:
            server.stderr.close()


if __name__ == "__main__":
    sys.exit(main())
