"""What the pipeline tells the page about itself: is the camera live, lost, or done?"""

from __future__ import annotations

import threading
from collections.abc import Callable


class LiveStatus:
    """Thread-safe status shared by the capture thread and the web server's threads."""

    def __init__(self, on_change: Callable[[], None] | None = None) -> None:
        self._lock = threading.Lock()
        self._state: dict[str, str] = {"camera": "starting", "detail": ""}
        self._on_change = on_change

    def set_listener(self, on_change: Callable[[], None]) -> None:
        self._on_change = on_change

    def update(self, camera: str, detail: str = "") -> None:
        with self._lock:
            changed = self._state != {"camera": camera, "detail": detail}
            self._state = {"camera": camera, "detail": detail}
        if changed and self._on_change is not None:
            self._on_change()

    def snapshot(self) -> dict[str, str]:
        with self._lock:
            return dict(self._state)
