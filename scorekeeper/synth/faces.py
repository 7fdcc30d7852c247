"""Card faces for synthetic scenes: a procedural renderer of our own, plus folders of face images.

Every face comes back as a :class:`Face`: the picture (BGR, uint8), the card's silhouette (rounded
corners) and the boxes of its printed corner indices (rank + small suit pip) in face pixels, so a
scene that warps the face can warp the boxes with it.

>>> import numpy as np
>>> rng = np.random.default_rng(7)
>>> face = render_face("7H", FaceStyle.random(rng))
>>> face.image.shape, face.card, len(face.index_boxes)
((560, 400, 3), Card.parse('7H'), 2)

API (kept stable; ``scorekeeper simulate`` builds on it):

- ``FaceStyle.random(rng)`` a random look (fonts, colours, border, court art, index size, letters).
- ``render_face(card_or_label, style, rng=None) -> Face`` one procedural face; labels beyond the 40
  cards (``8H``, ``9S``, ``TD``, ``JOKER``) draw distractors that are not Sueca cards.
- ``render_back(style) -> Face`` a card back (no indices).
- ``ProceduralPack(style)`` and ``FacePack.load(folder)`` share ``face(label) -> Face`` and
  ``back() -> Face``; ``load_face_packs(folders)`` loads several, raising :class:`SynthError` with
  one line naming missing files.
"""

from __future__ import annotations

import dataclasses
import functools
import glob
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from scorekeeper.rules.cards import DECK, Card, Suit
from scorekeeper.synth import SynthError

FaceBox = tuple[int, int, int, int]
"""x1, y1, x2, y2 in pixels of a card face image (x2, y2 exclusive); not a frame's
:data:`scorekeeper.vision.boxes.Box`, which is in pixels of the camera frame."""

FACE_W, FACE_H = 400, 560
"""Procedural faces: 63 x 88 mm cards at ~6.4 px per mm, enough for a close-up webcam view."""

NON_SUECA_LABELS: tuple[str, ...] = tuple(
    f"{rank}{suit.value}" for rank in "89T" for suit in Suit
) + ("JOKER",)
"""Faces a mixed deck may bring to the table that must not be read as one of the 40 cards."""

BACK_LABEL = "BACK"

_RED = {Suit.COPAS, Suit.OUROS}
_SUIT_GLYPH = {
    Suit.COPAS: "\u2665",
    Suit.ESPADAS: "\u2660",
    Suit.OUROS: "\u2666",
    Suit.PAUS: "\u2663",
}
_PIP_COUNTS = {"A": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9, "T": 10}
# Pip centres on a unit grid (x across, y down) inside the pip area, after the usual printed
# layouts.
_PIP_LAYOUTS: dict[int, tuple[tuple[float, float], ...]] = {
    1: ((0.5, 0.5),),
    2: ((0.5, 0.0), (0.5, 1.0)),
    3: ((0.5, 0.0), (0.5, 0.5), (0.5, 1.0)),
    4: ((0, 0), (1, 0), (0, 1), (1, 1)),
    5: ((0, 0), (1, 0), (0.5, 0.5), (0, 1), (1, 1)),
    6: ((0, 0), (1, 0), (0, 0.5), (1, 0.5), (0, 1), (1, 1)),
    7: ((0, 0), (1, 0), (0.5, 0.25), (0, 0.5), (1, 0.5), (0, 1), (1, 1)),
    8: ((0, 0), (1, 0), (0.5, 0.25), (0, 0.5), (1, 0.5), (0.5, 0.75), (0, 1), (1, 1)),
    9: ((0, 0), (1, 0), (0, 1 / 3), (1, 1 / 3), (0.5, 0.5), (0, 2 / 3), (1, 2 / 3), (0, 1), (1, 1)),
    10: (
        (0, 0),
        (1, 0),
        (0.5, 1 / 6),
        (0, 1 / 3),
        (1, 1 / 3),
        (0, 2 / 3),
        (1, 2 / 3),
        (0.5, 5 / 6),
        (0, 1),
        (1, 1),
    ),
}


# ---------------------------------------------------------------------------------------------
# Faces


