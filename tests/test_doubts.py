"""The tracker's doubts in the log: raised, shown in the state, settled by the table or the tracker,
undone, and still there after the store is closed and opened again."""

from __future__ import annotations

import pytest

from scorekeeper.errors import ScorekeeperError
from scorekeeper.store import (
    CardCorrected,
    CardPlayed,
    DealStarted,
    DealThrownIn,
    DoubtRaised,
    DoubtSettled,
    MatchStarted,
    Store,
    StoreError,
    event_from_json,
    event_to_json,
)


@pytest.fixture
def store(tmp_path):
    store = Store.open(tmp_path / "match.db")
    store.append(
        "mesa", DealStarted(dealer=0, turned="AH"), CardPlayed("5C", frame=40), CardPlayed("7C")
    )
    return store


def raise_doubt(
    store: Store, play: int | None = 1, options=("5C", "5S"), reason="suit_swap"
) -> int:
    stored = store.append(
        "mesa", DoubtRaised(deal=1, play=play, reason=reason, options=options, frame=41)
    )
    return stored[-1].seq


def test_an_open_doubt_is_in_the_state_with_its_vaza_and_recorded_card(store):
    seq = raise_doubt(store)
    assert store.state("mesa")["doubts"] == [
        {
            "seq": seq,
            "deal": 1,
            "play": 1,
            "trick": 1,
            "seat": 1,
            "reason": "suit_swap",
            "options": ["5C", "5S"],
            "card": "5C",
            "frame": 41,
        }
    ]


def test_a_doubt_names_the_seat_once_its_play_is_recorded(store):
    raise_doubt(store, play=2, options=("7C", "7S"))
    raise_doubt(store, play=3, options=("KC", "KS"))
    assert [(d["trick"], d["seat"], d["card"]) for d in store.state("mesa")["doubts"]] == [
        (1, 2, "7C"),
        (1, None, None),
    ]
    store.append("mesa", CardPlayed("KC"))
    assert [(d["seat"], d["card"]) for d in store.state("mesa")["doubts"]] == [(2, "7C"), (3, "KC")]


def test_a_doubt_survives_closing_and_opening_the_store(store, tmp_path):
    seq = raise_doubt(store, play=2, options=("7C", "7S"))
    again = Store.open(tmp_path / "match.db")
    assert [(d["seq"], d["trick"], d["options"]) for d in again.state("mesa")["doubts"]] == [
        (seq, 1, ["7C", "7S"])
    ]


def test_settling_with_another_option_corrects_the_play_and_closes_the_doubt(store):
    seq = raise_doubt(store)
    store.append("mesa", DoubtSettled(doubt=seq, card="5s"))
    assert store.record("mesa")["deals"][0]["plays"] == ["5S", "7C"]
    assert store.state("mesa")["doubts"] == []


def test_settling_with_the_recorded_card_or_none_closes_it_and_keeps_the_play(store):
    first, second = raise_doubt(store), raise_doubt(store, play=2, options=("7C", "7S"))
    store.append(
        "mesa", DoubtSettled(doubt=first, card="5C"), DoubtSettled(doubt=second, card=None)
    )
    assert store.record("mesa")["deals"][0]["plays"] == ["5C", "7C"]
    assert store.state("mesa")["doubts"] == []


def test_undoing_a_settlement_reopens_the_doubt_and_restores_the_card(store):
    seq = raise_doubt(store)
    store.append("mesa", DoubtSettled(doubt=seq, card="5S"))
    store.undo("mesa")
    assert store.record("mesa")["deals"][0]["plays"] == ["5C", "7C"]
    assert [d["seq"] for d in store.state("mesa")["doubts"]] == [seq]


def test_undo_takes_the_doubt_with_the_play_it_followed(store):
    store.append(
        "mesa", CardPlayed("KC"), DoubtRaised(deal=1, play=3, reason="weak_read", options=("KC",))
    )
    store.undo("mesa")
    assert store.record("mesa")["deals"][0]["plays"] == ["5C", "7C"]
    assert store.state("mesa")["doubts"] == []


@pytest.mark.parametrize(
    ("settle", "message"),
    [
        (lambda seq: DoubtSettled(doubt=seq, card="6S"), "not one of its options 5C, 5S"),
        (lambda seq: DoubtSettled(doubt=seq + 10, card=None), "is not open"),
        (lambda seq: DoubtSettled(doubt=1, card=None), "is not open"),
    ],
)
def test_a_settlement_that_names_no_open_doubt_or_another_card_is_refused(store, settle, message):
    seq = raise_doubt(store)
    before = store.events("mesa")
    with pytest.raises(StoreError, match=message):
        store.append("mesa", settle(seq))
    assert store.events("mesa") == before


def test_a_doubt_settles_once(store):
    seq = raise_doubt(store)
    store.append("mesa", DoubtSettled(doubt=seq, card=None))
    with pytest.raises(StoreError, match="is not open"):
        store.append("mesa", DoubtSettled(doubt=seq, card="5S"))


