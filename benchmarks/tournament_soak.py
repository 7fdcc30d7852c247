"""Soak benchmark on loopback: many tables push a match each to two tournament server processes.

Each simulated table is the real pipeline without the camera: the simulator's per-frame detections
of a whole match (``simulate_detections``, no video) go through the tracker, and the events it
emits are appended, at the pace they happened (compressed into ``--match-seconds``), to the
table's own SQLite store, whose real :class:`~scorekeeper.tournament.pusher.Pusher` pushes them.
Two ``scorekeeper tournament serve`` processes share one PostgreSQL (a throw-away cluster unless
``--db``); the tables push to either, the organiser's page stream is read from the second, so every
figure crosses LISTEN/NOTIFY between processes for half the tables. Meanwhile the first server is
killed with SIGKILL and restarted, and one table is cut off (its connection refused) for
``--cutoff`` seconds, then reconnected. At the end:

* every event of every table is in PostgreSQL exactly once, the same event as in the table's log;
* the standings the server shows equal the standings from replaying every table's own log;
* every event reached the organiser's page; delay from a table appending an event to the page
  showing it, p50/p99, with a baseline measured in the same run (one table alone, same servers);
* ``--malformed`` malformed or unauthorised pushes answered without a 5xx and changing nothing.

    python benchmarks/tournament_soak.py    # 100 tables, matches of 10 min, 120 s cut-off
    python benchmarks/tournament_soak.py --tables 10 --match-seconds 40 --cutoff 10 --malformed 1000
    python benchmarks/tournament_soak.py --cutoff 300
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from contextlib import ExitStack
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import psycopg

from scorekeeper.pipeline.recorder import StoreRecorder
from scorekeeper.rules import replay_record
from scorekeeper.store import RulesChanged, Store, event_from_json, event_to_json
from scorekeeper.tournament.cluster import free_port, throwaway_cluster
from scorekeeper.tournament.db import TournamentStore
from scorekeeper.tournament.pusher import Pusher
from scorekeeper.tournament.standings import Game, standings

PIN = "9753"
NAME = "soak"
TARGET = 4


# -- the tables' matches, from the simulator's detections through the tracker ------------------


def tracked_match(seed: int, deals: int) -> tuple[int, list[tuple[float, str, dict[str, Any]]]]:
    """(seed used, [(seconds into the match, kind, data)]) of a whole match to TARGET riscos.

    The events are what the table's recorder writes (:class:`StoreRecorder`, into a scratch
    store), up to the match's end: the tables replay them at the seconds given.
    """
    from scorekeeper.rules import Rules, record_from_deals
    from scorekeeper.synth.simulate import simulate_detections
    from scorekeeper.tracking import DealStarted, TableGeometry, Tracker
    from scorekeeper.tracking.offline import track_stream

    for attempt in range(seed, seed + 50_000, 1000):
        frames, truth = simulate_detections(attempt, deals)
        rules = dict(truth["record"]["rules"], target=TARGET)
        tracker = Tracker(
            TableGeometry.from_json(truth["geometry"]),
            Rules.from_json(rules),
            fps=float(truth["fps"]),
        )
        tracked = track_stream(frames, tracker)
        record = record_from_deals(tracker.deals, tracker.rules).to_json()
        won_after = None  # deals needed to win, replaying the tracked record deal by deal
        for count in range(1, len(record["deals"]) + 1):
            try:
                if replay_record(dict(record, deals=record["deals"][:count]))["winner"] is not None:
                    won_after = count
                    break
            except ValueError:
                break
        if won_after is None:
            continue
        log: list[tuple[float, str, dict[str, Any]]] = [(0.0, *event_to_json(RulesChanged(rules)))]
        with tempfile.TemporaryDirectory() as scratch:
            store = Store.open(Path(scratch) / "table.db")
            store.append("soak", RulesChanged(rules))
            recorder = StoreRecorder(store, "soak", warn=lambda line: None)
            started = 0
            for index, event in enumerate(tracked.events):
                if isinstance(event, DealStarted):
                    started += 1
                    if started > won_after:
                        break
                written = store.last_seq("soak")
                recorder.record([event])
                at = tracked.emitted_at[index] / float(truth["fps"])
                for stored in store.events("soak")[written:]:
                    log.append((at, *event_to_json(stored.event)))
        return attempt, log
    raise RuntimeError(f"no finished match near seed {seed}")


def _tracked(job: tuple[int, int]) -> tuple[int, list[tuple[float, str, dict[str, Any]]]]:
    os.nice(10)
    return tracked_match(*job)


# -- a gate that can cut one table off --------------------------------------------------------


class Gate:
    """A TCP forwarder on loopback; ``cut()`` refuses and drops connections until ``restore()``."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.port = free_port()
        self.open = threading.Event()
        self.conns: list[socket.socket] = []
        self.lock = threading.Lock()
        self.restore()

    def restore(self) -> None:
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", self.port))
        self.listener.listen(16)
        self.open.set()
        threading.Thread(target=self._accept, args=(self.listener,), daemon=True).start()

    def cut(self) -> None:
        self.open.clear()
        self.listener.close()
        with self.lock:
            for conn in self.conns:
                try:
                    conn.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                conn.close()
            self.conns.clear()

    def _accept(self, listener: socket.socket) -> None:
        while self.open.is_set():
            try:
                client, _ = listener.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target_port), timeout=5)
            except OSError:
                client.close()
                continue
            with self.lock:
                self.conns += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for s in (source, sink):
                try:
                    s.close()
                except OSError:
                    pass


