"""The table PIN: who may change the score."""

from __future__ import annotations

import hmac
import threading
import time
from collections.abc import Callable
from functools import wraps
from typing import Any

from flask import current_app, request

from scorekeeper.web.replies import error

PIN_HEADER = "X-Scorekeeper-Pin"
PINS = "scorekeeper.pins"


class PinGuard:
    """Wrong PINs from one address lock it out for a while: a 4-digit PIN must not be guessable
    by a phone on the café's network. The table's own phones are not affected by a stranger."""

    def __init__(self, *, tries: int, lockout: float) -> None:
        self.tries = tries
        self.lockout = lockout
        self._failures: dict[str, tuple[int, float]] = {}
        self._lock = threading.Lock()

    def locked(self, address: str) -> float:
        """Seconds left in the address's lockout, 0 when it may try."""
        with self._lock:
            count, since = self._failures.get(address, (0, 0.0))
            left = since + self.lockout - time.monotonic()
            if count >= self.tries and left > 0:
                return left
            if count >= self.tries:
                del self._failures[address]
            return 0.0

    def failed(self, address: str) -> None:
        with self._lock:
            count, _ = self._failures.get(address, (0, 0.0))
            self._failures[address] = (count + 1, time.monotonic())

    def passed(self, address: str) -> None:
        with self._lock:
            self._failures.pop(address, None)


def pin_required(view: Callable[..., Any]) -> Callable[..., Any]:
    @wraps(view)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        pin = current_app.config.get("PIN")
        if not pin:
            return error(401, "writes are off: start the server with a PIN (scorekeeper serve --pin)")
        guard: PinGuard = current_app.extensions[PINS]
        address = request.remote_addr or "?"
        wait = guard.locked(address)
        if wait:
            response = error(429, f"too many wrong PINs from {address}: try again in {wait:.0f} s")
            response.headers["Retry-After"] = str(int(wait) + 1)
            return response
        given = request.headers.get(PIN_HEADER, "")
        if not hmac.compare_digest(given.encode(), str(pin).encode()):
            guard.failed(address)
            return error(401, f"wrong or missing table PIN: send it in the {PIN_HEADER} header")
        guard.passed(address)
        return view(*args, **kwargs)

    return guarded
