"""Face packs on disk: 40 files by card name, written whole or not at all, read by FacePack."""

from __future__ import annotations

import os
from pathlib import Path

import cv2
import numpy as np
import pytest

from scorekeeper.enrol import EnrolError
from scorekeeper.enrol.pack import (
    check_deck_name,
    decks_dir,
    import_face_pack,
    is_face_pack,
    load_face_pack,
    save_face_pack,
    user_data_dir,
)
from scorekeeper.errors import ScorekeeperError
from scorekeeper.rules.cards import DECK, Card
from scorekeeper.synth import SynthError
from tests.enrol_scenes import deck_pack
from tests.images import read_image

PACK = deck_pack()
EXPECTED = [
    f"{r}{s}.png" for s in "hsdc" for r in ("A", "7", "K", "J", "Q", "6", "5", "4", "3", "2")
]


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SCOREKEEPER_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


def faces(*leave_out: str) -> dict[Card, np.ndarray]:
    return {card: PACK.face(card).image for card in DECK if card.notation not in leave_out}


def test_the_data_folder_follows_the_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    assert decks_dir() == tmp_path / "home" / "decks"
    monkeypatch.delenv("SCOREKEEPER_HOME")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert user_data_dir() == tmp_path / "xdg" / "scorekeeper"
    monkeypatch.delenv("XDG_DATA_HOME")
    assert user_data_dir() == Path.home() / ".local" / "share" / "scorekeeper"


def test_a_saved_pack_has_the_40_files_and_loads_as_a_face_pack(home: Path) -> None:
    folder = save_face_pack(faces(), "cafe-central")
    assert folder == home / "decks" / "cafe-central"
    assert sorted(os.listdir(folder)) == sorted(EXPECTED)
    assert is_face_pack(folder)
    loaded = load_face_pack(folder)
    assert np.array_equal(loaded.face("QS").image, PACK.face("QS").image)
    assert [p.name for p in (home / "decks").iterdir()] == ["cafe-central"], (
        "no staging folder left"
    )


@pytest.mark.parametrize("name", ["", "a b", "../up", "café", "-x", "x" * 49, "a/b"])
def test_a_bad_deck_name_is_refused_in_one_line(name: str) -> None:
    with pytest.raises(EnrolError, match="letters, digits") as caught:
        save_face_pack(faces(), name)
    assert "\n" not in str(caught.value) and isinstance(caught.value, ScorekeeperError)
    assert check_deck_name("Mesa_2-b") == "Mesa_2-b"


def test_an_incomplete_deck_is_refused_naming_the_missing_cards(home: Path) -> None:
    with pytest.raises(EnrolError, match=r"lacks 2 of the 40 cards: 5H 3C") as caught:
        save_face_pack(faces("5H", "3C"), "meio")
    assert "\n" not in str(caught.value)
    assert not (home / "decks" / "meio").exists()
    partial = save_face_pack(faces("5H", "3C"), "meio", allow_partial=True)
    assert len(os.listdir(partial)) == 38 and not is_face_pack(partial)
    with pytest.raises(SynthError, match="5h.png 3c.png"):
        load_face_pack(partial)


def test_a_failed_write_leaves_nothing_behind(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    written = []

    def flaky(path: str, image: np.ndarray, *args: object) -> bool:
        written.append(path)
        if len(written) == 20:
            raise OSError("disk full")
        return bool(cv2.imencode(".png", image)[0]) and Path(path).write_bytes(b"x") > 0

    monkeypatch.setattr("scorekeeper.enrol.pack.cv2.imwrite", flaky)
    with pytest.raises(OSError):
        save_face_pack(faces(), "crash")
    assert list((home / "decks").iterdir()) == []


def test_an_existing_deck_is_kept_unless_replaced(home: Path) -> None:
    first = save_face_pack(faces(), "mesa")
    with pytest.raises(EnrolError, match="already exists"):
        save_face_pack(faces(), "mesa")
    other = faces()
    other[Card.parse("AH")] = np.full_like(other[Card.parse("AH")], 200)
    again = save_face_pack(other, "mesa", replace=True)
    assert again == first and read_image(first / "Ah.png").mean() == 200
    assert [p.name for p in (home / "decks").iterdir()] == ["mesa"]


def test_a_folder_that_is_a_pack_is_copied_normalised(tmp_path: Path, home: Path) -> None:
    source = tmp_path / "fotos"
    source.mkdir()
    for card in DECK:
        stem = f"{card.rank.value}{card.suit.value}"  # upper-case names, JPEG: still a pack
        cv2.imwrite(str(source / f"{stem}.jpg"), PACK.face(card).image)
    (source / "notes.txt").write_text("not a face")
    assert is_face_pack(source)
    folder = import_face_pack(source, "importado")
    assert sorted(os.listdir(folder)) == sorted(EXPECTED)
    assert is_face_pack(folder)
    assert not is_face_pack(tmp_path / "nowhere")


def test_importing_a_folder_that_is_not_a_pack_says_what_lacks(tmp_path: Path) -> None:
    with pytest.raises(EnrolError, match="lacks 40 of the 40 faces"):
        import_face_pack(tmp_path, "vazio")


def test_a_saved_deck_named_again_is_itself() -> None:
    folder = save_face_pack(faces(), "mesa")
    assert import_face_pack(folder, "mesa") == folder and is_face_pack(folder)
