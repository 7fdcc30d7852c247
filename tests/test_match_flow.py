"""An evening at one table: a won match gives way to the next, names stay with the seats, and
neither "Nova partida" nor undo ever loses a deal."""

from __future__ import annotations

from pathlib import Path

import pytest

from scorekeeper.pipeline.progress import describe, printer
from scorekeeper.pipeline.recorder import StoreRecorder
from scorekeeper.rules import Card, replay_record
from scorekeeper.store import (
    CardPlayed,
    DealStarted,
    MatchStarted,
    RenunciaConfirmed,
    RulesChanged,
    SeatNamed,
    Store,
    StoreError,
    event_from_json,
)
from scorekeeper.tracking import events as game
from tests.test_store import legal_deal, revoke_deal


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store.open(tmp_path / "evening.db")


def winning_deal(first_seed: int = 1, dealer: int = 0) -> tuple[str, list[str]]:
    """A legal deal that is no 60-60 tie, so a match to 1 risco ends with it."""
    for seed in range(first_seed, first_seed + 50):
        turned, plays = legal_deal(seed, dealer=dealer)
        if replay_record({"deals": [{"dealer": dealer, "trump": turned, "plays": plays}]})[
            "winner"
        ]:
            return turned, plays
    raise AssertionError("no winning deal in 50 seeds")


def won_match(store: Store) -> tuple[str, list[str]]:
    store.append("mesa", RulesChanged(rules={"target": 1}))
    turned, plays = winning_deal()
    store.append("mesa", DealStarted(dealer=0, turned=turned), *(CardPlayed(c) for c in plays))
    assert store.match_won("mesa")
    return turned, plays


def seen(turned: str, plays: list[str], *, dealer: int, frame: int = 0) -> list[game.Event]:
    """What the tracker reports for a deal (seats do not matter to the recorder)."""
    events: list[game.Event] = [
        game.DealStarted(
            frame=frame, deal=1, dealer=dealer, turned=Card.parse(turned), confidence=1.0
        )
    ]
    for i, card in enumerate(plays):
        events.append(
            game.CardPlayed(
                frame=frame + i + 1,
                deal=1,
                trick=i // 4 + 1,
                seat=(dealer + 1 + i) % 4,
                card=Card.parse(card),
                confidence=1.0,
            )
        )
    return events


# -- the next match --------------------------------------------------------------------------------


def test_the_next_trunfo_after_a_won_match_starts_the_next_match(store: Store) -> None:
    won_match(store)
    store.append("mesa", SeatNamed(seat=1, name="Rui"))
    turned, plays = legal_deal(40, dealer=1)
    written = store.append("mesa", DealStarted(dealer=1, turned=turned), next_match=True)
    assert [s.event.kind for s in written] == ["match_started", "deal_started"], (
        "one write, match first"
    )
    state = store.state("mesa")
    assert (
        state["match"] == 2 and state["score"] == {"nos": 0, "eles": 0} and state["winner"] is None
    )
    assert state["current"]["number"] == 1 and state["current"]["turned"] == turned
    assert state["history"][0]["winner"] in ("nos", "eles") and state["history"][0]["deals"] == 1
    assert state["rules"]["target"] == 1 and state["names"][1] == "Rui", (
        "rules and names stay with the table"
    )
    store.append("mesa", CardPlayed(plays[0]), next_match=True)
    assert store.state("mesa")["match"] == 2, "only a deal opens a match"


def test_a_deal_in_a_match_still_going_opens_no_new_match(store: Store) -> None:
    turned, plays = legal_deal(41)
    store.append("mesa", DealStarted(dealer=0, turned=turned), *(CardPlayed(c) for c in plays))
    store.append("mesa", DealStarted(dealer=1, turned=legal_deal(42, dealer=1)[0]), next_match=True)
    assert store.state("mesa")["match"] == 1 and len(store.state("mesa")["deals"]) == 2


