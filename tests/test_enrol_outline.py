"""Card outlines on a table photo, and the flat faces warped from them."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from scorekeeper.enrol.outline import FLAT_SIZE, find_outlines, flat_faces, sharpness, warp_flat
from tests.enrol_scenes import deck_pack, table_photo

PACK = deck_pack()


def _similarity(flat: np.ndarray, source: np.ndarray) -> float:
    """Normalised correlation of the inner 80 % of two faces, the better of both upright turns."""

    def inner(image: np.ndarray) -> np.ndarray:
        grey = cv2.cvtColor(
            cv2.resize(image, (100, 140), interpolation=cv2.INTER_AREA), cv2.COLOR_BGR2GRAY
        )
        v = grey[14:126, 10:90].astype(np.float32).ravel()
        v -= v.mean()
        return v / (np.linalg.norm(v) + 1e-6)

    a = inner(flat)
    return max(float(a @ inner(source)), float(a @ inner(source[::-1, ::-1])))


@pytest.mark.parametrize(
    ("kind", "seed"),
    [("wood", 0), ("wood", 3), ("felt", 1), ("felt", 2), ("cloth", 0), ("cloth", 2)],
)
def test_every_card_is_found_and_warped_flat(kind: str, seed: int) -> None:
    labels = ["AH", "7S", "KD", "2C", "QH"]
    photo, placed = table_photo(labels, pack=PACK, seed=seed, kind=kind)
    found = flat_faces(photo)
    assert len(found) == len(labels)
    for truth in placed:
        centre = truth.corners.mean(axis=0)
        outline, flat = min(found, key=lambda f: float(np.hypot(*(np.array(f[0].center) - centre))))
        # the four corners land within a few pixels of the true ones (in some turn)
        error = min(
            float(np.abs(np.roll(outline.corners, k, axis=0) - truth.corners).max())
            for k in range(4)
        )
        assert error < 4.0
        assert flat.shape == (FLAT_SIZE[1], FLAT_SIZE[0], 3)
        assert _similarity(flat, PACK.face(truth.label).image) > 0.8


def test_eight_cards_with_perspective_and_a_lamp_off_to_one_side() -> None:
    labels = ["AH", "7S", "KD", "2C", "QH", "5S", "JD", "3C"]
    photo, _ = table_photo(labels, pack=PACK, seed=1, kind="wood", tilt=0.1)
    assert len(find_outlines(photo)) == 8


def test_flat_faces_stand_upright_with_the_short_side_on_top() -> None:
    photo, _ = table_photo(["KD"], pack=PACK, seed=5, kind="felt")
    (outline,) = find_outlines(photo)
    short, long = outline.sides
    assert 1.3 < long / short < 1.5
    top, left = (
        np.linalg.norm(outline.corners[1] - outline.corners[0]),
        np.linalg.norm(outline.corners[3] - outline.corners[0]),
    )
    assert top < left
    assert (
        outline.corners[0, 1] + outline.corners[1, 1]
        < outline.corners[2, 1] + outline.corners[3, 1]
    )


def _table(shape: tuple[int, int] = (480, 640)) -> np.ndarray:
    image = np.zeros((*shape, 3), np.uint8)
    image[:] = (40, 80, 30)
    return image


@pytest.mark.parametrize(
    ("what", "points"),
    [
        ("a square beer mat", [(100, 100), (250, 100), (250, 250), (100, 250)]),
        ("a long strip of paper", [(100, 100), (500, 100), (500, 160), (100, 160)]),
        ("a tiny scrap", [(100, 100), (106, 100), (106, 109), (100, 109)]),
        (
            "an L of two cards touching",
            [(100, 100), (200, 100), (200, 240), (340, 240), (340, 340), (100, 340)],
        ),
        ("a card cut by the photo's edge", [(0, 100), (100, 100), (100, 240), (0, 240)]),
    ],
)
def test_things_that_are_not_a_whole_card_are_left_out(
    what: str, points: list[tuple[int, int]]
) -> None:
    image = _table()
    cv2.fillPoly(image, [np.array(points, np.int32)], (245, 245, 245))
    assert find_outlines(image) == [], what


def test_a_plain_card_shape_is_found_and_nothing_else() -> None:
    image = _table()
    cv2.fillPoly(
        image,
        [np.array([(200, 100), (300, 100), (300, 240), (200, 240)], np.int32)],
        (240, 240, 235),
    )
    (outline,) = find_outlines(image)
    flat = warp_flat(image, outline, size=(100, 140))
    assert flat.shape == (140, 100, 3) and flat[10:-10, 10:-10].min() > 200


def test_a_sharper_face_scores_higher() -> None:
    face = PACK.face("7H").image
    assert sharpness(face) > sharpness(cv2.GaussianBlur(face, (9, 9), 0))


def test_a_grey_image_is_refused() -> None:
    with pytest.raises(ValueError, match="BGR"):
        find_outlines(np.zeros((10, 10), np.uint8))
