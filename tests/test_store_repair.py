"""A store that survives a bad row or a damaged file, and a fold that gives the same state however
the log is cut into writes."""

from __future__ import annotations

import random
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekeeper.rules import random_legal_deal
from scorekeeper.store import (
    CardCorrected,
    CardPlayed,
    DealStarted,
    MatchStarted,
    RulesChanged,
    Store,
    StoredEvent,
    StoreError,
    TrickGathered,
    Undone,
    fold,
    in_effect,
)
from scorekeeper.web import create_app
from tests.test_store import legal_deal


def raw_insert(
    path: Path, seq: int, kind: str, data: str, at: str = "2026-01-01T00:00:00+00:00"
) -> None:
    conn = sqlite3.connect(path)
    conn.execute("INSERT INTO events VALUES ('mesa', ?, ?, ?, ?)", (seq, kind, data, at))
    conn.commit()
    conn.close()


def five_cards(path: Path) -> list[str]:
    store = Store.open(path)
    turned, cards = legal_deal(5)
    store.append("mesa", DealStarted(dealer=0, turned=turned), *(CardPlayed(c) for c in cards[:5]))
    return cards


BAD_ROWS = [
    ("card_played", "{not json", "2026-01-01T00:00:00+00:00", "not valid JSON"),
    ("card_played", '{"card": "2S"}', "yesterday", "bad time 'yesterday'"),
    ("card_flipped", '{"card": "2S"}', "2026-01-01T00:00:00+00:00", "unknown event kind"),
    (
        "card_played",
        '{"card": "2S", "pad": "' + "x" * 50 + '"}',
        "2026-01-01T00:00:00+00:00",
        "no field 'pad'",
    ),
    ("card_played", '{"card": "\\ud800"}', "2026-01-01T00:00:00+00:00", "lone surrogate"),
]


@pytest.mark.parametrize(("kind", "data", "at", "reason"), BAD_ROWS)
def test_a_bad_row_is_set_aside_the_rest_is_served_and_the_table_goes_on(
    tmp_path: Path, kind: str, data: str, at: str, reason: str
) -> None:
    path = tmp_path / "bad.db"
    cards = five_cards(path)
    raw_insert(path, 7, kind, data, at)  # written by something else, or a disk that lied

    store = Store.open(path)
    assert [r.seq for r in store.repairs] == [7] and reason in store.repairs[0].reason
    state = store.state("mesa")
    assert state["seq"] == 7 and len(state["repairs"]) == 1 and "event 7" in state["repairs"][0]
    assert "\n" not in state["repairs"][0]
    assert [s.seq for s in store.events("mesa")] == [1, 2, 3, 4, 5, 6], (
        "every other event is served"
    )
    store.append("mesa", CardPlayed(cards[5]))  # and the table carries on after the bad row
    assert store.last_seq("mesa") == 8
    assert store.record("mesa")["deals"][0]["plays"] == cards[:6]


def test_a_row_that_decodes_but_does_not_replay_is_set_aside(tmp_path: Path) -> None:
    path = tmp_path / "replay.db"
    cards = five_cards(path)
    raw_insert(path, 7, "card_played", f'{{"card": "{cards[0]}"}}')  # a card played twice
    store = Store.open(path)
    assert "no longer replays" in store.repairs[0].reason and store.repairs[0].seq == 7
    assert store.record("mesa")["deals"][0]["plays"] == cards[:5]


def test_the_page_says_the_table_was_repaired(tmp_path: Path) -> None:
    path = tmp_path / "page.db"
    five_cards(path)
    raw_insert(path, 7, "card_played", "{not json")
    client = create_app({"TESTING": True, "DATABASE": str(path), "PIN": "2468"}).test_client()
    page = client.get("/").get_data(as_text=True)
    assert "camera repaired" in page and "event 7 of table" in page
    assert client.get("/api/state").get_json()["repairs"][0].startswith("event 7 of table 'mesa'")
    clean = create_app(
        {"TESTING": True, "DATABASE": str(tmp_path / "clean.db"), "PIN": "2468"}
    ).test_client()
    assert "camera repaired" not in clean.get("/").get_data(as_text=True)


