"""Every place scorekeeper reads or writes comes from scorekeeper.paths."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from scorekeeper import paths
from tests.test_imports import module_files


def test_only_paths_finds_files_from_where_the_code_lies() -> None:
    """A module working out locations from its own ``__file__`` breaks when files move (and
    ``parents[N]`` counts land outside the checkout): paths.py is the one that may."""
    offenders = [
        name
        for name, file in module_files().items()
        if name != "scorekeeper.paths"
        and any(
            isinstance(node, ast.Name) and node.id == "__file__"
            for node in ast.walk(ast.parse(file.read_text(encoding="utf-8")))
        )
    ]
    assert offenders == []


def test_what_ships_is_found_in_the_checkout() -> None:
    assert (paths.web_assets_dir() / "templates" / "page.html").is_file()
    assert (paths.shipped_models_dir() / "sueca-reader" / "reader.json").is_file()
    assert (paths.demo_dir() / "deal.mp4").is_file()
    assert json.loads(paths.scene_config_path().read_text(encoding="utf-8"))


def test_scorekeeper_home_holds_everything_a_cafe_adds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SCOREKEEPER_HOME", str(tmp_path / "cafe"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    for place in (paths.default_db_path(), paths.decks_dir(), paths.user_models_dir()):
        assert place.parent == tmp_path / "cafe"


def test_scorekeeper_models_moves_the_shipped_models(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SCOREKEEPER_MODELS", str(tmp_path))
    assert paths.shipped_models_dir() == tmp_path
