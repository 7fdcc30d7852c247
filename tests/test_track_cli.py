"""``scorekeeper track`` end to end on detection streams, and its one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scorekeeper.cli import main
from scorekeeper.rules import replay_record
from scorekeeper.tracking.stream import StreamHeader, write_stream
from tests.test_tracker import FPS, GEOMETRY, TRICK_1, Scene, c, stage_deal


def write_trick(path: Path, *, header: bool = True) -> None:
    scene = Scene()
    stage_deal(scene, dealer=3, turned=c("AH"), plays=TRICK_1)
    with path.open("w", encoding="utf-8") as out:
        write_stream(out, scene.frames(), StreamHeader(FPS, GEOMETRY) if header else None)


TRUTH_RECORD = {"deals": [{"dealer": 3, "trump": "AH", "plays": ["2S", "KS", "AS", "5S"]}]}


def test_json_output_has_events_record_and_the_replayed_result(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stream = tmp_path / "trick.jsonl"
    write_trick(stream)
    assert main(["track", "--source", str(stream), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [e["card"] for e in out["events"] if e["type"] == "card_played"] == [
        "2S",
        "KS",
        "AS",
        "5S",
    ]
    assert out["record"]["deals"] == TRUTH_RECORD["deals"]
    assert out["result"] == replay_record(out["record"])
    assert out["result"]["deals"][0]["tricks"][0]["winner"] == 2


def test_readable_account_and_ground_truth_comparison(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stream = tmp_path / "trick.jsonl"
    write_trick(stream, header=False)  # no header: default geometry from the frame size
    truth = tmp_path / "clip.json"
    wrong = {"deals": [{"dealer": 3, "trump": "AH", "plays": ["2S", "KS", "5S", "AS"]}]}
    truth.write_text(json.dumps({"record": wrong, "events": []}), encoding="utf-8")
    assert main(["track", "--source", str(stream), "--ground-truth", str(truth)]) == 0
    out = capsys.readouterr().out
    assert "vaza 1 to Jogador 3 (Nós): 2S KS AS 5S, 15 points" in out
    assert "frames/s" in out
    assert "Against the ground truth: plays 2/4 right, seats 2/4, tricks 0/1" in out


def test_noise_options_still_give_the_trick(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stream = tmp_path / "trick.jsonl"
    write_trick(stream)
    assert (
        main(
            [
                "track",
                "--source",
                str(stream),
                "--json",
                "--drop",
                "0.3",
                "--misread",
                "0.05",
                "--seed",
                "4",
            ]
        )
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert out["record"]["deals"] == TRUTH_RECORD["deals"]


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("9", "cannot open camera 9"),
        ("missing.mp4", "no such video file 'missing.mp4'"),
        ("missing.jsonl", "cannot open detection stream"),
    ],
)
def test_unreadable_source_is_one_line_on_stderr(
    source: str,
    message: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["track", "--source", source]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("scorekeeper track: ") and message in err


def test_broken_stream_line_names_the_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stream = tmp_path / "bad.jsonl"
    stream.write_text(
        '{"fps": 10, "geometry": {"width": 1280, "height": 720}}\n'
        '{"frame": 0, "cards": [{"card": "9H", "box": [1, 2, 3, 4]}]}\n',
        encoding="utf-8",
    )
    assert main(["track", "--source", str(stream)]) == 2
    err = capsys.readouterr().err
    assert "line 2" in err and "9H" in err and err.count("\n") == 1


def test_noise_share_out_of_range_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stream = tmp_path / "trick.jsonl"
    write_trick(stream)
    assert main(["track", "--source", str(stream), "--drop", "1.5"]) == 2
    assert "--drop 1.5: give a share between 0 and 1" in capsys.readouterr().err


def test_a_stream_keeps_each_reads_alternatives_and_old_streams_still_read(tmp_path: Path) -> None:
    from scorekeeper.rules import Card
    from scorekeeper.tracking.stream import read_stream, write_stream
    from scorekeeper.vision.detections import CardDetection, FrameDetections

    read = CardDetection(
        Card.parse("5S"),
        0.6,
        (1.0, 2.0, 3.0, 4.0),
        alternatives=((Card.parse("5C"), 0.3), (Card.parse("4S"), 0.05)),
    )
    path = tmp_path / "new.jsonl"
    with path.open("w", encoding="utf-8") as out:
        write_stream(out, [FrameDetections(7, (read,), 1280, 720)])
    _, frames = read_stream(path)
    assert list(frames) == [FrameDetections(7, (read,), 1280, 720)]
    old = tmp_path / "old.jsonl"
    old.write_text(
        '{"frame": 3, "cards": [{"card": "7H", "confidence": 0.9, "box": [0, 0, 9, 9]}]}\n',
        encoding="utf-8",
    )
    (frame,) = list(read_stream(old)[1])
    assert frame.cards[0].card == Card.parse("7H") and frame.cards[0].alternatives == ()