def test_settling_into_a_card_already_played_is_refused_by_the_engine(store):
    seq = raise_doubt(store, options=("5C", "7C"))
    with pytest.raises(ScorekeeperError, match="7C"):
        store.append("mesa", DoubtSettled(doubt=seq, card="7C"))
    assert store.record("mesa")["deals"][0]["plays"] == ["5C", "7C"]
    assert len(store.state("mesa")["doubts"]) == 1


def test_a_card_for_a_play_not_recorded_yet_is_refused_but_the_doubt_can_be_dismissed(store):
    seq = raise_doubt(store, play=3, options=("KC", "KS"))
    with pytest.raises(StoreError, match="play 3 of deal 1, which has 2 plays"):
        store.append("mesa", DoubtSettled(doubt=seq, card="KS"))
    store.append("mesa", DoubtSettled(doubt=seq, card=None))
    assert store.state("mesa")["doubts"] == []


def test_a_doubt_about_no_play_closes_without_changing_the_deal(store):
    seq = raise_doubt(store, play=None, options=("QS",), reason="illegal_read")
    assert store.state("mesa")["doubts"][0]["trick"] is None
    store.append("mesa", DoubtSettled(doubt=seq, card="QS"))
    assert store.record("mesa")["deals"][0]["plays"] == ["5C", "7C"]
    assert store.state("mesa")["doubts"] == []


def test_a_doubt_of_the_previous_match_is_not_open_in_the_new_one(store):
    seq = raise_doubt(store)
    store.append("mesa", MatchStarted())
    assert store.state("mesa")["doubts"] == []
    with pytest.raises(StoreError, match="is not open"):
        store.append("mesa", DoubtSettled(doubt=seq, card=None))


def test_a_doubt_needs_its_deal(store):
    with pytest.raises(StoreError, match="deal 2 does not exist"):
        store.append("mesa", DoubtRaised(deal=2, play=1, reason="weak_read", options=("5C",)))


def test_a_correction_from_the_page_leaves_the_doubt_to_the_table(store):
    seq = raise_doubt(store)
    store.append("mesa", CardCorrected(deal=1, play=1, card="5S"))
    assert [(d["seq"], d["card"]) for d in store.state("mesa")["doubts"]] == [(seq, "5S")]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"deal": 1, "play": 1, "reason": "guess", "options": ["5C"]}, "doubt reason 'guess'"),
        ({"deal": 1, "play": 1, "reason": "weak_read", "options": []}, "1 to 5 different cards"),
        (
            {"deal": 1, "play": 1, "reason": "weak_read", "options": ["5C"] * 2},
            "1 to 5 different cards",
        ),
        (
            {
                "deal": 1,
                "play": 1,
                "reason": "weak_read",
                "options": ["2C", "3C", "4C", "5C", "6C", "7C"],
            },
            "1 to 5 different cards",
        ),
        ({"deal": 1, "play": 1, "reason": "weak_read", "options": "5C"}, "send a list"),
        ({"deal": 1, "play": 1, "reason": "weak_read", "options": ["9C"]}, "9C"),
        ({"deal": 1, "play": 41, "reason": "weak_read", "options": ["5C"]}, "40 plays"),
        ({"deal": 0, "play": 1, "reason": "weak_read", "options": ["5C"]}, "deal 0"),
        (
            {"deal": 1, "play": 1, "reason": "weak_read", "options": ["5C"], "frame": "x"},
            "frame 'x'",
        ),
        ({"deal": 1, "reason": "weak_read", "options": ["5C"]}, "needs the fields"),
        (
            {"deal": 1, "play": 1, "reason": "weak_read", "options": ["5C"], "seat": 2},
            "no field 'seat'",
        ),
    ],
)
def test_a_malformed_doubt_is_refused_with_what_was_wrong(data, message):
    with pytest.raises(ScorekeeperError, match=message):
        event_from_json("doubt_raised", data)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"doubt": 0, "card": None}, "doubt 0"),
        ({"doubt": 3, "card": "ZZ"}, "ZZ"),
        ({"doubt": 3, "card": None, "why": "x"}, "no field 'why'"),
    ],
)
def test_a_malformed_settlement_is_refused_with_what_was_wrong(data, message):
    with pytest.raises(ScorekeeperError, match=message):
        event_from_json("doubt_settled", data)


def test_doubt_events_round_trip_through_json():
    raised = DoubtRaised(deal=2, play=7, reason="suit_swap", options=("5c", "5s"), frame=300)
    settled = DoubtSettled(doubt=12, card="5s")
    for event in (raised, settled):
        kind, data = event_to_json(event)
        assert event_from_json(kind, data) == event
    assert event_to_json(raised) == (
        "doubt_raised",
        {"deal": 2, "play": 7, "reason": "suit_swap", "options": ["5C", "5S"], "frame": 300},
    )


def test_a_deal_thrown_in_takes_its_open_doubts_and_an_undo_brings_them_back(store):
    seq = raise_doubt(store)
    store.append("mesa", DealThrownIn(reason="manual"))
    assert store.state("mesa")["doubts"] == []
    with pytest.raises(StoreError, match="is not open"):
        store.append("mesa", DoubtSettled(doubt=seq, card="5S"))
    store.undo("mesa")
    assert [d["seq"] for d in store.state("mesa")["doubts"]] == [seq]
