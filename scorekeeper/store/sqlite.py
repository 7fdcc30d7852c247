"""The SQLite log: one row per event, keyed by (table_id, seq), never updated or deleted."""

from __future__ import annotations

import copy
import json
import os
import re
import sqlite3
import threading
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from scorekeeper.rules import seat_label
from scorekeeper.store.events import (
    ConflictError,
    DealStarted,
    DoubtRaised,
    Event,
    MatchStarted,
    RenunciaConfirmed,
    RenunciaDismissed,
    StoredEvent,
    StoreError,
    TrickGathered,
    Undone,
    event_from_json,
    event_to_json,
)
from scorekeeper.store.fold import Folded, fold, in_effect
from scorekeeper.store.state import build_state, replay

SCHEMA_VERSION = 1
DEFAULT_TABLE = "mesa"
_TABLE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,39}")

_SCHEMA: tuple[str, ...] = (
    """CREATE TABLE IF NOT EXISTS events (
        table_id TEXT NOT NULL,
        seq INTEGER NOT NULL CHECK (seq >= 1),
        kind TEXT NOT NULL,
        data TEXT NOT NULL,
        at TEXT NOT NULL,
        PRIMARY KEY (table_id, seq)
    ) WITHOUT ROWID""",
    """CREATE TRIGGER IF NOT EXISTS events_append_only_update BEFORE UPDATE ON events
    BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END""",
    """CREATE TRIGGER IF NOT EXISTS events_append_only_delete BEFORE DELETE ON events
    BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END""",
)

Listener = Callable[[str, int], None]


