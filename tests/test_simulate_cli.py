"""``scorekeeper simulate``: bad input is one line on stderr and exit status 2."""

from __future__ import annotations

import pytest

from scorekeeper.cli import main


@pytest.mark.parametrize(
    "extra, says",
    [
        (["--out", "clip.avi"], "must name an .mp4"),
        (["--out", "clip.mp4", "--size", "big"], "WIDTHxHEIGHT"),
        (["--out", "clip.mp4", "--deals", "0"], "--deals 0"),
        (["--out", "clip.mp4", "--fps", "500"], "--fps 500"),
        (["--out", "no/such/folder/clip.mp4"], "does not exist"),
        (["--out", "clip.mp4", "--table", "lava"], "lava"),
    ],
)
def test_bad_input_is_one_line_and_status_2(
    extra: list[str],
    says: str,
    tmp_path: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)  # type: ignore[arg-type]
    assert main(["simulate", *extra]) == 2
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1
