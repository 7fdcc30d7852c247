"""Standings and pairings, pure: ranked by the tournament's scoring, never a repeat opponent."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekeeper.tournament.standings import Game, Scoring, TournamentError, pair_round, standings


def test_points_then_riscos_difference_rank_the_teams() -> None:
    games = [
        Game(round=1, nos="A", eles="B", score={"nos": 4, "eles": 3}, winner="nos"),
        Game(round=1, nos="C", eles="D", score={"nos": 0, "eles": 4}, winner="eles"),
        Game(round=1, nos="E", eles=None),
        Game(
            round=2, nos="A", eles="D", score={"nos": 1, "eles": 2}, winner=None
        ),  # still being played
    ]
    rows = standings(games, ["A", "B", "C", "D", "E"], Scoring(win=3, loss=1))
    assert [(r.team, r.points, r.diff) for r in rows] == [
        ("D", 3, 4),
        ("A", 3, 1),
        ("E", 3, 0),
        ("B", 1, -1),
        ("C", 1, -4),
    ]
    assert [r.points for r in standings(games, ["A", "B", "C", "D", "E"], Scoring(win=2, loss=0))][
        :3
    ] == [2, 2, 2]


@settings(max_examples=60, deadline=None)
@given(teams=st.integers(2, 15), rounds=st.integers(1, 6), seed=st.integers(0, 10_000))
def test_rounds_paired_by_standings_never_repeat_an_opponent(
    teams: int, rounds: int, seed: int
) -> None:
    rng = random.Random(seed)
    names = [f"T{n}" for n in range(teams)]
    games: list[Game] = []
    for number in range(1, rounds + 1):
        ranked = [row.team for row in standings(games, names, Scoring())]
        played = {frozenset((g.nos, g.eles)) for g in games if g.eles}
        byes = {g.nos for g in games if g.eles is None}
        try:
            pairs, bye = pair_round(ranked, played=played, byes=byes)
        except TournamentError:
            assert not any_new_pairing(names, played), (
                "refused although a pairing without repeats exists"
            )
            break
        seated = [team for pair in pairs for team in pair] + ([bye] if bye else [])
        assert sorted(seated) == sorted(names), "every team once per round"
        assert not {frozenset(p) for p in pairs} & played, "no repeat opponent"
        assert (bye is None) == (teams % 2 == 0)
        if bye is not None and bye in byes:
            assert not any(
                any_new_pairing([t for t in names if t != fresh], played)
                for fresh in names
                if fresh not in byes
            ), "a team sits out twice only when no team that has not could"
        for nos, eles in pairs:
            winner = rng.choice(["nos", "eles"])
            loser_riscos = rng.randrange(4)
            score = (
                {"nos": 4, "eles": loser_riscos}
                if winner == "nos"
                else {"nos": loser_riscos, "eles": 4}
            )
            games.append(Game(round=number, nos=nos, eles=eles, score=score, winner=winner))
        if bye is not None:
            games.append(Game(round=number, nos=bye, eles=None))


def any_new_pairing(names: list[str], played: set[frozenset[str]]) -> bool:
    """Whether a pairing (one team sitting out when odd) avoids every repeat: a bitmask search."""
    from functools import cache

    n = len(names)

    @cache
    def can(left: int, bye_used: bool) -> bool:
        if left == 0:
            return True
        first = (left & -left).bit_length() - 1
        rest = left & ~(1 << first)
        if n % 2 and not bye_used and can(rest, True):
            return True
        return any(
            rest >> j & 1
            and frozenset((names[first], names[j])) not in played
            and can(rest & ~(1 << j), bye_used)
            for j in range(n)
        )

    return can((1 << n) - 1, False)


def test_the_top_teams_meet_first() -> None:
    pairs, bye = pair_round(["A", "B", "C", "D", "E"], played={frozenset({"A", "B"})}, byes=set())
    assert bye == "E" and pairs == [("A", "C"), ("B", "D")]


def test_a_tournament_that_has_run_its_rounds_says_so() -> None:
    everyone = {
        frozenset(p)
        for p in (("A", "B"), ("C", "D"), ("A", "C"), ("B", "D"), ("A", "D"), ("B", "C"))
    }
    with pytest.raises(TournamentError, match="run its rounds"):
        pair_round(["A", "B", "C", "D"], played=everyone, byes=set())
