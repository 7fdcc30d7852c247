"""A café table's install (no extras) runs the table's commands: nothing on their path imports
what only training, simulation or the tournament server needs.

Each test runs a fresh interpreter in which those packages cannot be imported (a meta-path finder
refuses them), as on a machine that installed ``pip install scorekeeper`` alone."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.test_imports import module_files
from tests.test_track_cli import write_trick

ROOT = Path(__file__).resolve().parents[1]

EXTRAS_ONLY = (
    "torch",
    "torchvision",
    "ultralytics",
    "onnx",
    "onnxslim",
    "tqdm",
    "psycopg",
    "psycopg_pool",
    "matplotlib",
)
"""Top-level packages the sim, train and tournament extras bring (matplotlib with ultralytics)."""

SERVER_ONLY = (
    "scorekeeper.training",
    "scorekeeper.tournament.app",
    "scorekeeper.tournament.db",
    "scorekeeper.tournament.live",
    "scorekeeper.tournament.cluster",
    "scorekeeper.tournament.export",
    "scorekeeper.synth.dataset",
)
"""Modules only training, the tournament server or a data-set build import."""

BLOCKER = f"""
import importlib.abc, sys
class Absent(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {EXTRAS_ONLY!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name.split(".")[0])
        return None
sys.meta_path.insert(0, Absent())
"""


def run_without_extras(code: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SCOREKEEPER_HOME": str(tmp_path / "home")}
    return subprocess.run(
        [sys.executable, "-c", BLOCKER + code],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=300,
        check=False,
    )


def cli(*args: str) -> str:
    return f"from scorekeeper.cli import main\nsys.exit(main({list(args)!r}))\n"


def test_the_blocker_does_block(tmp_path: Path) -> None:
    done = run_without_extras("import tqdm\n", tmp_path)
    assert done.returncode != 0 and "No module named 'tqdm'" in done.stderr


def test_every_module_a_table_runs_imports(tmp_path: Path) -> None:
    table_modules = sorted(
        name
        for name in module_files()
        if not name.endswith("__main__") and not name.startswith(SERVER_ONLY)
    )
    done = run_without_extras(
        "import importlib\n"
        f"for name in {table_modules!r}:\n"
        "    importlib.import_module(name)\n"
        "from scorekeeper.web import create_app\n"
        f"create_app({{'DATABASE': {str(tmp_path / 't.db')!r}}})\n"
        "from scorekeeper.vision.reader import CardReader\n"
        "CardReader()\n",
        tmp_path,
    )
    assert done.returncode == 0, done.stderr


def test_replay_track_and_detect_run(tmp_path: Path) -> None:
    import cv2

    stream = tmp_path / "trick.jsonl"
    write_trick(stream)
    frame = tmp_path / "table.png"
    cv2.imwrite(str(frame), np.full((360, 640, 3), 90, np.uint8))

    example = str(ROOT / "examples" / "match.json")
    replay = run_without_extras(cli("replay", example, "--json"), tmp_path)
    assert replay.returncode == 0, replay.stderr
    assert json.loads(replay.stdout)["score"]
    track = run_without_extras(cli("track", "--source", str(stream), "--json"), tmp_path)
    assert track.returncode == 0, track.stderr
    plays = [e["card"] for e in json.loads(track.stdout)["events"] if e["type"] == "card_played"]
    assert plays == ["2S", "KS", "AS", "5S"]
    detect = run_without_extras(cli("detect", str(frame), "--json"), tmp_path)
    assert detect.returncode == 0, detect.stderr
    assert json.loads(detect.stdout) == [{"image": str(frame), "cards": []}]


@pytest.mark.parametrize("action", [["pair"], ["serve", "--pin", "1357"]])
def test_the_tournament_server_names_the_extra_it_needs(action: list[str], tmp_path: Path) -> None:
    done = run_without_extras(
        cli("tournament", *action, "--db", "postgresql://nobody@127.0.0.1/x"), tmp_path
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1
    assert "pip install 'scorekeeper[tournament]'" in done.stderr and "psycopg" in done.stderr
