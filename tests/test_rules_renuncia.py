"""Renúncia: found with evidence when proven, never on a legal discard, scored per variant."""

import pytest

from scorekeeper.rules import replay_record
from tests.rules_builders import deal_json, deal_with_nos_points, deal_with_revoke, record

# Dealer 3, trunfo paus (turned 2C). Vaza 1: seat 0 leads AS, seat 1 discards 5H although it holds
# 3S; seat 1 takes vaza 2 with 7H and leads that 3S in vaza 3, which proves the renúncia.
VOID_THEN_PROVEN = "AS 5H KS QS  4H 7H 6H 2H  3S"
# Seat 1 discards on espadas and never shows espadas again: a legal discard.
LEGAL_DISCARD = "AS 5H KS QS  4H 7H 6H 2H  3D"


def revokes(plays, dealer=3, turned="2C", **rules):
    return replay_record(record(deal_json(dealer, turned, plays), **rules))["deals"][0]["revokes"]


def test_void_followed_by_a_later_card_of_that_suit_is_proven_with_evidence():
    [revoke] = revokes(VOID_THEN_PROVEN)
    assert {k: revoke[k] for k in ("seat", "trick", "card", "led", "proven_in_trick", "team")} == {
        "seat": 1,
        "trick": 1,
        "card": "5H",
        "led": "S",
        "proven_in_trick": 3,
        "team": "eles",
    }
    assert "3S" in revoke["proof"] and "vaza 1" in revoke["proof"]


def test_a_legal_discard_after_the_suit_ran_out_is_not_flagged():
    assert revokes(LEGAL_DISCARD) == []


def test_not_proven_until_the_suit_shows_up():
    assert revokes(VOID_THEN_PROVEN.rsplit(" ", 1)[0]) == []


def test_dealer_not_following_trump_while_holding_the_turned_card():
    # Dealer 3 turned 2C (paus is trunfo). Vaza 1: seat 0 leads KC, seats 1 and 2 follow, and the
    # dealer plays AH although the turned 2C is still in his hand.
    [revoke] = revokes("KC 3C 4C AH")
    assert (revoke["seat"], revoke["trick"], revoke["card"], revoke["led"]) == (3, 1, "AH", "C")
    assert revoke["proven_in_trick"] == 1 and "2C" in revoke["proof"]


def test_dealer_may_discard_on_trumps_once_the_turned_card_is_gone():
    # The dealer plays the turned 2C in vaza 1, then discards on trumps in vaza 2: legal.
    assert revokes("AH 3H 4H 2C  KC 3C 4C 5H") == []


def test_penalize_gives_the_opponents_four_riscos_and_voids_the_points():
    result = replay_record(record(deal_json(3, "2C", VOID_THEN_PROVEN)))
    deal = result["deals"][0]
    assert deal["riscos"] == {"nos": 4, "eles": 0} and deal["outcome"] == "renuncia"
    assert result["score"] == {"nos": 4, "eles": 0} and result["winner"] == "nos"


def test_ignore_only_reports():
    result = replay_record(record(deal_json(3, "2C", VOID_THEN_PROVEN), renuncia="ignore"))
    assert len(result["deals"][0]["revokes"]) == 1
    assert result["score"] == {"nos": 0, "eles": 0}


@pytest.mark.parametrize("seed", range(8))
def test_injected_revoke_in_a_complete_deal_is_found_and_penalized(seed):
    deal, expected = deal_with_revoke(seed)
    result = replay_record(record(deal, target=10))
    [revoke] = result["deals"][0]["revokes"]
    assert {k: revoke[k] for k in expected} == expected
    offender = "nos" if expected["seat"] % 2 == 0 else "eles"
    other = "eles" if offender == "nos" else "nos"
    assert result["deals"][0]["riscos"] == {offender: 0, other: 4}


def test_only_the_first_proven_revoke_is_penalized():
    # Seat 1 (Eles) revokes first, in vaza 1, but it is proven only in vaza 4; seat 2 (Nós) revokes
    # in vaza 2 (3H on ouros) and shows AD in vaza 3. The first proven one decides the deal.
    plays = "AS 5H KS QS  4D 6D 3H 7D  3D KD JD AD  2S 4S 5S 3S"
    result = replay_record(record(deal_json(3, "2C", plays)))
    deal = result["deals"][0]
    assert [(r["seat"], r["trick"], r["proven_in_trick"]) for r in deal["revokes"]] == [
        (2, 2, 3),
        (1, 1, 4),
    ]
    assert deal["riscos"] == {"nos": 0, "eles": 4}


def test_a_deal_ended_by_a_penalized_revoke_lets_the_match_go_on():
    # Play stopped after the renúncia was proven in vaza 3; the next deal is accepted.
    after = deal_with_nos_points(61) | {"dealer": 0}
    result = replay_record(record(deal_json(3, "2C", VOID_THEN_PROVEN), after, target=10))
    assert result["score"] == {"nos": 5, "eles": 0}


def test_a_dismissed_renuncia_is_reported_but_not_penalized():
    deal = deal_json(3, "2C", VOID_THEN_PROVEN) | {"dismissed": [{"trick": 1, "seat": 1}]}
    result = replay_record(record(deal))
    [revoke] = result["deals"][0]["revokes"]
    assert revoke["dismissed"] is True
    assert result["deals"][0]["riscos"] == {"nos": 0, "eles": 0} and result["score"] == {
        "nos": 0,
        "eles": 0,
    }


def test_dismissing_the_first_proven_renuncia_lets_the_next_one_count():
    plays = "AS 5H KS QS  4D 6D 3H 7D  3D KD JD AD  2S 4S 5S 3S"
    deal = deal_json(3, "2C", plays) | {"dismissed": [{"trick": 2, "seat": 2}]}
    assert replay_record(record(deal))["deals"][0]["riscos"] == {"nos": 4, "eles": 0}


def test_dismissed_survives_a_round_trip_through_the_record():
    from scorekeeper.rules import parse_record

    deal = deal_json(3, "2C", VOID_THEN_PROVEN) | {"dismissed": [{"trick": 1, "seat": 1}]}
    assert parse_record(record(deal)).to_json()["deals"][0]["dismissed"] == [
        {"trick": 1, "seat": 1}
    ]


@pytest.mark.parametrize(
    "bad", [[{"trick": 11, "seat": 1}], [{"trick": 1}], {"trick": 1, "seat": 1}]
)
def test_a_malformed_dismissal_is_a_record_error(bad):
    from scorekeeper.errors import RecordError

    with pytest.raises(RecordError, match="deal 1: .*dismissed"):
        replay_record(record(deal_json(3, "2C", VOID_THEN_PROVEN) | {"dismissed": bad}))
