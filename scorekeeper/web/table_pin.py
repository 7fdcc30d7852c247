"""The table PIN, kept across restarts as a salted scrypt hash in the store's file.

``serve``, ``run`` and ``demo`` call :func:`resolve_pin` at start: ``--pin`` sets the PIN,
``--new-pin`` draws a new one, neither keeps the stored one (or draws one the first time). Only the
hash is written; the PIN itself is printed when it is set or drawn, and never again.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
import sqlite3
import threading
from dataclasses import dataclass, field
from pathlib import Path

from scorekeeper.errors import ScorekeeperError

PIN_PATTERN = re.compile(r"\d{4,12}")
_SCRYPT = {"n": 1 << 14, "r": 8, "p": 1}  # ~16 MiB and tens of ms a check: slow for a guesser
_TABLE = (
    "CREATE TABLE IF NOT EXISTS table_pin"
    " (id INTEGER PRIMARY KEY CHECK (id = 1), salt BLOB, hash BLOB)"
)


class PinError(ScorekeeperError):
    """A PIN the table could not use (too short, not digits)."""


def check_pin(pin: str) -> str:
    if not PIN_PATTERN.fullmatch(pin):
        raise PinError(f"--pin {pin!r}: a table PIN is 4 to 12 digits, like 4827")
    return pin


def new_pin() -> str:
    return f"{secrets.randbelow(10_000):04d}"


def _hash(pin: str, salt: bytes) -> bytes:
    return hashlib.scrypt(pin.encode(), salt=salt, dklen=32, **_SCRYPT)


@dataclass
class HashedPin:
    """Checks a PIN against the stored hash; a PIN once checked right is remembered in memory."""

    salt: bytes
    digest: bytes
    _right: set[str] = field(default_factory=set)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @classmethod
    def of(cls, pin: str) -> HashedPin:
        salt = os.urandom(16)
        return cls(salt=salt, digest=_hash(pin, salt), _right={pin})

    def matches(self, given: str) -> bool:
        if not given or len(given) > 64:
            return False
        with self._lock:
            if any(hmac.compare_digest(given.encode(), right.encode()) for right in self._right):
                return True
        if not hmac.compare_digest(_hash(given, self.salt), self.digest):
            return False
        with self._lock:
            self._right.add(given)
        return True


def _connect(database: str | os.PathLike[str]) -> sqlite3.Connection:
    conn = sqlite3.connect(Path(database), timeout=10.0, isolation_level=None)
    conn.execute(_TABLE)
    return conn


def stored_pin(database: str | os.PathLike[str]) -> HashedPin | None:
    conn = _connect(database)
    try:
        row = conn.execute("SELECT salt, hash FROM table_pin WHERE id = 1").fetchone()
    finally:
        conn.close()
    return HashedPin(salt=bytes(row[0]), digest=bytes(row[1])) if row else None


def store_pin(database: str | os.PathLike[str], pin: str) -> HashedPin:
    hashed = HashedPin.of(check_pin(pin))
    conn = _connect(database)
    try:
        conn.execute(
            "INSERT OR REPLACE INTO table_pin (id, salt, hash) VALUES (1, ?, ?)",
            (hashed.salt, hashed.digest),
        )
    finally:
        conn.close()
    return hashed


def resolve_pin(
    database: str | os.PathLike[str], *, pin: str | None, new: bool
) -> tuple[str | None, str]:
    """(the PIN to print or None when the stored one is kept, a line saying where it came from)."""
    if pin is not None and new:
        raise PinError(
            "--pin and --new-pin: give one of them (--pin sets the PIN, --new-pin draws one)"
        )
    if pin is not None:
        store_pin(database, pin)
        return pin, "set with --pin, kept for the next start"
    if not new and stored_pin(database) is not None:
        return None, "the one set before; --new-pin draws a new one"
    drawn = new_pin()
    store_pin(database, drawn)
    return drawn, "new; kept for the next start"
