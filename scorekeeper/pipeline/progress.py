"""The score progression in words, one line per game event (``demo --headless``, ``run``).

Deal numbers and scores are the store's (the match in the log), not the tracker's count since the
start, so a new match starts again at deal 1; once a match is won no line quotes its score as if
the game were still going on.
"""

from __future__ import annotations

from collections.abc import Callable

from scorekeeper.rules import PerTeam, seat_label
from scorekeeper.store import Store, TableState
from scorekeeper.tracking import events as game


def describe(
    event: game.Event, state: TableState, *, waiting: bool = False, confirm_next_match: bool = False
) -> str | None:
    """A line for people about ``event``, given the stored state right after it; None to stay quiet.

    ``waiting``: the match is won and this event is held for the next match, which the table
    starts on the page (``confirm_next_match``)."""

    def who(seat: int) -> str:
        return seat_label(seat, state.names[seat])

    score = state.result.score
    current = state.current
    points = current.points if current is not None else PerTeam()
    if isinstance(event, game.DealStarted):
        if waiting:
            return (
                f"Next deal: dealer {who(event.dealer)}, trunfo {event.turned}"
                ' (match won: it waits for "Nova partida" on the page)'
            )
        number = current.number if current is not None else event.deal
        opened = " · a new match" if number == 1 and state.match > 1 else ""
        return (
            f"Match {state.match}, deal {number}: "
            f"dealer {who(event.dealer)}, trunfo {event.turned}{opened}"
        )
    if isinstance(event, game.CardPlayed):
        return f"  vaza {event.trick}: {who(event.seat)} plays {event.card}"
    if isinstance(event, game.TrickGathered):
        line = f"  vaza {event.trick} to {who(event.winner)}, {event.points} points"
        return line if waiting else f"{line} · deal Nós {points.nos} – Eles {points.eles}"
    if isinstance(event, game.RevokeFlagged):
        kind = "suspected renúncia" if event.suspected else "renúncia"
        return (
            f"  {kind}: {who(event.seat)} played {event.card} on {event.led} "
            f"in vaza {event.trick}: {event.proof}"
        )
    if isinstance(event, game.Uncertain):
        return f"  uncertain ({event.reason}): {event.detail}"
    if isinstance(event, game.DealEnded):
        if waiting:
            return 'Deal ended (not counted yet: it waits for "Nova partida")'
        riscos = current.riscos if current is not None else PerTeam()
        number = current.number if current is not None else event.deal
        line = (
            f"Deal {number} ended: Nós {points.nos} – Eles {points.eles} points,"
            f" riscos +{riscos.nos} / +{riscos.eles} · match Nós {score.nos} – Eles {score.eles}"
        )
        winner = state.result.winner
        if winner is not None:
            then = (
                'tap "Nova partida" on the page for the next match'
                if confirm_next_match
                else "the next trunfo starts the next match"
            )
            line += f"\nMatch {state.match} won by {winner.label}; {then}"
        return line
    return None


def printer(
    store: Store,
    table_id: str,
    *,
    waiting: Callable[[], bool] = lambda: False,
    confirm_next_match: bool = False,
) -> Callable[[game.Event, float], None]:
    """A pipeline event listener that prints each event's line, with the score as stored.
    ``waiting`` says whether the recorder holds the events for the next match."""

    def show(event: game.Event, _stored_at: float) -> None:
        state = store.table_state(table_id)
        line = describe(event, state, waiting=waiting(), confirm_next_match=confirm_next_match)
        if line:
            print(line, flush=True)

    return show
