"""A tournament's results as CSV: one row per game, the words the organiser's sheet uses."""

from __future__ import annotations

import csv
from collections.abc import Iterable
from typing import Any, TextIO

from scorekeeper.tournament.standings import Game

CSV_HEADER = (
    "ronda",
    "mesa",
    "partida",
    "nos",
    "eles",
    "riscos_nos",
    "riscos_eles",
    "vencedor",
    "corrigido",
)


def csv_row(game: Game) -> list[Any]:
    """A bye reads ``folga`` in the table column and names its team as the winner."""
    score = game.score or {}
    winner = (
        game.nos
        if game.eles is None
        else {"nos": game.nos, "eles": game.eles}.get(game.winner or "", "")
    )
    return [
        game.round,
        game.table or "folga",
        game.match or "",
        game.nos,
        game.eles or "",
        score.get("nos", ""),
        score.get("eles", ""),
        winner,
        "sim" if game.corrected else "",
    ]


def write_csv(games: Iterable[Game], out: TextIO) -> None:
    writer = csv.writer(out)
    writer.writerow(CSV_HEADER)
    writer.writerows(csv_row(game) for game in games)
