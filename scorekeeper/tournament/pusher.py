"""A table's pusher: sends its SQLite log to the tournament server in seq order, until all is there.

The table's own store stays the truth; the pusher only reads it. It asks the server which seq it
holds (``acked``), sends what follows in batches, and moves on by the server's answer, so a push
sent twice (a reply lost on the way) is stored once. While the server or the network is away it
retries with exponential backoff and full jitter (a random wait up to 0.5 s, 1 s, 2 s … 30 s, so a
hundred tables coming back do not knock at the same instant) and catches up when it answers. It
runs in its own thread and never raises: the table plays on whatever the network does.
"""

from __future__ import annotations

import json
import random
import threading
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlsplit

from scorekeeper.errors import ScorekeeperError
from scorekeeper.store import Store, StoredEvent, event_to_json

KEY_HEADER = "X-Scorekeeper-Key"


class PusherError(ScorekeeperError):
    """A tournament address or key the pusher cannot use."""


def check_url(url: str) -> str:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise PusherError(
            f"--tournament {url!r}: give the server's address, like http://192.168.1.10:8100"
        )
    return url.rstrip("/")


def push_body(events: list[StoredEvent]) -> dict[str, Any]:
    """The push of these events: ``{"events": [{"seq", "kind", "data", "at"}, ...]}``."""
    items = []
    for stored in events:
        kind, data = event_to_json(stored.event)
        items.append({"seq": stored.seq, "kind": kind, "data": data, "at": stored.at.isoformat()})
    return {"events": items}


@dataclass
class PushStatus:
    acked: int | None = None
    """The highest seq the server said it holds; None before it answered once."""
    pushes: int = 0
    failures: int = 0
    last_error: str | None = None


class Pusher:
    def __init__(
        self,
        store: Store,
        table_id: str,
        url: str,
        key: str,
        *,
        warn: Callable[[str], None] = print,
        batch: int = 500,
        base_delay: float = 0.5,
        max_delay: float = 30.0,
        poll: float = 0.5,
        timeout: float = 10.0,
        rng: random.Random | None = None,
    ) -> None:
        self.store = store
        self.table_id = table_id
        self.url = check_url(url)
        self.key = key
        self.warn = warn
        self.batch = batch
        self.base_delay = base_delay
        self.max_delay = max_delay
        self.poll = poll
        self.timeout = timeout
        self.rng = rng or random.Random()
        self.status = PushStatus()
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._caught_up = threading.Condition()
        self._thread: threading.Thread | None = None
        self._warned: str | None = None

    @property
    def _table_url(self) -> str:
        return f"{self.url}/api/tables/{quote(self.table_id)}"

    def start(self) -> Pusher:
        self._thread = threading.Thread(
            target=self._run, name=f"scorekeeper-push-{self.table_id}", daemon=True
        )
        self._thread.start()
        return self

    def wake(self) -> None:
        """Something was appended: push now rather than at the next poll."""
        self._wake.set()

    def stop(self) -> None:
        self._stopping.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=self.timeout + 1)

    def wait_caught_up(self, timeout: float) -> bool:
        """Wait until the server holds the whole log (as it is now); False when time ran out."""
        target = self.store.last_seq(self.table_id)
        with self._caught_up:
            return self._caught_up.wait_for(
                lambda: (self.status.acked or 0) >= target, timeout=timeout
            )

    def _run(self) -> None:
        failures = 0
        while not self._stopping.is_set():
            try:
                pending = self.push_once()
            except Exception as exc:  # noqa: BLE001 - whatever happens, the table keeps playing
                failures += 1
                self.status.failures += 1
                self._say(str(exc))
                delay = min(self.max_delay, self.base_delay * 2 ** min(failures - 1, 16))
                self._stopping.wait(self.rng.uniform(0, delay))
                continue
            if failures:
                self.warn(
                    f"tournament server: reached again, {self.status.acked} events held there"
                )
                self._warned = None
            failures = 0
            if not pending:
                self._wake.wait(self.poll)
                self._wake.clear()

    def push_once(self) -> bool:
        """Send the next batch; True while more waits. Raises on a failure (the loop backs off)."""
        if self.status.acked is None:
            self._set_acked(self._request("GET", f"{self._table_url}/ack")["acked"])
        acked = self.status.acked or 0
        log = self.store.events(self.table_id)
        if len(log) <= acked:
            return False
        chunk = log[acked : acked + self.batch]
        answer = self._request("POST", f"{self._table_url}/events", push_body(chunk))
        self.status.pushes += 1
        self._set_acked(answer["acked"])
        return len(log) > (self.status.acked or 0)

    def _set_acked(self, value: Any) -> None:
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise PusherError(
                f"the tournament server answered acked={value!r}: is that a scorekeeper tournament?"
            )
        with self._caught_up:
            self.status.acked = value
            self._caught_up.notify_all()

    def _request(self, method: str, url: str, body: Any = None) -> dict[str, Any]:
        data = None if body is None else json.dumps(body, ensure_ascii=False).encode()
        request = urllib.request.Request(
            url,
            data=data,
            method=method,
            headers={
                KEY_HEADER: self.key,
                "Content-Type": "application/json",
            },
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                answer: dict[str, Any] = json.load(response)
                return answer
        except urllib.error.HTTPError as exc:
            reply = _reply(exc)
            if exc.code == 409 and isinstance(reply.get("acked"), int):
                self._set_acked(reply["acked"])  # the server holds less (or more) than we thought
                return {"acked": reply["acked"]}
            raise PusherError(
                f"tournament server refused ({exc.code}): {reply.get('error', exc.reason)}"
            ) from None

    def _say(self, message: str) -> None:
        self.status.last_error = message
        if message != self._warned:  # one line per new trouble, not one per retry
            self._warned = message
            self.warn(f"tournament server: {message}; the table keeps its log and retries")


def _reply(exc: urllib.error.HTTPError) -> dict[str, Any]:
    try:
        data = json.loads(exc.read() or b"{}")
    except (json.JSONDecodeError, OSError):
        return {}
    return data if isinstance(data, dict) else {}
