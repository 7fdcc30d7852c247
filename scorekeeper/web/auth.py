"""The table PIN: who may change the score, and how fast a stranger may guess it."""

from __future__ import annotations

import hmac
import ipaddress
import sqlite3
import threading
import time
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import Any, Protocol

from flask import current_app, request

from scorekeeper.web.replies import error

PIN_HEADER = "X-Scorekeeper-Pin"
PINS = "scorekeeper.pins"
PIN_CHECK = "scorekeeper.pin_check"

_SCHEMA = (
    (
        "CREATE TABLE IF NOT EXISTS pin_failures"
        " (address TEXT PRIMARY KEY, score REAL NOT NULL, at REAL NOT NULL)"
    ),
    "CREATE TABLE IF NOT EXISTS pin_trusted (address TEXT PRIMARY KEY, at REAL NOT NULL)",
)
_STRANGERS = "*strangers*"
"""The row that counts every wrong PIN from addresses that never sent the right one."""


class PinCheck(Protocol):
    def matches(self, given: str) -> bool: ...


class PlainPin:
    def __init__(self, pin: str) -> None:
        self.pin = pin

    def matches(self, given: str) -> bool:
        return hmac.compare_digest(given.encode(), self.pin.encode())


def client_key(address: str) -> str:
    """IPv4 addresses as they are; IPv6 by /64, the block one device can draw addresses from."""
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return address[:64]
    if parsed.version == 6:
        return str(ipaddress.ip_network(f"{parsed}/64", strict=False))
    return str(parsed)


class PinGuard:
    """Wrong PINs lock a guesser out; missing PINs (a page elsewhere posting blind) do not count.

    Each wrong PIN adds one to its address's count, and counts decay by one every ``lockout``
    seconds, so an address gets ``tries`` guesses and then one every ``lockout`` seconds. All the
    addresses that never sent the right PIN share a second count (``tries * 4``), so guessing from
    many addresses at once is no faster; addresses that once sent the right PIN (the table's phones)
    are not held back by it. Counts live in ``database`` (SQLite; None keeps them in memory), so a
    restart forgets nothing, and at most ``max_addresses`` addresses are remembered.
    """

    def __init__(
        self,
        *,
        tries: int,
        lockout: float,
        database: str | Path | None = None,
        max_addresses: int = 1024,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.tries = tries
        self.lockout = lockout
        self.max_addresses = max_addresses
        self.clock = clock
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(
            str(database) if database is not None else ":memory:",
            timeout=10.0,
            isolation_level=None,
            check_same_thread=False,
        )
        for statement in _SCHEMA:
            self._conn.execute(statement)

    def _score(self, key: str, now: float) -> float:
        row = self._conn.execute(
            "SELECT score, at FROM pin_failures WHERE address = ?", (key,)
        ).fetchone()
        if row is None:
            return 0.0
        score, at = float(row[0]), float(row[1])
        return max(0.0, score - max(0.0, now - at) / self.lockout)

    def _trusted(self, key: str) -> bool:
        return (
            self._conn.execute("SELECT 1 FROM pin_trusted WHERE address = ?", (key,)).fetchone()
            is not None
        )

    def locked(self, address: str) -> float:
        """Seconds before the address may try a PIN again, 0 when it may try now."""
        key = client_key(address)
        now = self.clock()
        with self._lock:
            wait = self._wait(self._score(key, now), self.tries)
            if not self._trusted(key):
                wait = max(wait, self._wait(self._score(_STRANGERS, now), self.tries * 4))
        return wait

    def _wait(self, score: float, tries: int) -> float:
        return max(0.0, (score - (tries - 1)) * self.lockout)

    def failed(self, address: str) -> None:
        key = client_key(address)
        now = self.clock()
        with self._lock:
            keys = [key] if self._trusted(key) else [key, _STRANGERS]
            for counted in keys:
                self._conn.execute(
                    "INSERT OR REPLACE INTO pin_failures (address, score, at) VALUES (?, ?, ?)",
                    (counted, self._score(counted, now) + 1.0, now),
                )
            self._conn.execute(  # forget the addresses not heard from for longest
                "DELETE FROM pin_failures WHERE address IN (SELECT address FROM pin_failures "
                "WHERE address != ? ORDER BY at DESC LIMIT -1 OFFSET ?)",
                (_STRANGERS, self.max_addresses),
            )

    def passed(self, address: str) -> None:
        key = client_key(address)
        with self._lock:
            self._conn.execute("DELETE FROM pin_failures WHERE address = ?", (key,))
            self._conn.execute(
                "INSERT OR REPLACE INTO pin_trusted (address, at) VALUES (?, ?)",
                (key, self.clock()),
            )
            self._conn.execute(
                "DELETE FROM pin_trusted WHERE address IN (SELECT address FROM pin_trusted "
                "ORDER BY at DESC LIMIT -1 OFFSET ?)",
                (self.max_addresses // 16,),
            )

    def remembered(self) -> int:
        """How many addresses the guard keeps a count for (never more than ``max_addresses``)."""
        with self._lock:
            count: int = self._conn.execute(
                "SELECT COUNT(*) FROM pin_failures WHERE address != ?", (_STRANGERS,)
            ).fetchone()[0]
        return count


def pin_required(view: Callable[..., Any]) -> Callable[..., Any]:
    @wraps(view)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        check: PinCheck | None = current_app.extensions.get(PIN_CHECK)
        if check is None:
            return error(
                401, "writes are off: start the server with a PIN (scorekeeper serve --pin)"
            )
        given = request.headers.get(PIN_HEADER, "").strip()
        if (
            not given
        ):  # not a guess: a page elsewhere can post blind, and must not lock the table out
            return error(401, f"missing table PIN: send it in the {PIN_HEADER} header")
        guard: PinGuard = current_app.extensions[PINS]
        address = request.remote_addr or "?"
        wait = guard.locked(address)
        if wait:
            response = error(429, f"too many wrong PINs from {address}: try again in {wait:.0f} s")
            response.headers["Retry-After"] = str(int(wait) + 1)
            return response
        if not check.matches(given):
            guard.failed(address)
            return error(
                401, f"wrong table PIN: send the PIN the server printed in the {PIN_HEADER} header"
            )
        guard.passed(address)
        return view(*args, **kwargs)

    return guarded


def install_pin(app: Any, *, database: str | Path | None) -> None:
    """The app's PIN check (``PIN`` in the config, else the hash kept in ``database``) and guard."""
    from scorekeeper.web.table_pin import stored_pin

    config = app.config
    check: PinCheck | None = None
    if config.get("PIN"):
        check = PlainPin(str(config["PIN"]))
    elif database is not None:
        check = stored_pin(database)
    if check is not None:
        app.extensions[PIN_CHECK] = check
    app.extensions[PINS] = PinGuard(
        tries=int(config.get("PIN_TRIES", 5)),
        lockout=float(config.get("PIN_LOCKOUT", 60.0)),
        database=database,
    )
