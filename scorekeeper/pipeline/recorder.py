"""The tracker's game events, written to the table's log in the store.

What changes the match goes into the log (a deal started with its turned card, a card played,
a play corrected when the tracker finds a missed card of the vaza, a vaza gathered), and so do the
tracker's doubts a person at the table can answer: an ``uncertain`` event whose reason is one of
:data:`~scorekeeper.store.DOUBT_REASONS` (``missing_card``, ``weak_read``, ``seat``,
``illegal_read``, ``unexplained_read``, ``suit_swap``) and that names at least one card becomes a
``doubt_raised`` on the log's current deal. The rest are the tracker's own bookkeeping and stay in
its output: ``deduced`` (the last card, certain by the rules), ``stream_ended``, ``late_turned``,
``several_turned``, ``play_before_turned``, ``trick_vanished``, ``already_played``.

Renúncias are not stored, because the engine proves them again from the plays on every replay, and
the page already asks the table to confirm or dismiss each one; a suspected one (resting on a weak
read) is not a doubt of its own: the weak read it rests on is, with its alternatives. When the
tracker later corrects a play that has an open doubt, that doubt is settled by the same write.

A play the log refuses (for instance after a person corrected the deal on the phone and the
camera's view no longer fits) is reported, never allowed to stop the pipeline or to corrupt the
match.

When the match is won, the next trunfo the camera sees opens the next match (the store writes a
``match_started`` before the deal). A table that wants to confirm (``confirm_next_match``) taps
"Nova partida" instead: meanwhile the recorder holds the new deal's events and writes them into the
new match as soon as it exists, so the deal being played is never lost.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from scorekeeper.errors import ScorekeeperError
from scorekeeper.store import (
    DOUBT_REASONS,
    CardCorrected,
    CardPlayed,
    DealStarted,
    DoubtRaised,
    DoubtSettled,
    Folded,
    Store,
    TrickGathered,
)
from scorekeeper.store.events import MAX_OPTIONS, DealCorrected
from scorekeeper.store.events import Event as StoreEvent
from scorekeeper.tracking import events as game

Warn = Callable[[str], None]


@dataclass(slots=True)
class StoreRecorder:
    store: Store
    table_id: str
    warn: Warn = print
    confirm_next_match: bool = False
    """Hold a deal turned after a won match until the table starts the next match on the page."""
    written: int = 0
    refused: list[str] = field(default_factory=list)
    held: list[game.Event] = field(default_factory=list)
    """Game events waiting for the table's "Nova partida" (only with ``confirm_next_match``)."""

    def record(self, events: Iterable[game.Event]) -> int:
        """Append what ``events`` change in the match; return how many log events were written."""
        count = 0
        for event in events:
            if self._hold(event):
                continue
            for waiting in self._release():
                count += self._write(waiting)
            count += self._write(event)
        self.written += count
        return count

    @property
    def waiting_for_next_match(self) -> bool:
        return bool(self.held)

    def _hold(self, event: game.Event) -> bool:
        if not self.confirm_next_match:
            return False
        if self.held:
            if self.store.match_won(self.table_id):
                self.held.append(event)
                return True
            return False
        if isinstance(event, game.DealStarted) and self.store.match_won(self.table_id):
            self.held.append(event)
            self.warn(
                f"frame {event.frame}: the match is won; "
                'this deal waits for "Nova partida" on the page'
            )
            return True
        return False

    def _release(self) -> list[game.Event]:
        """The held events, once the table has started the next match (else nothing)."""
        if not self.held or self.store.match_won(self.table_id):
            return []
        released, self.held = self.held, []
        return released

    def _write(self, event: game.Event) -> int:
        stored = to_store_events(event, log=lambda: self.store.folded(self.table_id))
        if not stored:
            return 0
        try:
            self.store.append(self.table_id, *stored, next_match=not self.confirm_next_match)
        except ScorekeeperError as error:
            message = f"frame {event.frame}: the log refused {event.type} ({error})"
            self.refused.append(message)
            self.warn(message)
            return 0
        return len(stored)


def to_store_events(event: game.Event, *, log: Callable[[], Folded]) -> list[StoreEvent]:
    """The log events for one game event (none for what the engine recomputes or only informs).

    ``log`` gives the table's log as it is now: the tracker counts deals per stream, the log per
    match, so a correction or a doubt is for the log's current deal.
    """
    if isinstance(event, game.DealStarted):
        if event.from_page:
            return []
        return [DealStarted(dealer=event.dealer, turned=event.turned.notation)]
    if isinstance(event, game.DealCorrected):
        return [
            DealCorrected(deal=max(len(log().record["deals"]), 1), turned=event.turned.notation)
        ]
    if isinstance(event, game.CardPlayed):
        return [CardPlayed(event.card.notation, frame=event.frame)]
    if isinstance(event, game.TrickGathered):
        return [TrickGathered(frame=event.frame)]
    if isinstance(event, game.PlayCorrected):
        return _correction(event, log())
    if isinstance(event, game.Uncertain) and event.reason in DOUBT_REASONS:
        doubt = _doubt(event, log())
        return [] if doubt is None else [doubt]
    return []


def _correction(event: game.PlayCorrected, folded: Folded) -> list[StoreEvent]:
    deal = max(len(folded.record["deals"]), 1)
    card = event.card.notation
    settled: list[StoreEvent] = [
        DoubtSettled(doubt=seq, card=card if card in doubt.options else None)
        for seq, doubt in sorted(folded.current.doubts.items())
        if doubt.deal == deal and doubt.play == event.play
    ]
    return [CardCorrected(deal=deal, play=event.play, card=card), *settled]


def _doubt(event: game.Uncertain, folded: Folded) -> DoubtRaised | None:
    """The doubt for the log's current deal, or None: no deal yet, no card to offer, or the same
    doubt already open (a tracker resumed after a restart says it again)."""
    deals = folded.record["deals"]
    options = [card.notation for card in event.options] or (
        [event.card.notation] if event.card else []
    )
    if not deals or not options:
        return None
    plays: list[str] = deals[-1]["plays"]
    play = event.play
    if play is None and event.card is not None and event.card.notation in plays:
        play = plays.index(event.card.notation) + 1  # each card is played once in a deal
    doubt = DoubtRaised(
        deal=len(deals),
        play=play,
        reason=event.reason,
        options=tuple(dict.fromkeys(options))[:MAX_OPTIONS],
        frame=event.frame,
    )
    same = (doubt.deal, doubt.play, doubt.reason, doubt.options)
    if any((d.deal, d.play, d.reason, d.options) == same for d in folded.current.doubts.values()):
        return None
    return doubt
