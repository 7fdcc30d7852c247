"""Card faces: procedural boxes sit on the printed indices; face packs load or fail in one line."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from scorekeeper.rules.cards import DECK
from scorekeeper.synth import SynthError
from scorekeeper.synth.faces import (
    FacePack,
    FaceStyle,
    ProceduralPack,
    pack_file_name,
    random_font,
    render_face,
)
from scorekeeper.synth.tables import TABLE_KINDS, render_table

SHARED_PACKS = Path(__file__).resolve().parents[2] / "shared" / "card-faces"


def _ink(face_image: np.ndarray, paper: tuple[int, int, int]) -> np.ndarray:
    return np.abs(face_image.astype(int) - np.array(paper)).max(axis=2) > 60


def _iou(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union


def test_index_box_is_tight_on_the_corner_ink() -> None:
    rng = np.random.default_rng(3)
    for card in ("AH", "7S", "QD", "2C"):
        style = replace(FaceStyle.random(rng), border=None, four_indices=False)
        face = render_face(card, style)
        assert face.card is not None and face.card.notation == card
        assert len(face.index_boxes) == 2
        x1, y1, x2, y2 = face.index_boxes[0]
        ink = _ink(face.image, style.paper) & (face.mask > 0)
        inside = ink[y1:y2, x1:x2]
        # Rank on top, pip below: ink in the top and bottom rows of the box, nothing just outside.
        assert inside[: (y2 - y1) // 3].any() and inside[-(y2 - y1) // 3 :].any()
        ring = ink[max(0, y1 - 3) : y2 + 3, max(0, x1 - 3) : x2 + 3].sum() - inside.sum()
        assert ring <= 0.02 * inside.sum()
        # The bottom-right index is the same print turned upside down.
        bx1, by1, bx2, by2 = face.index_boxes[1]
        assert (bx2 - bx1, by2 - by1) == (x2 - x1, y2 - y1)
        assert bx2 > face.size[0] * 0.6 and by2 > face.size[1] * 0.6


def test_same_style_same_pixels_and_distractors_have_no_card() -> None:
    style = FaceStyle.random(np.random.default_rng(11))
    assert np.array_equal(render_face("KH", style).image, render_face("KH", style).image)
    for label in ("8H", "9S", "TD", "JOKER", "BACK"):
        assert render_face(label, style).card is None
    assert ProceduralPack(style).back().index_boxes == ()


def _write_pack(folder: Path, style: FaceStyle, missing: tuple[str, ...] = ()) -> dict[str, tuple]:
    folder.mkdir()
    pack = ProceduralPack(style)
    truth = {}
    for card in DECK:
        face = pack.face(card)
        # Half size: quicker to write and read, and a smaller pack than the renderer's own.
        truth[card.notation] = tuple(tuple(v / 2 for v in b) for b in face.index_boxes)
        stem = pack_file_name(card)
        if stem in missing:
            continue
        rgba = cv2.resize(
            np.dstack([face.image, face.mask]),
            (face.size[0] // 2, face.size[1] // 2),
            interpolation=cv2.INTER_AREA,
        )
        cv2.imwrite(str(folder / f"{stem}.png"), rgba)
    return truth


def test_face_pack_indices_are_measured_from_the_ink(tmp_path: Path) -> None:
    style = replace(FaceStyle.random(np.random.default_rng(5)), four_indices=False, border=None)
    truth = _write_pack(tmp_path / "deck", style)
    pack = FacePack.load(tmp_path / "deck")
    for card in DECK:
        found = pack.face(card).index_boxes
        assert len(found) == 2, card
        for got, want in zip(found, truth[card.notation], strict=True):
            assert _iou(got, want) > 0.75, (card, got, want)


def test_face_pack_with_missing_files_names_them_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "deck").mkdir()
    blank = np.full((70, 50, 3), 255, np.uint8)
    for card in DECK:
        if pack_file_name(card) not in ("7h", "Qs"):
            cv2.imwrite(str(tmp_path / "deck" / f"{pack_file_name(card)}.jpg"), blank)
    with pytest.raises(SynthError) as error:
        FacePack.load(tmp_path / "deck")
    message = str(error.value)
    assert "\n" not in message and "7h.png" in message and "Qs.png" in message
    assert "lacks 2 of the 40" in message
    with pytest.raises(SynthError, match="not a folder"):
        FacePack.load(tmp_path / "nowhere")


@pytest.mark.slow
@pytest.mark.skipif(not SHARED_PACKS.is_dir(), reason="the shared face packs are not here")
@pytest.mark.parametrize("name", ["bellot_lgpl21_svgcards", "photo_deck_mit"])
def test_shared_packs_give_two_indices_per_face_of_one_size(name: str) -> None:
    # The two hardest packs: court art touching the index, and photographed cards.
    for folder in [SHARED_PACKS / name]:
        pack = FacePack.load(folder)
        heights = [b[3] - b[1] for boxes in pack.boxes.values() for b in boxes]
        assert len(heights) == 80, folder.name
        assert max(heights) < 1.4 * np.median(heights), folder.name
        assert min(heights) > 0.6 * np.median(heights), folder.name


def test_tables_render_every_kind_at_any_size() -> None:
    rng = np.random.default_rng(0)
    for kind in TABLE_KINDS:
        table = render_table(33, 21, rng, kind)
        assert table.shape == (21, 33, 3) and table.dtype == np.uint8
    with pytest.raises(SynthError, match="unknown table kind"):
        render_table(8, 8, rng, "lava")


def test_a_font_family_in_many_weights_is_drawn_no_more_often_than_one_in_few() -> None:
    # Inter ships 18 weights, Comfortaa 3: picked by file, ranks in Inter would fill the data set.
    fonts = tuple(f"/fonts/Inter-{w}.otf" for w in range(18)) + tuple(
        f"/fonts/Comfortaa-{w}.ttf" for w in range(3)
    )
    rng = np.random.default_rng(0)
    picks = [random_font(rng, fonts) for _ in range(2000)]
    comfortaa = sum("Comfortaa" in p for p in picks) / len(picks)
    assert 0.45 < comfortaa < 0.55
    assert len(set(picks)) == len(fonts)


def test_suits_of_other_proportions_give_tight_indices_and_differ_from_the_classic() -> None:
    from scorekeeper.rules.cards import Suit
    from scorekeeper.synth.faces import _suit_mask

    rng = np.random.default_rng(5)
    base = replace(FaceStyle.random(rng), border=None, four_indices=False)
    for seed in (1, 2, 3):
        style = replace(base, suit_variant=f"shape:{seed}")
        for card in ("5C", "5S"):
            face = render_face(card, style)
            assert len(face.index_boxes) == 2
            x1, y1, x2, y2 = face.index_boxes[0]
            assert (face.mask[y1:y2, x1:x2] > 0).all()
        classic = _suit_mask(Suit.PAUS, 40, "poly")
        drawn = _suit_mask(Suit.PAUS, 40, f"shape:{seed}")
        if classic.shape == drawn.shape:
            assert np.abs(classic.astype(int) - drawn.astype(int)).mean() > 5
    # A club and a spade of one drawing stay different shapes.
    club, spade = _suit_mask(Suit.PAUS, 40, "shape:7"), _suit_mask(Suit.ESPADAS, 40, "shape:7")
    width = min(club.shape[1], spade.shape[1])
    assert np.abs(club[:, :width].astype(int) - spade[:, :width].astype(int)).mean() > 20
