"""Reading back what a damaged store file still holds.

SQLite answers "database disk image is malformed" to every query that touches a damaged page, so a
file with garbage in its middle would fail its tables forever. :func:`salvage` moves the damaged
file aside (kept for whoever wants to look), reads every row it still can (in key order up to the
damage, stepping past it key by key, and from the far end back to it), and writes them into a fresh
file at the old path. The store then checks each row as
it does at every open.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

Row = tuple[Any, ...]
"""One ``events`` row as SQLite gives it back: table_id, seq, kind, data, at."""

_ROW = "SELECT table_id, seq, kind, data, at FROM events"
_JUMPS = tuple(1 << k for k in range(17))
"""How far past a damaged row to look for the next readable one (up to 65,536 events on)."""


def _scan(conn: sqlite3.Connection, after: tuple[str, int]) -> tuple[list[Row], bool]:
    """Rows after ``after`` in key order until the first error: (rows, ended cleanly)."""
    rows: list[Row] = []
    try:
        cursor = conn.execute(
            f"{_ROW} WHERE (table_id, seq) > (?, ?) ORDER BY table_id, seq", after
        )
        for row in cursor:
            rows.append(row)  # noqa: PERF402 - one by one: the rows before a damaged page are kept
    except sqlite3.DatabaseError:
        return rows, False
    return rows, True


def _scan_back(conn: sqlite3.Connection) -> tuple[list[Row], bool]:
    rows: list[Row] = []
    try:
        for row in conn.execute(f"{_ROW} ORDER BY table_id DESC, seq DESC"):
            rows.append(row)  # noqa: PERF402 - one by one: the rows before a damaged page are kept
    except sqlite3.DatabaseError:
        return rows, False
    return rows, True


def _step_over(
    conn: sqlite3.Connection,
    after: tuple[str, int],
    last_start: tuple[str, int],
    found: dict[tuple[str, int], Row],
) -> tuple[str, int] | None:
    """A key past the damage after ``after`` that reads, always beyond ``last_start`` (so the walk
    ends), or None when none is found within reach."""
    for jump in _JUMPS:
        probe = (after[0], after[1] + jump)
        if probe <= last_start:
            continue
        try:
            rows = conn.execute(f"{_ROW} WHERE table_id = ? AND seq = ?", probe).fetchall()
        except sqlite3.DatabaseError:
            continue
        found.update(((row[0], row[1]), row) for row in rows)
        return probe
    return None


def _tables(conn: sqlite3.Connection) -> list[str]:
    try:
        return [
            row[0] for row in conn.execute("SELECT DISTINCT table_id FROM events ORDER BY table_id")
        ]
    except sqlite3.DatabaseError:
        return []


def read_what_remains(path: Path) -> list[Row]:
    """Every row of ``path``'s event log that can still be read, in key order."""
    conn = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
    try:
        found: dict[tuple[str, int], Row] = {}
        starts = [("", 0)] + [(table, 0) for table in _tables(conn)]
        for start in starts:
            after, last_start = start, start
            while True:
                rows, clean = _scan(conn, after)
                found.update(((row[0], row[1]), row) for row in rows)
                if rows:
                    after = (rows[-1][0], rows[-1][1])
                if clean:
                    break
                resume = _step_over(conn, after, last_start, found)
                if resume is None:
                    break
                after = last_start = resume
        backward, _ = _scan_back(conn)  # the rows past the damage, read from the far end
        found.update(((row[0], row[1]), row) for row in backward)
        return [found[key] for key in sorted(found)]
    finally:
        conn.close()


def salvage(path: Path, *, create_empty: Callable[[Path], object]) -> tuple[int, Path]:
    """Move the damaged ``path`` aside and rebuild it from the rows that remain: (rows kept, where
    the damaged file went). ``create_empty(path)`` writes an empty store there: the schema lives
    with the store, which calls this."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    damaged = path.with_name(f"{path.name}.damaged-{stamp}")
    for suffix in ("", "-wal", "-shm"):
        part = Path(f"{path}{suffix}")
        if part.exists():
            part.rename(f"{damaged}{suffix}")
    try:
        rows = read_what_remains(damaged)
    except sqlite3.DatabaseError:
        rows = []
    create_empty(path)
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")
        conn.executemany(
            "INSERT OR IGNORE INTO events (table_id, seq, kind, data, at) VALUES (?, ?, ?, ?, ?)",
            rows,
        )
        conn.execute("COMMIT")
    finally:
        conn.close()
    return len(rows), damaged
