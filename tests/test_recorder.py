"""Game events from the tracker reach the store; a refused one is reported, never fatal."""

import random

import pytest

from scorekeeper.pipeline.recorder import StoreRecorder
from scorekeeper.rules import Card, random_legal_deal
from scorekeeper.store import DOUBT_REASONS, DealStarted, DoubtSettled, Store
from scorekeeper.store import CardPlayed as StoreCardPlayed
from scorekeeper.tracking import events as game


@pytest.fixture
def store(tmp_path):
    return Store.open(tmp_path / "match.db")


def played(frame, seat, card, trick=1):
    return game.CardPlayed(
        frame=frame, deal=1, trick=trick, seat=seat, card=Card.parse(card), confidence=0.9
    )


def test_a_deal_seen_by_the_camera_is_in_the_store(store):
    warnings: list[str] = []
    recorder = StoreRecorder(store, "mesa", warn=warnings.append)
    recorder.record(
        [game.DealStarted(frame=3, deal=1, dealer=3, turned=Card.parse("2C"), confidence=0.9)]
    )
    recorder.record(
        [played(10, 0, "AS"), played(20, 1, "5H"), played(30, 2, "KS"), played(40, 3, "QS")]
    )
    recorder.record(
        [
            game.TrickGathered(frame=50, deal=1, trick=1, winner=0, cards=(), points=17),
            game.Uncertain(frame=51, deal=1, reason="seat", detail="came from the wrong side"),
        ]
    )
    state = store.state("mesa")
    assert store.record("mesa")["deals"] == [
        {"dealer": 3, "trump": "2C", "plays": ["AS", "5H", "KS", "QS"]}
    ]
    assert state["deals"][0]["points"] == {"nos": 17, "eles": 0}
    assert recorder.written == 6 and warnings == []


def test_a_deal_the_page_started_and_the_tracker_took_up_is_stored_once(store):
    store.append("mesa", DealStarted(dealer=3, turned="2C"))
    recorder = StoreRecorder(store, "mesa")
    recorder.record(
        [
            game.DealStarted(
                frame=3, deal=1, dealer=3, turned=Card.parse("2C"), confidence=1.0, from_page=True
            ),
            played(10, 0, "AS"),
        ]
    )
    assert store.record("mesa")["deals"] == [{"dealer": 3, "trump": "2C", "plays": ["AS"]}]
    assert recorder.written == 1


def test_a_play_the_log_refuses_is_reported_and_the_match_is_untouched(store):
    warnings: list[str] = []
    recorder = StoreRecorder(store, "mesa", warn=warnings.append)
    recorder.record(
        [game.DealStarted(frame=3, deal=1, dealer=3, turned=Card.parse("2C"), confidence=0.9)]
    )
    recorder.record([played(10, 0, "AS"), played(20, 1, "AS")])
    assert store.record("mesa")["deals"][0]["plays"] == ["AS"]
    assert len(warnings) == 1 and "frame 20" in warnings[0] and "already played" in warnings[0]


def corrected(play, seat, card, trick=1):
    return game.PlayCorrected(
        frame=60, deal=1, trick=trick, play=play, seat=seat, card=Card.parse(card), confidence=0.3
    )


def test_a_missed_card_put_back_by_the_tracker_corrects_the_stored_deal(store):
    # An earlier deal in the log: the tracker's own deal count (1) is not the log's (2).
    turned, plays, _ = random_legal_deal(random.Random(1), dealer=2)
    store.append("mesa", DealStarted(dealer=2, turned=turned.notation))
    for card in plays:
        store.append("mesa", StoreCardPlayed(card.notation))
    recorder = StoreRecorder(store, "mesa", warn=pytest.fail)
    recorder.record(
        [game.DealStarted(frame=3, deal=1, dealer=3, turned=Card.parse("2C"), confidence=0.9)]
    )
    recorder.record([played(10, 0, "AS"), played(30, 1, "KS"), played(40, 2, "QS")])
    # 5H (seat 1) was missed: KS and QS move one seat on, and QS becomes the fourth card.
    recorder.record([corrected(2, 1, "5H"), corrected(3, 2, "KS"), played(40, 3, "QS")])
    deals = store.record("mesa")["deals"]
    assert deals[1]["plays"] == ["AS", "5H", "KS", "QS"]
    assert deals[0]["plays"] == [card.notation for card in plays]
    assert store.state("mesa")["deals"][1]["points"] == {"nos": 17, "eles": 0}


