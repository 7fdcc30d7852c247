"""Every place scorekeeper reads or writes files, in one module.

Two kinds of place. What a café adds after installing (the match store, enrolled decks,
fine-tuned models, the chosen model) lives in the user's data folder, :func:`user_data_dir`: nothing
is written into the checkout or the installed package, so an upgrade never loses a café's decks
and a read-only install still works. What ships with scorekeeper (the models, the page's files,
the demo clip, the scene ranges) is found beside the package.
"""

from __future__ import annotations

import os
import re
from importlib import metadata
from pathlib import Path

HOME_VARIABLE = "SCOREKEEPER_HOME"
MODELS_VARIABLE = "SCOREKEEPER_MODELS"

PACKAGE_DIR = Path(__file__).resolve().parent
CHECKOUT_DIR = PACKAGE_DIR.parent
"""The repository root when scorekeeper runs from a checkout or an editable install."""

NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,47}$")
"""Names of decks and models: letters, digits, - and _, up to 48, not starting with - or _ (a folder
name on every system, and a word a command line takes without quotes). An enrolled deck and the
model adapted to it share the name, so one rule serves both."""


def is_usable_name(name: object) -> bool:
    return isinstance(name, str) and NAME_PATTERN.match(name) is not None


def user_data_dir() -> Path:
    """``$SCOREKEEPER_HOME``, else ``$XDG_DATA_HOME/scorekeeper``, else
    ``~/.local/share/scorekeeper``."""
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


def default_db_path() -> Path:
    """The match store ``run``, ``serve`` and the page use when no ``--db`` is given."""
    return user_data_dir() / "scorekeeper.db"


def shipped_models_dir() -> Path:
    """The models that ship with scorekeeper: ``$SCOREKEEPER_MODELS``, else the checkout's
    ``models/``."""
    return Path(os.environ.get(MODELS_VARIABLE) or CHECKOUT_DIR / "models")


def demo_dir() -> Path:
    """The demo clip and its ground truth, carried inside the package."""
    return PACKAGE_DIR / "data" / "demo"


def scene_config_path() -> Path:
    """``datasets/scenes.json``: the scene ranges ``scorekeeper dataset build`` renders by
    default."""
    return CHECKOUT_DIR / "datasets" / "scenes.json"


def shared_data_dir() -> Path:
    """``../shared`` beside the checkout: the face packs (``card-faces/``) and labelled photos
    (``realcards-dev/``) that ``scorekeeper train`` uses when none are named."""
    return CHECKOUT_DIR.parent / "shared"


_WHEEL_WEB_MARKER = "share/scorekeeper/web/templates/page.html"


def web_assets_dir() -> Path:
    """The page's templates and static files: top-level ``web/`` in a checkout (and in an
    editable install), ``<prefix>/share/scorekeeper/web`` once installed from a wheel."""
    checkout = CHECKOUT_DIR / "web"
    if (checkout / "templates" / "page.html").is_file():
        return checkout
    try:
        files = metadata.files("scorekeeper") or []
    except metadata.PackageNotFoundError:
        files = []
    for file in files:
        if file.as_posix().endswith(_WHEEL_WEB_MARKER):
            return Path(str(file.locate())).resolve().parents[1]
    raise FileNotFoundError(
        "the page's files (web/templates, web/static) are missing: reinstall scorekeeper"
    )