def test_garbage_in_the_middle_of_the_file_opens_with_what_remains(tmp_path: Path) -> None:
    path = tmp_path / "damaged.db"
    store = Store.open(path)
    rng = random.Random(8)
    written = 0
    for table in ("mesa", "mesa-2"):
        for dealer in range(4):
            turned, plays, _ = random_legal_deal(rng, dealer=dealer)
            if store.state(table)["winner"]:
                store.append(table, MatchStarted())
            store.append(
                table,
                DealStarted(dealer=dealer, turned=turned.notation),
                *(CardPlayed(c.notation) for c in plays),
            )
            written += 41
    original = {
        table: {s.seq: s.event for s in store.events(table)} for table in ("mesa", "mesa-2")
    }
    del store
    size = path.stat().st_size
    with path.open("r+b") as file:  # one page in the middle of the file turned to noise
        file.seek((size // 4096 // 2) * 4096)
        file.write(random.Random(1).randbytes(4096))

    reopened = Store.open(path)
    file_repair = reopened.repairs[0]
    assert file_repair.seq is None and "was damaged" in file_repair.reason
    assert list(tmp_path.glob("damaged.db.damaged-*")), "the damaged file is kept beside the store"
    kept = 0
    for table in ("mesa", "mesa-2"):
        state = reopened.state(table)  # no "database disk image is malformed": it answers
        assert any("the file" in line for line in state["repairs"])
        for stored in reopened.events(table):
            assert original[table][stored.seq] == stored.event, "what is kept is what was written"
            kept += 1
    assert 0 < kept < written
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA quick_check").fetchone()[0] == "ok"
    conn.close()


def test_a_file_that_is_a_folder_or_under_a_file_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("x")
    with pytest.raises(StoreError, match="a file is in the way"):
        Store.open(tmp_path / "a-file" / "x.db")
    with pytest.raises(StoreError, match="is a folder"):
        Store.open(tmp_path)


# -- the incremental fold ----------------------------------------------------------------------


def reference_fold(events: list[StoredEvent]) -> list[dict]:
    """The fold as it was defined first: cancel every undone event, then place the rest."""
    return [match.record for match in fold(in_effect(events)).matches]


@settings(max_examples=60, deadline=None, database=None)
@given(seed=st.integers(0, 10_000), cuts=st.lists(st.integers(1, 400), max_size=8))
def test_writes_cut_anywhere_fold_to_the_state_of_the_whole_log(seed: int, cuts: list[int]) -> None:
    """Random games with undos, corrections, rule changes and new matches: extending the fold write
    by write gives what folding the whole log at once gives, and what the undo-first fold gives."""
    rng = random.Random(seed)
    at = datetime(2026, 1, 1, tzinfo=UTC)
    log: list[StoredEvent] = []

    def add(event: object) -> None:
        log.append(StoredEvent("mesa", len(log) + 1, at, event))  # type: ignore[arg-type]

    for match in range(rng.randint(1, 3)):
        if match:
            add(MatchStarted())
        if rng.random() < 0.3:
            add(RulesChanged({"tie": rng.choice(["carry", "none"])}))
        for dealer in range(rng.randint(1, 2)):
            turned, plays, _ = random_legal_deal(rng, dealer=dealer)
            add(DealStarted(dealer=dealer, turned=turned.notation))
            for number, card in enumerate(plays[: rng.choice([10, 40])], start=1):
                add(CardPlayed(card.notation))
                if number % 4 == 0 and rng.random() < 0.3:
                    add(TrickGathered())
                if rng.random() < 0.08:  # take it back and play it again
                    add(Undone(seq=log[-1].seq))
                    if (
                        isinstance(log[-2].event, CardPlayed)
                        and log[-2].event.card == card.notation
                    ):
                        add(CardPlayed(card.notation))
            if rng.random() < 0.3 and plays:
                add(CardCorrected(deal=dealer + 1, play=1, card=plays[0].notation))
        if rng.random() < 0.5:  # undo the last event in effect, whatever it is
            add(Undone(seq=in_effect(log)[-1].seq))
    whole = fold(log)
    stepwise = fold([])
    start = 0
    for cut in sorted({c % (len(log) + 1) for c in cuts}) + [len(log)]:
        stepwise = stepwise.extend(log[start:cut])
        start = cut
    assert (
        [m.record for m in stepwise.matches]
        == [m.record for m in whole.matches]
        == reference_fold(log)
    )
    assert [s.seq for s in stepwise.in_effect] == [s.seq for s in in_effect(log)]
