"""Game events from the tracker reach the store; a refused one is reported, never fatal."""

import pytest

from scorekeeper.pipeline.recorder import StoreRecorder
from scorekeeper.rules import Card
from scorekeeper.store import Store
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