def test_undo_goes_back_across_the_new_match_into_the_won_one(store: Store) -> None:
    won_match(store)
    turned, plays = legal_deal(43, dealer=1)
    store.append("mesa", DealStarted(dealer=1, turned=turned), next_match=True)
    store.append("mesa", CardPlayed(plays[0]))
    store.undo("mesa")
    store.undo("mesa")  # the deal: the new match is empty
    assert store.state("mesa")["match"] == 2 and store.state("mesa")["current"] is None
    store.undo("mesa")  # the match_started the deal brought
    state = store.state("mesa")
    assert state["match"] == 1 and state["winner"] in ("nos", "eles") and state["history"] == []
    again = store.append("mesa", DealStarted(dealer=1, turned=turned), next_match=True)
    assert [s.event.kind for s in again] == ["match_started", "deal_started"]


def test_nova_partida_in_the_middle_of_a_deal_carries_the_deal_into_the_new_match(
    store: Store,
) -> None:
    first_turned, first = legal_deal(44)
    store.append(
        "mesa", DealStarted(dealer=0, turned=first_turned), *(CardPlayed(c) for c in first)
    )
    turned, plays = legal_deal(45, dealer=1)
    store.append("mesa", DealStarted(dealer=1, turned=turned), *(CardPlayed(c) for c in plays[:6]))
    store.append("mesa", MatchStarted())
    state = store.state("mesa")
    assert (
        state["match"] == 2 and state["current"]["number"] == 1 and state["current"]["dealer"] == 1
    )
    first_alone = replay_record({"deals": [{"dealer": 0, "trump": first_turned, "plays": first}]})
    assert state["history"][0]["score"] == first_alone["score"], (
        "the old match scores its finished deal only"
    )
    store.append(
        "mesa", *(CardPlayed(c) for c in plays[6:])
    )  # the camera goes on: nothing is refused
    alone = replay_record({"deals": [{"dealer": 1, "trump": turned, "plays": plays}]})
    assert store.state("mesa")["score"] == alone["score"]
    for _ in range(35):  # the 34 cards played since, then "Nova partida"
        store.undo("mesa")
    state = store.state("mesa")
    assert state["match"] == 1 and [
        len(d["tricks"]) * 4 + len(d["table"]["cards"]) for d in state["deals"]
    ] == [40, 6]


def test_a_renuncia_decision_moves_with_its_deal(store: Store) -> None:
    turned, plays, revoke, _ = revoke_deal(seed=5, dealer=0)
    upto = 4 * revoke["proven_in_trick"]
    store.append(
        "mesa", DealStarted(dealer=0, turned=turned), *(CardPlayed(c) for c in plays[:upto])
    )
    store.append("mesa", RenunciaConfirmed(deal=1, trick=revoke["trick"], seat=revoke["seat"]))
    store.append("mesa", MatchStarted())
    assert store.state("mesa")["revokes"][0]["status"] == "confirmed"


# -- names -----------------------------------------------------------------------------------------


def test_names_are_tidied_and_checked() -> None:
    assert SeatNamed(seat=2, name="  Maria   da  Luz ").name == "Maria da Luz"
    assert event_from_json("seat_named", {"seat": 0, "name": "Zé"}) == SeatNamed(seat=0, name="Zé")
    for bad, words in (
        ("A" * 25, "at most 24"),
        ("Ana\x07", "control character"),
        ("Ana\u202e", "control character"),
        (7, "not text"),
    ):
        with pytest.raises(StoreError, match=words):
            SeatNamed(seat=0, name=bad)  # type: ignore[arg-type]
    with pytest.raises(StoreError, match="not a seat"):
        SeatNamed(seat=4, name="Ana")


