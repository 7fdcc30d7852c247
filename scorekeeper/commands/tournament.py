"""``scorekeeper tournament``: the tournament server and the organiser's commands.

scorekeeper tournament serve --db postgresql://... --pin 1357 [--win 3 --loss 1]
scorekeeper tournament add-table --db postgresql://... mesa-1 mesa-2     # prints each table's key
scorekeeper tournament add-team --db postgresql://... "Águias" "Bairro Alto"
scorekeeper tournament pair --db postgresql://...                        # the next round
scorekeeper tournament results --db postgresql://... --csv out.csv --records folder/
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from scorekeeper.errors import ScorekeeperError

DEFAULT_PORT = 8100
DRIVER_MODULES = ("psycopg", "psycopg_pool")
"""What the server needs beyond a table's install: the ``tournament`` extra."""


def require_tournament_extra() -> None:
    """A one-line error naming the extra when PostgreSQL's driver is not installed."""
    try:
        for name in DRIVER_MODULES:
            importlib.import_module(name)
    except ImportError as error:
        raise ScorekeeperError(
            f"the tournament server needs {error.name or 'psycopg'}, which is not installed: "
            "install the tournament extra with `pip install 'scorekeeper[tournament]'` "
            "(a table pushing to it does not need it)"
        ) from None


def _with_driver(
    handler: Callable[[argparse.Namespace], int],
) -> Callable[[argparse.Namespace], int]:
    def checked(args: argparse.Namespace) -> int:
        require_tournament_extra()
        return handler(args)

    return checked


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "tournament",
        help="a tournament of many tables: the server, tables, teams, rounds, results",
        description=(
            "Each table runs `scorekeeper run --tournament URL --table-key KEY` "
            "and pushes its log to the tournament server, "
            "which keeps every table's log in PostgreSQL and serves the organiser's page: "
            "every table live, standings, rounds and results."
        ),
    )
    commands = parser.add_subparsers(dest="tournament_command", required=True, metavar="COMMAND")

    serve = commands.add_parser(
        "serve", help="serve the tournament: tables push here, the organiser watches"
    )
    _common(serve)
    serve.add_argument(
        "--host", default="0.0.0.0", help="address to listen on (default: all, for the LAN)"
    )
    serve.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"port (default: {DEFAULT_PORT})"
    )
    serve.add_argument(
        "--pin",
        help="the organiser's PIN for corrections, tables, teams and rounds "
        "(default: a new random 4-digit PIN)",
    )
    serve.add_argument(
        "--win",
        type=int,
        help="tournament points for a match won (kept in the database; default 3)",
    )
    serve.add_argument("--loss", type=int, help="tournament points for a match lost (default 1)")
    serve.add_argument(
        "--threads",
        type=int,
        default=64,
        help="worker threads; each open organiser page holds one (default: 64)",
    )
    serve.set_defaults(handler=_with_driver(serve_command))

    add_table = commands.add_parser("add-table", help="add tables and print each one's write key")
    _common(add_table)
    add_table.add_argument("tables", nargs="+", metavar="TABLE", help="table ids, like mesa-1")
    add_table.add_argument("--json", action="store_true", help="print {table: key} as JSON")
    add_table.set_defaults(handler=_with_driver(add_table_command))

    add_team = commands.add_parser("add-team", help="enter teams (each once)")
    _common(add_team)
    add_team.add_argument("teams", nargs="+", metavar="TEAM", help="team names")
    add_team.set_defaults(handler=_with_driver(add_team_command))

    pair = commands.add_parser(
        "pair", help="pair the next round by the standings (no repeat opponents)"
    )
    _common(pair)
    pair.add_argument("--json", action="store_true", help="print the round as JSON")
    pair.set_defaults(handler=_with_driver(pair_command))

    results = commands.add_parser(
        "results", help="the standings, and the results as CSV and match records"
    )
    _common(results)
    results.add_argument("--csv", metavar="FILE", help="write every game as a CSV row")
    results.add_argument(
        "--records",
        metavar="FOLDER",
        help="write each game's match record (what `scorekeeper replay` reads)",
    )
    results.add_argument("--json", action="store_true", help="print the standings as JSON")
    results.set_defaults(handler=_with_driver(results_command))


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--db",
        required=True,
        metavar="DSN",
        help="the PostgreSQL database, like postgresql://user@host/sueca",
    )
    parser.add_argument(
        "--name", default="torneio", help="the tournament's name in the database (default: torneio)"
    )


def _open(args: argparse.Namespace, scoring: Any = None) -> Any:
    from scorekeeper.tournament.db import TournamentStore

    _check_dsn(args.db)
    return TournamentStore.open(args.db, args.name, scoring=scoring, pool_size=2)


