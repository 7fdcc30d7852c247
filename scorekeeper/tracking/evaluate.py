"""How close a tracked match record is to the ground truth: plays, seats, tricks, scores.

Both records go through the rules engine (:func:`replay_record`), so seats and winners are the
engine's, and a deal is compared trick by trick in playing order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scorekeeper.rules import replay_record


@dataclass(frozen=True, slots=True)
class Comparison:
    plays: int
    plays_right: int
    seats_right: int
    tricks: int
    tricks_right: int
    """Same four cards from the same seats, same winner."""
    deals: int
    deals_right: int
    """Same dealer, turned card and every trick."""
    score_right: bool
    """Same match score and same card points in every deal."""

    def to_json(self) -> dict[str, object]:
        return {
            "plays": self.plays,
            "plays_right": self.plays_right,
            "seats_right": self.seats_right,
            "tricks": self.tricks,
            "tricks_right": self.tricks_right,
            "deals": self.deals,
            "deals_right": self.deals_right,
            "score_right": self.score_right,
        }

    def summary(self) -> str:
        return (
            f"plays {self.plays_right}/{self.plays} right, seats {self.seats_right}/{self.plays}, "
            f"tricks {self.tricks_right}/{self.tricks}, deals {self.deals_right}/{self.deals}, "
            f"score {'matches' if self.score_right else 'differs'}"
        )


def compare(truth: dict[str, Any], tracked: dict[str, Any]) -> Comparison:
    """Compare two match records (the JSON ``scorekeeper replay`` reads)."""
    want, got = replay_record(truth), replay_record(tracked)
    plays = plays_right = seats_right = tricks = tricks_right = deals_right = 0
    points_right = len(want["deals"]) == len(got["deals"])
    for index, deal in enumerate(want["deals"]):
        other = got["deals"][index] if index < len(got["deals"]) else None
        want_plays = _seated_plays(deal)
        got_plays = _seated_plays(other) if other else []
        plays += len(want_plays)
        for position, (seat, card) in enumerate(want_plays):
            if position < len(got_plays):
                plays_right += got_plays[position][1] == card
                seats_right += got_plays[position] == (seat, card)
        want_tricks = [_trick_key(t) for t in deal["tricks"]]
        got_tricks = [_trick_key(t) for t in other["tricks"]] if other else []
        tricks += len(want_tricks)
        tricks_right += sum(1 for a, b in zip(want_tricks, got_tricks, strict=False) if a == b)
        same_deal = other is not None and (
            (deal["dealer"], deal["turned"], want_tricks, want_plays)
            == (other["dealer"], other["turned"], got_tricks, got_plays)
        )
        deals_right += same_deal
        points_right = points_right and other is not None and deal["points"] == other["points"]
    return Comparison(
        plays=plays,
        plays_right=plays_right,
        seats_right=seats_right,
        tricks=tricks,
        tricks_right=tricks_right,
        deals=len(want["deals"]),
        deals_right=deals_right,
        score_right=points_right and want["score"] == got["score"],
    )


def _seated_plays(deal: dict[str, Any]) -> list[tuple[int, str]]:
    """(seat, card) in playing order, completed tricks then the cards still on the table."""
    out: list[tuple[int, str]] = []
    for trick in (*deal["tricks"], deal["table"]):
        out += [((trick["leader"] + i) % 4, card) for i, card in enumerate(trick["cards"])]
    return out


def _trick_key(trick: dict[str, Any]) -> tuple[object, ...]:
    return (trick["leader"], tuple(trick["cards"]), trick["winner"])
