"""Progress of an enrolment (or of learning from play) running in the background, in a file anyone
can read.

The adapting process writes ``<user data>/work/<name>/progress.json`` as it goes; ``scorekeeper
models`` (and a terminal left open) read it. A job whose process has gone without finishing is
reported as stopped, not as running forever. Nothing here needs torch.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from scorekeeper.paths import user_data_dir

PROGRESS_FILE = "progress.json"


def start_detached(arguments: list[str], *, log: Path, niceness: int) -> int:
    """Start ``scorekeeper ARGUMENTS`` in a session of its own at a lower priority (``nice``), its
    output in ``log``: it goes on after the command that started it ends. Its pid."""
    with log.open("w") as handle:
        child = subprocess.Popen(
            ["nice", "-n", str(niceness), sys.executable, "-m", "scorekeeper", *arguments],
            stdin=subprocess.DEVNULL,
            stdout=handle,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    return child.pid


def progress_path(name: str) -> Path:
    return user_data_dir() / "work" / name / PROGRESS_FILE


def write_progress(
    name: str,
    stage: str,
    fraction: float,
    seconds_left: float | None,
    *,
    pid: int | None = None,
    kind: str = "enrolling",
) -> None:
    """Record where the enrolment (or learning, ``kind``) ``name`` stands; ``pid`` is the process
    doing it (default: this one)."""
    path = progress_path(name)
    path.parent.mkdir(parents=True, exist_ok=True)
    record = {
        "name": name,
        "kind": kind,
        "stage": stage,
        "fraction": round(float(fraction), 4),
        "seconds_left": None if seconds_left is None else round(float(seconds_left), 1),
        "pid": os.getpid() if pid is None else pid,
        "updated": time.time(),
    }
    partial = path.with_suffix(".tmp")
    partial.write_text(json.dumps(record) + "\n", encoding="utf-8")
    os.replace(partial, path)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def running_jobs() -> list[dict[str, Any]]:
    """Enrolments not yet done: their stage, fraction and time left (``stopped`` if the process
    died)."""
    root = user_data_dir() / "work"
    if not root.is_dir():
        return []
    jobs = []
    for path in sorted(root.glob(f"*/{PROGRESS_FILE}")):
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if record.get("stage") == "done":
            continue
        if not _alive(int(record.get("pid", -1))):
            record["stage"] = f"stopped during {record.get('stage')}"
            record["seconds_left"] = None
        jobs.append(record)
    return jobs
