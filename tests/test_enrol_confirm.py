"""The terminal's questions about doubtful cards: accept, fix, typos, skip, end of input."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np

from scorekeeper.enrol.collection import Collection
from scorekeeper.enrol.confirm import confirm_in_terminal
from scorekeeper.enrol.identify import reading_from_probs
from scorekeeper.rules.cards import Card

FACE = np.zeros((56, 40, 3), np.uint8)


def doubtful_collection(*cards: str) -> Collection:
    collection = Collection()
    for card in cards:
        probs = np.full(40, 0.01)
        probs[Card.parse(card).index] = 0.3
        collection.add(
            FACE, reading_from_probs(probs), origin=f"mesa.jpg card {len(collection) + 1}"
        )
    collection.add(FACE, reading_from_probs(np.eye(40)[0] * 0.99 + 0.0001), origin="sure")
    return collection


def answers(*replies: str) -> tuple[Callable[[str], str], list[str]]:
    asked: list[str] = []
    it: Iterator[str] = iter(replies)

    def ask(prompt: str) -> str:
        asked.append(prompt)
        try:
            return next(it)
        except StopIteration:
            raise EOFError from None

    return ask, asked


def test_enter_accepts_a_card_fixes_skip_leaves_out() -> None:
    collection = doubtful_collection("7H", "QS", "3D")
    ask, asked = answers("", "qd", "skip")
    said: list[str] = []
    counts = confirm_in_terminal(collection, ask=ask, say=said.append)
    assert counts == {"accepted": 1, "renamed": 1, "skipped": 1}
    assert len(asked) == 3 and collection.doubtful() == []
    assert [s.card for s in collection] == [
        Card.parse("7H"),
        Card.parse("QD"),
        None,
        Card.parse("AH"),
    ]
    assert said[0].startswith("[1/3] card 0 (mesa.jpg card 1): leio 7H")


def test_a_typo_gets_one_line_and_the_same_question_again() -> None:
    collection = doubtful_collection("7H")
    ask, asked = answers("10h", "7x", "7d")
    said: list[str] = []
    confirm_in_terminal(collection, ask=ask, say=said.append)
    assert len(asked) == 3
    errors = said[1:]
    assert len(errors) == 2 and all("\n" not in e for e in errors)
    assert "'10h'" in errors[0] and "'7x'" in errors[1]
    assert collection.sightings[0].card == Card.parse("7D") and collection.sightings[0].confirmed


def test_a_hint_where_to_see_the_face_is_shown() -> None:
    collection = doubtful_collection("2S")
    ask, _ = answers("")
    said: list[str] = []
    confirm_in_terminal(
        collection, ask=ask, say=said.append, show=lambda s: f"/tmp/card-{s.id}.png"
    )
    assert "/tmp/card-0.png" in said[0]


def test_end_of_input_stops_asking_and_keeps_the_guesses() -> None:
    collection = doubtful_collection("7H", "QS")
    ask, asked = answers("")
    said: list[str] = []
    counts = confirm_in_terminal(collection, ask=ask, say=said.append)
    assert counts["accepted"] == 1 and len(asked) == 2
    assert "input ended" in said[-1]
    assert [s.card for s in collection.doubtful()] == [Card.parse("QS")]


def test_accept_guesses_asks_nothing() -> None:
    collection = doubtful_collection("7H", "QS")
    ask, asked = answers()
    counts = confirm_in_terminal(collection, accept_guesses=True, ask=ask, say=lambda _: None)
    assert counts["accepted"] == 2 and asked == [] and collection.doubtful() == []