def _check_dsn(dsn: str) -> None:
    from scorekeeper.tournament.standings import TournamentError

    if not dsn.startswith(("postgresql://", "postgres://")):
        raise TournamentError(
            f"--db {dsn!r}: give a PostgreSQL address like postgresql://user@host/sueca"
        )


def serve_command(args: argparse.Namespace) -> int:
    from waitress.server import create_server

    from scorekeeper.tournament.app import create_tournament_app
    from scorekeeper.tournament.standings import Scoring, TournamentError
    from scorekeeper.web.server import lan_address, listen
    from scorekeeper.web.table_pin import new_pin

    _check_dsn(args.db)
    scoring = None
    if args.win is not None or args.loss is not None:
        scoring = Scoring(
            win=3 if args.win is None else args.win, loss=1 if args.loss is None else args.loss
        )
    if args.threads < 2:
        raise TournamentError(f"--threads {args.threads}: give at least 2")
    pin = args.pin or new_pin()
    app = create_tournament_app(
        {"DATABASE_URL": args.db, "TOURNAMENT": args.name, "PIN": pin, "SCORING": scoring}
    )
    sock = listen(args.host, args.port)
    server = create_server(
        app, sockets=[sock], threads=args.threads, channel_timeout=120, ident="scorekeeper"
    )
    shown = lan_address() if args.host in ("0.0.0.0", "::") else args.host
    scoring = app.extensions["scorekeeper.tournament.store"].scoring()
    print(
        f"Tournament {args.name!r}: http://{shown}:{sock.getsockname()[1]}/  (the organiser's page)"
    )
    print(f"Organiser PIN: {pin}")
    print(f"Scoring: win {scoring.win}, loss {scoring.loss}; ties broken by riscos difference")
    try:
        # Inside the try: a stop right after the hint, before serving, still closes the server.
        print(
            "Ctrl-C stops the server; the tables keep their logs and push again when it is back.",
            flush=True,
        )
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
    return 0


def add_table_command(args: argparse.Namespace) -> int:
    from scorekeeper.store import check_table_id

    for table in args.tables:
        check_table_id(table)
    store = _open(args)
    try:
        keys = {table: store.add_table(table) for table in args.tables}
    finally:
        store.close()
    if args.json:
        print(json.dumps(keys))
    else:
        for table, key in keys.items():
            print(f"{table}  {key}")
        print(
            "Each table runs: scorekeeper run ... --table TABLE --tournament URL --table-key KEY",
            file=sys.stderr,
        )
    return 0


def add_team_command(args: argparse.Namespace) -> int:
    store = _open(args)
    try:
        entered = store.add_teams(args.teams)
    finally:
        store.close()
    print(f"{len(entered)} teams entered: {', '.join(entered)}")
    return 0


def pair_command(args: argparse.Namespace) -> int:
    from scorekeeper.tournament.app import game_json

    store = _open(args)
    try:
        games = store.pair_next_round()
    finally:
        store.close()
    if args.json:
        print(
            json.dumps(
                {"round": games[0].round, "games": [game_json(g) for g in games]},
                ensure_ascii=False,
            )
        )
        return 0
    print(f"Ronda {games[0].round}")
    for game in games:
        if game.eles is None:
            print(f"  folga: {game.nos}")
        else:
            print(f"  {game.table}: Nós {game.nos} – Eles {game.eles}")
    return 0


def results_command(args: argparse.Namespace) -> int:
    from scorekeeper.tournament.export import write_csv

    store = _open(args)
    try:
        rows = store.standings()
        games = store.games()
        records = (
            {
                (g.round, g.table): store.match_record(g.table, g.match)
                for g in games
                if g.table is not None and g.match is not None
            }
            if args.records
            else {}
        )
    finally:
        store.close()
    if args.csv:
        with open(args.csv, "w", newline="", encoding="utf-8") as out:
            write_csv(games, out)
    if args.records:
        folder = Path(args.records)
        folder.mkdir(parents=True, exist_ok=True)
        for (round_number, table), record in records.items():
            if record is not None:
                path = folder / f"ronda{round_number}-{table}.json"
                path.write_text(
                    json.dumps(record, ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
                )
    if args.json:
        print(json.dumps([row.to_json() for row in rows], ensure_ascii=False))
        return 0
    for place, row in enumerate(rows, start=1):
        print(
            f"{place:3}. {row.team:30} {row.points:3} pts  "
            f"{row.won}V {row.lost}D  riscos {row.diff:+d}"
        )
    return 0
