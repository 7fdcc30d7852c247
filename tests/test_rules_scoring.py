"""Riscos at every boundary, each variant, ties in a row, and the match target."""

import pytest

from scorekeeper.rules import replay_record
from tests.rules_builders import (
    ALL_POINTS_ONE_TRICK_LOST_PLAYS,
    CAPOTE_PLAYS,
    deal_json,
    deal_with_nos_points,
    record,
)


def riscos(result, deal=0):
    return result["deals"][deal]["riscos"]


@pytest.mark.parametrize(
    "nos_points, expected",
    [
        (59, {"nos": 0, "eles": 1}),
        (61, {"nos": 1, "eles": 0}),
        (90, {"nos": 1, "eles": 0}),
        (91, {"nos": 2, "eles": 0}),
        (29, {"nos": 0, "eles": 2}),
        (30, {"nos": 0, "eles": 1}),
    ],
)
def test_points_boundaries(nos_points, expected):
    result = replay_record(record(deal_with_nos_points(nos_points)))
    deal = result["deals"][0]
    assert deal["points"] == {"nos": nos_points, "eles": 120 - nos_points}
    assert deal["complete"] and riscos(result) == expected
    assert result["score"] == expected


def test_sixty_sixty_scores_nothing_by_default():
    tie = deal_with_nos_points(60)
    result = replay_record(record(tie))
    assert riscos(result) == {"nos": 0, "eles": 0}
    assert result["deals"][0]["outcome"] == "tie"


def test_capote_all_ten_tricks_is_four_riscos():
    result = replay_record(record(deal_json(3, "2H", CAPOTE_PLAYS)))
    assert result["deals"][0]["points"] == {"nos": 120, "eles": 0}
    assert riscos(result) == {"nos": 4, "eles": 0}
    assert result["winner"] == "nos"


def test_120_points_with_a_lost_trick_is_two_riscos_in_tournament_rules():
    result = replay_record(record(deal_json(3, "2H", ALL_POINTS_ONE_TRICK_LOST_PLAYS)))
    deal = result["deals"][0]
    assert deal["points"] == {"nos": 120, "eles": 0}
    assert deal["tricks"][-1]["winner"] == 3 and deal["tricks"][-1]["points"] == 0
    assert riscos(result) == {"nos": 2, "eles": 0}


def test_120_points_suffice_under_capote_all_points():
    data = record(deal_json(3, "2H", ALL_POINTS_ONE_TRICK_LOST_PLAYS), capote="all_points")
    assert riscos(replay_record(data)) == {"nos": 4, "eles": 0}


def test_118_points_is_two_riscos_even_under_all_points():
    # 119 cannot happen (no card is worth 1 point): 118 is the last score below 120.
    result = replay_record(record(deal_with_nos_points(2)))
    assert result["deals"][0]["points"]["eles"] == 118
    assert riscos(result) == {"nos": 0, "eles": 2}


def test_tie_carry_makes_the_next_decided_deal_worth_one_more_per_tie():
    tie = deal_with_nos_points(60)
    win = deal_with_nos_points(61)
    carried = replay_record(record(tie, tie | {"dealer": 0}, win, tie="carry"))
    assert [d["riscos"] for d in carried["deals"]] == [
        {"nos": 0, "eles": 0},
        {"nos": 0, "eles": 0},
        {"nos": 3, "eles": 0},
    ]
    assert carried["deals"][2]["bonus"] == 2
    plain = replay_record(record(tie, tie, win))
    assert plain["score"] == {"nos": 1, "eles": 0}


def test_tie_bonus_is_spent_by_the_first_decided_deal_only():
    tie, win = deal_with_nos_points(60), deal_with_nos_points(61)
    result = replay_record(record(tie, win, win, tie="carry", target=10))
    assert result["score"] == {"nos": 3, "eles": 0}


def test_match_is_won_at_the_target_and_may_overshoot():
    big = deal_with_nos_points(91)
    capote = deal_json(3, "2H", CAPOTE_PLAYS)
    result = replay_record(record(big, capote))
    assert result["score"] == {"nos": 6, "eles": 0} and result["winner"] == "nos"


def test_target_is_configurable():
    win = deal_with_nos_points(91)
    assert replay_record(record(win, win, target=7))["winner"] is None
    assert replay_record(record(win, win, win, win, target=7))["winner"] == "nos"


def test_running_points_of_a_deal_in_progress():
    full = deal_with_nos_points(61)
    partial = dict(full, plays=full["plays"][:10])
    deal = replay_record(record(partial))["deals"][0]
    assert not deal["complete"] and len(deal["tricks"]) == 2
    assert deal["table"]["cards"] == full["plays"][8:10]
    assert deal["points"]["nos"] + deal["points"]["eles"] == sum(
        t["points"] for t in deal["tricks"]
    )
    assert deal["riscos"] == {"nos": 0, "eles": 0}
