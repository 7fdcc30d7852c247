"""SVG card decks (KDE's layout, one element per card) rendered into face packs by rsvg-convert."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import numpy as np
import pytest

from scorekeeper.enrol import EnrolError
from scorekeeper.enrol.capture import capture_deck
from scorekeeper.enrol.pack import is_face_pack, load_face_pack
from scorekeeper.enrol.svg_deck import FACE_HEIGHT, element_id, import_svg_deck
from scorekeeper.rules.cards import DECK, Card

needs_rsvg = pytest.mark.skipif(
    shutil.which("rsvg-convert") is None,
    reason="rsvg-convert is not installed (Debian: librsvg2-bin)",
)

CARD_W, CARD_H = 60, 84


def card_colour(position: int) -> tuple[int, int, int]:
    """A colour of its own for each of the 40 cards (RGB), so a face shows which element it is."""
    return (40 + 5 * position, 200 - 4 * position, (97 * position) % 256)


def write_deck(path: Path, *, leave_out: str = "", stray: str = "") -> Path:
    """A deck in the KDE layout: cards on a grid, each a <g id=...> with a filled rounded rect and
    its rank and suit as text; ``stray`` gets a faint far-away shape in its group, as some decks
    have (a shadow's region), which widens what --export-id renders."""
    groups = []
    for position, card in enumerate(DECK):
        if card.notation == leave_out:
            continue
        x, y = 10 + (position % 10) * (CARD_W + 10), 10 + (position // 10) * (CARD_H + 10)
        r, g, b = card_colour(position)
        extra = (
            f'<rect x="{x + 400}" y="{y + 300}" width="20" height="20" fill="black" '
            'fill-opacity="0.2"/>'
            if card.notation == stray
            else ""
        )
        groups.append(
            f'<g id="{element_id(card)}"><rect x="{x}" y="{y}" width="{CARD_W}" height="{CARD_H}" '
            f'rx="5" fill="rgb({r},{g},{b})" stroke="black" stroke-width="1"/>'
            f'<text x="{x + 4}" y="{y + 14}" font-size="12">'
            f"{card.rank.value}{card.suit.value}</text>"
            f"{extra}</g>"
        )
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="800">'
        + "".join(groups)
        + "</svg>"
    )
    if path.suffix == ".svgz":
        path.write_bytes(gzip.compress(svg.encode()))
    else:
        path.write_text(svg)
    return path


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SCOREKEEPER_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


@needs_rsvg
def test_each_card_is_rendered_from_its_own_element_at_the_packs_height(tmp_path: Path) -> None:
    folder = import_svg_deck(
        write_deck(tmp_path / "deck.svg", stray="KS"), "grelha", root=tmp_path / "decks"
    )
    pack = load_face_pack(folder)
    for position, card in enumerate(DECK):
        face = pack.face(card)
        width, height = face.size
        assert height == FACE_HEIGHT
        # The card and only the card: the stray shape beside KS does not widen its face.
        assert width == pytest.approx(FACE_HEIGHT * CARD_W / CARD_H, abs=6), card.notation
        r, g, b = card_colour(position)
        centre = face.image[height // 2, width // 2]
        assert np.abs(centre.astype(int) - (b, g, r)).max() <= 2, (
            f"{card.notation} shows another card"
        )


@needs_rsvg
def test_enrol_takes_a_gzipped_svg_deck_as_its_source(tmp_path: Path, home: Path) -> None:
    said: list[str] = []
    deck = write_deck(tmp_path / "baralho.svgz")
    folder = capture_deck(
        str(deck),
        name="baralho",
        reader=None,  # type: ignore[arg-type]
        interactive=False,
        accept_guesses=False,
        page=False,
        log=said.append,
    )
    assert folder == home / "decks" / "baralho" and is_face_pack(folder)
    assert said == [
        f"{deck} is an SVG card deck: rendered its 40 cards as deck 'baralho' to {folder}"
    ]


@needs_rsvg
def test_a_deck_without_one_of_the_cards_names_it_and_saves_nothing(
    tmp_path: Path, home: Path
) -> None:
    deck = write_deck(tmp_path / "falta.svg", leave_out="AH")
    with pytest.raises(EnrolError, match="'1_heart'"):
        import_svg_deck(deck, "falta")
    assert not (home / "decks" / "falta").exists()


def test_without_rsvg_convert_the_error_names_the_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(EnrolError, match="librsvg2-bin"):
        import_svg_deck(write_deck(tmp_path / "deck.svg"), "sem")


def test_the_kde_element_ids() -> None:
    assert [element_id(Card.parse(c)) for c in ("AH", "7S", "KD", "JC", "QH", "2S")] == [
        "1_heart",
        "7_spade",
        "king_diamond",
        "jack_club",
        "queen_heart",
        "2_spade",
    ]
