"""The event store: what is kept, what is refused, and that a kill loses nothing."""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from scorekeeper.errors import InvalidCardError, RecordError, ScorekeeperError
from scorekeeper.rules import random_legal_deal, replay_record
from scorekeeper.store import (
    SCHEMA_VERSION,
    CardCorrected,
    CardPlayed,
    ConflictError,
    DealCorrected,
    DealStarted,
    Event,
    MatchStarted,
    RecordReplaced,
    RenunciaConfirmed,
    RenunciaDismissed,
    RulesChanged,
    Store,
    StoreError,
    TrickGathered,
    Undone,
    default_db_path,
    event_from_json,
    event_to_json,
)

ROOT = Path(__file__).resolve().parents[1]


# -- helpers shared with the web tests ---------------------------------------------------------


def legal_deal(seed: int, dealer: int = 0) -> tuple[str, list[str]]:
    """A whole legal deal: the turned card and the 40 plays."""
    turned, plays, _ = random_legal_deal(random.Random(seed), dealer=dealer)
    return turned.notation, [card.notation for card in plays]


def revoke_deal(seed: int = 1, dealer: int = 0) -> tuple[str, list[str], dict[str, Any], list[str]]:
    """A deal with exactly one renúncia, made by swapping two plays of a legal deal (the engine
    judges).

    Returns the turned card, the plays, the renúncia and the legal plays it was made from."""
    rng = random.Random(seed)
    while True:
        turned, plays, _ = random_legal_deal(rng, dealer=dealer)
        cards = [card.notation for card in plays]
        for i in range(4, 24):
            for j in range(i + 1, 40):
                swapped = cards[:]
                swapped[i], swapped[j] = swapped[j], swapped[i]
                try:
                    result = replay_record(
                        {"deals": [{"dealer": dealer, "trump": turned.notation, "plays": swapped}]}
                    )
                except ScorekeeperError:
                    continue
                revokes = result["deals"][0]["revokes"]
                if len(revokes) == 1:
                    return turned.notation, swapped, revokes[0], cards


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store.open(tmp_path / "match.db")


def play(store: Store, cards: list[str], table: str = "mesa") -> None:
    store.append(table, *(CardPlayed(card) for card in cards))


# -- what the log keeps ------------------------------------------------------------------------


def test_a_deal_in_progress_replays_to_the_table_and_points(store: Store) -> None:
    turned, plays = legal_deal(1)
    store.append("mesa", DealStarted(dealer=0, turned=turned))
    play(store, plays[:6])
    state = store.state("mesa")
    assert state["seq"] == 7
    deal = state["current"]
    assert deal["turned"] == turned and deal["dealer"] == 0
    assert len(deal["tricks"]) == 1 and deal["table"]["cards"] == plays[4:6]
    assert state["score"] == {"nos": 0, "eles": 0}
    assert store.record("mesa") == {
        "rules": {},
        "deals": [{"dealer": 0, "trump": turned, "plays": plays[:6]}],
    }


def test_a_complete_deal_scores_riscos_like_the_engine(store: Store) -> None:
    turned, plays = legal_deal(2)
    store.append("mesa", DealStarted(dealer=3, turned=turned))
    play(store, plays)
    expected = replay_record({"deals": [{"dealer": 3, "trump": turned, "plays": plays}]})
    state = store.state("mesa")
    assert state["score"] == expected["score"] and sum(state["current"]["points"].values()) == 120
    assert state["next_dealer"] == 0


def test_every_event_round_trips_through_json() -> None:
    events: list[Event] = [
        DealStarted(dealer=1, turned="ah"),
        CardPlayed("7s", frame=12),
        TrickGathered(frame=13),
        CardCorrected(deal=1, play=2, card="kd"),
        DealCorrected(deal=1, dealer=2, turned="2c"),
        Undone(seq=4),
        RenunciaConfirmed(deal=1, trick=3, seat=2),
        RenunciaDismissed(deal=1, trick=3, seat=2),
        RulesChanged(rules={"tie": "carry"}),
        MatchStarted(),
        RecordReplaced(record={"deals": []}),
    ]
    for event in events:
        kind, data = event_to_json(event)
        assert event_from_json(kind, json.loads(json.dumps(data))) == event


@pytest.mark.parametrize(
    ("kind", "data", "message"),
    [
        ("card_played", {"card": "9H"}, "not in the Sueca deck"),
        ("deal_started", {"dealer": 4, "turned": "AH"}, "not a seat"),
        ("card_played", {"cards": "7H"}, "no field 'cards'"),
        ("bogus", {}, "unknown event kind"),
        ("undone", {"seq": 0}, "counted from 1"),
    ],
)
def test_malformed_events_are_refused_with_one_line(
    kind: str, data: dict[str, Any], message: str
) -> None:
    with pytest.raises(ScorekeeperError, match=message) as info:
        event_from_json(kind, data)
    assert "\n" not in str(info.value)


