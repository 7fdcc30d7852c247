"""The score sheet's marks for a match result: strokes in two columns, or dots on a cross.

Two ways of keeping the score on paper, as the seeds describe them; both mark the same riscos, and
neither changes who wins. Each mark knows the deal it was scored in, so a page can draw it and say
why.

- ``tracos``: "on note sur un papier à deux colonnes, Nós et Eles, un trait ou une croix par
  risco";
- ``cruz``: "marking dots at the ends of the arms of a cross" (northern Portugal); the n-th game of
  a team goes at the end of arm ``CROSS_ARMS[n % 4]``, on that team's side of the arm, and games
  past the fourth start a new ring of dots further out. A match won with the other team on no game
  is a ``pente`` (comb), "indicated by drawing a loop round the four dots representing the won
  games".

>>> from scorekeeper.rules.record import replay_match
>>> sheet = score_sheet(replay_match({"deals": []}))
>>> sheet["tracos"], sheet["pente"]
({'nos': [], 'eles': []}, None)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from scorekeeper.rules.seats import Team

if TYPE_CHECKING:
    from scorekeeper.rules.results import MatchResult

CROSS_ARMS: tuple[str, ...] = ("top", "right", "bottom", "left")
"""The arms of the cross in the order their ends take a team's dots."""


def score_sheet(result: MatchResult) -> dict[str, Any]:
    """The marks of the sheet for ``result``, in the JSON the page draws them from:

    ``{"style", "target", "tracos": {team: [deal, ...]},
    "cruz": {team: [{"deal", "arm", "ring"}, ...]}, "pente": team or None}``: one entry per risco,
    in the order they were scored.
    """
    strokes: dict[str, list[int]] = {Team.NOS.value: [], Team.ELES.value: []}
    for number, deal in enumerate(result.deals, start=1):
        for team in Team:
            strokes[team.value].extend([number] * deal.riscos[team])
    cross = {
        team: [
            {
                "deal": deal,
                "arm": CROSS_ARMS[game % len(CROSS_ARMS)],
                "ring": game // len(CROSS_ARMS),
            }
            for game, deal in enumerate(deals)
        ]
        for team, deals in strokes.items()
    }
    winner = result.winner
    pente = winner.value if winner is not None and not strokes[winner.opponents.value] else None
    return {
        "style": result.rules.sheet.value,
        "target": result.rules.target,
        "tracos": strokes,
        "cruz": cross,
        "pente": pente,
    }
