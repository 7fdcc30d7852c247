"""The SQLite log: one row per event, keyed by (table_id, seq), never updated or deleted."""

from __future__ import annotations

import copy
import json
import os
import re
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from scorekeeper.errors import ScorekeeperError
from scorekeeper.paths import default_db_path
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
from scorekeeper.store.fold import Folded, Match, fold
from scorekeeper.store.salvage import salvage
from scorekeeper.store.state import TableState, build_state, replay
from scorekeeper.strict_json import loads

SCHEMA_VERSION = 1
PROTOCOL_RETRIES = 5
"""Times a write is tried when SQLite reports a WAL locking-protocol race (transient)."""
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


def check_table_id(table_id: str) -> str:
    if not isinstance(table_id, str) or not _TABLE_ID.fullmatch(table_id):
        raise StoreError(
            f"table id {table_id!r}: use 1-40 letters, digits, '-' or '_' "
            "(starting with a letter or digit)"
        )
    return table_id


@dataclass(frozen=True)
class Repair:
    """A row of the log that could not be used, set aside so the table goes on without it."""

    table_id: str
    seq: int | None
    """None when the damage was to the file, not to one row."""
    reason: str

    def line(self) -> str:
        where = (
            f"event {self.seq} of table {self.table_id!r}" if self.seq is not None else "the file"
        )
        return " ".join(f"{where}: {self.reason}".split())


