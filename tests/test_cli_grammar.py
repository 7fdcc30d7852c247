"""One command-line grammar: ``--source`` everywhere, one ``--rules``, one set of seat options."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from scorekeeper.cli import build_parser, main
from scorekeeper.rules import PRESETS, Rules
from scorekeeper.tracking.geometry import Side
from tests.test_track_cli import write_trick

ROOT = Path(__file__).resolve().parents[1]
KNOWN = ", ".join(PRESETS)


def subcommands() -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


@pytest.fixture
def stream(tmp_path: Path) -> Path:
    path = tmp_path / "trick.jsonl"
    write_trick(path)
    return path


def test_every_command_reading_a_camera_takes_source_as_an_option() -> None:
    commands = subcommands()
    for name in ("run", "calibrate", "enrol", "track"):
        flags = {flag for action in commands[name]._actions for flag in action.option_strings}
        assert "--source" in flags, name


def test_the_old_positional_source_still_tracks_with_a_one_line_warning(
    stream: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["track", "--source", str(stream), "--json"]) == 0
    new = capsys.readouterr()
    assert main(["track", str(stream), "--json"]) == 0
    old = capsys.readouterr()
    assert json.loads(old.out) == json.loads(new.out) and new.err == ""
    assert old.err.count("\n") == 1
    assert "deprecated" in old.err and f"track --source {stream}" in old.err


@pytest.mark.parametrize("args", [[], ["a.jsonl", "--source", "b.jsonl"]])
def test_no_source_or_two_is_one_line(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["track", *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("scorekeeper track: ") and "--source" in err


def test_rules_take_a_preset_pairs_or_both_in_track(
    stream: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for text, rules in (
        ("brazil", Rules.preset("brazil")),
        ("tie=carry,target=7", Rules.from_json({"tie": "carry", "target": 7})),
        ("brazil,target=7", Rules.preset("brazil").with_changes(target=7)),
    ):
        assert main(["track", "--source", str(stream), "--json", "--rules", text]) == 0
        assert json.loads(capsys.readouterr().out)["record"]["rules"] == rules.to_json(), text


@pytest.mark.parametrize("command", ["track", "run", "replay"])
def test_an_unknown_preset_is_one_line_naming_the_known_ones(
    command: str, stream: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = {
        "track": ["track", "--source", str(stream)],
        "run": ["run", "--source", str(tmp_path / "no-camera.mp4"), "--db", str(tmp_path / "t.db")],
        "replay": ["replay", str(ROOT / "examples" / "match.json")],
    }[command]
    assert main([*args, "--rules", "tornament"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert captured.err == (
        f"scorekeeper {command}: --rules 'tornament': unknown preset 'tornament': choose {KNOWN}\n"
    )
    assert not (tmp_path / "t.db").exists()


def test_replay_scores_under_the_rules_given(capsys: pytest.CaptureFixture[str]) -> None:
    record = str(ROOT / "examples" / "match.json")
    assert main(["replay", record, "--json", "--rules", "target=4"]) == 0
    assert json.loads(capsys.readouterr().out)["rules"]["target"] == 4


def test_every_seat_option_offers_the_same_sides() -> None:
    sides = [side.value for side in Side]
    offered = {
        name: action.choices
        for name, parser in subcommands().items()
        for action in parser._actions
        if "--seat0" in action.option_strings
    }
    assert sorted(offered) == ["calibrate", "run", "simulate", "track"]
    assert all(list(choices or []) == sides for choices in offered.values())
