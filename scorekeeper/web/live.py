"""Live updates: one watcher per app tells every open page when a table's log grows.

Appends made through the app's store wake the pages at once; appends made by another process (the
tracker writing to the same file) are noticed by polling SQLite's ``PRAGMA data_version``, which
changes whenever another connection commits, every ``watch_interval`` seconds. Each table's state is
serialised once per change and shared by all its subscribers, so 200 phones cost one replay, not 200.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from scorekeeper.store import Store

LiveStatus = Callable[[], dict[str, Any] | None]
"""What the process feeding the store says about itself (``{"camera": "lost", ...}``), or None."""


class Hub:
    def __init__(
        self,
        store: Store,
        *,
        watch_interval: float = 0.1,
        heartbeat: float = 15.0,
        live: LiveStatus | None = None,
    ) -> None:
        self.store = store
        self.live = live
        self.watch_interval = watch_interval
        self.heartbeat = heartbeat
        self._changed = threading.Condition()
        self._version = 0
        self._subscribers = 0
        self._watcher: threading.Thread | None = None
        self._payloads: dict[str, tuple[int, int, str]] = {}  # table -> (version, seq, json)
        self._payload_lock = threading.Lock()
        store.subscribe(lambda table_id, seq: self.notify())

    @property
    def subscribers(self) -> int:
        return self._subscribers

    def notify(self) -> None:
        with self._changed:
            self._version += 1
            self._changed.notify_all()

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

    def stream(self, table_id: str) -> Iterator[str]:
        """Server-Sent Events for one page: the state now, then at every change; a ping when idle."""
        self._join()
        try:
            yield "retry: 1000\n\n"
            last_text = ""
            while True:
                with self._changed:
                    version = self._version
                seq, text = self.payload(table_id)
                if text != last_text:  # a new event, or only the camera's status changed
                    last_text = text
                    yield f"id: {seq}\nevent: state\ndata: {text}\n\n"
                with self._changed:
                    woke = self._version != version or self._changed.wait(self.heartbeat)
                if not woke:
                    yield "event: ping\ndata: {}\n\n"
        finally:
            self._leave()

    def _join(self) -> None:
        with self._changed:
            self._subscribers += 1
            if self._watcher is None or not self._watcher.is_alive():
                self._watcher = threading.Thread(target=self._watch, name="scorekeeper-watch", daemon=True)
                self._watcher.start()

    def _leave(self) -> None:
        with self._changed:
            self._subscribers -= 1

    def _watch(self) -> None:
        # Runs while someone listens; a fresh thread starts with the next subscriber.
        conn = sqlite3.connect(self.store.path, timeout=10.0)
        try:
            last = conn.execute("PRAGMA data_version").fetchone()[0]
            while True:
                with self._changed:
                    if self._subscribers == 0:
                        self._watcher = None
                        return
                time.sleep(self.watch_interval)
                now = conn.execute("PRAGMA data_version").fetchone()[0]
                if now != last:
                    last = now
                    self.notify()
        finally:
            conn.close()
