"""The score sheet's marks for a match result: strokes in two columns, or dots on a cross.

Two ways of keeping the score on paper, as the seeds describe them; both mark the same riscos, and
neither changes who wins. Each mark knows the deal it was scored in, so a page can draw it and say why.

- ``tracos``: "on note sur un papier à deux colonnes, Nós et Eles, un trait ou une croix par risco";
- ``cruz``: "marking dots at the ends of the arms of a cross" (northern Portugal); the n-th game of a
  team goes at the end of arm ``CROSS_ARMS[n % 4]``, on that team's side of the arm, and games past the
  fourth start a new ring of dots further out. A match won with the other team on no game is a
  ``pente`` (comb), "indicated by drawing a loop round the four dots representing the won games".

>>> from scorekeeper.rules.record import replay_record
>>> sheet = score_sheet(replay_record({"deals": []}))
>>> sheet["tracos"], sheet["pente"]
({'nos': [], 'eles': []}, None)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from scorekeeper.rules.seats import Team

CROSS_ARMS: tuple[str, ...] = ("top", "right", "bottom", "left")
"""The arms of the cross in the order their ends take a team's dots."""


def score_sheet(result: Mapping[str, Any]) -> dict[str, Any]:
    """The marks of the sheet for ``result``, what :func:`~scorekeeper.rules.replay_record` returns.

    ``{"style", "target", "tracos": {team: [deal, ...]}, "cruz": {team: [{"deal", "arm", "ring"}, ...]},
    "pente": team or None}``: one entry per risco, in the order they were scored.
    """
    strokes: dict[str, list[int]] = {Team.NOS.value: [], Team.ELES.value: []}
    for number, deal in enumerate(result["deals"], start=1):
        for team, riscos in deal["riscos"].items():
            strokes[team].extend([number] * riscos)
    cross = {
        team: [
            {"deal": deal, "arm": CROSS_ARMS[game % len(CROSS_ARMS)], "ring": game // len(CROSS_ARMS)}
            for game, deal in enumerate(deals)
        ]
        for team, deals in strokes.items()
    }
    winner = result["winner"]
    pente = winner if winner is not None and not strokes[Team(winner).opponents.value] else None
    return {
        "style": result["rules"]["sheet"],
        "target": result["rules"]["target"],
        "tracos": strokes,
        "cruz": cross,
        "pente": pente,
    }
