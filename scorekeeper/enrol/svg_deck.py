"""SVG card decks in, face packs out: ``scorekeeper enrol --source deck.svgz --name NAME``.

The layout is the one KDE's card games use (Debian's ``kdegames-card-data-kf5`` installs such
decks under ``/usr/share/carddecks/svg-*/``): one SVG file, each card an element whose id names it,
``1_club`` (the ace), ``7_heart``, ``jack_spade``, ``queen_diamond``, ``king_club``. Each of the 40
Sueca cards is rendered by ``rsvg-convert --export-id`` at :data:`FACE_HEIGHT` pixels tall, the
height of the packs the reader was trained with, and saved with
:func:`~scorekeeper.enrol.pack.save_face_pack`.

What ``--export-id`` renders is the element's extents, which in many decks are wider than the card
(a shadow's filter region, a stray invisible object in the same group). So each card is rendered
twice: once small, to find the card itself (the largest opaque blob), then only that region at the
size that makes the card :data:`FACE_HEIGHT` tall. Whatever lies outside the card's blob is made
transparent, so a face is the card and nothing else.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from scorekeeper.enrol import EnrolError
from scorekeeper.enrol.pack import save_face_pack
from scorekeeper.rules.cards import DECK, Card, Rank, Suit

SVG_SUFFIXES = (".svg", ".svgz")

FACE_HEIGHT = 700
"""Face height in pixels: the face packs the shipped reader trained on are 700 px tall."""

PROBE_HEIGHT = 1000
"""Height of the first, small rendering that only locates the card inside the element's extents."""

OPAQUE = 200
"""Alpha above which a pixel belongs to the card (shadows and anti-aliased edges are fainter)."""

MARGIN = 0.03
"""Extra border, as a share of the card, rendered around the located card so that rounding in the
small rendering never cuts an edge off; the exact card is found again in the large one."""

RSVG = "rsvg-convert"

_RANK_IDS = {
    Rank.ACE: "1",
    Rank.KING: "king",
    Rank.QUEEN: "queen",
    Rank.JACK: "jack",
    Rank.SEVEN: "7",
    Rank.SIX: "6",
    Rank.FIVE: "5",
    Rank.FOUR: "4",
    Rank.THREE: "3",
    Rank.TWO: "2",
}
_SUIT_IDS = {Suit.COPAS: "heart", Suit.ESPADAS: "spade", Suit.OUROS: "diamond", Suit.PAUS: "club"}


def is_svg_deck(source: str | os.PathLike[str]) -> bool:
    """Whether ``source`` names an SVG file (``.svg`` or gzipped ``.svgz``) to read as a deck."""
    path = Path(source)
    return path.suffix.lower() in SVG_SUFFIXES and path.is_file()


def element_id(card: Card) -> str:
    """The element id a KDE card deck gives ``card``: ``1_heart``, ``jack_spade``, ``2_club``."""
    return f"{_RANK_IDS[card.rank]}_{_SUIT_IDS[card.suit]}"


def rsvg_convert() -> str:
    """The path of ``rsvg-convert``, or :class:`EnrolError` saying which package installs it."""
    found = shutil.which(RSVG)
    if found is None:
        raise EnrolError(
            "reading an SVG deck needs rsvg-convert, which is not installed: install it "
            "(Debian/Ubuntu: sudo apt-get install librsvg2-bin)"
        )
    return found


@dataclass(frozen=True)
class _Region:
    """Where the card lies in a rendering of its element, as shares of that rendering."""

    left: float
    top: float
    width: float
    height: float


def svg_deck_faces(
    source: str | os.PathLike[str], *, face_height: int = FACE_HEIGHT
) -> dict[Card, np.ndarray]:
    """The 40 Sueca faces of the SVG deck ``source`` (BGRA, ``face_height`` tall), by card.

    A card whose element is missing or renders empty raises :class:`EnrolError` naming it.
    """
    path = Path(source)
    if not path.is_file():
        raise EnrolError(f"no such SVG deck {str(source)!r}: give the path of a .svg or .svgz file")
    program = rsvg_convert()
    faces: dict[Card, np.ndarray] = {}
    with tempfile.TemporaryDirectory(prefix="scorekeeper-svg-") as scratch:
        for card in DECK:
            faces[card] = _render_card(program, path, element_id(card), Path(scratch), face_height)
    return faces