class Store:
    """A file of tables' event logs. Thread-safe: every call opens and closes its own connection.

    At open the file checks itself (``PRAGMA quick_check``, and every row must decode and replay);
    a row that does not is quarantined: left in the file, skipped by every read, and reported in
    :attr:`repairs` and in the table's state (``"repairs"``). A damaged file is set aside beside the
    store and the rows it still gives are copied into a fresh one.
    """

    def __init__(self, path: str | os.PathLike[str], *, check: bool = True) -> None:
        self.path = Path(path)
        self._listeners: list[Listener] = []
        self._cache: dict[str, tuple[int, TableState]] = {}
        self._logs: dict[
            str, tuple[int, list[StoredEvent]]
        ] = {}  # rows never change: read each once
        self._folds: dict[
            str, tuple[int, Folded]
        ] = {}  # (last seq folded, the fold): writes extend it
        self._quarantined: dict[str, dict[int, Repair]] = {}
        self._file_repairs: list[Repair] = []
        self._cache_lock = threading.Lock()
        self._migrate()
        if check:
            self._check_file()
            for table_id in self.tables():
                self.state(table_id)  # decodes and replays every row, quarantining the bad ones

    @classmethod
    def open(cls, path: str | os.PathLike[str] | None = None) -> Store:
        """Open the database at ``path`` or the default one (creating it and its folder if
        needed)."""
        target = Path(path) if path is not None else default_db_path()
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            reason = (
                "a file is in the way"
                if isinstance(error, FileExistsError | NotADirectoryError)
                else (error.strerror or type(error).__name__)
            )
            raise StoreError(
                f"cannot make the folder {str(target.parent)!r} for the event store ({reason}): "
                "give --db a path in a folder you can write"
            ) from None
        if target.is_dir():
            raise StoreError(
                f"{str(target)!r} is a folder: give --db the path of a file, "
                f"like {str(target / 'scorekeeper.db')!r}"
            )
        return cls(target)

    @property
    def repairs(self) -> list[Repair]:
        """What the store set aside since it was opened, file damage first."""
        with self._cache_lock:
            rows = [repair for table in self._quarantined.values() for repair in table.values()]
        return [*self._file_repairs, *sorted(rows, key=lambda r: (r.table_id, r.seq or 0))]

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

    def _check_file(self) -> None:
        conn = self._connect()
        try:
            problems = [row[0] for row in conn.execute("PRAGMA quick_check")]
        except sqlite3.DatabaseError as error:
            problems = [str(error)]
        finally:
            conn.close()
        if problems == ["ok"]:
            return
        kept, damaged = salvage(self.path, create_empty=lambda path: Store(path, check=False))
        self._file_repairs.append(
            Repair(
                table_id="*",
                seq=None,
                reason=(
                    f"was damaged ({problems[0]}): {kept} events were read back, "
                    f"the damaged copy is {str(damaged)!r}"
                ),
            )
        )
        self._migrate()

    # -- reading ---------------------------------------------------------------------------

    def tables(self) -> list[str]:
        """Ids of the tables that have a log, sorted."""
        conn = self._connect()
        try:
            return [
                row[0]
                for row in conn.execute("SELECT DISTINCT table_id FROM events ORDER BY table_id")
            ]
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
        """The table's log in order, undone events and undos included, quarantined rows left out."""
        conn = self._connect()
        try:
            return self._read(conn, check_table_id(table_id))
        finally:
            conn.close()

    def _read(self, conn: sqlite3.Connection, table_id: str) -> list[StoredEvent]:
        with self._cache_lock:
            after, known = self._logs.get(table_id, (0, []))
        rows = conn.execute(
            "SELECT seq, kind, data, at FROM events WHERE table_id = ? AND seq > ? ORDER BY seq",
            (table_id, after),
        ).fetchall()
        if not rows:
            return known
        log = list(known)
        for seq, kind, data, at in rows:
            try:
                log.append(decode_row(table_id, seq, kind, data, at))
            except ScorekeeperError as error:
                self._quarantine(
                    Repair(table_id, seq, f"could not be read ({error}), so it is left out")
                )
        upto = rows[-1][0]
        with self._cache_lock:
            if upto > self._logs.get(table_id, (0, []))[0]:
                self._logs[table_id] = (upto, log)
        return log

    def _quarantine(self, repair: Repair) -> None:
        assert repair.seq is not None
        with self._cache_lock:
            self._quarantined.setdefault(repair.table_id, {})[repair.seq] = repair
            upto, log = self._logs.get(repair.table_id, (0, []))
            if any(stored.seq == repair.seq for stored in log):
                self._logs[repair.table_id] = (
                    upto,
                    [stored for stored in log if stored.seq != repair.seq],
                )
                self._folds.pop(repair.table_id, None)
                self._cache.pop(repair.table_id, None)

    def _fold(self, table_id: str, log: list[StoredEvent]) -> Folded:
        """The fold of ``log``, extended from the last one kept (each event is folded once)."""
        with self._cache_lock:
            cached = self._folds.get(table_id)
        if cached is not None and cached[0] <= (log[-1].seq if log else 0):
            base_seq, base = cached
            new = log[_index_after(log, base_seq) :]
        else:
            base, new = Folded(matches=[Match()], in_effect=[]), log
        folded = base.extend(new) if new else base
        with self._cache_lock:
            self._folds[table_id] = (log[-1].seq if log else 0, folded)
        return folded

    def _state_of(self, table_id: str, seq: int, log: list[StoredEvent]) -> TableState:
        """The state after ``log``; an event that breaks the replay is quarantined (a damaged
        log)."""
        for _ in range(len(log) + 1):
            try:
                folded = self._fold(table_id, log)
                return build_state(table_id, seq, folded)
            except ScorekeeperError:
                culprit = _first_breaking(table_id, log)
                self._quarantine(
                    Repair(
                        table_id,
                        culprit.seq,
                        f"({culprit.event.kind}) no longer replays with the events before it, "
                        "so it is left out",
                    )
                )
                log = [stored for stored in log if stored.seq != culprit.seq]
        raise StoreError(f"table {table_id!r}: its log does not replay")  # pragma: no cover

    def _repair_lines(self, table_id: str) -> list[str]:
        with self._cache_lock:
            rows = sorted(self._quarantined.get(table_id, {}).values(), key=lambda r: r.seq or 0)
        return [repair.line() for repair in (*self._file_repairs, *rows)]

    def folded(self, table_id: str) -> Folded:
        self.state(table_id)  # replays, quarantining what does not
        conn = self._connect()
        try:
            return self._fold(table_id, self._read(conn, check_table_id(table_id)))
        finally:
            conn.close()

    def record(self, table_id: str) -> dict[str, Any]:
        """The current match as a match record (what ``scorekeeper replay`` reads)."""
        return copy.deepcopy(self.folded(table_id).record)

    def state(self, table_id: str) -> dict[str, Any]:
        """The JSON of the table's state (:meth:`TableState.to_json`) plus ``"repairs"`` (one line
        per row set aside): what the page and ``GET /api/state`` show."""
        return {**self.table_state(table_id).to_json(), "repairs": self._repair_lines(table_id)}

    def table_state(self, table_id: str) -> TableState:
        """The table's state (:func:`~scorekeeper.store.state.build_state`), cached per seq."""
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
        state = self._state_of(table_id, seq, log)
        self._remember(table_id, seq, state)
        return state

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
        :class:`ConflictError`. With ``next_match``, a deal started once the match is won opens
        the next match (a ``match_started`` goes first, in the same write); without it the engine
        refuses the deal. Any error leaves the log as it was.
        """
        if not events:
            raise StoreError("nothing to append")

        def make(folded: Folded) -> list[Event]:
            if next_match and isinstance(events[0], DealStarted) and _won(folded):
                return [MatchStarted(), *events]
            return list(events)

        return self._write(table_id, make, at=at, expect=expect)

    def match_won(self, table_id: str) -> bool:
        """Whether the table's current match has a winner (the next deal belongs to a new match)."""
        return self.table_state(table_id).result.winner is not None

    def undo(
        self, table_id: str, *, at: datetime | None = None, expect: int | None = None
    ) -> list[StoredEvent]:
        """Undo the latest event that changed something (and the gatherings and doubts after
        it)."""

        def undos(folded: Folded) -> list[Event]:
            effective = folded.in_effect
            targets: list[Event] = []
            index = len(effective) - 1
            # A vaza's gathering and the tracker's doubts go with the play they followed.
            while index >= 0 and isinstance(effective[index].event, TrickGathered | DoubtRaised):
                targets.append(Undone(seq=effective[index].seq))
                index -= 1
            if index < 0:
                raise StoreError("nothing to undo: the log of this table is empty")
            targets.append(Undone(seq=effective[index].seq))
            return targets

        return self._write(table_id, undos, at=at, expect=expect)

    def subscribe(self, listener: Listener) -> None:
        """Call ``listener(table_id, seq)`` after each append made through this object."""
        self._listeners.append(listener)

    def _write(
        self,
        table_id: str,
        make: Callable[[Folded], list[Event]],
        *,
        at: datetime | None,
        expect: int | None,
    ) -> list[StoredEvent]:
        check_table_id(table_id)
        when = at or datetime.now(UTC)
        for attempt in range(1, PROTOCOL_RETRIES + 1):
            try:
                return self._write_once(table_id, make, when=when, expect=expect)
            except sqlite3.OperationalError as error:
                # SQLITE_PROTOCOL: a race on the WAL's shared index while another connection opens
                # or closes; the transaction was rolled back whole, so doing it again is safe.
                if "locking protocol" not in str(error) or attempt == PROTOCOL_RETRIES:
                    raise
                time.sleep(0.02 * attempt)
        raise AssertionError("unreachable")

    def _write_once(
        self,
        table_id: str,
        make: Callable[[Folded], list[Event]],
        *,
        when: datetime,
        expect: int | None,
    ) -> list[StoredEvent]:
        conn = self._connect()
        try:
            conn.execute("BEGIN IMMEDIATE")  # no other writer between the check and the insert
            try:
                last = _last_seq(conn, table_id)  # quarantined rows keep their numbers
                if expect is not None and expect != last:
                    raise ConflictError(
                        f"table {table_id!r} is at event {last}, not {expect}: reload and try again"
                    )
                log = self._read(conn, table_id)
                if not self._is_cached(table_id, last):
                    self._state_of(table_id, last, log)  # a damaged log is repaired before it grows
                    log = self._read(conn, table_id)
                base = self._fold(table_id, log)
                new = [
                    StoredEvent(table_id, last + offset, when, event)
                    for offset, event in enumerate(make(base), start=1)
                ]
                folded = base.extend(new)
                state = build_state(table_id, new[-1].seq, folded)
                _check_decisions(new, state)
                conn.executemany(
                    "INSERT INTO events (table_id, seq, kind, data, at) VALUES (?, ?, ?, ?, ?)",
                    [_row(stored) for stored in new],
                )
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:  # a failed COMMIT may have rolled back already
                    conn.execute("ROLLBACK")
                raise
        except sqlite3.IntegrityError as error:
            raise ConflictError(
                f"table {table_id!r}: conflicting write ({error}): reload and try again"
            ) from None
        finally:
            conn.close()
        with self._cache_lock:
            upto, known = self._logs.get(table_id, (0, []))
            if upto == last:
                self._logs[table_id] = (new[-1].seq, known + new)
                self._folds[table_id] = (new[-1].seq, folded)
        self._remember(table_id, new[-1].seq, state)
        for listener in list(self._listeners):
            listener(table_id, new[-1].seq)
        return new

    def _is_cached(self, table_id: str, seq: int) -> bool:
        with self._cache_lock:
            hit = self._cache.get(table_id)
        return hit is not None and hit[0] == seq

    def _cached(self, table_id: str, seq: int) -> TableState | None:
        with self._cache_lock:
            hit = self._cache.get(table_id)
        if hit is not None and hit[0] == seq:
            return hit[1]
        return None

    def _remember(self, table_id: str, seq: int, state: TableState) -> None:
        with self._cache_lock:
            self._cache[table_id] = (seq, state)


