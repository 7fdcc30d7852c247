"""`scorekeeper replay`: the JSON it prints, the summary, and one-line errors with exit status 2."""

import json
import subprocess
import sys

import pytest

from scorekeeper.cli import main
from tests.rules_builders import CAPOTE_PLAYS, deal_json, deal_with_nos_points, record


def run(capsys, *args, stdin=None, monkeypatch=None):
    if stdin is not None:
        import io

        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    status = main(["replay", *args])
    out, err = capsys.readouterr()
    return status, out, err


def write(tmp_path, data, name="match.json"):
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return str(path)


def test_json_output_matches_the_documented_shape(tmp_path, capsys):
    path = write(tmp_path, record(deal_json(3, "2H", CAPOTE_PLAYS)))
    status, out, err = run(capsys, path, "--json")
    assert status == 0 and err == ""
    result = json.loads(out)
    deal = result["deals"][0]
    assert deal["trump"] == "H" and deal["complete"] is True
    assert deal["tricks"][0] == {
        "leader": 0,
        "cards": ["AH", "AD", "AC", "2H"],
        "winner": 0,
        "points": 33,
    }
    assert result["score"] == {"nos": 4, "eles": 0} and result["winner"] == "nos"


def test_stdin_and_readable_summary(capsys, monkeypatch):
    data = json.dumps(record(deal_with_nos_points(91)))
    status, out, _ = run(capsys, "-", stdin=data, monkeypatch=monkeypatch)
    assert status == 0
    assert "Nós 91 – Eles 29 points" in out and "Nós +2 riscos" in out


def test_example_record_in_the_repository_replays(capsys):
    status, out, _ = run(capsys, "examples/match.json")
    assert status == 0 and "Score: Nós" in out


GOOD = deal_with_nos_points(61)


@pytest.mark.parametrize(
    "data, message",
    [
        (
            record({"dealer": 0, "trump": "AH", "plays": ["2S", "8S"]}),
            "deal 1, play 2: unknown card '8S'",
        ),
        (
            record({"dealer": 0, "trump": "AH", "plays": ["2S", "2S"]}),
            "deal 1, play 2 (2S): 2S was already played in vaza 1",
        ),
        (
            record({"dealer": 3, "trump": "AH", "plays": ["AH"]}),
            (
                "deal 1, play 1 (AH): AH is the turned trunfo, "
                "which belongs to the dealer (Jogador 4 (Eles))"
            ),
        ),
        (
            record(deal_json(3, "2H", CAPOTE_PLAYS), GOOD),
            "deal 2: the match was already won by Nós",
        ),
        ('{"deals": [', "not valid JSON (line 1"),
        (
            record(GOOD, tie="sometimes"),
            "rule tie='sometimes' is unknown: choose 'nothing', 'carry'",
        ),
        ({"rules": {"trumps": 1}, "deals": []}, "unknown rule 'trumps'"),
        (record({"dealer": 5, "trump": "AH", "plays": []}), "deal 1: dealer 5 is not a seat"),
        (record({"dealer": 0, "plays": []}), 'deal 1: the turned card "trump" is missing'),
        (record(dict(GOOD, plays=GOOD["plays"][:5]), GOOD), "deal 2: deal 1 has only 5 plays"),
        (record(dict(GOOD, plays=GOOD["plays"] + ["AH"])), "at most 40"),
        ([1, 2], "must be a JSON object"),
    ],
)
def test_bad_input_exits_2_with_one_line_naming_the_problem(tmp_path, capsys, data, message):
    status, out, err = run(
        capsys, write(tmp_path, data if isinstance(data, str) else json.dumps(data))
    )
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and message in err, err


def test_a_simulated_clips_ground_truth_replays_to_the_score_it_claims(capsys):
    from scorekeeper.synth.simulate import demo_clip

    truth_path = demo_clip()[1]
    status, out, _ = run(capsys, str(truth_path), "--json")
    assert status == 0
    assert json.loads(out)["score"] == json.loads(truth_path.read_text(encoding="utf-8"))["score"]


def test_missing_file(capsys):
    status, _, err = run(capsys, "no/such/match.json")
    assert status == 2 and "no such file 'no/such/match.json'" in err


def test_console_script_prints_no_traceback_on_bad_input(tmp_path):
    path = write(tmp_path, record({"dealer": 0, "trump": "10H", "plays": []}))
    proc = subprocess.run(
        [sys.executable, "-m", "scorekeeper", "replay", path, "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip().startswith(
        "scorekeeper replay: deal 1, turned card: unknown card '10H'"
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[" * 100_000 + "]" * 100_000, "nested deeper"),
        ('{"deals": [], "rules": {"target": ' + "9" * 5_000 + "}}", "number of 5000 characters"),
        ('{"deals": [{"dealer": 0, "trump": "AH", "plays": ["\\ud800"]}]}', "lone surrogate"),
        (b'{"deals": ["\xff"]}', "not UTF-8"),
    ],
)
def test_hostile_records_are_one_line_and_status_2(tmp_path, capsys, text, message):
    path = tmp_path / "hostile.json"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    status, out, err = run(capsys, str(path))
    assert status == 2 and out == ""
    assert message in err and err.count("\n") == 1