@dataclass(frozen=True, eq=False)
class Face:
    """One card face (or back) ready to be warped into a scene."""

    image: np.ndarray
    """H x W x 3 uint8, BGR."""
    mask: np.ndarray
    """H x W uint8: 255 on the card, 0 outside its rounded corners."""
    index_boxes: tuple[FaceBox, ...]
    """The printed corner indices (rank + small suit pip), tight on the ink."""
    label: str
    """``7H`` for the 40 cards, ``8H`` / ``TD`` / ``JOKER`` for distractors, ``BACK`` for a back."""
    pip_boxes: tuple[FaceBox, ...] = ()
    """Centre pips or court art: things that look like card print but are not an index."""

    @property
    def card(self) -> Card | None:
        """The Sueca card shown, or None for a distractor or a back."""
        if len(self.label) == 2 and self.label[0] not in "89T":
            return Card.parse(self.label)
        return None

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) in pixels."""
        return self.image.shape[1], self.image.shape[0]


def _label_of(card: Card | str) -> str:
    if isinstance(card, Card):
        return card.notation
    text = card.strip().upper()
    if text in NON_SUECA_LABELS or text == BACK_LABEL:
        return text
    if text.startswith("10") and len(text) == 3:
        return "T" + text[2]
    return Card.parse(text).notation


# ---------------------------------------------------------------------------------------------
# Fonts and glyph masks


FONT_SUFFIXES = (".ttf", ".otf")
NOT_FOR_RANKS = ("Math", "ExtraLight", "Thin", "Symbol", "Z003", "D050000L", "Dingbat")
"""Math, symbol and script faces, and hairline weights, draw ranks nothing like card print."""


def font_paths() -> tuple[str, ...]:
    """TrueType/OpenType fonts on this machine usable for ranks (may be empty: cv2 fonts are the
    fallback)."""
    found: list[str] = []
    for root in ("/usr/share/fonts", "/usr/local/share/fonts", os.path.expanduser("~/.fonts")):
        for suffix in FONT_SUFFIXES:
            found += glob.glob(os.path.join(root, "**", "*" + suffix), recursive=True)
    return tuple(sorted(p for p in found if not any(word in p for word in NOT_FOR_RANKS)))


def random_font(rng: np.random.Generator, fonts: tuple[str, ...]) -> str:
    """A font file, each family as likely as another: a family installed in 18 weights would
    otherwise drown one installed in two."""
    families: dict[str, list[str]] = {}
    for path in fonts:
        families.setdefault(
            os.path.splitext(os.path.basename(path))[0].split("-")[0].split("_")[0], []
        ).append(path)
    names = sorted(families)
    family = families[names[int(rng.integers(len(names)))]]
    return family[int(rng.integers(len(family)))]


@functools.lru_cache(maxsize=8)
def _suit_capable_font() -> str | None:
    for path in font_paths():
        if "DejaVuSans" in os.path.basename(path) and "Mono" not in path:
            return path
    return None


@functools.lru_cache(maxsize=4096)
def _text_mask(text: str, height: int, font: str, bold: int) -> np.ndarray:
    """Ink mask (uint8) of ``text`` cropped tight, scaled so the ink is ``height`` px tall."""
    if font.startswith("hershey:"):
        face_id = int(font.split(":")[1])
        scale = 4.0
        thick = max(1, 8 + 4 * bold)
        (tw, th), base = cv2.getTextSize(text, face_id, scale, thick)
        canvas = np.zeros((th + base + 4 * thick, tw + 4 * thick), np.uint8)
        cv2.putText(
            canvas, text, (2 * thick, th + 2 * thick), face_id, scale, 255, thick, cv2.LINE_AA
        )
    else:
        from PIL import Image, ImageDraw, ImageFont

        pil_font = ImageFont.truetype(font, 200)
        # Whole pixels for a TrueType font, though Pillow's types allow fractions.
        x1, y1, x2, y2 = (round(v) for v in pil_font.getbbox(text, stroke_width=2 * bold))
        image = Image.new("L", (x2 - x1 + 8, y2 - y1 + 8), 0)
        ImageDraw.Draw(image).text(
            (4 - x1, 4 - y1), text, font=pil_font, fill=255, stroke_width=2 * bold, stroke_fill=255
        )
        canvas = np.asarray(image)
    ys, xs = np.nonzero(canvas > 40)
    canvas = canvas[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
    width = max(1, round(canvas.shape[1] * height / canvas.shape[0]))
    return cv2.resize(canvas, (width, height), interpolation=cv2.INTER_AREA)


VARIED_SUIT_SHARE = 0.0
"""Share of random decks whose suits are drawn another way: two thirds with proportions of their own
(:class:`SuitShape`), one third with another installed font's glyphs. Off by default: a fine-tune
with it on read real photos worse, and its own effect was not measured apart."""


@functools.lru_cache(maxsize=8)
def suit_glyph_fonts() -> tuple[str, ...]:
    """Installed fonts that draw all four suit symbols (each draws its clubs and spades its own
    way)."""
    from PIL import ImageFont

    found = []
    for path in font_paths():
        if "Mono" in os.path.basename(path):
            continue
        try:
            font = ImageFont.truetype(path, 40)
            if all(font.getmask(glyph).getbbox() for glyph in _SUIT_GLYPH.values()):
                found.append(path)
        except OSError:
            continue
    return tuple(found)


@functools.lru_cache(maxsize=1024)
def _suit_mask(suit: Suit, height: int, variant: str) -> np.ndarray:
    """Ink mask of a suit symbol ``height`` px tall.

    ``variant``: ``font`` (DejaVu's glyph), ``font:PATH`` (another font's glyph), ``poly`` (drawn
    from circles and polygons) or ``shape:SEED`` (the same drawing with its proportions drawn from
    SEED). Decks differ most in how they draw clubs and spades; at webcam scale the two are a dark
    blob either way, so the reader must have seen many drawings of each to tell them apart.
    """
    if variant == "font" and _suit_capable_font() is not None:
        return _text_mask(_SUIT_GLYPH[suit], height, str(_suit_capable_font()), 0)
    if variant.startswith("font:") and os.path.isfile(variant[5:]):
        return _text_mask(_SUIT_GLYPH[suit], height, variant[5:], 0)
    shape = SuitShape.from_seed(int(variant[6:])) if variant.startswith("shape:") else SuitShape()
    canvas = shape.draw(suit)
    ys, xs = np.nonzero(canvas)
    canvas = canvas[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
    width = max(1, round(canvas.shape[1] * height / canvas.shape[0]))
    return cv2.resize(canvas, (width, height), interpolation=cv2.INTER_AREA)


@dataclass(frozen=True)
class SuitShape:
    """Proportions of a drawn suit symbol; the defaults are the classic ``poly`` drawing."""

    lobe: float = 1.0
    """Radius of the round lobes (clubs, spades, hearts), relative to the classic drawing."""
    spread: float = 1.0
    """How far apart the lobes sit."""
    stem: float = 1.0
    """Width of the stem's foot (clubs and spades)."""
    stem_height: float = 1.0
    """Height of the stem."""
    point: float = 1.0
    """Height of the spade's point and the heart's tip."""
    diamond: float = 1.0
    """Width of the diamond relative to its height."""

    @classmethod
    def from_seed(cls, seed: int) -> SuitShape:
        rng = np.random.default_rng(seed)
        return cls(
            lobe=float(rng.uniform(0.75, 1.15)),
            spread=float(rng.uniform(0.8, 1.15)),
            stem=float(rng.uniform(0.35, 1.6)),
            stem_height=float(rng.uniform(0.6, 1.3)),
            point=float(rng.uniform(0.75, 1.25)),
            diamond=float(rng.uniform(0.7, 1.25)),
        )

    def draw(self, suit: Suit) -> np.ndarray:
        s = 400  # draw big then shrink: anti-aliased edges for free
        canvas = np.zeros((s + 200, s + 200), np.uint8)
        ox = oy = 100  # room for lobes that grow past the classic outline

        def circle(x: float, y: float, r: float) -> None:
            cv2.circle(canvas, (int(ox + x), int(oy + y)), max(int(r), 2), 255, -1, cv2.LINE_AA)

        def poly(points: list[tuple[float, float]]) -> None:
            pts = np.array([(ox + x, oy + y) for x, y in points], np.int32)
            cv2.fillPoly(canvas, [pts], 255, cv2.LINE_AA)

        def stem(top: float) -> None:
            half = 60 * self.stem
            poly(
                [
                    (200 - 8 * self.stem, top),
                    (200 + half, top + 138 * self.stem_height),
                    (200 - half, top + 138 * self.stem_height),
                ]
            )

        if suit is Suit.OUROS:
            half = 130 * self.diamond
            poly([(200, 0), (200 + half, 200), (200, 400), (200 - half, 200)])
        elif suit is Suit.COPAS:
            r, dx = 105 * self.lobe, 88 * self.spread
            circle(200 - dx, 120, r)
            circle(200 + dx, 120, r)
            poly(
                [
                    (200 - dx - r * 0.93, 150),
                    (200 + dx + r * 0.93, 150),
                    (200, 150 + 245 * self.point),
                ]
            )
        elif suit is Suit.ESPADAS:
            r, dx = 95 * self.lobe, 85 * self.spread
            circle(200 - dx, 230, r)
            circle(200 + dx, 230, r)
            poly(
                [
                    (200 - dx - r * 0.92, 200),
                    (200 + dx + r * 0.92, 200),
                    (200, 200 - 200 * self.point),
                ]
            )
            stem(260)
        else:
            r, dx, dy = 92 * self.lobe, 105 * self.spread, 155 * self.spread
            for x, y in ((200, 95), (200 - dx, 95 + dy), (200 + dx, 95 + dy)):
                circle(x, y, r)
            stem(180 + 40 * (self.spread - 1))
        return canvas


