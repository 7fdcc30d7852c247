"""The collection: one face per card, the one-line summary, and video views made one sighting."""

from __future__ import annotations

import numpy as np

from scorekeeper.enrol.collection import Collection, ViewTracker
from scorekeeper.enrol.identify import reading_from_probs
from scorekeeper.enrol.outline import Outline
from scorekeeper.rules.cards import DECK, Card

FACE = np.zeros((560, 400, 3), np.uint8)


def reading(card: str, p: float = 0.9, *, agree: bool = True):
    probs = np.full(40, (1 - p) / 39)
    probs[Card.parse(card).index] = p
    return reading_from_probs(probs, corners_agree=agree)


def outline_at(x: float, y: float) -> Outline:
    return Outline(
        np.array(
            [(x - 50, y - 70), (x + 50, y - 70), (x + 50, y + 70), (x - 50, y + 70)], np.float32
        )
    )


def full(except_: tuple[str, ...] = ()) -> Collection:
    collection = Collection()
    for card in DECK:
        if card.notation not in except_:
            collection.add(FACE, reading(card.notation), origin=f"photo {card}")
    return collection


def test_the_summary_names_missing_and_twice_shown_cards_in_one_line() -> None:
    collection = full(except_=("5H", "3C", "KD"))
    collection.add(FACE, reading("7S", 0.95), origin="photo 2")
    assert collection.summary() == "37 of 40 cards: missing 5H KD 3C; shown twice: 7S"
    assert collection.missing() == [Card.parse(c) for c in ("5H", "KD", "3C")]
    assert not collection.complete
    assert "\n" not in collection.summary()


def test_a_whole_deck_says_so() -> None:
    collection = full()
    assert collection.summary() == "40 of 40 cards" and collection.complete
    assert collection.progress() == "40/40 — completo"


def test_the_pack_keeps_the_surer_of_two_views_and_a_confirmed_one_first() -> None:
    collection = Collection()
    weak = collection.add(FACE, reading("7S", 0.6), origin="a")
    strong = collection.add(FACE + 1, reading("7S", 0.95), origin="b")
    assert collection.best()[Card.parse("7S")] is strong
    collection.rename(weak.id, Card.parse("7S"))
    assert collection.best()[Card.parse("7S")] is weak


def test_doubtful_ones_are_tracked_until_settled() -> None:
    collection = Collection()
    unsure = collection.add(FACE, reading("QH", 0.3), origin="a")
    disagree = collection.add(FACE, reading("QD", 0.9, agree=False), origin="b")
    collection.add(FACE, reading("AS"), origin="c")
    assert collection.doubtful() == [unsure, disagree]
    assert "2 to confirm" in collection.summary()
    collection.rename(unsure.id, Card.parse("QS"))
    collection.rename(disagree.id, None)
    assert collection.doubtful() == []
    assert set(collection.best()) == {Card.parse("QS"), Card.parse("AS")}


def test_progress_counts_cards_still_in_view() -> None:
    collection = full(except_=("5H", "3C"))
    assert collection.progress() == "38/40 — faltam: 5H 3C"
    assert collection.progress(pending=[Card.parse("5H")]) == "39/40 — faltam: 3C"


def test_a_card_in_view_for_thirty_frames_is_one_sighting() -> None:
    collection = Collection()
    tracker = ViewTracker(collection, max_gap=3)
    for frame in range(30):
        # the same card, jiggling a little; a misread now and then
        card = "6C" if frame % 7 else "6S"
        tracker.update(
            frame, [(outline_at(300 + frame % 3, 200), FACE, reading(card, 0.7), float(frame))]
        )
    assert len(collection) == 0 and tracker.open_cards() == [Card.parse("6C")]
    tracker.update(40, [])  # taken away
    (sighting,) = collection.sightings
    assert sighting.card == Card.parse("6C") and sighting.origin == "frames 0-29"
    assert collection.duplicates() == []


def test_a_card_shown_again_after_leaving_the_view_counts_twice() -> None:
    collection = Collection()
    tracker = ViewTracker(collection, max_gap=2)
    for frame in range(5):
        tracker.update(
            frame,
            [
                (outline_at(300, 200), FACE, reading("AH"), 1.0),
                (outline_at(600, 200), FACE, reading("2D"), 1.0),
            ],
        )
    for frame in range(10, 15):
        tracker.update(frame, [(outline_at(450, 300), FACE, reading("AH"), 1.0)])
    tracker.finish()
    assert [s.card.notation for s in collection if s.card] == ["AH", "2D", "AH"]
    assert collection.duplicates() == [Card.parse("AH")]


def test_the_sharpest_sure_view_is_the_face_kept() -> None:
    collection = Collection()
    tracker = ViewTracker(collection)
    faces = [np.full((560, 400, 3), i, np.uint8) for i in range(3)]
    for frame, (face, sharp) in enumerate(zip(faces, (1.0, 9.0, 2.0))):
        tracker.update(frame, [(outline_at(300, 200), face, reading("KS", 0.8), sharp)])
    (sighting,) = tracker.finish()
    assert sighting.face is faces[1] and sighting.sharpness == 9.0