def default_db_path() -> Path:
    """``$XDG_DATA_HOME/scorekeeper/scorekeeper.db``, else ``~/.local/share/scorekeeper/scorekeeper.db``."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "scorekeeper" / "scorekeeper.db"


def check_table_id(table_id: str) -> str:
    if not isinstance(table_id, str) or not _TABLE_ID.fullmatch(table_id):
        raise StoreError(
            f"table id {table_id!r}: use 1-40 letters, digits, '-' or '_' (starting with a letter or digit)"
        )
    return table_id


class Store:
    """A file of tables' event logs. Thread-safe: every call opens and closes its own connection."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._listeners: list[Listener] = []
        self._cache: dict[str, tuple[int, dict[str, Any]]] = {}
        self._logs: dict[str, list[StoredEvent]] = {}  # rows never change: read each one once
        self._cache_lock = threading.Lock()
        self._migrate()

    @classmethod
    def open(cls, path: str | os.PathLike[str] | None = None) -> Store:
        """Open (creating it and its folder if needed) the database at ``path`` or the default one."""
        target = Path(path) if path is not None else default_db_path()
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            reason = "a file is in the way" if isinstance(error, FileExistsError | NotADirectoryError) else (
                error.strerror or type(error).__name__)
            raise StoreError(
                f"cannot make the folder {str(target.parent)!r} for the event store ({reason}): "
                "give --db a path in a folder you can write"
            ) from None
        if target.is_dir():
            raise StoreError(f"{str(target)!r} is a folder: give --db the path of a file, like {str(target / 'scorekeeper.db')!r}")
        return cls(target)

    def _connect(self) -> sqlite3.Connection:
        # Autocommit mode: transactions are opened explicitly, so a write is validated and
        # inserted under one lock (BEGIN IMMEDIATE).
        conn = sqlite3.connect(self.path, timeout=10.0, isolation_level=None)
        conn.execute("PRAGMA busy_timeout = 10000")
        conn.execute("PRAGMA synchronous = FULL")
        return conn

    def _migrate(self) -> None:
        try:
            conn = self._connect()
            try:
                self._create(conn)
            finally:
                conn.close()
        except sqlite3.Error as error:
            raise StoreError(f"cannot use {str(self.path)!r} as the event store: {error}") from None

    def _create(self, conn: sqlite3.Connection) -> None:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"{str(self.path)!r} was written by a newer scorekeeper (schema {version}, "
                f"this one reads {SCHEMA_VERSION}): upgrade scorekeeper"
            )
        conn.execute("PRAGMA journal_mode = WAL")  # the page reads while the tracker writes
        if version < SCHEMA_VERSION:
            conn.execute("BEGIN IMMEDIATE")
            for statement in _SCHEMA:  # not executescript(): it would commit halfway
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            conn.execute("COMMIT")

    # -- reading ---------------------------------------------------------------------------

    def tables(self) -> list[str]:
        """Ids of the tables that have a log, sorted."""
        conn = self._connect()
        try:
            return [row[0] for row in conn.execute("SELECT DISTINCT table_id FROM events ORDER BY table_id")]
        finally:
            conn.close()

    def last_seq(self, table_id: str) -> int:
        """Sequence number of the table's latest event, 0 for an empty log."""
        conn = self._connect()
        try:
            return _last_seq(conn, check_table_id(table_id))
        finally:
            conn.close()

    def events(self, table_id: str) -> list[StoredEvent]:
        """The table's whole log in order, undone events and undos included."""
        conn = self._connect()
        try:
            return self._read(conn, check_table_id(table_id))
        finally:
            conn.close()

    def _read(self, conn: sqlite3.Connection, table_id: str) -> list[StoredEvent]:
        with self._cache_lock:
            known = list(self._logs.get(table_id, ()))
        after = known[-1].seq if known else 0
        log = known + _read(conn, table_id, after=after)
        with self._cache_lock:
            if len(log) > len(self._logs.get(table_id, ())):
                self._logs[table_id] = log
        return log

    def folded(self, table_id: str) -> Folded:
        return fold(self.events(table_id))

    def record(self, table_id: str) -> dict[str, Any]:
        """The current match as a match record (what ``scorekeeper replay`` reads)."""
        return self.folded(table_id).record

    def state(self, table_id: str) -> dict[str, Any]:
        """The table's state (see :func:`scorekeeper.store.state.build_state`), cached per log length."""
        check_table_id(table_id)
        conn = self._connect()
        try:
            conn.execute("BEGIN")  # one snapshot for both reads
            seq = _last_seq(conn, table_id)
            cached = self._cached(table_id, seq)
            if cached is not None:
                return cached
            log = self._read(conn, table_id)
            conn.execute("COMMIT")
        finally:
            conn.close()
        state = build_state(table_id, seq, fold(log))
        self._remember(table_id, seq, state)
        return copy.deepcopy(state)

    # -- writing ---------------------------------------------------------------------------

    def append(
        self,
        table_id: str,
        *events: Event,
        at: datetime | None = None,
        expect: int | None = None,
        next_match: bool = False,
    ) -> list[StoredEvent]:
        """Append ``events`` atomically after checking that the log still replays with them.

        ``expect`` is the sequence number the writer last saw: if someone appended since,
        :class:`ConflictError`. With ``next_match``, a deal started once the match is won opens the
        next match (a ``match_started`` goes first, in the same write); without it the engine refuses
        the deal. Any error leaves the log as it was.
        """
        if not events:
            raise StoreError("nothing to append")

        def make(log: list[StoredEvent]) -> list[Event]:
            if next_match and isinstance(events[0], DealStarted) and _won(log):
                return [MatchStarted(), *events]
            return list(events)

        return self._write(table_id, make, at=at, expect=expect)

    def match_won(self, table_id: str) -> bool:
        """Whether the table's current match has a winner (the next deal belongs to a new match)."""
        return bool(self.state(table_id)["winner"])

    def undo(self, table_id: str, *, at: datetime | None = None, expect: int | None = None) -> list[StoredEvent]:
        """Undo the latest event that changed something (and the vaza gatherings and doubts after it)."""

        def undos(log: list[StoredEvent]) -> list[Event]:
            effective = in_effect(log)
            targets: list[Event] = []
            # A vaza's gathering and the tracker's doubts go with the play they followed.
            while effective and isinstance(effective[-1].event, TrickGathered | DoubtRaised):
                targets.append(Undone(seq=effective.pop().seq))
            if not effective:
                raise StoreError("nothing to undo: the log of this table is empty")
            targets.append(Undone(seq=effective[-1].seq))
            return targets

        return self._write(table_id, undos, at=at, expect=expect)

    def subscribe(self, listener: Listener) -> None:
        """Call ``listener(table_id, seq)`` after each append made through this object."""
        self._listeners.append(listener)

    def _write(
        self,
        table_id: str,
        make: Callable[[list[StoredEvent]], list[Event]],
        *,
        at: datetime | None,
        expect: int | None,
    ) -> list[StoredEvent]:
        check_table_id(table_id)
        when = at or datetime.now(UTC)
        conn = self._connect()
        try:
            conn.execute("BEGIN IMMEDIATE")  # no other writer between the check and the insert
            try:
                log = self._read(conn, table_id)
                last = log[-1].seq if log else 0
                if expect is not None and expect != last:
                    raise ConflictError(
                        f"table {table_id!r} is at event {last}, not {expect}: reload and try again"
                    )
                new = [
                    StoredEvent(table_id, last + offset, when, event)
                    for offset, event in enumerate(make(log), start=1)
                ]
                folded = fold(log + new)
                state = build_state(table_id, new[-1].seq, folded)
                _check_decisions(new, state)
                conn.executemany(
                    "INSERT INTO events (table_id, seq, kind, data, at) VALUES (?, ?, ?, ?, ?)",
                    [_row(stored) for stored in new],
                )
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
        except sqlite3.IntegrityError as error:
            raise ConflictError(f"table {table_id!r}: conflicting write ({error}): reload and try again") from None
        finally:
            conn.close()
        self._remember(table_id, new[-1].seq, state)
        for listener in list(self._listeners):
            listener(table_id, new[-1].seq)
        return new

    def _cached(self, table_id: str, seq: int) -> dict[str, Any] | None:
        with self._cache_lock:
            hit = self._cache.get(table_id)
        if hit is not None and hit[0] == seq:
            return copy.deepcopy(hit[1])
        return None

    def _remember(self, table_id: str, seq: int, state: dict[str, Any]) -> None:
        with self._cache_lock:
            self._cache[table_id] = (seq, state)


