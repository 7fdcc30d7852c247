"""Live fan-out to the organiser's pages through PostgreSQL LISTEN/NOTIFY.

Every push commits with a ``NOTIFY`` naming the table and its new seq, whichever server process
took it. Each process keeps one listening connection; a notice wakes that process's open pages,
which send the summaries of the tables that changed. So several processes behind one address show
the same thing, and a page never waits for a poll. A lost connection is reopened with backoff;
when it is back every table is announced as changed, since notices sent meanwhile are lost.
"""

from __future__ import annotations

import json
import random
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import psycopg

from scorekeeper.tournament.db import CHANNEL, TournamentStore

EVERYTHING = ""
"""The name a notice gives when something not tied to one table changed (a round was paired)."""


class TournamentHub:
    def __init__(self, store: TournamentStore, *, heartbeat: float = 15.0) -> None:
        self.store = store
        self.heartbeat = heartbeat
        self._changed = threading.Condition()
        self._version = 0
        self._table_versions: dict[str, int] = {}
        self._stopping = threading.Event()
        self._listening = threading.Event()
        self._thread = threading.Thread(
            target=self._listen, name="scorekeeper-tournament-listen", daemon=True
        )
        self._thread.start()

    def wait_listening(self, timeout: float) -> bool:
        return self._listening.wait(timeout)

    def stop(self) -> None:
        """Stop listening, and end every stream: a server closing must not leave a stream writing
        to a connection it no longer serves."""
        self._stopping.set()
        with self._changed:
            self._changed.notify_all()

    def changed(self, table_id: str) -> None:
        with self._changed:
            self._version += 1
            self._table_versions[table_id] = self._version
            self._changed.notify_all()

    def _listen(self) -> None:
        delay = 0.2
        while not self._stopping.is_set():
            try:
                with psycopg.connect(self.store.dsn, autocommit=True, connect_timeout=10) as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    self._listening.set()
                    self.changed(
                        EVERYTHING
                    )  # notices sent while we were away are lost: refresh all
                    delay = 0.2
                    while not self._stopping.is_set():
                        for notice in conn.notifies(timeout=1.0):
                            self._received(notice.payload)
            except psycopg.Error:
                self._listening.clear()
                time.sleep(delay * random.uniform(0.5, 1.5))
                delay = min(delay * 2, 5.0)

    def _received(self, payload: str) -> None:
        try:
            notice = json.loads(payload)
        except json.JSONDecodeError:
            return
        if isinstance(notice, dict) and notice.get("tournament") == self.store.tournament:
            self.changed(str(notice.get("table", EVERYTHING)))

    def stream(
        self, summaries: Callable[[list[str] | None], list[dict[str, Any]]]
    ) -> Iterator[str]:
        """Server-Sent Events: every table now, then each table that changes; a ping when idle.

        ``summaries(None)`` gives every table's summary, ``summaries([ids])`` those tables'.
        """
        yield "retry: 1000\n\n"
        with self._changed:
            seen = self._version
        yield _message("tables", summaries(None))
        while True:
            with self._changed:
                last = seen

                def moved_on(last: int = last) -> bool:
                    return self._version != last or self._stopping.is_set()

                woke = self._changed.wait_for(moved_on, timeout=self.heartbeat)
                changed = [t for t, v in self._table_versions.items() if v > last]
                seen = self._version
            if self._stopping.is_set():
                return
            if not woke:
                yield "event: ping\ndata: {}\n\n"
                continue
            if EVERYTHING in changed:
                yield _message("tables", summaries(None))
            else:
                for summary in summaries(changed):
                    yield _message("table", summary)


def _message(kind: str, data: Any) -> str:
    return f"event: {kind}\ndata: {json.dumps(data, ensure_ascii=False, separators=(',', ':'))}\n\n"