# -- the tracker's doubts ----------------------------------------------------------------------

INFORMATIONAL = (
    "deduced",
    "stream_ended",
    "late_turned",
    "several_turned",
    "play_before_turned",
    "trick_vanished",
    "already_played",
)


def doubt(reason, card=None, *, play=None, options=(), frame=25):
    return game.Uncertain(
        frame=frame,
        deal=1,
        reason=reason,
        detail="…",
        card=card and Card.parse(card),
        seat=1,
        confidence=0.4,
        play=play,
        options=tuple(Card.parse(c) for c in options),
    )


def started(store):
    recorder = StoreRecorder(store, "mesa", warn=pytest.fail)
    recorder.record(
        [
            game.DealStarted(frame=3, deal=1, dealer=3, turned=Card.parse("2C"), confidence=0.9),
            played(10, 0, "AS"),
            played(20, 1, "5H"),
        ]
    )
    return recorder


@pytest.mark.parametrize("reason", sorted(DOUBT_REASONS))
def test_a_doubt_worth_the_tables_attention_reaches_the_state(store, reason):
    started(store).record([doubt(reason, "5H")])
    [shown] = store.state("mesa")["doubts"]
    assert (shown["reason"], shown["play"], shown["trick"], shown["options"], shown["frame"]) == (
        reason,
        2,
        1,
        ["5H"],
        25,
    )


@pytest.mark.parametrize("reason", INFORMATIONAL)
def test_the_trackers_own_bookkeeping_stays_out_of_the_log(store, reason):
    recorder = started(store)
    before = store.last_seq("mesa")
    recorder.record([doubt(reason, "5H")])
    assert store.last_seq("mesa") == before and store.state("mesa")["doubts"] == []


def test_the_trackers_alternatives_and_play_are_kept_likeliest_first(store):
    started(store).record(
        [doubt("suit_swap", "5H", play=2, options=("5D", "5H", "4D", "3D", "2D", "KD"))]
    )
    [shown] = store.state("mesa")["doubts"]
    assert shown["play"] == 2 and shown["options"] == ["5D", "5H", "4D", "3D", "2D"]


def test_a_doubt_that_names_no_card_or_comes_before_any_deal_is_not_raised(store):
    StoreRecorder(store, "mesa", warn=pytest.fail).record([doubt("weak_read", "5H")])
    assert store.last_seq("mesa") == 0
    started(store).record([doubt("missing_card")])
    assert store.state("mesa")["doubts"] == []


def test_a_refused_read_is_a_doubt_about_no_play(store):
    started(store).record([doubt("illegal_read", "KH")])
    [shown] = store.state("mesa")["doubts"]
    assert shown["play"] is None and shown["options"] == ["KH"]


def test_the_same_doubt_said_again_is_raised_once(store):
    recorder = started(store)
    recorder.record([doubt("weak_read", "5H")])
    StoreRecorder(store, "mesa", warn=pytest.fail).record(
        [doubt("weak_read", "5H", frame=99)]
    )  # resumed
    assert len(store.state("mesa")["doubts"]) == 1


def test_a_play_the_tracker_corrects_settles_its_open_doubts(store):
    recorder = started(store)
    recorder.record([doubt("suit_swap", "5H", play=2, options=("5H", "5D")), doubt("seat", "AS")])
    recorder.record([corrected(2, 1, "5D")])
    assert store.record("mesa")["deals"][0]["plays"] == ["AS", "5D"]
    [left] = store.state("mesa")["doubts"]
    assert left["reason"] == "seat" and left["play"] == 1
    settled = [s.event for s in store.events("mesa") if isinstance(s.event, DoubtSettled)]
    assert [e.card for e in settled] == ["5D"]
    recorder.record([corrected(1, 0, "AD")])  # not one of its options: settled without a card
    assert store.state("mesa")["doubts"] == [] and store.record("mesa")["deals"][0]["plays"] == [
        "AD",
        "5D",
    ]


def test_a_suspected_renuncia_is_left_to_the_engine_and_the_page(store):
    recorder = started(store)
    before = store.last_seq("mesa")
    recorder.record(
        [
            game.RevokeFlagged(
                frame=30,
                deal=1,
                trick=1,
                seat=1,
                card=Card.parse("5H"),
                led="S",
                proof="later",
                suspected=True,
                confidence=0.3,
            )
        ]
    )
    assert store.last_seq("mesa") == before