# -- the servers and the organiser's page --------------------------------------------------------


class Server:
    def __init__(self, dsn: str, port: int, log: Path) -> None:
        self.dsn, self.port, self.log = dsn, port, log
        self.url = f"http://127.0.0.1:{port}"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "scorekeeper.cli",
                    "tournament",
                    "serve",
                    "--db",
                    self.dsn,
                    "--name",
                    NAME,
                    "--host",
                    "127.0.0.1",
                    "--port",
                    str(self.port),
                    "--pin",
                    PIN,
                    "--threads",
                    "64",
                ],
                stdout=log,
                stderr=log,
                env=env,
            )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(self.url + "/api/teams", timeout=2):
                    return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"the server on port {self.port} did not start: see {self.log}")

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()


class PageWatcher:
    """The organiser's page: reads the server's event stream, notes when each table's seq shows
    up."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.shown: dict[str, int] = {}
        self.seen_at: dict[tuple[str, int], float] = {}
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.stopping.is_set():
            try:
                with urllib.request.urlopen(self.url + "/api/stream", timeout=30) as stream:
                    kind = None
                    for raw in stream:
                        line = raw.decode().rstrip("\n")
                        if line.startswith("event:"):
                            kind = line[6:].strip()
                        elif line.startswith("data:") and kind in ("table", "tables"):
                            data = json.loads(line[5:])
                            self._shown(data if kind == "tables" else [data], time.time())
                        if self.stopping.is_set():
                            return
            except OSError:
                time.sleep(0.2)

    def _shown(self, summaries: list[dict[str, Any]], now: float) -> None:
        with self.lock:
            for summary in summaries:
                table, seq = summary["table"], summary["seq"]
                for s in range(self.shown.get(table, 0) + 1, seq + 1):
                    self.seen_at[(table, s)] = now
                self.shown[table] = max(seq, self.shown.get(table, 0))


# -- a table ------------------------------------------------------------------------------------


class Table:
    def __init__(
        self,
        name: str,
        folder: Path,
        url: str,
        key: str,
        log: list[tuple[float, str, dict[str, Any]]],
        *,
        match_seconds: float,
        delay: float,
    ) -> None:
        self.name = name
        self.store = Store.open(folder / f"{name}.db")
        self.log = log
        self.scale = match_seconds / max(log[-1][0], 1.0)
        self.delay = delay
        self.appended_at: dict[int, float] = {}
        self.warnings: list[str] = []
        self.pusher = Pusher(self.store, name, url, key, warn=self.warnings.append, max_delay=8.0)
        self.store.subscribe(lambda table, seq: self.pusher.wake())
        self.done = threading.Event()

    def play(self, start: float) -> None:
        self.pusher.start()
        for seconds, kind, data in self.log:
            wait = start + self.delay + seconds * self.scale - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            try:
                stored = self.store.append(self.name, event_from_json(kind, data))
            except ValueError:
                continue  # the recorder's way: a refused event is reported, never stops the table
            self.appended_at[stored[-1].seq] = time.time()
        self.done.set()


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


def delays(
    tables: list[Table], page: PageWatcher, *, outside: tuple[tuple[float, float], ...] = ()
) -> list[float]:
    """Seconds from each event's append at its table to the page showing it (leaving out the appends
    in ``outside``)."""
    found = []
    for table in tables:
        for seq, at in table.appended_at.items():
            if any(a <= at <= b for a, b in outside):
                continue
            seen = page.seen_at.get((table.name, seq))
            if seen is not None:
                found.append(seen - at)
    return found


# -- checks -------------------------------------------------------------------------------------


def exactly_once(dsn: str, tables: list[Table]) -> list[str]:
    problems = []
    with psycopg.connect(dsn) as conn:
        for table in tables:
            rows = conn.execute(
                "SELECT seq, kind, data FROM events"
                " WHERE tournament = %s AND table_id = %s ORDER BY seq",
                (NAME, table.name),
            ).fetchall()
            local = [(s.seq, *event_to_json(s.event)) for s in table.store.events(table.name)]
            held = [(seq, *event_to_json(event_from_json(kind, data))) for seq, kind, data in rows]
            if held != local:
                first = next(
                    (i for i, (a, b) in enumerate(zip(held, local)) if a != b),
                    min(len(held), len(local)),
                )
                problems.append(
                    f"{table.name}: server holds {len(held)} events, the table {len(local)}"
                    f" (first difference at {first})"
                )
    return problems


def standings_from_tables(tables: list[Table], server: TournamentStore) -> list[dict[str, Any]]:
    """The standings recomputed from every table's own SQLite log and the round's pairings."""
    games = []
    for game in server.games():
        if game.table is None or game.match is None:  # a bye: no table log to replay
            games.append(game)
            continue
        record = (
            next(t for t in tables if t.name == game.table)
            .store.folded(game.table)
            .matches[game.match - 1]
            .record
        )
        result = replay_record(record)
        games.append(
            Game(
                round=game.round,
                nos=game.nos,
                eles=game.eles,
                score=result["score"],
                winner=result["winner"],
            )
        )
    return [row.to_json() for row in standings(games, server.teams(), server.scoring())]


def rows_fingerprint(dsn: str) -> tuple[int, str]:
    with psycopg.connect(dsn) as conn:
        row = conn.execute(
            "SELECT count(*), md5(coalesce(string_agg("
            "tournament || table_id || seq || kind || data::text,"
            " ',' ORDER BY tournament, table_id, seq), '')) FROM events"
        ).fetchone()
    assert row is not None
    return int(row[0]), str(row[1])


def malformed_pushes(url: str, table: str, key: str, count: int, seed: int) -> dict[int, int]:
    """``count`` pushes that must change nothing: garbage, broken JSON, wrong seqs, a wrong or no
    key."""
    rng = random.Random(seed)
    at = "2026-05-01T20:00:00+00:00"
    shapes: list[Any] = [
        lambda: {
            "events": [
                {
                    "seq": rng.randint(-5, 10**6),
                    "kind": "card_played",
                    "data": {"card": "ZZ"},
                    "at": at,
                }
            ]
        },
        lambda: {
            "events": [{"seq": 1, "kind": rng.choice(["nope", 7, None]), "data": {}, "at": at}]
        },
        lambda: {
            "events": [
                {
                    "seq": 1,
                    "kind": "deal_started",
                    "data": {"dealer": rng.randint(4, 99), "turned": "AH"},
                    "at": at,
                }
            ]
        },
        lambda: {
            "events": [
                {
                    "seq": 1,
                    "kind": "deal_started",
                    "data": {"dealer": 0, "turned": "AH"},
                    "at": "yesterday",
                }
            ]
        },
        lambda: {
            "events": [
                {
                    "seq": 1,
                    "kind": "deal_started",
                    "data": {"dealer": 0, "turned": "AH"},
                    "at": "2026-05-01T20:00:00",
                }
            ]
        },
        lambda: {
            "events": [{"seq": 1, "kind": "undone", "data": {"seq": rng.randint(1, 50)}, "at": at}]
        },
        lambda: {"events": []},
        lambda: {"events": "all of them"},
        lambda: {"events": [1, 2, 3]},
        lambda: {"events": [{"seq": 1}], "more": True},
        lambda: [rng.random() for _ in range(rng.randint(0, 5))],
        lambda: {
            "events": [{"seq": True, "kind": "card_played", "data": {"card": "AH"}, "at": at}]
        },
        lambda: {
            "events": [
                {
                    "seq": 1,
                    "kind": "record_replaced",
                    "data": {"record": {"deals": [{"dealer": 0}]}},
                    "at": at,
                }
            ]
        },
    ]
    statuses: dict[int, int] = {}
    lock = threading.Lock()

    def one(index: int) -> None:
        body = rng.choice(shapes)()
        text = json.dumps(body)
        if index % 7 == 0:
            text = text[: rng.randint(0, max(len(text) - 1, 0))]  # cut short: not JSON
        headers = {"Content-Type": "application/json"}
        if index % 11 == 0:
            headers["X-Scorekeeper-Key"] = "not-the-key"
        elif index % 13 != 0:
            headers["X-Scorekeeper-Key"] = key
        request = urllib.request.Request(
            f"{url}/api/tables/{table}/events", data=text.encode(), headers=headers, method="POST"
        )
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                status = response.status
        except urllib.error.HTTPError as error:
            status = error.code
        with lock:
            statuses[status] = statuses.get(status, 0) + 1

    def worker(indices: range) -> None:
        for i in indices:
            one(i)

    threads = [threading.Thread(target=worker, args=(range(w, count, 8),)) for w in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return statuses


# -- the run ------------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument(
        "--deals", type=int, default=8, help="deals simulated per table (a match to 4 ends sooner)"
    )
    parser.add_argument(
        "--match-seconds",
        type=float,
        default=600.0,
        help="each table's match compressed into this (a real match to 4 takes 20-30 min)",
    )
    parser.add_argument("--cutoff", type=float, default=120.0, help="seconds one table is cut off")
    parser.add_argument(
        "--kill-at",
        type=float,
        default=0.4,
        help="share of the match at which server 1 is SIGKILLed (the table is cut off after)",
    )
    parser.add_argument("--down", type=float, default=5.0, help="seconds server 1 stays dead")
    parser.add_argument("--malformed", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=9000)
    parser.add_argument(
        "--tables-dir",
        default="/dev/shm" if Path("/dev/shm").is_dir() else None,
        help="where the simulated tables keep their SQLite logs (default: /dev/shm: on one "
        "machine 100 tables' fsyncs would measure the disk, not the tournament)",
    )
    parser.add_argument(
        "--cache", metavar="FILE", help="keep the tracked matches here and reuse them next run"
    )
    parser.add_argument("--db", help="a PostgreSQL DSN to use (default: a throw-away cluster)")
    args = parser.parse_args()
    if not 2 <= args.tables <= 300:
        parser.error("--tables: 2 to 300")

    started = time.monotonic()
    jobs = [(args.seed + i, args.deals) for i in range(args.tables + 1)]
    cache = Path(args.cache) if args.cache else None
    cached = json.loads(cache.read_text()) if cache is not None and cache.is_file() else None
    if cached is not None and cached["jobs"][: len(jobs)] == [
        list(j) for j in jobs
    ]:  # a longer run's will do
        matches = [(seed, [tuple(e) for e in log]) for seed, log in cached["matches"][: len(jobs)]]
    else:
        with multiprocessing.get_context("fork").Pool(2) as pool:
            matches = pool.map(_tracked, jobs)
        if cache is not None:
            cache.write_text(json.dumps({"jobs": jobs, "matches": matches}))
    events_total = sum(len(log) for _, log in matches[1:])
    deals = statistics.mean(
        sum(1 for _, k, _ in log if k == "deal_started") for _, log in matches[1:]
    )
    print(
        f"{args.tables} tables' matches simulated and tracked in "
        f"{time.monotonic() - started:.0f} s: "
        f"{events_total} events ({events_total / args.tables:.0f} per table, {deals:.1f} deals)",
        flush=True,
    )

    with ExitStack() as stack:
        dsn = args.db or stack.enter_context(throwaway_cluster())
        folder = Path(
            stack.enter_context(
                tempfile.TemporaryDirectory(prefix="scorekeeper-soak-", dir=args.tables_dir)
            )
        )
        organiser = TournamentStore.open(dsn, NAME, pool_size=2)
        stack.callback(organiser.close)
        names = [f"mesa-{n}" for n in range(1, args.tables + 1)]
        keys = {name: organiser.add_table(name) for name in [*names, "mesa-base"]}
        organiser.add_teams([f"Equipa {n:03d}" for n in range(1, 2 * args.tables + 1)])
        round_one = organiser.pair_next_round()
        servers = [Server(dsn, free_port(), folder / f"server{n}.log") for n in (1, 2)]
        for server in servers:
            server.start()
            stack.callback(server.stop)
        page = PageWatcher(servers[1].url)
        time.sleep(1.0)

        # Baseline: one table alone, same servers, pushing to server 1.
        base = Table(
            "mesa-base",
            folder,
            servers[0].url,
            keys["mesa-base"],
            matches[0][1][:120],
            match_seconds=12.0,
            delay=0.0,
        )
        base.play(time.monotonic())
        base.pusher.wait_caught_up(30)
        time.sleep(0.5)
        base.pusher.stop()
        baseline = delays([base], page)

        gate = Gate(servers[0].port)
        tables = []
        rng = random.Random(args.seed)
        for index, name in enumerate(names):
            url = f"http://127.0.0.1:{gate.port}" if index == 0 else servers[index % 2].url
            tables.append(
                Table(
                    name,
                    folder,
                    url,
                    keys[name],
                    matches[index + 1][1],
                    match_seconds=args.match_seconds,
                    delay=rng.uniform(0, 3),
                )
            )
        start, start_wall = time.monotonic(), time.time()
        threads = [threading.Thread(target=t.play, args=(start,), daemon=True) for t in tables]
        for thread in threads:
            thread.start()

        kill_at = start + args.kill_at * args.match_seconds  # before it: the steady phase, no fault

        def cut_off() -> None:
            time.sleep(max(0.0, kill_at + 2.0 - time.monotonic()))
            gate.cut()
            print(
                f"t={time.monotonic() - start:5.1f} s  {names[0]} cut off for {args.cutoff:.0f} s",
                flush=True,
            )
            time.sleep(args.cutoff)
            gate.restore()
            print(f"t={time.monotonic() - start:5.1f} s  {names[0]} reconnected", flush=True)

        cutter = threading.Thread(target=cut_off, daemon=True)
        cutter.start()
        time.sleep(max(0.0, kill_at - time.monotonic()))
        servers[0].kill()
        killed = time.monotonic()
        print(f"t={killed - start:5.1f} s  server 1 killed (SIGKILL)", flush=True)
        time.sleep(args.down)
        servers[0].start()
        down_for = time.monotonic() - killed
        print(f"t={time.monotonic() - start:5.1f} s  server 1 restarted and answering", flush=True)
        cutter.join()
        for thread in threads:
            thread.join()
        played_at = time.monotonic()
        caught_up = all(
            t.pusher.wait_caught_up(max(5.0, 120 - (time.monotonic() - played_at))) for t in tables
        )
        catch_up = time.monotonic() - played_at
        time.sleep(1.0)
        for table in tables:
            table.pusher.stop()
        page.stopping.set()

        held_cut = (tables[0].pusher.status.acked, tables[0].store.last_seq(names[0]))
        problems = exactly_once(dsn, tables)
        want = standings_from_tables(tables, organiser)
        with urllib.request.urlopen(servers[1].url + "/api/standings", timeout=30) as response:
            got = json.load(response)["standings"]
        unseen = sum(
            1 for t in tables for seq in t.appended_at if (t.name, seq) not in page.seen_at
        )
        finished = sum(1 for g in organiser.games() if g.winner is not None)
        every = delays(tables, page)
        steady = delays(
            tables[1:],
            page,
            outside=((start_wall + args.kill_at * args.match_seconds - 1.0, float("inf")),),
        )
        appended = sorted(at for t in tables for at in t.appended_at.values())
        rate = len(appended) / max(appended[-1] - appended[0], 1e-9)
        cut_table = delays(tables[:1], page)

        before = rows_fingerprint(dsn)
        statuses = malformed_pushes(
            servers[0].url, names[1], keys[names[1]], args.malformed, args.seed
        )
        after = rows_fingerprint(dsn)

    def ms(values: list[float]) -> str:
        return (
            (
                f"p50 {1000 * percentile(values, 0.5):.0f} ms, "
                f"p99 {1000 * percentile(values, 0.99):.0f} ms, "
                f"max {1000 * max(values):.0f} ms ({len(values)} events)"
            )
            if values
            else "none"
        )

    print()
    print(
        f"tables: {args.tables}, {events_total} events, each match in {args.match_seconds:.0f} s, "
        f"server 1 down {down_for:.0f} s (SIGKILL to answering again), "
        f"{names[0]} cut off {args.cutoff:.0f} s, {len(round_one)} games in round 1"
    )
    print(f"delay table event -> organiser page, baseline (one table alone): {ms(baseline)}")
    print(f"the tables appended {rate:.0f} events/s in all")
    print(
        f"delay, {args.tables - 1} tables, steady phase "
        f"(appended before the kill, not the cut-off table): {ms(steady)}"
    )
    print(f"delay, every event (outages and the cut-off table included):  {ms(every)}")
    print(
        f"cut-off table: {ms(cut_table)}; "
        f"the server held {held_cut[0]} of its {held_cut[1]} events at the end"
    )
    print(f"all pushers caught up {catch_up:.1f} s after the last event: {caught_up}")
    print(f"exactly once: {'yes' if not problems else 'NO: ' + '; '.join(problems[:3])}")
    print(
        "every event reached the organiser's page: "
        + ("yes" if not unseen else f"NO ({unseen} missing)")
    )
    print(
        f"standings equal replaying every table's own log: {'yes' if got == want else 'NO'} "
        f"({finished} of {len(round_one)} games won)"
    )
    fivexx = sum(n for status, n in statuses.items() if status >= 500)
    print(
        f"malformed pushes: {sum(statuses.values())}, answers {dict(sorted(statuses.items()))}, "
        f"5xx: {fivexx}, store changed: {'no' if before == after else 'YES'}"
    )
    warned = sorted({w for t in tables for w in t.warnings})
    print(f"pusher lines on the tables' consoles: {len(warned)} distinct, e.g. {warned[:2]}")
    ok = (
        not problems
        and not unseen
        and got == want
        and caught_up
        and fivexx == 0
        and before == after
    )
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
