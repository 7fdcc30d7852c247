"""Properties over random legal deals (hypothesis picks the shuffles and the choices)."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from scorekeeper.rules import Card, Deal, Rules, random_legal_deal, replay_record
from tests.rules_builders import deal_json, deal_with_revoke, record

seeds = st.integers(min_value=0, max_value=2**32 - 1)
dealers = st.integers(min_value=0, max_value=3)


@given(seeds, dealers)
def test_complete_legal_deal_has_120_points_ten_winners_and_no_revoke(seed, dealer):
    turned, plays, hands = random_legal_deal(random.Random(seed), dealer=dealer)
    assert turned in hands[dealer]
    deal = Deal.start(dealer=dealer, turned=turned).play_all(plays)
    assert deal.is_complete and len(deal.tricks) == 10
    assert deal.points.nos + deal.points.eles == 120
    assert all(trick.winner(deal.trump) in trick.seats() for trick in deal.tricks)
    assert deal.revokes == ()


@given(seeds, dealers)
def test_every_card_is_played_once_by_the_seat_that_held_it(seed, dealer):
    turned, plays, hands = random_legal_deal(random.Random(seed), dealer=dealer)
    deal = Deal.start(dealer=dealer, turned=turned).play_all(plays)
    for trick in deal.tricks:
        for seat, card in zip(trick.seats(), trick.cards):
            assert card in hands[seat]


@settings(max_examples=60)
@given(seeds)
def test_one_injected_revoke_is_always_found(seed):
    try:
        deal, expected = deal_with_revoke(seed)
    except LookupError:
        return
    [revoke] = replay_record(record(deal, renuncia="ignore"))["deals"][0]["revokes"]
    assert {k: revoke[k] for k in expected} == expected


@given(seeds, dealers, st.integers(min_value=0, max_value=40))
def test_record_round_trips_and_prefix_points_never_decrease(seed, dealer, cut):
    turned, plays, _ = random_legal_deal(random.Random(seed), dealer=dealer)
    data = record(deal_json(dealer, turned, plays[:cut]))
    result = replay_record(data)
    assert replay_record(result_to_record(result)) == result
    full = replay_record(record(deal_json(dealer, turned, plays)))["deals"][0]["points"]
    assert all(result["deals"][0]["points"][t] <= full[t] for t in ("nos", "eles"))


def result_to_record(result: dict) -> dict:
    deals = []
    for deal in result["deals"]:
        plays = [c for trick in deal["tricks"] for c in trick["cards"]] + deal["table"]["cards"]
        deals.append({"dealer": deal["dealer"], "trump": deal["turned"], "plays": plays})
    return {"rules": result["rules"], "deals": deals}


@given(seeds)
def test_rules_variants_never_change_the_points(seed):
    turned, plays, _ = random_legal_deal(random.Random(seed), dealer=1)
    results = [
        replay_record({"rules": rules.to_json(), "deals": [deal_json(1, turned, plays)]})
        for rules in (
            Rules(),
            Rules.preset("brazil"),
            Rules.preset("cafe").with_changes(first_lead=Rules().first_lead),
        )
    ]
    assert len({str(r["deals"][0]["points"]) for r in results}) == 1
    assert Card.parse(str(turned)) == turned
