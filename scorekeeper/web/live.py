"""Live updates: one watcher per app tells every open page when a table's log grows.

Appends made through the app's store wake the pages at once; appends made by another process (the
tracker writing to the same file) are noticed by polling SQLite's ``PRAGMA data_version``, which
changes whenever another connection commits, every ``watch_interval`` seconds. Each table's state is
serialised once per change and shared by all its subscribers, so 200 phones cost one replay, not
200.

Each stream has a small queue of changes not yet sent. A phone that stops reading (asleep, gone
without closing) leaves its worker waiting on a full socket, so its queue fills; the hub then drops
it and hangs up its connection, and the page reconnects once it wakes. At most ``max_streams`` are
open at once; more answer 503 and those pages poll ``/api/state`` instead.
"""

from __future__ import annotations

import json
import queue
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from scorekeeper.errors import ScorekeeperError
from scorekeeper.store import Store

HANG_UP = "scorekeeper.hang_up"
"""WSGI environ key the server sets: a callable that closes the request's connection from any
thread."""

LiveStatus = Callable[[], dict[str, Any] | None]
"""What the process feeding the store says about itself (``{"camera": "lost", ...}``), or None."""


class StreamsFull(ScorekeeperError):
    """Every event stream the server can hold is open."""


class _Subscriber:
    def __init__(self, queue_size: int, hang_up: Callable[[], None] | None) -> None:
        self.changes: queue.Queue[None] = queue.Queue(maxsize=queue_size)
        self.dropped = False
        self.hang_up = hang_up

    def tell(self) -> None:
        try:
            self.changes.put_nowait(None)
        except queue.Full:  # it has not taken a change for ``queue_size`` changes: not reading
            if not self.dropped:
                self.dropped = True
                if self.hang_up is not None:
                    self.hang_up()


class Hub:
    def __init__(
        self,
        store: Store,
        *,
        watch_interval: float = 0.1,
        heartbeat: float = 15.0,
        live: LiveStatus | None = None,
        max_streams: int = 256,
        queue_size: int = 32,
    ) -> None:
        self.store = store
        self.live = live
        self.watch_interval = watch_interval
        self.heartbeat = heartbeat
        self.max_streams = max_streams
        self.queue_size = queue_size
        self.dropped = 0
        """Streams dropped for not reading, since the start."""
        self.on_stream_end: Callable[[int], None] | None = None
        """Told how many streams are still open when one ends (the server shrinks its workers)."""
        self._changed = threading.Condition()
        self._version = 0
        self._subscribers: set[_Subscriber] = set()
        self._closed = False
        self._watcher: threading.Thread | None = None
        self._payloads: dict[str, tuple[int, int, str]] = {}  # table -> (version, seq, json)
        self._payload_lock = threading.Lock()
        store.subscribe(lambda table_id, seq: self.notify())

    @property
    def subscribers(self) -> int:
        return len(self._subscribers)

    def notify(self) -> None:
        with self._changed:
            self._version += 1
            self._changed.notify_all()
            subscribers = list(self._subscribers)
        for subscriber in subscribers:
            subscriber.tell()

    def close(self) -> None:
        """End every stream (the server is stopping)."""
        with self._changed:
            self._closed = True
            subscribers = list(self._subscribers)
        for subscriber in subscribers:
            subscriber.tell()

    def payload(self, table_id: str) -> tuple[int, str]:
        """(seq, state JSON) of the table, computed once per change whoever asks."""
        with self._changed:
            version = self._version
        with self._payload_lock:  # the first subscriber computes, the others find it done
            cached = self._payloads.get(table_id)
            if cached is not None and cached[0] == version:
                return cached[1], cached[2]
            state = self.state(table_id)
            text = json.dumps(state, ensure_ascii=False, separators=(",", ":"))
            self._payloads[table_id] = (version, state["seq"], text)
            return state["seq"], text

    def state(self, table_id: str) -> dict[str, Any]:
        state = self.store.state(table_id)
        state["live"] = self.live() if self.live is not None else None
        return state

    def stream(self, table_id: str, *, hang_up: Callable[[], None] | None = None) -> Iterator[str]:
        """Server-Sent Events for one page: the state now, then at every change; a ping when idle.

        Raises :class:`StreamsFull` (before the first chunk) when ``max_streams`` are open.
        ``hang_up`` closes the connection from another thread, for a page that stopped reading.
        """
        subscriber = self._join(hang_up)
        return self._events(table_id, subscriber)

    def _events(self, table_id: str, subscriber: _Subscriber) -> Iterator[str]:
        try:
            yield "retry: 1000\n\n"
            last_text = ""
            while not (subscriber.dropped or self._closed):
                seq, text = self.payload(table_id)
                if text != last_text:  # a new event, or only the camera's status changed
                    last_text = text
                    yield f"id: {seq}\nevent: state\ndata: {text}\n\n"
                try:
                    subscriber.changes.get(timeout=self.heartbeat)
                except queue.Empty:
                    yield "event: ping\ndata: {}\n\n"
                    continue
                while True:  # several changes while it was sending: one state covers them all
                    try:
                        subscriber.changes.get_nowait()
                    except queue.Empty:
                        break
        finally:
            self._leave(subscriber)

    def _join(self, hang_up: Callable[[], None] | None) -> _Subscriber:
        with self._changed:
            if len(self._subscribers) >= self.max_streams:
                raise StreamsFull(
                    f"{len(self._subscribers)} pages already follow the live stream: "
                    "poll /api/state"
                )
            subscriber = _Subscriber(self.queue_size, hang_up)
            self._subscribers.add(subscriber)
            if self._watcher is None or not self._watcher.is_alive():
                self._watcher = threading.Thread(
                    target=self._watch, name="scorekeeper-watch", daemon=True
                )
                self._watcher.start()
        return subscriber

    def _leave(self, subscriber: _Subscriber) -> None:
        with self._changed:
            self._subscribers.discard(subscriber)
            if subscriber.dropped:
                self.dropped += 1
            count = len(self._subscribers)
        if self.on_stream_end is not None:
            self.on_stream_end(count)

    def _watch(self) -> None:
        # Runs while someone listens; a fresh thread starts with the next subscriber.
        conn = sqlite3.connect(self.store.path, timeout=10.0)
        try:
            last = conn.execute("PRAGMA data_version").fetchone()[0]
            while True:
                with self._changed:
                    if not self._subscribers:
                        self._watcher = None
                        return
                time.sleep(self.watch_interval)
                now = conn.execute("PRAGMA data_version").fetchone()[0]
                if now != last:
                    last = now
                    self.notify()
        finally:
            conn.close()
