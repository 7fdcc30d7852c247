"""The tournament's store: every table's pushed log in PostgreSQL, folded like a table's own log.

Rows of ``events`` are never updated or deleted, keyed by (tournament, table, seq). A push is
checked whole before anything is written: each event must be of the agreed vocabulary
(:func:`scorekeeper.store.event_from_json`), the seqs must continue the table's log without a gap,
events the server already holds must be the same events (a push sent twice is stored once), and
the log with them must still replay through the rules engine (:func:`scorekeeper.store.fold`, the
same fold the table's SQLite store uses). A push commits with a ``NOTIFY`` so every server process
listening on the database tells its pages at once.

Schema migrations are the SQL files in ``migrations/``, applied in the order of their numbers under
an advisory lock; ``schema_version`` lists those applied.
"""

from __future__ import annotations

import copy
import hashlib
import hmac
import json
import re
import secrets
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from importlib import resources
from typing import Any

import psycopg
from psycopg.rows import tuple_row
from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool

from scorekeeper.errors import ScorekeeperError
from scorekeeper.rules import MatchResult, replay_record
from scorekeeper.store import (
    StoredEvent,
    TableState,
    build_state,
    check_table_id,
    event_from_json,
    event_to_json,
    fold,
)
from scorekeeper.tournament.standings import (
    Game,
    Scoring,
    Standing,
    TournamentError,
    pair_round,
    standings,
)

CHANNEL = "scorekeeper_events"
MAX_BATCH = 1000
"""Events one push may carry; a table catching up sends several pushes."""
_MIGRATION_LOCK = 7_146_012_021  # any constant: one migrating process at a time
_MIGRATION_NAME = re.compile(r"(\d{3})_[a-z0-9_]+\.sql")
_TEAM_NAME_MAX = 80
_PUSH_FIELDS = {"seq", "kind", "data", "at"}


class PushError(TournamentError):
    """A push that cannot be stored as sent: malformed, or a log that does not replay (HTTP 400)."""


class PushConflict(TournamentError):
    """A push that does not continue the server's copy of the log (HTTP 409); ``acked`` says where
    it is, None when the table's log differs from the copy (resending cannot fix that)."""

    def __init__(self, message: str, *, acked: int | None) -> None:
        super().__init__(message)
        self.acked = acked


def migrations() -> list[tuple[int, str, str]]:
    """(version, file name, SQL) of every migration shipped, in order."""
    found = []
    for entry in resources.files("scorekeeper.tournament").joinpath("migrations").iterdir():
        match = _MIGRATION_NAME.fullmatch(entry.name)
        if match:
            found.append((int(match.group(1)), entry.name, entry.read_text(encoding="utf-8")))
    return sorted(found)


def migrate(conn: psycopg.Connection[Any]) -> list[str]:
    """Apply the migrations this database lacks, in one transaction; return their file names."""
    applied_now = []
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_version ("
            " version INTEGER PRIMARY KEY, name TEXT NOT NULL,"
            " applied TIMESTAMPTZ NOT NULL DEFAULT now())"
        )
        row = conn.execute("SELECT coalesce(max(version), 0) FROM schema_version").fetchone()
        current = int(row[0]) if row else 0
        shipped = migrations()
        newest = shipped[-1][0] if shipped else 0
        if current > newest:
            raise TournamentError(
                f"the database has schema {current}, this scorekeeper knows up to {newest}: "
                "upgrade scorekeeper"
            )
        for version, name, sql in shipped:
            if version > current:
                conn.execute(sql.encode())  # several statements, no parameters
                conn.execute(
                    "INSERT INTO schema_version (version, name) VALUES (%s, %s)", (version, name)
                )
                applied_now.append(name)
    return applied_now


def key_digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class Summary:
    """What the organiser's page shows of one table."""

    table: str
    seq: int
    data: dict[str, Any]


