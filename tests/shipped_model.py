"""Copies of the shipped model for tests that change what its ``reader.json`` says."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

SHIPPED = Path(__file__).resolve().parents[1] / "models" / "sueca-reader"


def copy_of_shipped_model(tmp_path: Path) -> Path:
    """The shipped model's run-time files (no training checkpoints) in ``tmp_path/model``."""
    if not SHIPPED.is_dir():
        pytest.skip("no shipped model under models/sueca-reader")
    target = tmp_path / "model"
    shutil.copytree(SHIPPED, target, ignore=shutil.ignore_patterns("checkpoints"))
    return target


def shipped_model_with(tmp_path: Path, section: str, key: str, value: object) -> Path:
    """A copy of the shipped model whose ``reader.json`` says ``value`` for ``section.key``."""
    model = copy_of_shipped_model(tmp_path)
    config = model / "reader.json"
    data = json.loads(config.read_text())
    data[section][key] = value
    config.write_text(json.dumps(data))
    return model
