"""The store keeps the variants' events: a deal thrown in, an Azores table, the sheet the page
draws."""

from __future__ import annotations

from pathlib import Path

import pytest

from scorekeeper.errors import RecordError
from scorekeeper.store import (
    CardPlayed,
    DealStarted,
    DealThrownIn,
    RulesChanged,
    Store,
    StoreError,
    event_from_json,
    event_to_json,
)


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store.open(tmp_path / "match.db")


def test_deal_thrown_in_round_trips_and_refuses_an_unknown_reason() -> None:
    assert event_to_json(DealThrownIn("melar")) == ("deal_thrown_in", {"reason": "melar"})
    assert event_from_json("deal_thrown_in", {"reason": "jogo_abaixo"}) == DealThrownIn(
        "jogo_abaixo"
    )
    with pytest.raises(StoreError, match="the reason is one of melar, jogo_abaixo, manual"):
        event_from_json("deal_thrown_in", {"reason": "tired"})


def test_melar_at_a_brazilian_table_voids_the_deal_and_the_same_dealer_deals_again(
    store: Store,
) -> None:
    """Seed 001: "The cards are thrown in, there is no score, and the cards are shuffled, cut and
    dealt again by the same dealer." """
    store.append("mesa", RulesChanged(rules={"melar": True}), DealStarted(dealer=2, turned="4D"))
    store.append("mesa", DealThrownIn("melar"))
    state = store.state("mesa")
    assert state["current"]["outcome"] == "thrown_in" and state["next_dealer"] == 2
    assert store.record("mesa")["deals"][0]["thrown_in"] == "melar"
    with pytest.raises(
        StoreError,
        match="deal 1 was thrown in .melar.: the same dealer .Jogador 3 .Nós.. deals again",
    ):
        store.append("mesa", CardPlayed("AS"))
    store.append("mesa", DealStarted(dealer=2, turned="5C"), CardPlayed("AS"))
    assert store.state("mesa")["current"]["table"]["cards"] == ["AS"]


def test_a_deal_thrown_in_is_refused_where_the_rules_do_not_allow_it_and_nothing_is_written(
    store: Store,
) -> None:
    """Seed 003: jogo abaixo — "Aucun règlement de tournoi ne le prévoit." """
    store.append("mesa", DealStarted(dealer=0, turned="4D"))
    before = len(store.events("mesa"))
    with pytest.raises(RecordError, match="jogo_abaixo is not played under these rules"):
        store.append("mesa", DealThrownIn("jogo_abaixo"))
    with pytest.raises(StoreError, match="no deal started yet"):
        store.append("other", DealThrownIn("manual"))
    assert len(store.events("mesa")) == before
    store.append("mesa", DealThrownIn("manual"))
    store.undo("mesa")
    assert "thrown_in" not in store.record("mesa")["deals"][0], "undo brings the deal back"
    store.append("mesa", DealThrownIn("manual"))
    with pytest.raises(StoreError, match="deal 1 was already thrown in .manual."):
        store.append("mesa", DealThrownIn("manual"))


def test_an_azores_table_plays_10s_and_cuts_its_trunfo_from_the_rejected_cards(
    store: Store,
) -> None:
    """Seed 001: "using the 10 as the manilha (second highest card) rather than the 7 ... the
    remaining packet of 12 cards (the rejected 9's, 8's and 7's) are cut to determine the trump
    suit." """
    with pytest.raises(
        RecordError, match="unknown card 'TS': rank '10' .*the Azores deck plays the 10"
    ):
        store.append("mesa", DealStarted(dealer=3, turned="2C"), CardPlayed("10S"))
    store.append("mesa", RulesChanged(rules={"deck": "azores"}), DealStarted(dealer=3, turned="9C"))
    store.append("mesa", CardPlayed("KS"), CardPlayed("10S"), CardPlayed("2S"), CardPlayed("2C"))
    state = store.state("mesa")
    trick = state["current"]["tricks"][0]
    assert (
        trick["cards"] == ["KS", "TS", "2S", "2C"]
        and trick["winner"] == 3
        and trick["points"] == 14
    )
    with pytest.raises(RecordError, match="7S is not in the azores deck"):
        store.append("mesa", CardPlayed("7S"))


def test_the_state_carries_the_sheet_the_page_draws(store: Store) -> None:
    """Seed 001: "The score in games is often kept by marking dots at the ends of the arms of a
    cross" (northern Portugal); the page draws the marks the state gives."""
    store.append("mesa", RulesChanged(rules={"sheet": "cruz"}))
    sheet = store.state("mesa")["sheet"]
    assert (
        sheet["style"] == "cruz"
        and sheet["cruz"] == {"nos": [], "eles": []}
        and sheet["pente"] is None
    )