class TournamentStore:
    """One tournament in a PostgreSQL database. Thread-safe; several processes may share it."""

    def __init__(self, dsn: str, tournament: str = "torneio", *, pool_size: int = 8) -> None:
        self.dsn = dsn
        self.tournament = check_name(tournament, "tournament name")
        self.pool = ConnectionPool(
            dsn, min_size=1, max_size=pool_size, kwargs={"row_factory": tuple_row}, open=False
        )
        self._logs: dict[str, list[StoredEvent]] = {}  # rows never change: read each one once
        self._states: dict[str, tuple[int, TableState]] = {}
        self._lock = threading.Lock()

    @classmethod
    def open(
        cls,
        dsn: str,
        tournament: str = "torneio",
        *,
        scoring: Scoring | None = None,
        pool_size: int = 8,
    ) -> TournamentStore:
        """Connect, apply missing migrations, create the tournament if new (and set its scoring)."""
        store = cls(dsn, tournament, pool_size=pool_size)
        try:
            with psycopg.connect(dsn, connect_timeout=10) as conn:
                migrate(conn)
        except psycopg.OperationalError as error:
            raise TournamentError(
                f"cannot reach the tournament database: {_first_line(error)}"
            ) from None
        store.pool.open(wait=True, timeout=30)
        store.setup(scoring)
        return store

    def close(self) -> None:
        self.pool.close()

    def setup(self, scoring: Scoring | None) -> None:
        with self.pool.connection() as conn:
            conn.execute(
                "INSERT INTO tournaments (tournament) VALUES (%s) ON CONFLICT DO NOTHING",
                (self.tournament,),
            )
            if scoring is not None:
                conn.execute(
                    "UPDATE tournaments SET win_points = %s, loss_points = %s"
                    " WHERE tournament = %s",
                    (scoring.win, scoring.loss, self.tournament),
                )

    def scoring(self) -> Scoring:
        with self.pool.connection() as conn:
            row = conn.execute(
                "SELECT win_points, loss_points FROM tournaments WHERE tournament = %s",
                (self.tournament,),
            ).fetchone()
        return Scoring(win=row[0], loss=row[1]) if row else Scoring()

    # -- tables and keys -----------------------------------------------------------------------

    def add_table(self, table_id: str) -> str:
        """Register a table; return its write key (shown once: only its hash is kept)."""
        check_table_id(table_id)
        key = secrets.token_urlsafe(24)
        with self.pool.connection() as conn:
            cursor = conn.execute(
                "INSERT INTO tables (tournament, table_id, key_sha256) VALUES (%s, %s, %s)"
                " ON CONFLICT DO NOTHING",
                (self.tournament, table_id, key_digest(key)),
            )
            if cursor.rowcount == 0:
                raise TournamentError(
                    f"table {table_id!r} is already in the tournament: it keeps its key"
                )
        return key

    def table_ids(self) -> list[str]:
        with self.pool.connection() as conn:
            rows = conn.execute(
                "SELECT table_id FROM tables WHERE tournament = %s"
                " ORDER BY length(table_id), table_id",
                (self.tournament,),
            ).fetchall()
        return [row[0] for row in rows]

    def key_matches(self, table_id: str, key: str) -> bool:
        with self.pool.connection() as conn:
            row = conn.execute(
                "SELECT key_sha256 FROM tables WHERE tournament = %s AND table_id = %s",
                (self.tournament, table_id),
            ).fetchone()
        return row is not None and hmac.compare_digest(row[0], key_digest(key))

    def has_table(self, table_id: str) -> bool:
        return table_id in self.table_ids()

    # -- the pushed logs -----------------------------------------------------------------------

    def acked(self, table_id: str) -> int:
        """The highest seq of the table's log held here (all before it are held too)."""
        with self.pool.connection() as conn:
            return _last_seq(conn, self.tournament, table_id)

    def push(self, table_id: str, items: Any) -> int:
        """Store the events of a push that are new; return the highest seq now held.

        Raises :class:`PushError` for anything malformed (nothing is stored) and
        :class:`PushConflict` when the push does not continue the log held here.
        """
        pushed = parse_push(items)
        with self.pool.connection() as conn, conn.transaction():
            locked = conn.execute(
                "SELECT 1 FROM tables WHERE tournament = %s AND table_id = %s FOR UPDATE",
                (self.tournament, table_id),
            ).fetchone()
            if locked is None:
                raise TournamentError(
                    f"no table {table_id!r} in this tournament: the organiser adds it first"
                )
            log = self._read(conn, table_id)
            held = len(log)
            new: list[StoredEvent] = []
            for seq, at, event in pushed:
                if seq <= held:
                    if event_to_json(log[seq - 1].event) != event_to_json(event):
                        raise PushConflict(
                            f"event {seq} differs from the one the server holds: "
                            "this table's log was replaced; "
                            "give the table a new name in the tournament",
                            acked=None,
                        )
                    continue
                expected = held + len(new) + 1
                if seq != expected:
                    raise PushConflict(
                        f"event {seq} arrived before event {expected}: send from {expected}",
                        acked=held,
                    )
                new.append(StoredEvent(table_id, seq, at, event))
            if not new:
                return held
            try:
                state = build_state(table_id, new[-1].seq, fold(log + new))
            except ScorekeeperError as error:
                raise PushError(
                    f"the log with events {new[0].seq}-{new[-1].seq} would not replay: {error}"
                ) from None
            try:
                with conn.cursor() as cursor:
                    cursor.executemany(
                        "INSERT INTO events (tournament, table_id, seq, kind, data, at)"
                        " VALUES (%s, %s, %s, %s, %s, %s)",
                        [(self.tournament, table_id, s.seq, *_row(s)) for s in new],
                    )
            except (
                psycopg.errors.DataError
            ) as error:  # a value PostgreSQL cannot store: the push's fault
                raise PushError(
                    f"events {new[0].seq}-{new[-1].seq} cannot be stored: {_first_line(error)}"
                ) from None
            conn.execute(
                "SELECT pg_notify(%s, %s)",
                (CHANNEL, notice(self.tournament, table_id, new[-1].seq)),
            )
        with self._lock:  # this process's pages will want it: folded once
            self._logs[table_id] = log + new
            self._states[table_id] = (new[-1].seq, state)
        return new[-1].seq

    def events(self, table_id: str) -> list[StoredEvent]:
        with self.pool.connection() as conn:
            return self._read(conn, table_id)

    def _read(self, conn: psycopg.Connection[Any], table_id: str) -> list[StoredEvent]:
        with self._lock:
            known = self._logs.get(table_id, [])
        rows = conn.execute(
            "SELECT seq, kind, data, at FROM events"
            " WHERE tournament = %s AND table_id = %s AND seq > %s ORDER BY seq",
            (self.tournament, table_id, len(known)),
        ).fetchall()
        if not rows:
            return list(known)
        log = known + [
            StoredEvent(table_id, seq, at, event_from_json(kind, data))
            for seq, kind, data, at in rows
        ]
        with self._lock:
            if len(log) > len(self._logs.get(table_id, [])):
                self._logs[table_id] = log
        return list(log)

    def state(self, table_id: str) -> dict[str, Any]:
        """The table's state as its own page shows it (:func:`scorekeeper.store.build_state`)."""
        log = self.events(table_id)
        seq = len(log)
        with self._lock:
            cached = self._states.get(table_id)
        if cached is None or cached[0] != seq:
            cached = (seq, build_state(table_id, seq, fold(log)))
            with self._lock:
                self._states[table_id] = cached
        return cached[1].to_json()

    # -- the organiser's corrections -------------------------------------------------------------

    def correct(self, table_id: str, match: int, record: Mapping[str, Any] | None) -> None:
        """The organiser's record for the table's match ``match`` (None withdraws a correction)."""
        if isinstance(match, bool) or not isinstance(match, int) or match < 1:
            raise TournamentError(f"match {match!r} is not a match number counted from 1")
        if record is not None:
            replay_record(record)  # the engine's one-line RecordError when it does not replay
        with self.pool.connection() as conn:
            if not conn.execute(
                "SELECT 1 FROM tables WHERE tournament = %s AND table_id = %s",
                (self.tournament, table_id),
            ).fetchone():
                raise TournamentError(f"no table {table_id!r} in this tournament")
            conn.execute(
                "INSERT INTO corrections (tournament, table_id, match, record)"
                " VALUES (%s, %s, %s, %s)",
                (self.tournament, table_id, match, None if record is None else Jsonb(dict(record))),
            )
            conn.execute(
                "SELECT pg_notify(%s, %s)", (CHANNEL, notice(self.tournament, table_id, 0))
            )

    def corrections(self) -> dict[tuple[str, int], dict[str, Any] | None]:
        """The latest correction per (table, match)."""
        with self.pool.connection() as conn:
            rows = conn.execute(
                "SELECT DISTINCT ON (table_id, match) table_id, match, record FROM corrections"
                " WHERE tournament = %s ORDER BY table_id, match, id DESC",
                (self.tournament,),
            ).fetchall()
        return {(table, match): record for table, match, record in rows}

    def match_record(self, table_id: str, match: int) -> dict[str, Any] | None:
        """The record of the table's match ``match``: the organiser's correction, else its own."""
        corrected = self.corrections().get((table_id, match))
        if corrected is not None:
            return corrected
        matches = fold(self.events(table_id)).matches
        return copy.deepcopy(matches[match - 1].record) if 1 <= match <= len(matches) else None

    # -- teams, rounds, standings ------------------------------------------------------------

    def add_teams(self, names: Sequence[str]) -> list[str]:
        """Enter teams (each once: a name already entered is refused, and nothing is entered)."""
        clean = [check_name(name, "team name", limit=_TEAM_NAME_MAX) for name in names]
        if not clean:
            raise TournamentError("no team given: send the names of the teams to enter")
        if len(set(clean)) != len(clean):
            raise TournamentError("a team is named twice in this entry: each team is entered once")
        with self.pool.connection() as conn, conn.transaction():
            taken = conn.execute(
                "SELECT team FROM teams WHERE tournament = %s AND team = ANY(%s)",
                (self.tournament, clean),
            ).fetchall()
            if taken:
                raise TournamentError(
                    f"team {taken[0][0]!r} is already entered: each team is entered once"
                )
            with conn.cursor() as cursor:
                cursor.executemany(
                    "INSERT INTO teams (tournament, team) VALUES (%s, %s)",
                    [(self.tournament, n) for n in clean],
                )
        return clean

    def teams(self) -> list[str]:
        with self.pool.connection() as conn:
            rows = conn.execute(
                "SELECT team FROM teams WHERE tournament = %s ORDER BY entered, team",
                (self.tournament,),
            ).fetchall()
        return [row[0] for row in rows]

    def games(self) -> list[Game]:
        """Every game of every round, with the result its table's log (or the organiser) gives."""
        with self.pool.connection() as conn:
            rows = conn.execute(
                "SELECT round, table_id, match, nos, eles FROM pairings WHERE tournament = %s"
                " ORDER BY round, place",
                (self.tournament,),
            ).fetchall()
        corrections = self.corrections()
        folded_tables: dict[str, Any] = {}
        games = []
        for round_number, table, match, nos, eles in rows:
            if table is None:
                games.append(Game(round=round_number, nos=nos, eles=None))
                continue
            if table not in folded_tables:
                folded_tables[table] = fold(self.events(table)).matches
            record: dict[str, Any] | None = None
            corrected = (table, match) in corrections and corrections[(table, match)] is not None
            if corrected:
                record = corrections[(table, match)]
            elif match <= len(folded_tables[table]):
                record = folded_tables[table][match - 1].record
            score, winner = None, None
            if record is not None and (record.get("deals") or corrected):
                result = _replayed(record)
                score = result.score.to_json()
                winner = result.winner.value if result.winner is not None else None
            games.append(
                Game(
                    round=round_number,
                    nos=nos,
                    eles=eles,
                    table=table,
                    match=match,
                    score=score,
                    winner=winner,
                    corrected=corrected,
                )
            )
        return games

    def standings(self) -> list[Standing]:
        return standings(self.games(), self.teams(), self.scoring())

    def pair_next_round(self) -> list[Game]:
        """Pair the next round by the standings (no repeat opponents) onto the tables in order."""
        with self.pool.connection() as conn, conn.transaction():
            conn.execute(
                "SELECT pg_advisory_xact_lock(hashtext(%s))", (f"pairing/{self.tournament}",)
            )
            games = self.games()
            unfinished = [g for g in games if not g.finished]
            if unfinished:
                first = unfinished[0]
                raise TournamentError(
                    f"round {first.round} is still being played "
                    f"({first.table}: {first.nos} – {first.eles}): "
                    "pair the next round when every game is won"
                )
            teams = self.teams()
            if len(teams) < 2:
                raise TournamentError("enter at least two teams before pairing a round")
            ranked = [row.team for row in standings(games, teams, self.scoring())]
            played = {frozenset((g.nos, g.eles)) for g in games if g.eles is not None}
            byes = {g.nos for g in games if g.eles is None}
            pairs, bye = pair_round(ranked, played=played, byes=byes)
            tables = self.table_ids()
            if len(tables) < len(pairs):
                raise TournamentError(
                    f"{len(pairs)} games need {len(pairs)} tables, "
                    f"the tournament has {len(tables)}: add tables"
                )
            round_number = max((g.round for g in games), default=0) + 1
            rows: list[tuple[Any, ...]] = []
            for place, ((nos, eles), table) in enumerate(zip(pairs, tables, strict=False), start=1):
                rows.append(
                    (
                        self.tournament,
                        round_number,
                        place,
                        table,
                        self._next_match(table),
                        nos,
                        eles,
                    )
                )
            if bye is not None:
                rows.append((self.tournament, round_number, len(pairs) + 1, None, None, bye, None))
            with conn.cursor() as cursor:
                cursor.executemany(
                    "INSERT INTO pairings (tournament, round, place, table_id, match, nos, eles)"
                    " VALUES (%s, %s, %s, %s, %s, %s, %s)",
                    rows,
                )
            conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, notice(self.tournament, "", 0)))
        return [g for g in self.games() if g.round == round_number]

    def _next_match(self, table_id: str) -> int:
        """The match the table plays next: its current one if nothing was dealt in it yet."""
        matches = fold(self.events(table_id)).matches
        return len(matches) if not matches[-1].record["deals"] else len(matches) + 1

    # -- what the organiser's page shows ---------------------------------------------------------

    def seated(self) -> dict[str, dict[str, Any]]:
        """Per table, the game of the latest round it was given."""
        with self.pool.connection() as conn:
            rows = conn.execute(
                "SELECT DISTINCT ON (table_id) table_id, round, match, nos, eles FROM pairings"
                " WHERE tournament = %s AND table_id IS NOT NULL ORDER BY table_id, round DESC",
                (self.tournament,),
            ).fetchall()
        return {
            t: {"round": r, "match": m, "nos": nos, "eles": eles} for t, r, m, nos, eles in rows
        }

    def summary(self, table_id: str, seated: Mapping[str, dict[str, Any]]) -> dict[str, Any]:
        """The table's live state in short, for the organiser's page; ``seated``: :meth:`seated`."""
        state = self.state(table_id)
        current = state["current"]
        return {
            "table": table_id,
            "seq": state["seq"],
            "match": state["match"],
            "score": state["score"],
            "winner": state["winner"],
            "rules": {"target": state["rules"].get("target")},
            "current": None
            if current is None
            else {
                "number": current["number"],
                "dealer": current["dealer"],
                "turned": current["turned"],
                "trump": current["trump"],
                "vazas": len(current["tricks"]),
                "points": current["points"],
                "complete": current["complete"],
                "table": current["table"]["cards"],
            },
            "renuncias": [r for r in state["revokes"] if r["status"] == "suspected"],
            "doubts": [d for d in state.get("doubts", []) if not d.get("settled")],
            "game": seated.get(table_id),
        }