def import_svg_deck(
    source: str | os.PathLike[str],
    name: str,
    *,
    replace: bool = False,
    root: str | os.PathLike[str] | None = None,
) -> Path:
    """Render the SVG deck ``source`` and save it as the face pack ``name``; returns its folder."""
    return save_face_pack(svg_deck_faces(source), name, replace=replace, root=root)


def _render_card(
    program: str, source: Path, element: str, scratch: Path, face_height: int
) -> np.ndarray:
    probe = _run(program, source, element, scratch / "probe.png", ["--height", str(PROBE_HEIGHT)])
    region = _card_region(probe, element, source)
    # The whole element at the scale that makes the card face_height tall; only the card's region
    # (plus a margin) is drawn onto the page, so a card that is a speck in wide extents costs no
    # more than one that fills them.
    scale = face_height / (region.height * probe.shape[0])
    full_h, full_w = probe.shape[0] * scale, probe.shape[1] * scale
    margin = MARGIN * face_height
    left = region.left * full_w - margin
    top = region.top * full_h - margin
    page_w = region.width * full_w + 2 * margin
    page_h = region.height * full_h + 2 * margin
    large = _run(
        program,
        source,
        element,
        scratch / "card.png",
        [
            "--width",
            f"{full_w:.3f}",
            "--height",
            f"{full_h:.3f}",
            f"--left={-left:.3f}",
            f"--top={-top:.3f}",
            f"--page-width={page_w:.0f}",
            f"--page-height={page_h:.0f}",
        ],
    )
    x, y, w, h, blob = _largest_blob(large)
    if w == 0:
        raise EnrolError(f"card {element!r} of {source} renders empty: is it a KDE card deck?")
    face = large[y : y + h, x : x + w].copy()
    # Keep the card's own soft edge, drop shadows and neighbours outside it.
    keep = cv2.dilate(blob[y : y + h, x : x + w], np.ones((5, 5), np.uint8))
    face[:, :, 3][keep == 0] = 0
    if h != face_height:
        width = max(1, round(w * face_height / h))
        face = cv2.resize(face, (width, face_height), interpolation=cv2.INTER_AREA)
    return face


def _run(program: str, source: Path, element: str, out: Path, sizing: list[str]) -> np.ndarray:
    command = [
        program,
        f"--export-id={element}",
        "--keep-aspect-ratio",
        *sizing,
        "--output",
        str(out),
        str(source),
    ]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    image = cv2.imread(str(out), cv2.IMREAD_UNCHANGED) if done.returncode == 0 else None
    if image is None or image.ndim != 3 or image.shape[2] != 4:
        reason = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "no image"
        raise EnrolError(
            f"cannot render card {element!r} of {source}: {reason} "
            "(an SVG deck names each card's element like 1_club, 7_heart, king_spade)"
        )
    return image


def _largest_blob(image: np.ndarray) -> tuple[int, int, int, int, np.ndarray]:
    """x, y, w, h of the largest opaque connected region, and its mask (w == 0 when none)."""
    opaque = (image[:, :, 3] > OPAQUE).astype(np.uint8)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(opaque, connectivity=8)
    if count < 2:
        return 0, 0, 0, 0, opaque
    biggest = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    x, y, w, h = (int(v) for v in stats[biggest, :4])
    return x, y, w, h, np.where(labels == biggest, 255, 0).astype(np.uint8)


def _card_region(probe: np.ndarray, element: str, source: Path) -> _Region:
    x, y, w, h, _ = _largest_blob(probe)
    if w == 0 or h < 8:
        raise EnrolError(f"card {element!r} of {source} renders empty: is it a KDE card deck?")
    rows, cols = probe.shape[:2]
    return _Region(left=x / cols, top=y / rows, width=w / cols, height=h / rows)