def _paste(
    image: np.ndarray, ink: np.ndarray, colour: Sequence[int], x: int, y: int, rotate: bool = False
) -> FaceBox:
    """Blend ``colour`` through ``ink`` at (x, y), upside down if ``rotate``; return the ink
    box."""
    if rotate:
        ink = ink[::-1, ::-1]
    h, w = ink.shape
    x1, y1 = max(x, 0), max(y, 0)
    x2, y2 = min(x + w, image.shape[1]), min(y + h, image.shape[0])
    if x2 <= x1 or y2 <= y1:
        return (x1, y1, x1, y1)
    alpha = ink[y1 - y : y2 - y, x1 - x : x2 - x, None].astype(np.float32) / 255.0
    roi = image[y1:y2, x1:x2]
    roi[:] = (roi * (1.0 - alpha) + np.asarray(colour, np.float32) * alpha).astype(np.uint8)
    return (x1, y1, x2, y2)


def _union(boxes: Iterable[FaceBox]) -> FaceBox:
    bs = list(boxes)
    return (
        min(b[0] for b in bs),
        min(b[1] for b in bs),
        max(b[2] for b in bs),
        max(b[3] for b in bs),
    )


def rounded_mask(width: int, height: int, radius: int) -> np.ndarray:
    """Silhouette of a card with rounded corners (255 inside)."""
    mask = np.zeros((height, width), np.uint8)
    r = max(1, min(radius, width // 3, height // 3))
    cv2.rectangle(mask, (r, 0), (width - 1 - r, height - 1), 255, -1)
    cv2.rectangle(mask, (0, r), (width - 1, height - 1 - r), 255, -1)
    for cx, cy in (
        (r, r),
        (width - 1 - r, r),
        (r, height - 1 - r),
        (width - 1 - r, height - 1 - r),
    ):
        cv2.circle(mask, (cx, cy), r, 255, -1, cv2.LINE_AA)
    return mask


# ---------------------------------------------------------------------------------------------
# Styles


@dataclass(frozen=True)
class FaceStyle:
    """Everything random about how one procedural deck looks; faces of one style form one deck."""

    seed: int
    paper: tuple[int, int, int] = (245, 245, 245)
    red: tuple[int, int, int] = (30, 30, 200)
    black: tuple[int, int, int] = (25, 25, 25)
    four_colour: bool = False
    rank_font: str = "hershey:0"
    rank_bold: int = 0
    suit_variant: str = "poly"
    index_height: float = 0.11
    """Rank glyph height as a fraction of the card height."""
    pip_ratio: float = 0.7
    """Index pip height relative to the rank glyph."""
    margin: tuple[float, float] = (0.05, 0.035)
    four_indices: bool = False
    court_letters: str = "KQJ"
    """``KQJ`` or the Portuguese ``RDV`` (rei, dama, valete) printed on the courts."""
    corner_radius: int = 20
    border: tuple[int, int, int] | None = None
    border_inset: int = 0
    centre_pip_scale: float = 0.14
    court_colours: tuple[tuple[int, int, int], ...] = field(default=((40, 40, 180),))
    back_colour: tuple[int, int, int] = (140, 40, 30)
    back_pattern: str = "lattice"

    @classmethod
    def random(cls, rng: np.random.Generator) -> FaceStyle:
        fonts = font_paths()
        use_ttf = bool(fonts) and rng.random() < 0.8
        font = random_font(rng, fonts) if use_ttf else f"hershey:{int(rng.choice([0, 2, 3, 4]))}"
        paper_base = rng.uniform(228, 255)
        # White to cream: less blue, a little less green, never pink.
        cream = rng.uniform(0, 1) ** 2
        paper = tuple(int(np.clip(paper_base + d, 0, 255)) for d in (-22 * cream, -7 * cream, 0))
        red = (int(rng.uniform(0, 70)), int(rng.uniform(0, 50)), int(rng.uniform(150, 235)))
        black = tuple(int(rng.uniform(0, 50)) for _ in range(3))
        border = None
        if rng.random() < 0.45:
            border = tuple(int(v) for v in rng.integers(0, 200, 3))
        court = tuple(tuple(int(v) for v in rng.integers(20, 230, 3)) for _ in range(4))
        style = cls(
            seed=int(rng.integers(2**31)),
            paper=paper,  # type: ignore[arg-type]
            red=red,
            black=black,  # type: ignore[arg-type]
            four_colour=bool(rng.random() < 0.06),
            rank_font=font,
            rank_bold=int(rng.random() < 0.35),
            suit_variant=str(rng.choice(["font", "poly"])),
            index_height=float(rng.uniform(0.075, 0.17)),
            pip_ratio=float(rng.uniform(0.5, 0.85)),
            margin=(float(rng.uniform(0.025, 0.08)), float(rng.uniform(0.02, 0.06))),
            four_indices=bool(rng.random() < 0.15),
            court_letters="RDV" if rng.random() < 0.2 else "KQJ",
            corner_radius=int(rng.uniform(8, 36)),
            border=border,  # type: ignore[arg-type]
            border_inset=int(rng.uniform(2, 14)),
            centre_pip_scale=float(rng.uniform(0.10, 0.17)),
            court_colours=court,  # type: ignore[arg-type]
            back_colour=tuple(int(v) for v in rng.integers(10, 200, 3)),  # type: ignore[arg-type]
            back_pattern=str(rng.choice(["lattice", "stripes", "dots", "plain", "checks"])),
        )
        # Drawn last so that every draw above, and so every deck an earlier seed gave, stays the
        # same; only the suit drawing changes for a share of the decks.
        suit_draw, shape_seed = float(rng.random()), int(rng.integers(2**31))
        glyph_fonts = suit_glyph_fonts() if VARIED_SUIT_SHARE else ()
        if suit_draw < VARIED_SUIT_SHARE * 2 / 3:
            style = dataclasses.replace(style, suit_variant=f"shape:{shape_seed}")
        elif suit_draw < VARIED_SUIT_SHARE and glyph_fonts:
            style = dataclasses.replace(
                style, suit_variant=f"font:{glyph_fonts[shape_seed % len(glyph_fonts)]}"
            )
        return style

    def suit_colour(self, suit: Suit) -> tuple[int, int, int]:
        if self.four_colour and suit is Suit.OUROS:
            return (170, 80, 20)
        if self.four_colour and suit is Suit.PAUS:
            return (40, 130, 20)
        return self.red if suit in _RED else self.black


def _rank_text(rank: str, style: FaceStyle) -> str:
    court = {"K": style.court_letters[0], "Q": style.court_letters[1], "J": style.court_letters[2]}
    if rank == "T":
        return "10"
    return court.get(rank, rank)


# ---------------------------------------------------------------------------------------------
# Procedural faces


def render_face(
    card: Card | str, style: FaceStyle | None = None, rng: np.random.Generator | None = None
) -> Face:
    """Draw one face: ``card`` is a Card, a notation (``7H``) or a distractor label (``9S``,
    ``JOKER``).

    The same (card, style) gives the same pixels; ``rng`` is only used when ``style`` is None.
    """
    label = _label_of(card)
    if style is None:
        style = FaceStyle.random(rng if rng is not None else np.random.default_rng())
    if label == BACK_LABEL:
        return render_back(style)
    local = np.random.default_rng([style.seed, sum(map(ord, label)), len(label)])
    image = np.empty((FACE_H, FACE_W, 3), np.uint8)
    image[:] = style.paper
    mask = rounded_mask(FACE_W, FACE_H, style.corner_radius)
    if style.border is not None:
        inset = style.border_inset
        cv2.rectangle(
            image,
            (inset, inset),
            (FACE_W - 1 - inset, FACE_H - 1 - inset),
            style.border,
            2,
            cv2.LINE_AA,
        )

    if label == "JOKER":
        colour: tuple[int, int, int] = style.red if local.random() < 0.5 else style.black
        index = _index_ink("J", None, style, vertical_text="JOKER")
        pips = _draw_joker(image, _inner_area(style, index.shape[1]), style, local)
    else:
        rank, suit = label[0], Suit(label[1])
        colour = style.suit_colour(suit)
        index = _index_ink(rank, suit, style)
        pips = _draw_centre(image, rank, suit, style, local, _inner_area(style, index.shape[1]))

    boxes = _place_indices(image, index, colour, style)
    # Outside the rounded corners the face is transparent: keep it paper-free for compositing.
    image[mask == 0] = 0
    return Face(image=image, mask=mask, index_boxes=boxes, label=label, pip_boxes=tuple(pips))


def _index_ink(
    rank: str, suit: Suit | None, style: FaceStyle, vertical_text: str | None = None
) -> np.ndarray:
    """The corner index as one ink mask: the rank above a small suit pip (or a word, for jokers)."""
    rank_h = max(6, round(style.index_height * FACE_H))
    if vertical_text is not None:
        letter_h = max(5, rank_h // 2)
        letters = [
            _text_mask(ch, letter_h, style.rank_font, style.rank_bold) for ch in vertical_text
        ]
        width = max(m.shape[1] for m in letters)
        gap = max(1, letter_h // 6)
        ink = np.zeros((sum(m.shape[0] + gap for m in letters), width), np.uint8)
        y = 0
        for m in letters:
            x = (width - m.shape[1]) // 2
            ink[y : y + m.shape[0], x : x + m.shape[1]] = m
            y += m.shape[0] + gap
        return ink
    assert suit is not None
    text = _text_mask(_rank_text(rank, style), rank_h, style.rank_font, style.rank_bold)
    if text.shape[1] > rank_h * 1.6:  # "10" in a wide font: squeeze like printed decks do
        text = cv2.resize(text, (int(rank_h * 1.4), rank_h), interpolation=cv2.INTER_AREA)
    pip = _suit_mask(suit, max(5, round(rank_h * style.pip_ratio)), style.suit_variant)
    gap = max(1, round(rank_h * 0.12))
    width = max(text.shape[1], pip.shape[1])
    ink = np.zeros((text.shape[0] + gap + pip.shape[0], width), np.uint8)
    tx = (width - text.shape[1]) // 2
    ink[: text.shape[0], tx : tx + text.shape[1]] = text
    px = (width - pip.shape[1]) // 2
    ink[text.shape[0] + gap :, px : px + pip.shape[1]] = pip
    return ink


def _place_indices(
    image: np.ndarray, ink: np.ndarray, colour: tuple[int, int, int], style: FaceStyle
) -> tuple[FaceBox, ...]:
    h, w = ink.shape
    mx = round(style.margin[0] * FACE_W + style.corner_radius * 0.3)
    my = round(style.margin[1] * FACE_H + style.corner_radius * 0.2)
    if style.border is not None:
        mx, my = mx + style.border_inset, my + style.border_inset
    boxes = [
        _paste(image, ink, colour, mx, my),
        _paste(image, ink, colour, FACE_W - mx - w, FACE_H - my - h, rotate=True),
    ]
    if style.four_indices:
        boxes.append(_paste(image, ink, colour, FACE_W - mx - w, my))
        boxes.append(_paste(image, ink, colour, mx, FACE_H - my - h, rotate=True))
    return tuple(boxes)


def _inner_area(style: FaceStyle, index_width: int) -> FaceBox:
    """The part of the face left for pips and court art, clear of the corner indices."""
    mx = round(style.margin[0] * FACE_W + style.corner_radius * 0.3)
    if style.border is not None:
        mx += style.border_inset
    side = min(mx + index_width + 12, FACE_W * 2 // 5 - 10)
    return (side, round(FACE_H * 0.07), FACE_W - side, FACE_H - round(FACE_H * 0.07))


def _draw_centre(
    image: np.ndarray,
    rank: str,
    suit: Suit,
    style: FaceStyle,
    rng: np.random.Generator,
    area: FaceBox,
) -> list[FaceBox]:
    colour = style.suit_colour(suit)
    x1, y1, x2, y2 = area
    if rank in "KQJ":
        return _draw_court(image, rank, suit, style, rng, (x1, y1, x2, y2))
    count = _PIP_COUNTS[rank]
    if count == 1:
        pip = _suit_mask(
            suit, round(FACE_H * style.centre_pip_scale * rng.uniform(1.4, 2.4)), style.suit_variant
        )
        cx, cy = (x1 + x2) // 2, (y1 + y2) // 2
        return [_paste(image, pip, colour, cx - pip.shape[1] // 2, cy - pip.shape[0] // 2)]
    # Narrow pip columns (big indices) need smaller pips, as on jumbo-index decks.
    fit = min(1.0, (x2 - x1) / (FACE_H * style.centre_pip_scale * 2.6))
    pip = _suit_mask(
        suit,
        round(FACE_H * style.centre_pip_scale * fit * (0.8 if count > 7 else 1)),
        style.suit_variant,
    )
    ph, pw = pip.shape
    ax1, ay1 = x1 + pw // 2 + 4, y1 + ph // 2 + 4
    ax2, ay2 = x2 - pw // 2 - 4, y2 - ph // 2 - 4
    if count <= 3:
        ax1 = ax2 = (x1 + x2) // 2
    boxes = []
    for u, v in _PIP_LAYOUTS[count]:
        cx = round(ax1 + u * (ax2 - ax1))
        cy = round(ay1 + v * (ay2 - ay1))
        boxes.append(_paste(image, pip, colour, cx - pw // 2, cy - ph // 2, rotate=v > 0.5))
    return boxes


def _draw_court(
    image: np.ndarray,
    rank: str,
    suit: Suit,
    style: FaceStyle,
    rng: np.random.Generator,
    area: FaceBox,
) -> list[FaceBox]:
    """A framed, point-symmetric figure-like pattern: bands, a head, a big letter and a suit."""
    x1, y1, x2, y2 = area
    w, h = x2 - x1, y2 - y1
    half = np.empty((h // 2, w, 3), np.uint8)
    half[:] = style.paper
    colours = list(style.court_colours) + [style.suit_colour(suit)]
    # Robe: diagonal and horizontal bands
    for i in range(int(rng.integers(3, 7))):
        c = colours[int(rng.integers(len(colours)))]
        yy = int(rng.uniform(0.25, 1.0) * half.shape[0])
        thick = int(rng.uniform(0.04, 0.16) * h)
        slope = int(rng.uniform(-0.5, 0.5) * w)
        pts = np.array(
            [(0, yy), (w, yy + slope), (w, yy + slope + thick), (0, yy + thick)], np.int32
        )
        cv2.fillPoly(half, [pts], c, cv2.LINE_AA)
    # Head and crown
    hx, hy, hr = int(w * rng.uniform(0.35, 0.65)), int(half.shape[0] * 0.3), int(w * 0.13)
    cv2.circle(half, (hx, hy), hr, (150, 190, 235), -1, cv2.LINE_AA)
    cv2.circle(half, (hx, hy), hr, style.black, 2, cv2.LINE_AA)
    crown = colours[int(rng.integers(len(colours)))]
    pts = np.array(
        [
            (hx - hr, hy - hr // 2),
            (hx - hr // 2, hy - 2 * hr),
            (hx, hy - hr),
            (hx + hr // 2, hy - 2 * hr),
            (hx + hr, hy - hr // 2),
        ],
        np.int32,
    )
    cv2.fillPoly(half, [pts], crown, cv2.LINE_AA)
    for _ in range(int(rng.integers(10, 40))):
        c = colours[int(rng.integers(len(colours)))]
        px, py = int(rng.uniform(0, w)), int(rng.uniform(hy + hr, half.shape[0]))
        cv2.circle(half, (px, py), int(rng.uniform(2, 7)), c, -1, cv2.LINE_AA)
    pip = _suit_mask(suit, int(h * 0.12), style.suit_variant)
    _paste(half, pip, style.suit_colour(suit), int(w * 0.06), int(h * 0.03))
    full = np.concatenate([half, half[::-1, ::-1]], axis=0)
    image[y1 : y1 + full.shape[0], x1 : x1 + w] = full
    cv2.rectangle(image, (x1, y1), (x1 + w - 1, y1 + full.shape[0] - 1), style.black, 2)
    return [(x1, y1, x1 + w, y1 + full.shape[0])]


def _draw_joker(
    image: np.ndarray, area: FaceBox, style: FaceStyle, rng: np.random.Generator
) -> list[FaceBox]:
    x1, y1, x2, y2 = area
    colour = style.red if rng.random() < 0.5 else style.black
    cx, cy = (x1 + x2) // 2, (y1 + y2) // 2
    r = (x2 - x1) // 2
    star = [
        (
            cx + r * np.cos(a) * (1 if k % 2 == 0 else 0.45),
            cy + r * np.sin(a) * (1 if k % 2 == 0 else 0.45),
        )
        for k, a in enumerate(np.linspace(-np.pi / 2, 1.5 * np.pi, 11)[:-1])
    ]
    cv2.fillPoly(image, [np.array(star, np.int32)], colour, cv2.LINE_AA)
    return [(cx - r, cy - r, cx + r, cy + r)]


def render_back(style: FaceStyle) -> Face:
    """The back of the deck of ``style``: a white margin around a pattern."""
    image = np.empty((FACE_H, FACE_W, 3), np.uint8)
    image[:] = style.paper
    c = style.back_colour
    light = tuple(int(v + (255 - v) * 0.55) for v in c)
    m = 18
    inner = image[m : FACE_H - m, m : FACE_W - m]
    inner[:] = light
    ys, xs = np.mgrid[0 : inner.shape[0], 0 : inner.shape[1]]
    if style.back_pattern == "lattice":
        on = ((xs + ys) % 22 < 4) | ((xs - ys) % 22 < 4)
    elif style.back_pattern == "stripes":
        on = (xs + ys) % 16 < 7
    elif style.back_pattern == "dots":
        on = ((xs % 20 - 10) ** 2 + (ys % 20 - 10) ** 2) < 30
    elif style.back_pattern == "checks":
        on = ((xs // 24) + (ys // 24)) % 2 == 0
    else:
        on = np.ones(inner.shape[:2], bool)
    inner[on] = c
    cv2.rectangle(image, (m, m), (FACE_W - 1 - m, FACE_H - 1 - m), c, 3)
    mask = rounded_mask(FACE_W, FACE_H, style.corner_radius)
    image[mask == 0] = 0
    return Face(
        image=image,
        mask=mask,
        index_boxes=(),
        label=BACK_LABEL,
        pip_boxes=((m, m, FACE_W - m, FACE_H - m),),
    )


# ---------------------------------------------------------------------------------------------
# Packs


class ProceduralPack:
    """A whole procedural deck of one style, faces drawn on first use and kept."""

    def __init__(self, style: FaceStyle, name: str | None = None) -> None:
        self.style = style
        self.name = name or f"procedural-{style.seed}"
        self._faces: dict[str, Face] = {}

    def labels(self) -> tuple[str, ...]:
        return tuple(c.notation for c in DECK) + NON_SUECA_LABELS

    def has(self, label: str) -> bool:
        return _label_of(label) in self.labels() or label == BACK_LABEL

    def face(self, card: Card | str) -> Face:
        label = _label_of(card)
        if label not in self._faces:
            self._faces[label] = render_face(label, self.style)
        return self._faces[label]

    def back(self) -> Face:
        return self.face(BACK_LABEL)


_IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg", ".webp", ".bmp")


def pack_file_name(card: Card) -> str:
    """The file stem a face pack uses for ``card``: ``Ah``, ``7h``, ``Qs``, ``2c``."""
    return f"{card.rank.value}{card.suit.value.lower()}"


class FacePack:
    """A folder of 40 face images named ``Ah.png 7h.png ... 2c.png`` (or .jpg), loaded on demand.

    The index boxes are located once per face when the pack is opened (see :func:`locate_indices`);
    pixels are decoded on first use and kept. Backs and non-Sueca faces come from a procedural
    style.
    """

    def __init__(
        self,
        folder: Path,
        files: dict[str, Path],
        boxes: dict[str, tuple[FaceBox, ...]],
        sizes: dict[str, tuple[int, int]],
        back_style: FaceStyle,
    ) -> None:
        self.folder = folder
        self.name = folder.name
        self.files = files
        self.boxes = boxes
        self.sizes = sizes
        self.back_style = back_style
        self._faces: dict[str, Face] = {}

    @classmethod
    def load(cls, folder: str | os.PathLike[str], *, back_seed: int = 0) -> FacePack:
        """Open ``folder``; a missing folder or face raises :class:`SynthError` naming the files."""
        path = Path(folder)
        if not path.is_dir():
            raise SynthError(
                f"face pack {str(folder)!r} is not a folder of 40 images named like Ah.png"
            )
        by_stem: dict[str, Path] = {}
        for entry in sorted(path.iterdir()):
            if entry.suffix.lower() in _IMAGE_EXTENSIONS:
                by_stem.setdefault(entry.stem.lower(), entry)
        files: dict[str, Path] = {}
        missing: list[str] = []
        for card in DECK:
            stem = pack_file_name(card)
            hit = by_stem.get(stem.lower())
            if hit is None:
                missing.append(stem + ".png")
            else:
                files[card.notation] = hit
        if missing:
            shown = " ".join(missing[:8]) + (" ..." if len(missing) > 8 else "")
            raise SynthError(
                f"face pack {str(folder)!r} lacks {len(missing)} of the 40 faces: {shown} "
                "(name them Ah 7h Kh Jh Qh 6h 5h 4h 3h 2h, then s d c, as .png or .jpg)"
            )
        boxes: dict[str, tuple[FaceBox, ...]] = {}
        sizes: dict[str, tuple[int, int]] = {}
        blobs = {}
        for label, file in files.items():
            image, mask = _read_face(file)
            blobs[label] = _corner_blobs(image, mask)
            sizes[label] = (image.shape[1], image.shape[0])
            boxes[label] = _boxes_from_blobs(blobs[label], image.shape, None)
        # Second pass: the corner ink inside the pack's typical index box, robust to court art.
        reference = pack_reference(boxes)
        if reference is not None:
            for label, corner_blobs in blobs.items():
                w, h = sizes[label]
                boxes[label] = _boxes_from_blobs(corner_blobs, (h, w), reference)
        back = FaceStyle.random(np.random.default_rng([back_seed, len(path.name)]))
        return cls(path, files, boxes, sizes, back)

    def labels(self) -> tuple[str, ...]:
        return tuple(self.files)

    def has(self, label: str) -> bool:
        return _label_of(label) in self.files or label == BACK_LABEL

    def face(self, card: Card | str) -> Face:
        label = _label_of(card)
        if label == BACK_LABEL:
            return self.back()
        if label not in self.files:
            raise SynthError(f"face pack {self.name!r} has no face {label!r}")
        if label not in self._faces:
            image, mask = _read_face(self.files[label])
            self._faces[label] = Face(
                image=image,
                mask=mask,
                index_boxes=self.boxes[label],
                label=label,
                pip_boxes=(_centre_box(image.shape),),
            )
        return self._faces[label]

    def back(self) -> Face:
        if BACK_LABEL not in self._faces:
            self._faces[BACK_LABEL] = render_back(self.back_style)
        return self._faces[BACK_LABEL]

    def __getstate__(self) -> dict[str, object]:
        # Workers decode the pixels themselves: pickling only paths and boxes keeps startup cheap.
        state = dict(self.__dict__)
        state["_faces"] = {}
        return state


def load_face_packs(folders: Iterable[str | os.PathLike[str]]) -> list[FacePack]:
    """Load every ``--faces`` folder, failing on the first bad one with a one-line error."""
    return [FacePack.load(folder, back_seed=i) for i, folder in enumerate(folders)]


def _centre_box(shape: tuple[int, ...]) -> FaceBox:
    h, w = shape[:2]
    return (int(w * 0.3), int(h * 0.3), int(w * 0.7), int(h * 0.7))


def _read_face(file: Path) -> tuple[np.ndarray, np.ndarray]:
    raw = cv2.imread(str(file), cv2.IMREAD_UNCHANGED)
    if raw is None:
        raise SynthError(f"cannot read face image {str(file)!r}: not a PNG or JPEG")
    if raw.ndim == 2:
        raw = cv2.cvtColor(raw, cv2.COLOR_GRAY2BGR)
    if raw.shape[2] == 4:
        mask = raw[:, :, 3].copy()
        image = raw[:, :, :3].copy()
        # Semi-transparent edge pixels often hold black: whiten them so borders do not smear.
        image[mask == 0] = 0
    else:
        image = raw[:, :, :3].copy()
        h, w = image.shape[:2]
        mask = rounded_mask(w, h, round(w * 0.05))
    return image, mask


def locate_indices(
    image: np.ndarray, mask: np.ndarray, reference: FaceBox | None = None
) -> tuple[FaceBox, ...]:
    """Find the printed corner indices of a face image: top-left, and the same at bottom-right.

    Ink is whatever differs from the paper colour. Without ``reference`` the rank glyph is the ink
    blob nearest the top-left corner and the index grows downwards over blobs stacked under it (the
    suit pip). With ``reference`` (the pack's typical top-left index box, measured on its number
    cards) the index is the ink inside that box, which copes with court art crowding the corner;
    when that ink does not fill the box's height, the corner blobs or the reference box are used.
    The bottom-right index is found the same way on the face turned upside down.
    """
    return _boxes_from_blobs(_corner_blobs(image, mask), image.shape, reference)


def _corner_blobs(image: np.ndarray, mask: np.ndarray) -> tuple[list[FaceBox], list[FaceBox]]:
    """Ink blobs of the top-left corner, and of the bottom-right one seen upside down."""
    h, w = image.shape[:2]
    wx, wy = int(w * 0.32), int(h * 0.45)
    tl = _ink_blobs(image[:wy, :wx], mask[:wy, :wx], w, h)
    br = _ink_blobs(
        image[h - wy :, w - wx :][::-1, ::-1], mask[h - wy :, w - wx :][::-1, ::-1], w, h
    )
    return tl, br


def _boxes_from_blobs(
    blobs: tuple[list[FaceBox], list[FaceBox]], shape: tuple[int, ...], reference: FaceBox | None
) -> tuple[FaceBox, ...]:
    h, w = shape[:2]
    boxes: list[FaceBox] = []
    for flipped, corner in zip((False, True), blobs, strict=True):
        box = _grow_from_corner(corner)
        if reference is not None:
            box = _ink_in(corner, reference, box)
        if box is None:
            continue
        x1, y1, x2, y2 = box
        boxes.append((w - x2, h - y2, w - x1, h - y1) if flipped else box)
    return tuple(boxes)


def pack_reference(boxes: dict[str, tuple[FaceBox, ...]]) -> FaceBox | None:
    """The typical top-left index box of a pack, from its number cards (courts crowd the corner)."""
    tl = np.array([bs[0] for label, bs in boxes.items() if bs and label[0] not in "KQJ"], float)
    if len(tl) < 4:
        return None
    heights = tl[:, 3] - tl[:, 1]
    good = tl[np.abs(heights - np.median(heights)) < 0.1 * np.median(heights)]
    if len(good) < 4:
        return None
    x1, y1, _, y2 = np.median(good, axis=0)
    x2 = np.percentile(good[:, 2], 90)
    return (int(x1), int(y1), round(x2), int(y2))


def _ink_blobs(window: np.ndarray, window_mask: np.ndarray, w: int, h: int) -> list[FaceBox]:
    """Ink blobs (boxes) in a corner ``window`` of a ``w`` x ``h`` face, corner at (0, 0)."""
    wy, wx = window.shape[:2]
    inside = cv2.erode(window_mask, np.ones((3, 3), np.uint8), iterations=max(2, w // 60)) > 128
    # Photographed cards have dark rims right at the edge: keep off the outermost pixels.
    inside[: max(2, h // 100), :] = False
    inside[:, : max(2, w // 100)] = False
    if inside.sum() < 100:
        return []
    win = window.astype(np.int16)
    paper = np.median(win[inside][::7], axis=0)
    ink = (np.abs(win - paper).max(axis=2) > 70) & inside
    count, _, stats, _ = cv2.connectedComponentsWithStats(ink.astype(np.uint8), connectivity=8)
    min_area = max(6, int(w * h * 0.00004))
    return [
        (int(x), int(y), int(x + bw), int(y + bh))
        for x, y, bw, bh, area in stats[1:count]
        if area >= min_area and x + bw < wx - 1 and y + bh < wy - 1
    ]


def _grow_from_corner(blobs: list[FaceBox]) -> FaceBox | None:
    if not blobs:
        return None
    rank = min(blobs, key=lambda b: b[0] + b[1])
    box = rank
    rank_h = rank[3] - rank[1]
    grown = True
    while grown:
        grown = False
        for b in blobs:
            if b[0] >= box[0] and b[1] >= box[1] and b[2] <= box[2] and b[3] <= box[3]:
                continue
            tol = 0.3 * (box[2] - box[0])
            overlaps_x = b[0] < box[2] + tol and b[2] > box[0] - tol
            below = box[1] <= b[1] and b[1] - box[3] < 0.6 * rank_h
            narrow = (b[2] - b[0]) < 2.5 * (rank[2] - rank[0]) + 4
            if overlaps_x and below and narrow:
                box = _union([box, b])
                grown = True
    return box


def _ink_in(blobs: list[FaceBox], reference: FaceBox, grown: FaceBox | None) -> FaceBox:
    rx1, ry1, rx2, ry2 = reference
    e = 0.12 * (ry2 - ry1)
    ex1, ey1, ex2, ey2 = rx1 - e, ry1 - e, rx2 + e, ry2 + e
    inside = []
    for b in blobs:
        ix = max(0.0, min(b[2], ex2) - max(b[0], ex1))
        iy = max(0.0, min(b[3], ey2) - max(b[1], ey1))
        area = max(1, (b[2] - b[0]) * (b[3] - b[1]))
        if ix * iy >= 0.8 * area:
            inside.append(b)
    if inside:
        box = _union(inside)
        if abs((box[3] - box[1]) - (ry2 - ry1)) <= 0.12 * (ry2 - ry1):
            return box
    if grown is not None:
        # Some packs print smaller indices on the courts: trust the corner blobs if they look whole.
        similar_h = abs((grown[3] - grown[1]) - (ry2 - ry1)) <= 0.25 * (ry2 - ry1)
        if similar_h and grown[2] - grown[0] <= 1.3 * (rx2 - rx1):
            return grown
        # The pip merged with court art: the reference box, moved onto the rank glyph.
        dx, dy = grown[0] - rx1, grown[1] - ry1
        if abs(dx) < 0.5 * (rx2 - rx1) and abs(dy) < 0.3 * (ry2 - ry1):
            return (rx1 + dx, ry1 + dy, rx2 + dx, ry2 + dy)
    return reference