# -- what the log refuses (and stays as it was) ------------------------------------------------


@pytest.mark.parametrize(
    ("events", "error", "message"),
    [
        ([CardPlayed("2S")], RecordError, "already played"),
        ([CardPlayed("2C")], RecordError, "2C"),
        (
            [DealStarted(dealer=1, turned="AH")],
            RecordError,
            "only the last deal may be in progress",
        ),
        ([CardCorrected(deal=1, play=9, card="2S")], StoreError, "that deal has 2 plays"),
        ([CardCorrected(deal=2, play=1, card="2S")], StoreError, "deal 2 does not exist"),
        ([RulesChanged(rules={"tie": "sometimes"})], RecordError, "tie"),
        ([RecordReplaced(record={"deals": "none"})], RecordError, "deals"),
        ([RenunciaConfirmed(deal=1, trick=1, seat=2)], StoreError, "no renúncia"),
    ],
)
def test_a_write_that_does_not_replay_is_not_appended(
    store: Store, events: list[Any], error: type[Exception], message: str
) -> None:
    store.append("mesa", DealStarted(dealer=0, turned="2C"), CardPlayed("2S"), CardPlayed("3S"))
    before = store.events("mesa")
    with pytest.raises(error, match=message):
        store.append("mesa", *events)
    assert store.events("mesa") == before
    assert store.state("mesa")["seq"] == 3


def test_a_card_played_twice_is_refused(store: Store) -> None:
    store.append("mesa", DealStarted(dealer=0, turned="2C"), CardPlayed("2S"))
    with pytest.raises(RecordError, match="2S"):
        store.append("mesa", CardPlayed("2S"))
    assert len(store.events("mesa")) == 2


def test_a_deal_after_the_match_is_won_is_refused(store: Store) -> None:
    store.append("mesa", RulesChanged(rules={"target": 1}))
    turned, plays = legal_deal(3)
    store.append("mesa", DealStarted(dealer=0, turned=turned))
    play(store, plays)
    if store.state("mesa")["winner"] is None:  # a 60-60 deal: nobody won, nothing to check
        pytest.skip("seed gave a tie")
    with pytest.raises(RecordError, match="new match"):
        store.append("mesa", DealStarted(dealer=1, turned="AH"))
    store.append("mesa", MatchStarted(), DealStarted(dealer=1, turned="AH"))
    state = store.state("mesa")
    assert state["match"] == 2 and state["score"] == {"nos": 0, "eles": 0}
    assert state["rules"]["target"] == 1, "a new match keeps the table's rules"
    assert state["history"][0]["winner"] in ("nos", "eles")


@pytest.mark.parametrize("text", ["9H", "8S", "1H", "JOKER"])
def test_an_unknown_card_never_reaches_the_log(text: str) -> None:
    with pytest.raises(InvalidCardError):
        CardPlayed(text)


# -- corrections, undo, renúncias --------------------------------------------------------------


def test_undo_takes_back_the_last_card_then_the_one_before(store: Store) -> None:
    store.append("mesa", DealStarted(dealer=0, turned="2C"))
    play(store, ["2S", "3S", "4S"])
    store.append("mesa", TrickGathered())
    store.undo("mesa")  # the gathering and the card under it
    assert store.record("mesa")["deals"][0]["plays"] == ["2S", "3S"]
    store.undo("mesa")
    assert store.record("mesa")["deals"][0]["plays"] == ["2S"]
    kinds = [stored.event.kind for stored in store.events("mesa")]
    assert kinds.count("undone") == 3, "undo appends; nothing is deleted"


def test_undo_on_an_empty_table_says_so(store: Store) -> None:
    with pytest.raises(StoreError, match="nothing to undo"):
        store.undo("mesa")


def test_an_undo_must_target_the_latest_event_in_effect(store: Store) -> None:
    store.append("mesa", DealStarted(dealer=0, turned="2C"), CardPlayed("2S"))
    with pytest.raises(StoreError, match="only the latest"):
        store.append("mesa", Undone(seq=1))


def test_correcting_the_card_that_made_a_renuncia_clears_it(store: Store) -> None:
    turned, plays, revoke, legal = revoke_deal()
    store.append("mesa", DealStarted(dealer=0, turned=turned))
    play(store, plays)
    state = store.state("mesa")
    assert [(r["trick"], r["seat"], r["status"]) for r in state["revokes"]] == [
        (revoke["trick"], revoke["seat"], "suspected")
    ]
    moved = [
        number for number, (seen, real) in enumerate(zip(plays, legal), start=1) if seen != real
    ]
    assert len(moved) == 2
    store.append(
        "mesa", *(CardCorrected(deal=1, play=number, card=legal[number - 1]) for number in moved)
    )
    assert store.state("mesa")["revokes"] == []