def _won(folded: Folded) -> bool:
    return bool(folded.record["deals"]) and replay(folded.record).winner is not None


def _index_after(log: list[StoredEvent], seq: int) -> int:
    """Index of the first event of ``log`` after ``seq`` (the log is in seq order)."""
    low, high = 0, len(log)
    while low < high:
        middle = (low + high) // 2
        if log[middle].seq <= seq:
            low = middle + 1
        else:
            high = middle
    return low


def _first_breaking(table_id: str, log: list[StoredEvent]) -> StoredEvent:
    """The first event after which the log no longer folds and replays (found by halving)."""

    def replays(count: int) -> bool:
        try:
            build_state(table_id, 0, fold(log[:count]))
        except ScorekeeperError:
            return False
        return True

    low, high = 0, len(log)  # log[:low] replays, log[:high] does not
    while high - low > 1:
        middle = (low + high) // 2
        if replays(middle):
            low = middle
        else:
            high = middle
    return log[high - 1]


def decode_row(table_id: str, seq: int, kind: Any, data: Any, at: Any) -> StoredEvent:
    """One row of the log as an event, or a one-line :class:`StoreError` saying what is wrong."""
    if not isinstance(kind, str) or not isinstance(data, str) or not isinstance(at, str):
        raise StoreError("a column holds the wrong type")
    try:
        when = datetime.fromisoformat(at)
    except ValueError:
        raise StoreError(f"bad time {at[:40]!r}") from None
    return StoredEvent(
        table_id, seq, when, event_from_json(kind, loads(data, what="its data", error=StoreError))
    )


def _last_seq(conn: sqlite3.Connection, table_id: str) -> int:
    row = conn.execute("SELECT MAX(seq) FROM events WHERE table_id = ?", (table_id,)).fetchone()
    return int(row[0] or 0)


def _row(stored: StoredEvent) -> tuple[str, int, str, str, str]:
    kind, data = event_to_json(stored.event)
    return (
        stored.table_id,
        stored.seq,
        kind,
        json.dumps(data, ensure_ascii=False),
        stored.at.isoformat(),
    )


def _check_decisions(new: Sequence[StoredEvent], state: TableState) -> None:
    for stored in new:
        event = stored.event
        if not isinstance(event, RenunciaConfirmed | RenunciaDismissed):
            continue
        if state.status_of((event.deal, event.trick, event.seat)) is None:
            raise StoreError(
                f"no renúncia by {seat_label(event.seat)} in vaza {event.trick} "
                f"of deal {event.deal} to decide on"
            )