def _won(log: list[StoredEvent]) -> bool:
    return bool(replay(fold(log).record)["winner"]) if log else False


def _last_seq(conn: sqlite3.Connection, table_id: str) -> int:
    row = conn.execute("SELECT MAX(seq) FROM events WHERE table_id = ?", (table_id,)).fetchone()
    return int(row[0] or 0)


def _read(conn: sqlite3.Connection, table_id: str, *, after: int = 0) -> list[StoredEvent]:
    rows = conn.execute(
        "SELECT seq, kind, data, at FROM events WHERE table_id = ? AND seq > ? ORDER BY seq",
        (table_id, after),
    ).fetchall()
    return [
        StoredEvent(table_id, seq, datetime.fromisoformat(at), event_from_json(kind, json.loads(data)))
        for seq, kind, data, at in rows
    ]


def _row(stored: StoredEvent) -> tuple[str, int, str, str, str]:
    kind, data = event_to_json(stored.event)
    return stored.table_id, stored.seq, kind, json.dumps(data, ensure_ascii=False), stored.at.isoformat()


def _check_decisions(new: Sequence[StoredEvent], state: dict[str, Any]) -> None:
    found = {(r["deal"], r["trick"], r["seat"]) for r in state["revokes"]}
    for stored in new:
        event = stored.event
        if not isinstance(event, RenunciaConfirmed | RenunciaDismissed):
            continue
        if (event.deal, event.trick, event.seat) not in found:
            raise StoreError(
                f"no renúncia by {seat_label(event.seat)} in vaza {event.trick} of deal {event.deal} to decide on"
            )