def test_a_card_before_any_deal_is_refused(store: Store) -> None:
    with pytest.raises(StoreError, match="no deal started"):
        store.append("mesa", CardPlayed("7H"))
    assert store.events("mesa") == []


def test_renuncia_decisions_are_kept_and_can_be_undone(store: Store) -> None:
    turned, plays, revoke, _ = revoke_deal()
    store.append("mesa", DealStarted(dealer=0, turned=turned))
    play(store, plays)
    key = {"deal": 1, "trick": revoke["trick"], "seat": revoke["seat"]}
    store.append("mesa", RenunciaDismissed(**key))
    assert store.state("mesa")["revokes"][0]["status"] == "dismissed"
    store.append("mesa", RenunciaConfirmed(**key))
    assert store.state("mesa")["revokes"][0]["status"] == "confirmed"
    store.undo("mesa")
    assert store.state("mesa")["revokes"][0]["status"] == "dismissed"


def test_a_dismissed_renuncia_no_longer_costs_four_riscos(store: Store) -> None:
    turned, plays, revoke, _ = revoke_deal()
    store.append("mesa", DealStarted(dealer=0, turned=turned))
    play(store, plays)
    penalized = store.state("mesa")["score"]
    assert sorted(penalized.values()) == [0, 4]
    key = {"deal": 1, "trick": revoke["trick"], "seat": revoke["seat"]}
    store.append("mesa", RenunciaDismissed(**key))
    assert store.state("mesa")["current"]["outcome"] in {"points", "capote", "tie"}
    assert store.record("mesa")["deals"][0]["dismissed"] == [
        {"trick": revoke["trick"], "seat": revoke["seat"]}
    ]
    store.append("mesa", RenunciaConfirmed(**key))
    assert store.state("mesa")["score"] == penalized


def test_the_dealer_and_turned_card_can_be_corrected(store: Store) -> None:
    store.append("mesa", DealStarted(dealer=0, turned="2C"))
    store.append("mesa", DealCorrected(deal=1, dealer=2, turned="AH"))
    deal = store.state("mesa")["current"]
    assert (deal["dealer"], deal["turned"], deal["trump"]) == (2, "AH", "H")


def test_a_whole_record_replaces_the_match(store: Store) -> None:
    turned, plays = legal_deal(4)
    store.append("mesa", DealStarted(dealer=1, turned="AH"), CardPlayed("2S"))
    record = {
        "rules": {"tie": "carry"},
        "deals": [{"dealer": 2, "trump": turned, "plays": plays[:9]}],
    }
    store.append("mesa", RecordReplaced(record=record))
    assert store.record("mesa")["deals"] == record["deals"]
    assert store.state("mesa")["rules"]["tie"] == "carry"
    store.undo("mesa")
    assert store.record("mesa")["deals"] == [{"dealer": 1, "trump": "AH", "plays": ["2S"]}]


# -- the file ----------------------------------------------------------------------------------


def test_tables_are_independent(store: Store) -> None:
    store.append("mesa-1", DealStarted(dealer=0, turned="AH"))
    store.append("mesa-2", DealStarted(dealer=2, turned="7S"), CardPlayed("2H"))
    assert store.tables() == ["mesa-1", "mesa-2"]
    assert store.last_seq("mesa-1") == 1 and store.last_seq("mesa-2") == 2
    assert store.state("mesa-3")["current"] is None
    with pytest.raises(StoreError, match="table id"):
        store.state("../etc")


def test_a_stale_writer_gets_a_conflict(store: Store) -> None:
    store.append("mesa", DealStarted(dealer=0, turned="AH"), expect=0)
    with pytest.raises(ConflictError, match="is at event 1"):
        store.append("mesa", CardPlayed("2S"), expect=0)
    store.append("mesa", CardPlayed("2S"), expect=1)


