"""The engine's results are typed and frozen; their JSON is what ``replay --json`` printed."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from scorekeeper.rules import (
    DealOutcome,
    Ending,
    PerTeam,
    Team,
    parse_record,
    replay_match,
    replay_record,
)
from scorekeeper.store import CardPlayed, DealStarted, RenunciaDismissed, Store
from tests.rules_builders import CAPOTE_PLAYS, deal_json, record
from tests.test_store import revoke_deal

EXAMPLE = Path(__file__).parents[1] / "examples" / "match.json"


def test_a_match_result_reads_as_types_and_prints_as_before() -> None:
    data = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    result = replay_match(data)
    assert result.to_json() == replay_record(data)
    assert result.score.to_json() == replay_record(data)["score"]
    last = result.deals[-1]
    assert last is result.current and last.number == len(result.deals)
    assert last.points.nos + last.points.eles == sum(trick.points for trick in last.tricks)
    assert replay_match(parse_record(data)) == result, "a parsed record replays the same"


def test_a_capote_is_an_ending_with_riscos_per_team() -> None:
    result = replay_match(record(deal_json(3, "2H", CAPOTE_PLAYS)))
    deal = result.deals[0]
    assert deal.ending is Ending.CAPOTE and deal.riscos == PerTeam(nos=4)
    assert deal.riscos[Team.NOS] == 4
    assert result.winner is Team.NOS and deal.to_json()["outcome"] == "capote"


def test_results_cannot_be_changed_after_the_engine() -> None:
    result = replay_match(record(deal_json(3, "2H", CAPOTE_PLAYS)))
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.deals[0].points = PerTeam()  # type: ignore[misc]


def test_an_outcome_is_built_by_name_and_points_by_team() -> None:
    with pytest.raises(TypeError):
        DealOutcome(Ending.CAPOTE, Team.NOS, 4)  # type: ignore[call-arg]
    outcome = DealOutcome(ending=Ending.CAPOTE, winner=Team.NOS, riscos=4)
    assert outcome.decided and not outcome.tie and outcome.riscos_with(1) == PerTeam(nos=5)
    with pytest.raises(KeyError, match="is not a team"):
        PerTeam(nos=1)["nos"]  # type: ignore[index]


def test_the_store_state_is_typed_and_its_json_is_the_page_s(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "s.db")
    turned, plays, revoke, _ = revoke_deal()
    store.append("mesa", DealStarted(dealer=0, turned=turned), *map(CardPlayed, plays))
    store.append("mesa", RenunciaDismissed(deal=1, trick=revoke["trick"], seat=revoke["seat"]))
    state = store.table_state("mesa")
    assert [view.status for view in state.revokes] == ["dismissed"]
    assert state.revokes[0].revoke.dismissed and state.current is not None
    shown = store.state("mesa")
    assert shown == {**state.to_json(), "repairs": []}
    assert shown["revokes"][0]["status"] == "dismissed" and shown["current"]["number"] == 1
