"""``capture_deck``: photos, a folder of photos, a video, a face-pack folder, and bad sources."""

from __future__ import annotations

import os
from pathlib import Path

import cv2
import numpy as np
import pytest

from scorekeeper.enrol import EnrolError
from scorekeeper.enrol.capture import capture_deck
from scorekeeper.enrol.pack import is_face_pack
from scorekeeper.errors import SourceError
from scorekeeper.rules.cards import DECK
from scorekeeper.synth.tables import render_table
from scorekeeper.vision.boxes import Box
from tests.enrol_scenes import TemplateReader, deck_pack, table_photo

PACK = deck_pack()
SHARED_DECK = Path(__file__).resolve().parents[2] / "shared" / "card-faces" / "photo_deck_mit"
SHIPPED = Path(__file__).resolve().parents[1] / "models" / "sueca-reader"


class NoReader:
    """A reader that must not be used."""

    def detect_indices(
        self, frame_bgr: np.ndarray, *, conf: float | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        raise AssertionError("the reader was used")

    def crop(self, frame_bgr: np.ndarray, box: Box) -> np.ndarray:
        raise AssertionError("the reader was used")

    def classify_crops(self, crops_bgr: list[np.ndarray] | np.ndarray) -> np.ndarray:
        raise AssertionError("the reader was used")


@pytest.fixture(scope="module")
def reader() -> TemplateReader:
    return TemplateReader(PACK)


@pytest.fixture(scope="module")
def deck_photos(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The whole deck, five cards a photo, on felt."""
    folder = tmp_path_factory.mktemp("photos")
    labels = [card.notation for card in DECK]
    for i in range(8):
        photo, _ = table_photo(labels[5 * i : 5 * i + 5], pack=PACK, seed=i, kind="felt")
        cv2.imwrite(str(folder / f"mesa-{i}.png"), photo)
    (folder / "notes.txt").write_text("not a photo")
    return folder


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SCOREKEEPER_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


def test_a_folder_of_photos_becomes_a_whole_deck(
    deck_photos: Path, reader: TemplateReader, home: Path
) -> None:
    said: list[str] = []
    folder = capture_deck(
        str(deck_photos),
        name="feltro",
        reader=reader,
        interactive=False,
        accept_guesses=True,
        page=False,
        log=said.append,
    )
    assert folder == home / "decks" / "feltro" and is_face_pack(folder)
    assert len(os.listdir(folder)) == 40
    assert "40 of 40 cards" in said and said[-1].startswith("saved deck 'feltro'")
    assert any(line.startswith("mesa-0.png: 5 cards — 5/40 — faltam:") for line in said)


def test_doubtful_cards_are_asked_about_in_the_terminal(
    deck_photos: Path, reader: TemplateReader, tmp_path: Path
) -> None:
    one = tmp_path / "one"
    one.mkdir()
    photo, _ = table_photo(["5S", "6S", "4S", "3S", "2S"], pack=PACK, seed=3, kind="felt")
    cv2.imwrite(str(one / "a.png"), photo)
    questions: list[str] = []
    said: list[str] = []

    def ask(prompt: str) -> str:
        questions.append(prompt)
        return "skip"

    with pytest.raises(EnrolError, match="lacks") as caught:
        capture_deck(
            str(one),
            name="meio",
            reader=reader,
            interactive=True,
            accept_guesses=False,
            page=False,
            log=said.append,
            ask=ask,
        )
    asked_about = [line for line in said if line.startswith("[")]
    assert len(questions) == len(asked_about) >= 1
    assert all(".png" in line for line in asked_about), "each question says where to see the face"
    assert "\n" not in str(caught.value) and "5H" in str(caught.value)


def test_without_anyone_to_ask_the_doubtful_cards_are_left_out(
    tmp_path: Path, reader: TemplateReader
) -> None:
    photo, _ = table_photo(["5S", "6S", "4S", "3S", "2S"], pack=PACK, seed=3, kind="felt")
    path = tmp_path / "a.jpg"
    cv2.imwrite(str(path), photo)
    said: list[str] = []
    with pytest.raises(EnrolError):
        capture_deck(
            str(path),
            name="x",
            reader=reader,
            interactive=False,
            accept_guesses=False,
            page=False,
            log=said.append,
        )
    assert any(line.startswith("left out") for line in said)


def test_a_video_counts_each_card_once_however_many_frames_show_it(
    tmp_path: Path, reader: TemplateReader
) -> None:
    labels = ["AH", "7S", "KD", "2C", "QH"]
    photo, _ = table_photo(labels, pack=PACK, seed=0, kind="felt", size=(640, 480))
    table = render_table(640, 480, np.random.default_rng(9), kind="felt")
    path = tmp_path / "mesa.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 10, (640, 480))
    for frame in range(16):
        writer.write(photo if frame < 10 else table)
    writer.release()
    said: list[str] = []
    with pytest.raises(EnrolError, match="lacks 35 of the 40"):
        capture_deck(
            str(path),
            name="video",
            reader=reader,
            interactive=False,
            accept_guesses=True,
            page=False,
            log=said.append,
            sample_fps=5,
        )
    assert "5 of 40 cards: missing" in " ".join(said) and "shown twice" not in " ".join(said)


def test_a_face_pack_folder_is_copied_without_reading_anything(tmp_path: Path, home: Path) -> None:
    source = tmp_path / "pack"
    source.mkdir()
    for card in DECK:
        cv2.imwrite(
            str(source / f"{card.rank.value}{card.suit.value.lower()}.png"), PACK.face(card).image
        )
    said: list[str] = []
    folder = capture_deck(
        str(source),
        name="pronto",
        reader=NoReader(),
        interactive=True,
        accept_guesses=False,
        page=False,
        log=said.append,
    )
    assert folder == home / "decks" / "pronto" and is_face_pack(folder)
    assert said == [f"{source} is already a face pack: copied as deck 'pronto' to {folder}"]


@pytest.mark.skipif(
    not SHARED_DECK.is_dir(), reason="../shared/card-faces/photo_deck_mit is not here"
)
def test_a_real_photographed_deck_is_a_face_pack_folder(home: Path) -> None:
    folder = capture_deck(
        str(SHARED_DECK),
        name="mit",
        reader=NoReader(),
        interactive=False,
        accept_guesses=False,
        page=False,
        log=lambda _: None,
    )
    assert is_face_pack(folder) and len(os.listdir(folder)) == 40


def test_the_deck_name_is_checked_before_anything_is_opened() -> None:
    with pytest.raises(EnrolError, match="deck name"):
        capture_deck(
            "9",
            name="bad name",
            reader=NoReader(),
            interactive=False,
            accept_guesses=False,
            page=False,
        )


def test_a_missing_camera_is_one_line() -> None:
    with pytest.raises(SourceError, match="cannot open camera 9") as caught:
        capture_deck(
            "9",
            name="cam",
            reader=NoReader(),
            interactive=False,
            accept_guesses=False,
            page=False,
            log=lambda _: None,
        )
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(
    ("name", "content", "words"),
    [
        ("broken.jpg", b"\xff\xd8 not really a jpeg", "cannot read photo"),
        ("broken.mp4", b"\x00\x00\x00\x18ftypmp42 garbage", "cannot"),
        ("missing.mp4", None, "no such file or folder"),
        ("empty", "dir", "holds no photos"),
    ],
)
def test_unreadable_sources_are_one_line(
    tmp_path: Path, name: str, content: object, words: str
) -> None:
    path = tmp_path / name
    if content == "dir":
        path.mkdir()
    elif isinstance(content, bytes):
        path.write_bytes(content)
    with pytest.raises(SourceError, match=words) as caught:
        capture_deck(
            str(path),
            name="x",
            reader=NoReader(),
            interactive=False,
            accept_guesses=False,
            page=False,
            log=lambda _: None,
        )
    assert "\n" not in str(caught.value)


@pytest.mark.skipif(not (SHIPPED / "reader.json").is_file(), reason="shipped model missing")
def test_the_shipped_reader_runs_the_whole_flow_on_a_photo(tmp_path: Path) -> None:
    from scorekeeper.vision.reader import CardReader

    photo, _ = table_photo(["AC", "KH", "7D"], pack=PACK, seed=4, kind="wood")
    path = tmp_path / "mesa.jpg"
    cv2.imwrite(str(path), photo)
    said: list[str] = []
    with pytest.raises(EnrolError, match="of the 40 cards"):
        capture_deck(
            str(path),
            name="real",
            reader=CardReader(threads=1),
            interactive=False,
            accept_guesses=True,
            page=False,
            log=said.append,
        )
    assert said[0].startswith("mesa.jpg: 3 cards")


def test_an_unfinished_deck_is_kept_and_the_next_run_asks_only_for_the_missing_cards(
    tmp_path: Path, reader: TemplateReader, home: Path
) -> None:
    labels = [card.notation for card in DECK]
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    for i in range(7):  # 35 cards today
        photo, _ = table_photo(labels[5 * i : 5 * i + 5], pack=PACK, seed=i, kind="felt")
        cv2.imwrite(str(first / f"mesa-{i}.png"), photo)
    with pytest.raises(EnrolError, match="35 found are kept: run the same command again") as caught:
        capture_deck(
            str(first),
            name="aos-poucos",
            reader=reader,
            interactive=False,
            accept_guesses=True,
            page=False,
            log=lambda line: None,
        )
    assert " ".join(labels[35:]) in str(caught.value)
    assert not (home / "decks" / "aos-poucos").exists(), "no half deck is published"

    photo, _ = table_photo(labels[35:], pack=PACK, seed=7, kind="felt")  # the last five tomorrow
    cv2.imwrite(str(second / "mesa-7.png"), photo)
    said: list[str] = []
    folder = capture_deck(
        str(second),
        name="aos-poucos",
        reader=reader,
        interactive=False,
        accept_guesses=True,
        page=False,
        log=said.append,
    )
    assert is_face_pack(folder) and len(os.listdir(folder)) == 40
    assert said[0].startswith("continuing deck 'aos-poucos': 35 cards kept")
    assert not (home / "decks" / ".partial" / "aos-poucos").exists()
