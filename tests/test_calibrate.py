"""`scorekeeper calibrate`: the seats drawn on the first frame, saved once confirmed."""

from scorekeeper.cli import main
from scorekeeper.synth.simulate import demo_clip
from scorekeeper.tracking.geometry import Side, load_geometry
from tests.images import read_image


def test_confirmed_calibration_saves_the_geometry_run_reads(tmp_path, capsys):
    video, _ = demo_clip()
    out, image = tmp_path / "geometry.json", tmp_path / "calibration.png"
    status = main(
        [
            "calibrate",
            "--source",
            str(video),
            "--seat0",
            "left",
            "--clockwise",
            "--out",
            str(out),
            "--image",
            str(image),
            "--yes",
        ]
    )
    assert (
        status == 0
        and "Jogador 1 (Nós) should be the player by the left edge" in capsys.readouterr().out
    )
    geometry = load_geometry(str(out))
    assert [geometry.side_of_seat(s) for s in range(4)] == [
        Side.LEFT,
        Side.TOP,
        Side.RIGHT,
        Side.BOTTOM,
    ]
    assert read_image(image).shape[:2] == (720, 1280)


def test_nothing_is_saved_without_confirmation(tmp_path, capsys, monkeypatch):
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    video, _ = demo_clip()
    out = tmp_path / "geometry.json"
    status = main(
        ["calibrate", "--source", str(video), "--out", str(out), "--image", str(tmp_path / "c.png")]
    )
    assert status == 1 and not out.exists()
    assert "confirm with --yes" in capsys.readouterr().err


def test_a_missing_camera_is_one_line(tmp_path, capsys):
    status = main(
        [
            "calibrate",
            "--source",
            "9",
            "--out",
            str(tmp_path / "g.json"),
            "--image",
            str(tmp_path / "c.png"),
        ]
    )
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1 and "cannot open camera 9" in err


def test_run_rejects_an_unreadable_geometry(tmp_path, capsys):
    bad = tmp_path / "geometry.json"
    bad.write_text("{")
    status = main(
        ["run", "--source", "clip.mp4", "--geometry", str(bad), "--db", str(tmp_path / "m.db")]
    )
    assert status == 2 and "cannot read geometry" in capsys.readouterr().err
    assert bad.read_text() == "{" and not (tmp_path / "m.db").exists(), "nothing written"