def test_a_name_shows_until_cleared_and_the_history_keeps_each_matchs_names(store: Store) -> None:
    store.append("mesa", SeatNamed(seat=0, name="Ana"), SeatNamed(seat=3, name="Rui"))
    assert store.state("mesa")["names"] == ["Ana", "", "", "Rui"]
    won_match(store)
    store.append("mesa", SeatNamed(seat=3, name=""))
    store.append("mesa", DealStarted(dealer=1, turned=legal_deal(46, dealer=1)[0]), next_match=True)
    store.append("mesa", SeatNamed(seat=1, name="Luís"))
    state = store.state("mesa")
    assert state["names"] == ["Ana", "Luís", "", ""]
    assert state["history"][0]["names"] == ["Ana", "", "", ""]


# -- the camera's side: the recorder and the terminal ----------------------------------------------


def test_the_recorder_opens_the_next_match_at_the_next_trunfo(store: Store) -> None:
    warnings: list[str] = []
    recorder = StoreRecorder(store, "mesa", warn=warnings.append)
    store.append("mesa", RulesChanged(rules={"target": 1}))
    turned, plays = winning_deal()
    recorder.record(seen(turned, plays, dealer=0))
    assert store.match_won("mesa")
    turned2, plays2 = legal_deal(47, dealer=1)
    recorder.record(seen(turned2, plays2[:5], dealer=1, frame=100))
    state = store.state("mesa")
    assert warnings == [] and state["match"] == 2 and len(state["current"]["tricks"]) == 1


def test_a_table_that_confirms_loses_no_card_of_the_deal_turned_meanwhile(store: Store) -> None:
    warnings: list[str] = []
    recorder = StoreRecorder(store, "mesa", warn=warnings.append, confirm_next_match=True)
    store.append("mesa", RulesChanged(rules={"target": 1}))
    turned, plays = winning_deal()
    recorder.record(seen(turned, plays, dealer=0))
    turned2, plays2 = legal_deal(48, dealer=1)
    events = seen(turned2, plays2, dealer=1, frame=100)
    assert recorder.record(events[:3]) == 0 and recorder.waiting_for_next_match
    assert len(warnings) == 1 and "Nova partida" in warnings[0], "said once, not at every card"
    assert store.state("mesa")["match"] == 1
    store.append("mesa", MatchStarted())  # the table taps "Nova partida"
    recorder.record(events[3:10])
    state = store.state("mesa")
    assert state["match"] == 2 and state["current"]["turned"] == turned2
    assert len(state["current"]["tricks"]) * 4 + len(state["current"]["table"]["cards"]) == 9
    assert not recorder.waiting_for_next_match and recorder.refused == []


def test_the_terminal_names_seats_one_way_and_quotes_no_stale_score(
    store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    store.append("mesa", RulesChanged(rules={"target": 1}), SeatNamed(seat=1, name="Rui"))
    turned, plays = winning_deal()
    store.append("mesa", DealStarted(dealer=0, turned=turned), *(CardPlayed(c) for c in plays))
    state = store.table_state("mesa")
    assert state.current is not None
    ended = describe(game.DealEnded(frame=9, deal=1, points=state.current.points.to_json()), state)
    assert (
        ended is not None and "won by" in ended and "the next trunfo starts the next match" in ended
    )
    start = game.DealStarted(frame=10, deal=2, dealer=1, turned=Card.parse("AH"), confidence=1.0)
    line = describe(start, state, waiting=True, confirm_next_match=True)
    assert (
        line is not None
        and "Rui (Eles)" in line
        and "Nova partida" in line
        and "Match 1" not in line
    )
    gathered = game.TrickGathered(frame=20, deal=2, trick=1, winner=2, cards=(), points=11)
    assert describe(gathered, state, waiting=True) == "  vaza 1 to Jogador 3 (Nós), 11 points"

    show = printer(store, "mesa")
    store.append("mesa", DealStarted(dealer=1, turned="AH"), next_match=True)
    show(start, 0.0)
    assert (
        capsys.readouterr().out == "Match 2, deal 1: dealer Rui (Eles), trunfo AH · a new match\n"
    )
