"""Where scorekeeper keeps what a café adds after installing: enrolled decks, fine-tuned models.

Nothing here is written into the checkout or the installed package, so an upgrade never loses a
café's decks and a read-only install still works.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

HOME_VARIABLE = "SCOREKEEPER_HOME"

NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,47}$")
"""Names of decks and models: letters, digits, - and _, up to 48, not starting with - or _ (a folder
name on every system, and a word a command line takes without quotes). An enrolled deck and the
model adapted to it share the name, so one rule serves both."""


def is_usable_name(name: object) -> bool:
    return isinstance(name, str) and NAME_PATTERN.match(name) is not None


def user_data_dir() -> Path:
    """``$SCOREKEEPER_HOME``, else ``$XDG_DATA_HOME/scorekeeper``, else ``~/.local/share/scorekeeper``."""
    explicit = os.environ.get(HOME_VARIABLE)
    if explicit:
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_DATA_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".local" / "share"
    return base / "scorekeeper"


def decks_dir() -> Path:
    """Enrolled face packs, one folder per deck (``Ah.png`` ... ``2c.png``)."""
    return user_data_dir() / "decks"


def user_models_dir() -> Path:
    """Card-reader models built on this machine (``scorekeeper enrol``), one folder per model."""
    return user_data_dir() / "models"
