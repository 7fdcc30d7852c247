"""The score progression in words, one line per game event (``demo --headless``, ``run``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from scorekeeper.store import Store
from scorekeeper.tracking import events as game

TEAM = ("Nós", "Eles")


def seat_label(seat: int) -> str:
    return f"seat {seat} ({TEAM[seat % 2]})"


def describe(event: game.Event, state: dict[str, Any]) -> str | None:
    """A line for people about ``event``, given the stored state right after it; None to stay quiet."""
    score = state["score"]
    current = state.get("current") or {}
    points = current.get("points", {"nos": 0, "eles": 0})
    if isinstance(event, game.DealStarted):
        return f"Deal {event.deal}: dealer {seat_label(event.dealer)}, trunfo {event.turned}"
    if isinstance(event, game.CardPlayed):
        return f"  vaza {event.trick}: {seat_label(event.seat)} plays {event.card}"
    if isinstance(event, game.TrickGathered):
        return (
            f"  vaza {event.trick} to {seat_label(event.winner)}, {event.points} points"
            f" · deal Nós {points['nos']} – Eles {points['eles']}"
        )
    if isinstance(event, game.RevokeFlagged):
        kind = "suspected renúncia" if event.suspected else "renúncia"
        return f"  {kind}: {seat_label(event.seat)} played {event.card} on {event.led} in vaza {event.trick}: {event.proof}"
    if isinstance(event, game.Uncertain):
        return f"  uncertain ({event.reason}): {event.detail}"
    if isinstance(event, game.DealEnded):
        riscos = current.get("riscos", {"nos": 0, "eles": 0})
        return (
            f"Deal {event.deal} ended: Nós {points['nos']} – Eles {points['eles']} points,"
            f" riscos +{riscos['nos']} / +{riscos['eles']} · match Nós {score['nos']} – Eles {score['eles']}"
        )
    return None


def printer(store: Store, table_id: str) -> Callable[[game.Event, float], None]:
    """A pipeline event listener that prints each event's line, with the score as stored."""

    def show(event: game.Event, _stored_at: float) -> None:
        line = describe(event, store.state(table_id))
        if line:
            print(line, flush=True)

    return show
