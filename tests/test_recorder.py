"""Game events from the tracker reach the store; a refused one is reported, never fatal."""

import random

import pytest

from scorekeeper.pipeline.recorder import StoreRecorder
from scorekeeper.rules import Card, random_legal_deal
from scorekeeper.store import CardPlayed as StoreCardPlayed
from scorekeeper.store import DealStarted, Store
from scorekeeper.tracking import events as game


@pytest.fixture
def store(tmp_path):
    return Store.open(tmp_path / "match.db")


def played(frame, seat, card, trick=1):
    return game.CardPlayed(frame=frame, deal=1, trick=trick, seat=seat, card=Card.parse(card), confidence=0.9)


def test_a_deal_seen_by_the_camera_is_in_the_store(store):
    warnings = []
    recorder = StoreRecorder(store, "mesa", warn=warnings.append)
    recorder.record([game.DealStarted(frame=3, deal=1, dealer=3, turned=Card.parse("2C"), confidence=0.9)])
    recorder.record([played(10, 0, "AS"), played(20, 1, "5H"), played(30, 2, "KS"), played(40, 3, "QS")])
    recorder.record([
        game.TrickGathered(frame=50, deal=1, trick=1, winner=0, cards=(), points=17),
        game.Uncertain(frame=51, deal=1, reason="seat", detail="came from the wrong side"),
    ])
    state = store.state("mesa")
    assert store.record("mesa")["deals"] == [
        {"dealer": 3, "trump": "2C", "plays": ["AS", "5H", "KS", "QS"]}
    ]
    assert state["deals"][0]["points"] == {"nos": 17, "eles": 0}
    assert recorder.written == 6 and warnings == []


def test_a_play_the_log_refuses_is_reported_and_the_match_is_untouched(store):
    warnings = []
    recorder = StoreRecorder(store, "mesa", warn=warnings.append)
    recorder.record([game.DealStarted(frame=3, deal=1, dealer=3, turned=Card.parse("2C"), confidence=0.9)])
    recorder.record([played(10, 0, "AS"), played(20, 1, "AS")])
    assert store.record("mesa")["deals"][0]["plays"] == ["AS"]
    assert len(warnings) == 1 and "frame 20" in warnings[0] and "already played" in warnings[0]


def corrected(play, seat, card, trick=1):
    return game.PlayCorrected(frame=60, deal=1, trick=trick, play=play, seat=seat, card=Card.parse(card),
                              confidence=0.3)


def test_a_missed_card_put_back_by_the_tracker_corrects_the_stored_deal(store):
    # An earlier deal in the log: the tracker's own deal count (1) is not the log's (2).
    turned, plays, _ = random_legal_deal(random.Random(1), dealer=2)
    store.append("mesa", DealStarted(dealer=2, turned=turned.notation))
    for card in plays:
        store.append("mesa", StoreCardPlayed(card.notation))
    recorder = StoreRecorder(store, "mesa", warn=pytest.fail)
    recorder.record([game.DealStarted(frame=3, deal=1, dealer=3, turned=Card.parse("2C"), confidence=0.9)])
    recorder.record([played(10, 0, "AS"), played(30, 1, "KS"), played(40, 2, "QS")])
    # 5H (seat 1) was missed: KS and QS move one seat on, and QS becomes the fourth card.
    recorder.record([corrected(2, 1, "5H"), corrected(3, 2, "KS"), played(40, 3, "QS")])
    deals = store.record("mesa")["deals"]
    assert deals[1]["plays"] == ["AS", "5H", "KS", "QS"]
    assert deals[0]["plays"] == [card.notation for card in plays]
    assert store.state("mesa")["deals"][1]["points"] == {"nos": 17, "eles": 0}
