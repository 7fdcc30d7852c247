"""What the pipeline tells the page about itself: is the camera live, lost, or done, and has it read
the trunfo of the cards it sees being played?"""

from __future__ import annotations

import threading
from collections.abc import Callable


class LiveStatus:
    """Thread-safe status shared by the capture thread and the web server's threads."""

    def __init__(self, on_change: Callable[[], None] | None = None) -> None:
        self._lock = threading.Lock()
        self._state: dict[str, str] = {"camera": "starting", "detail": "", "trunfo": ""}
        self._on_change = on_change

    def set_listener(self, on_change: Callable[[], None]) -> None:
        self._on_change = on_change

    def update(self, camera: str, detail: str = "") -> None:
        self._set(camera=camera, detail=detail)

    def trunfo_unread(self, unread: bool) -> None:
        """Cards lie in the play area and no turned card was read (``trunfo`` is ``unread``): the
        page asks the table to start the deal there."""
        self._set(trunfo="unread" if unread else "")

    def _set(self, **values: str) -> None:
        with self._lock:
            new = {**self._state, **values}
            changed = new != self._state
            self._state = new
        if changed and self._on_change is not None:
            self._on_change()

    def snapshot(self) -> dict[str, str]:
        with self._lock:
            return dict(self._state)