def parse_push(items: Any) -> list[tuple[int, datetime, Any]]:
    """The events of a push body's ``events`` list, checked one by one (one line names the first
    fault)."""
    if not isinstance(items, list) or not items:
        raise PushError(
            '"events" must be a non-empty list of {"seq", "kind", "data", "at"} objects'
        )
    if len(items) > MAX_BATCH:
        raise PushError(f"{len(items)} events in one push: send at most {MAX_BATCH} at a time")
    parsed: list[tuple[int, datetime, Any]] = []
    for index, item in enumerate(items):
        where = f"event {index + 1} of the push"
        if not isinstance(item, dict) or set(item) != _PUSH_FIELDS:
            raise PushError(
                f'{where} must be an object with exactly "seq", "kind", "data" and "at"'
            )
        seq, kind, data, at = item["seq"], item["kind"], item["data"], item["at"]
        if isinstance(seq, bool) or not isinstance(seq, int) or not 1 <= seq < 2**31:
            raise PushError(f"{where}: seq {seq!r} is not a sequence number counted from 1")
        if parsed and seq != parsed[-1][0] + 1:
            raise PushError(
                f"{where}: seq {seq} does not follow {parsed[-1][0]}: send events in seq order"
            )
        if not isinstance(kind, str):
            raise PushError(f"{where}: kind {kind!r} is not an event kind")
        try:
            event = event_from_json(kind, data)
            when = datetime.fromisoformat(at) if isinstance(at, str) else None
        except ScorekeeperError as error:
            raise PushError(f"{where} (seq {seq}): {error}") from None
        except (ValueError, TypeError, OverflowError):
            when = None
        if when is None or when.tzinfo is None:
            raise PushError(
                f"{where} (seq {seq}): at {at!r} is not an ISO time with its UTC offset"
            )
        try:
            text = json.dumps(event_to_json(event)[1], allow_nan=False)
        except (TypeError, ValueError):
            raise PushError(f"{where} (seq {seq}): its data is not plain JSON") from None
        if "\\u0000" in text:  # PostgreSQL's JSON cannot hold a NUL character
            raise PushError(f"{where} (seq {seq}): its data holds a NUL character (\\u0000)")
        parsed.append((seq, when, event))
    return parsed


def notice(tournament: str, table_id: str, seq: int) -> str:
    return json.dumps({"tournament": tournament, "table": table_id, "seq": seq})


def check_name(name: Any, what: str, *, limit: int = 40) -> str:
    if (
        not isinstance(name, str)
        or not name.strip()
        or len(name.strip()) > limit
        or not name.isprintable()
    ):
        raise TournamentError(f"{what} {name!r}: use 1-{limit} printable characters")
    return name.strip()


def _replayed(record: Mapping[str, Any]) -> MatchResult:
    from scorekeeper.store.state import replay

    return replay(record)


def _last_seq(conn: psycopg.Connection[Any], tournament: str, table_id: str) -> int:
    row = conn.execute(
        "SELECT coalesce(max(seq), 0) FROM events WHERE tournament = %s AND table_id = %s",
        (tournament, table_id),
    ).fetchone()
    return int(row[0]) if row else 0


def _row(stored: StoredEvent) -> tuple[str, Jsonb, datetime]:
    kind, data = event_to_json(stored.event)
    return kind, Jsonb(data), stored.at


def _first_line(error: BaseException) -> str:
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
