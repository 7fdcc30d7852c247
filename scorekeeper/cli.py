"""The ``scorekeeper`` command line: one entry point, subcommands as thin wrappers.

Each subcommand lives in ``scorekeeper.commands.<name>`` and exposes ``register(subparsers)``;
modules keep heavy imports (OpenCV, onnxruntime, Flask) inside their functions so ``--help`` and
``replay`` start fast. Bad input exits with status 2 and one line on stderr. SIGTERM (``kill``, a
service manager stopping the café laptop's scorekeeper) stops a command as Ctrl-C does.
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from types import FrameType
from typing import Any

from scorekeeper import __version__
from scorekeeper.errors import ScorekeeperError

COMMANDS: tuple[str, ...] = (
    "demo",
    "run",
    "calibrate",
    "serve",
    "replay",
    "track",
    "detect",
    "models",
    "enrol",
    "learn",
    "simulate",
    "dataset",
    "train",
    "tournament",
)
"""Subcommand modules under ``scorekeeper.commands``, in the order ``--help`` lists them."""

BAD_INPUT = 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="scorekeeper",
        description=(
            "Sueca table scorekeeper: reads the cards, keeps the score, serves it to phones."
        ),
    )
    parser.add_argument("--version", action="version", version=f"scorekeeper {__version__}")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"scorekeeper.commands.{name}").register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    # OpenCV's own "[ WARN:0@...]" / "[ERROR:...]" lines would come before our one-line errors and
    # say the same thing in its words; set before any command imports cv2 (a user's value wins).
    os.environ.setdefault("OPENCV_LOG_LEVEL", "SILENT")
    parser = build_parser()
    args = parser.parse_args(argv)
    previous = _on_sigterm(_interrupt)
    try:
        return int(args.handler(args) or 0)
    except ScorekeeperError as error:
        print(f"scorekeeper {args.command}: {error}", file=sys.stderr)
        return BAD_INPUT
    except KeyboardInterrupt:
        return 130
    finally:
        _on_sigterm(previous)


def _interrupt(_signum: int, _frame: FrameType | None) -> None:
    # The commands already stop cleanly on Ctrl-C (the match stored, the page and pusher closed);
    # SIGTERM takes the same road instead of ending the process wherever it was.
    raise KeyboardInterrupt


def _on_sigterm(handler: Callable[[int, FrameType | None], Any] | int | None) -> Any:
    """Install ``handler`` for SIGTERM; returns the one it replaces (None: nothing was changed,
    since only the main thread may set handlers, as when a test calls ``main`` from a thread)."""
    if handler is None or threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGTERM, handler)


if __name__ == "__main__":
    sys.exit(main())
