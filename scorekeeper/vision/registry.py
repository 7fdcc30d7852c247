"""The card-reader models installed here, and which one ``run`` and ``detect`` use by default.

Two places hold models: the shipped ones (:func:`scorekeeper.paths.shipped_models_dir`: the
repository's ``models/``, or ``SCOREKEEPER_MODELS``) and the ones built on this machine by
``scorekeeper enrol`` (under :func:`scorekeeper.paths.user_models_dir`).
The active model is a name written in ``active-model.json`` in the user's data folder; without that
file, or when the model it names has gone, the shipped model is used: it is always the fallback.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scorekeeper.errors import ModelError
from scorekeeper.paths import is_usable_name, shipped_models_dir, user_data_dir, user_models_dir
from scorekeeper.vision.metrics import card_f1

DEFAULT_MODEL = "sueca-reader"
CONFIG_NAME = "reader.json"
ACTIVE_FILE = "active-model.json"


@dataclass(frozen=True)
class InstalledModel:
    name: str
    folder: Path
    origin: str
    """``shipped`` or ``enrolled``."""
    active: bool
    figures: dict[str, Any]
    """What the model's ``metrics.json`` / ``enrol.json`` say it measured (may be empty)."""

    def summary(self) -> str:
        """One line of figures for ``scorekeeper models``."""
        enrol = self.figures.get("enrol")
        if enrol:
            after = _precision_recall(enrol.get("after", {}))
            before = _precision_recall(enrol.get("before", {}))
            return f"deck {enrol.get('deck')}: card P/R {after} on its scenes (before: {before})"
        real = self.figures.get("real")
        if real:
            return (
                f"real photos (realcards-dev, detector size {real['detector_size']}): card P/R "
                f"{_precision_recall(real)}"
            )
        return ""

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "folder": str(self.folder),
            "origin": self.origin,
            "active": self.active,
            "summary": self.summary(),
        }


def _precision_recall(cards: dict[str, Any]) -> str:
    nan = float("nan")
    return f"{cards.get('card_precision', nan):.2f}/{cards.get('card_recall', nan):.2f}"


def check_name(name: str) -> str:
    """A model or deck name: letters, digits, ``-`` and ``_``, at most 48 characters."""
    if not is_usable_name(name):
        raise ModelError(
            f"name {name!r} is not usable: "
            "use letters, digits, '-' or '_' (at most 48), e.g. cafe-central"
        )
    return name


def _model_folders(root: Path) -> list[Path]:
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if (p / CONFIG_NAME).is_file())


def _figures(folder: Path) -> dict[str, Any]:
    out: dict[str, Any] = {}
    enrol = folder / "enrol.json"
    if enrol.is_file():
        try:
            out["enrol"] = json.loads(enrol.read_text(encoding="utf-8"))
        except ValueError:
            pass
    metrics = folder / "metrics.json"
    if metrics.is_file():
        try:
            data = json.loads(metrics.read_text(encoding="utf-8"))
            measured = [
                (size, row["cards"])
                for size, row in data.get("realcards_dev", {}).items()
                if "cards" in row
            ]
            if measured:
                size, cards = max(measured, key=lambda item: card_f1(item[1]))
                out["real"] = {**cards, "detector_size": size}
        except (ValueError, AttributeError, TypeError):
            pass
    return out


def active_model_name() -> str:
    """The model ``run`` and ``detect`` load when none is named (the shipped one by default)."""
    path = user_data_dir() / ACTIVE_FILE
    try:
        name = str(json.loads(path.read_text(encoding="utf-8"))["model"])
    except (OSError, ValueError, KeyError, TypeError):
        return DEFAULT_MODEL
    return name if _lookup(name) is not None else DEFAULT_MODEL


def model_notice(model: str | os.PathLike[str] | None = None) -> str:
    """The line ``run`` and ``detect`` print at start: which reader they load, and why that one.

    The active model is per-user state (an enrolment can make its deck the default), so saying it
    at every start is how a table notices a change."""
    folder = find_model(model)
    if model is not None:
        why = "named with --model"
    else:
        why = "the active model"
        try:
            choice = json.loads((user_data_dir() / ACTIVE_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            choice = None
        if isinstance(choice, dict) and choice.get("model") == folder.name:
            when = f" on {choice['chosen']}" if choice.get("chosen") else ""
            reason = f" ({choice['reason']})" if choice.get("reason") else ""
            why += f", chosen{when}{reason}"
        why += "; `scorekeeper models` lists the others, --model picks one"
    return f"Card reader: {folder.name} ({folder}), {why}"


def set_active_model(name: str, *, reason: str) -> Path:
    """Make ``name`` the default model; written atomically so a crash leaves the old choice."""
    if _lookup(name) is None:
        raise ModelError(
            f"model {name!r} is not installed: `scorekeeper models` lists the installed ones"
        )
    home = user_data_dir()
    home.mkdir(parents=True, exist_ok=True)
    target = home / ACTIVE_FILE
    partial = target.with_suffix(".tmp")
    partial.write_text(
        json.dumps({"model": name, "reason": reason, "chosen": time.strftime("%Y-%m-%dT%H:%M:%S")})
        + "\n",
        encoding="utf-8",
    )
    os.replace(partial, target)
    return target


def _lookup(name: str) -> Path | None:
    for root in (user_models_dir(), shipped_models_dir()):
        candidate = root / name
        if (candidate / CONFIG_NAME).is_file():
            return candidate
    return None


def installed_models() -> list[InstalledModel]:
    active = active_model_name()
    seen: set[str] = set()
    out: list[InstalledModel] = []
    for origin, root in (("shipped", shipped_models_dir()), ("enrolled", user_models_dir())):
        for folder in _model_folders(root):
            if folder.name in seen:
                continue
            seen.add(folder.name)
            out.append(
                InstalledModel(folder.name, folder, origin, folder.name == active, _figures(folder))
            )
    return out


def find_model(model: str | os.PathLike[str] | None = None) -> Path:
    """The model folder for ``model``: a folder, an installed name, or (None) the active model."""
    name = os.fspath(model) if model is not None else active_model_name()
    path = Path(name)
    if model is not None and path.is_dir():
        return path
    found = _lookup(name)
    if found is not None:
        return found
    installed = ", ".join(m.name for m in installed_models()) or "none"
    raise ModelError(
        f"model {name!r} not found (installed: {installed}; looked in {user_models_dir()} and "
        f"{shipped_models_dir()}): pass a folder holding {CONFIG_NAME}, "
        "or enrol a deck / run `scorekeeper train`"
    )
