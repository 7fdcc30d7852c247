"""End-to-end delay on the demo clip: from a card landing on the table to the phone's page showing
it.

Plays the shipped clip at real speed through the whole pipeline (capture, card reader, tracker,
store) with the page served on loopback and one phone-like client on its event stream. A card
"lands" at the frame the simulator's ground truth says it stops; it is "shown" when the stream
delivers a state whose deal holds it. Prints the median and worst delay, frames per second read,
CPU time and peak memory, for the shipped reader and for a perfect reader (the clip's own truth)
as the baseline measured in the same run.

    python benchmarks/demo_latency.py            # both readers
    python benchmarks/demo_latency.py --truth    # the baseline only (no model needed)
"""

from __future__ import annotations

import argparse
import http.client
import json
import resource
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from scorekeeper.pipeline.session import ReaderFactory, TableSession
from scorekeeper.rules import Rules, replay_record
from scorekeeper.synth.simulate import TruthReader, demo_clip, detections_for_truth
from scorekeeper.tracking import TableGeometry
from scorekeeper.web import create_app
from scorekeeper.web.db import notify_live
from scorekeeper.web.server import make_page_server


def watch(port: int, seen: list[tuple[float, list[str]]], stop: threading.Event) -> None:
    """A phone: read the event stream, note when each state arrived and the plays it held."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    conn.request("GET", "/api/stream")
    response = conn.getresponse()
    data = None
    while not stop.is_set():
        line = response.readline()
        if not line:
            break
        text = line.decode("utf-8").rstrip("\n")
        if text.startswith("data: "):
            data = text[6:]
        elif text == "" and data:
            state = json.loads(data)
            current = state.get("current") or {}
            plays = [c for t in current.get("tricks", []) for c in t["cards"]] + current.get(
                "table", {}
            ).get("cards", [])
            seen.append((time.monotonic(), plays))
            data = None
    conn.close()


def measure(
    reader_name: str, reader_factory: ReaderFactory, truth: dict[str, Any], video: Path
) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as scratch:
        session = TableSession(
            source=str(video),
            database=str(Path(scratch) / "bench.db"),
            table_id="mesa",
            reader_factory=reader_factory,
            rules=Rules.from_json(truth["record"]["rules"]),
            geometry=TableGeometry.from_json(truth["geometry"]),
            realtime=True,
            warn=lambda line: None,
        )
        store = session.open_store()
        app = create_app(
            {
                "DATABASE": session.database,
                "PIN": "0000",
                "DEFAULT_TABLE": "mesa",
                "LIVE_STATUS": session.status.snapshot,
            }
        )
        session.status.set_listener(lambda: notify_live(app))
        page = make_page_server(app, "127.0.0.1", 0)
        page.start_in_background()
        seen: list[tuple[float, list[str]]] = []
        stop = threading.Event()
        phone = threading.Thread(target=watch, args=(page.port, seen, stop), daemon=True)
        phone.start()
        time.sleep(0.5)
        cpu0 = resource.getrusage(resource.RUSAGE_SELF)
        started = time.monotonic()
        stats = session.run(store)
        cpu1 = resource.getrusage(resource.RUSAGE_SELF)
        time.sleep(1.0)
        stop.set()
        page.stop()
        result = replay_record(store.record("mesa"))
    fps = truth["fps"]
    delays = []
    missing = 0
    for event in (e for e in truth["events"] if e["type"] == "card_played"):
        landed = started + event["frame"] / fps
        shown = next((t for t, plays in seen if event["card"] in plays), None)
        if shown is None:
            missing += 1
        else:
            delays.append(shown - landed)
    cpu = (cpu1.ru_utime + cpu1.ru_stime) - (cpu0.ru_utime + cpu0.ru_stime)
    return {
        "reader": reader_name,
        "cards_shown": len(delays),
        "cards_missing": missing,
        "delay_median_s": round(statistics.median(delays), 3) if delays else None,
        "delay_worst_s": round(max(delays), 3) if delays else None,
        "frames_read_per_s": round(stats.frames_read / stats.wall_seconds, 1),
        "frames_dropped": stats.frames_dropped,
        "reader_fps_capacity": round(stats.read_fps, 1),
        "cpu_share_of_one_core": round(cpu / stats.wall_seconds, 2),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "score_right": result["score"] == truth["score"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--truth", action="store_true", help="only the perfect-reader baseline")
    parser.add_argument("--model", help="card reader model folder or name")
    args = parser.parse_args()
    video, truth_path = demo_clip()
    truth = json.loads(truth_path.read_text(encoding="utf-8"))
    frames = detections_for_truth(truth)
    rows = [measure("truth (baseline)", lambda: TruthReader(frames), truth, video)]
    if not args.truth:
        from scorekeeper.vision.reader import CardReader

        rows.append(measure("shipped model", lambda: CardReader(args.model), truth, video))
    for row in rows:
        print(json.dumps(row, ensure_ascii=False))


if __name__ == "__main__":
    main()