def test_a_write_caught_in_a_wal_locking_race_is_done_again_once(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Many tables' pushers and phones open connections at once; SQLite may then fail a COMMIT
    # with "locking protocol" and roll it back. The write must land, once, not fail the table.
    connect = store._connect
    races = iter([True])

    class RacingConnection:
        def __init__(self, conn: sqlite3.Connection) -> None:
            self._conn = conn

        def __getattr__(self, name: str) -> Any:
            return getattr(self._conn, name)

        def execute(self, sql: str, *args: Any) -> Any:
            if sql == "COMMIT" and next(races, False):
                self._conn.execute("ROLLBACK")
                raise sqlite3.OperationalError("locking protocol")
            return self._conn.execute(sql, *args)

    monkeypatch.setattr(store, "_connect", lambda: RacingConnection(connect()))
    store.append("mesa", DealStarted(dealer=0, turned="AH"), expect=0)
    store.append("mesa", CardPlayed("2S"), expect=1)
    assert [e.seq for e in store.events("mesa")] == [1, 2]


def test_the_log_cannot_be_rewritten_even_by_hand(store: Store) -> None:
    store.append("mesa", DealStarted(dealer=0, turned="AH"))
    conn = sqlite3.connect(store.path)
    try:
        for sql in ("UPDATE events SET data = '{}'", "DELETE FROM events"):
            with pytest.raises(sqlite3.IntegrityError, match="append-only"):
                conn.execute(sql)
        with pytest.raises(sqlite3.IntegrityError):
            conn.execute("INSERT INTO events VALUES ('mesa', 1, 'match_started', '{}', 'now')")
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        conn.close()


def test_concurrent_writers_get_consecutive_sequence_numbers(tmp_path: Path) -> None:
    path = tmp_path / "busy.db"
    Store.open(path).append("mesa", DealStarted(dealer=0, turned="AH"))

    def writer() -> None:
        mine = Store.open(path)
        for _ in range(10):
            mine.append("mesa", TrickGathered())

    threads = [threading.Thread(target=writer) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [stored.seq for stored in Store.open(path).events("mesa")] == list(range(1, 32))


def test_files_that_are_not_ours_are_refused(tmp_path: Path) -> None:
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not a database at all" * 100)
    with pytest.raises(StoreError, match="file is not a database"):
        Store.open(junk)
    newer = tmp_path / "newer.db"
    conn = sqlite3.connect(newer)
    conn.execute("PRAGMA user_version = 99")
    conn.close()
    with pytest.raises(StoreError, match="newer scorekeeper"):
        Store.open(newer)


def test_the_default_file_is_in_the_users_data_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SCOREKEEPER_HOME", str(tmp_path / "home-of-scorekeeper"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert Store.open().path == tmp_path / "home-of-scorekeeper" / "scorekeeper.db"
    assert (tmp_path / "home-of-scorekeeper" / "scorekeeper.db").is_file()
    assert not (tmp_path / "data").exists()
    monkeypatch.delenv("SCOREKEEPER_HOME")
    assert default_db_path() == tmp_path / "data" / "scorekeeper" / "scorekeeper.db"
    store = Store.open()
    assert store.path.is_file()
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert (
        default_db_path()
        == tmp_path / "home" / ".local" / "share" / "scorekeeper" / "scorekeeper.db"
    )


# -- kill and restart --------------------------------------------------------------------------

_WRITER = """
import json, sys
from scorekeeper.store import Store, event_from_json
store = Store.open(sys.argv[1])
for line in sys.stdin:
    kind, data = json.loads(line)
    stored = store.append("mesa", event_from_json(kind, data))
    print(stored[-1].seq, flush=True)
"""


def test_a_kill_mid_deal_loses_nothing_that_was_acknowledged(tmp_path: Path) -> None:
    plan: list[Any] = []
    for number, seed in enumerate((11, 12)):
        turned, plays = legal_deal(seed, dealer=number)
        plan.append(DealStarted(dealer=number, turned=turned))
        plan.extend(CardPlayed(card) for card in plays)
    path = tmp_path / "killed.db"
    child = subprocess.Popen(
        [sys.executable, "-c", _WRITER, str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert child.stdin is not None and child.stdout is not None
    child.stdin.write("".join(json.dumps(event_to_json(event)) + "\n" for event in plan))
    child.stdin.flush()
    acknowledged = 0
    while acknowledged < 55:  # mid deal 2, with more writes queued behind
        line = child.stdout.readline()
        assert line, "the writer died before it was killed"
        acknowledged = int(line)
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=10)
    child.stdin.close()
    child.stdout.close()

    reopened = Store.open(path)
    kept = [stored.event for stored in reopened.events("mesa")]
    assert len(kept) >= acknowledged
    assert kept == plan[: len(kept)], (
        "the log is an exact prefix of what was written: no torn event"
    )
    assert len(kept) < len(plan), "killed mid-deal"
    twin = Store.open(tmp_path / "twin.db")
    twin.append("mesa", *plan[: len(kept)])
    assert reopened.state("mesa") == twin.state("mesa")
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()
    # ...and the deal carries on where it stopped.
    reopened.append("mesa", *plan[len(kept) :])
    assert reopened.state("mesa")["current"]["complete"]
