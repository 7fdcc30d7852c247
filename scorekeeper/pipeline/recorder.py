"""The tracker's game events, written to the table's log in the store.

Only what changes the match goes into the log (a deal started with its turned card, a card played,
a play corrected when the tracker finds a missed card of the vaza, a vaza gathered); renúncias
are not stored, because the engine proves them again from the plays on every replay. A play the log refuses (for instance after a person corrected the deal on the phone
and the camera's view no longer fits) is reported, never allowed to stop the pipeline or to
corrupt the match.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from scorekeeper.errors import ScorekeeperError
from scorekeeper.store import CardCorrected, CardPlayed, DealStarted, Store, TrickGathered
from scorekeeper.store.events import Event as StoreEvent
from scorekeeper.tracking import events as game

Warn = Callable[[str], None]


@dataclass(slots=True)
class StoreRecorder:
    store: Store
    table_id: str
    warn: Warn = print
    written: int = 0
    refused: list[str] = field(default_factory=list)

    def record(self, events: Iterable[game.Event]) -> int:
        """Append what ``events`` change in the match; return how many log events were written."""
        count = 0
        for event in events:
            stored = to_store_event(event, current_deal=self._current_deal)
            if stored is None:
                continue
            try:
                self.store.append(self.table_id, stored)
            except ScorekeeperError as error:
                message = f"frame {event.frame}: the log refused {event.type} ({error})"
                self.refused.append(message)
                self.warn(message)
                continue
            count += 1
        self.written += count
        return count

    def _current_deal(self) -> int:
        """The log's number for the deal being played (the tracker counts deals per stream)."""
        return max(len(self.store.record(self.table_id).get("deals", [])), 1)


def to_store_event(event: game.Event, *, current_deal: Callable[[], int] = lambda: 1) -> StoreEvent | None:
    """The log event for one game event, or None for what the engine recomputes or only informs.
    ``current_deal`` gives the log's number of the deal a correction is for."""
    if isinstance(event, game.DealStarted):
        return DealStarted(dealer=event.dealer, turned=event.turned.notation)
    if isinstance(event, game.CardPlayed):
        return CardPlayed(event.card.notation, frame=event.frame)
    if isinstance(event, game.PlayCorrected):
        return CardCorrected(deal=current_deal(), play=event.play, card=event.card.notation)
    if isinstance(event, game.TrickGathered):
        return TrickGathered(frame=event.frame)
    return None
