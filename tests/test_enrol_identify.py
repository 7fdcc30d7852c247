"""Naming a flat face: pooling the corners, doubt, and the real reader's flow on a flat face."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from scorekeeper.enrol.identify import (
    combine_corners,
    corner_vote,
    pool_readings,
    read_face,
    reading_from_probs,
)
from scorekeeper.rules.cards import DECK, Card
from tests.enrol_scenes import TemplateReader, deck_pack

SHIPPED = Path(__file__).resolve().parents[1] / "models" / "sueca-reader"


def probs(card: str | None, p: float = 0.9) -> np.ndarray:
    """One crop's 41 probabilities: ``p`` on ``card`` (None: on not_a_card), the rest spread."""
    out = np.full(41, (1 - p) / 40, np.float32)
    out[Card.parse(card).index if card else 40] = p
    return out


def test_two_corners_that_agree_make_a_sure_reading() -> None:
    reading = combine_corners(
        {"top-left": np.stack([probs("7H")]), "bottom-right": np.stack([probs("7H", 0.8)])}
    )
    assert reading.card == Card.parse("7H") and reading.corners_agree and not reading.doubtful
    assert reading.guesses[0][0] == Card.parse("7H") and len(reading.guesses) == 3
    assert reading.describe().startswith("7H ")


def test_corners_that_disagree_make_it_doubtful_whatever_the_confidence() -> None:
    reading = combine_corners(
        {"top-left": np.stack([probs("7H", 0.99)]), "bottom-right": np.stack([probs("7D", 0.6)])}
    )
    assert reading.card == Card.parse("7H") and not reading.corners_agree and reading.doubtful
    assert {c.notation for c, _ in reading.guesses[:2]} == {"7H", "7D"}


def test_a_low_confidence_reading_is_doubtful() -> None:
    spread = np.stack([probs("QS", 0.3)])
    reading = combine_corners({"top-left": spread, "bottom-right": spread}, doubt_below=0.5)
    assert reading.card == Card.parse("QS") and reading.corners_agree and reading.doubtful


def test_blank_corners_of_a_two_index_deck_do_not_vote() -> None:
    corners = {
        "top-left": np.stack([probs("AS")]),
        "bottom-right": np.stack([probs("AS")]),
        "top-right": np.stack([probs(None, 0.95), probs(None, 0.6)]),
        "bottom-left": np.stack([probs(None, 0.95)]),
    }
    reading = combine_corners(corners)
    assert reading.card == Card.parse("AS") and reading.confidence > 0.8


def test_a_crop_sure_it_is_no_card_barely_counts_in_its_corner() -> None:
    vote, weight = corner_vote(np.stack([probs("KC", 0.7), probs(None, 0.99)]))
    assert int(np.argmax(vote)) == Card.parse("KC").index and 0.3 < weight < 0.6


def test_views_of_one_card_pool_their_evidence() -> None:
    views = [reading_from_probs(probs("5D", p)[:40]) for p in (0.4, 0.45)]
    views.append(reading_from_probs(probs("5H", 0.5)[:40]))
    pooled = pool_readings(views, doubt_below=0.3)
    assert pooled.card == Card.parse("5D") and pooled.corners_agree
    with pytest.raises(ValueError):
        pool_readings([])


def test_a_flat_face_of_the_test_deck_is_named_by_its_corners() -> None:
    pack = deck_pack()
    reader = TemplateReader(pack)
    for card in ("AH", "7S", "QD", "2C"):
        face = pack.face(card).image
        assert read_face(reader, face).card == Card.parse(card)
        assert read_face(reader, face[::-1, ::-1].copy()).card == Card.parse(card), (
            "upside down too"
        )


@pytest.mark.skipif(not (SHIPPED / "reader.json").is_file(), reason="shipped model missing")
def test_the_shipped_reader_reads_a_flat_face_through_the_same_flow() -> None:
    from scorekeeper.vision.reader import CardReader

    reader = CardReader(threads=1)
    face = deck_pack().face("AC").image
    reading = read_face(reader, face)
    # the shipped reader is weak: check the shape of the answer, not its accuracy
    assert reading.card in DECK and 0.0 < reading.confidence <= 1.0
    assert len(reading.guesses) == 3 and abs(float(reading.probs.sum()) - 1.0) < 1e-4
    assert reading.doubtful == (reading.confidence < 0.5 or not reading.corners_agree)