def test_an_open_doubt_recorded_mid_deal_is_there_after_a_restart(tmp_path):
    path = tmp_path / "match.db"
    started(Store.open(path)).record([doubt("weak_read", "5H", options=("5H", "5D"))])
    again = Store.open(path)  # the process stopped; a new one opens the same file
    [shown] = again.state("mesa")["doubts"]
    assert (shown["trick"], shown["options"], shown["card"]) == (1, ["5H", "5D"], "5H")


def test_a_restart_while_a_vaza_lacks_a_card_shows_the_same_doubt_and_keeps_the_plays(tmp_path):
    from scorekeeper.rules import Rules
    from scorekeeper.tracking import Tracker
    from tests.test_tracker import FPS, GEOMETRY, Scene, stage_deal

    rules = Rules()
    turned, plays, _ = random_legal_deal(random.Random(11), dealer=2, rules=rules)
    scene = Scene()
    truth = stage_deal(scene, dealer=2, turned=turned, plays=plays)
    missing = truth.plays[9][2]
    scene.hide(missing, range(scene.end))  # vaza 3's second card is never read
    path = tmp_path / "match.db"
    recorder = StoreRecorder(Store.open(path), "mesa", warn=pytest.fail)
    tracker = Tracker(GEOMETRY, rules, fps=FPS)
    stop = truth.plays[14][0] + 7  # the 15th card lies there (before the dealer plays his trunfo)
    raised = None
    for frame in scene.frames(until=stop):
        events = tracker.update(frame)
        recorder.record(events)
        raised = raised or next(
            (e for e in events if isinstance(e, game.Uncertain) and e.reason == "missing_card"),
            None,
        )
    assert raised is not None and raised.play is not None
    again = Store.open(path)  # the process stopped; a new one opens the same file
    [shown] = [d for d in again.state("mesa")["doubts"] if d["reason"] == "missing_card"]
    assert shown["options"] == [c.notation for c in raised.options]
    # Every card that landed is in the store but the one never read, however it is seated.
    landed = [card.notation for _, _, card in truth.plays[:15] if card != missing]
    assert again.record("mesa")["deals"][0]["plays"] == landed


def test_a_camera_restarted_while_a_vaza_lacks_a_card_still_puts_that_card_in_its_place(
    tmp_path,
):
    from scorekeeper.pipeline.session import missing_card_play
    from scorekeeper.rules import Deal, Rules
    from scorekeeper.tracking import Tracker
    from tests.test_tracker import FPS, GEOMETRY, Scene, stage_deal

    rules = Rules()
    turned, plays, _ = random_legal_deal(random.Random(11), dealer=2, rules=rules)
    scene = Scene()
    truth = stage_deal(scene, dealer=2, turned=turned, plays=plays)
    missing = truth.plays[9][2]
    scene.hide(missing, range(scene.end))  # vaza 3's second card is never read
    frames = scene.frames()
    stop = truth.plays[14][0] + 7
    path = tmp_path / "match.db"
    recorder = StoreRecorder(Store.open(path), "mesa", warn=pytest.fail)
    tracker = Tracker(GEOMETRY, rules, fps=FPS)
    for frame in frames:
        if frame.frame_index < stop:
            recorder.record(tracker.update(frame))
    # The process stopped; a new one opens the same file and carries on the deal it holds.
    store = Store.open(path)
    stored = store.record("mesa")["deals"][0]
    deal = Deal.start(dealer=stored["dealer"], turned=Card.parse(stored["trump"]), rules=rules)
    deal = deal.play_all(Card.parse(card) for card in stored["plays"])
    resumed = Tracker(GEOMETRY, rules, fps=FPS)
    resumed.resume(deal, number=1, missing_after=missing_card_play(store, "mesa", 1))
    recorder = StoreRecorder(store, "mesa", warn=pytest.fail)
    for frame in frames:
        if frame.frame_index >= stop:
            recorder.record(resumed.update(frame))
    recorder.record(resumed.finish())
    # The card never read is put where it went, the plays told after it are reseated, and
    # the doubt is settled by that correction.
    assert store.record("mesa")["deals"][0]["plays"] == [
        card.notation for _, _, card in truth.plays
    ]
    assert not [d for d in store.state("mesa")["doubts"] if d["reason"] == "missing_card"]
