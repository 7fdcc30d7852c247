"""Deals the table starts on the page, taken up by the camera's tracker.

The camera starts a deal when it reads the trunfo turned by the dealer. A turned card it cannot
read (face down by a house rule, under a hand, too dim or too small) would leave the whole deal
unrecorded; the table can then start the deal on the page (dealer and turned card), and the
tracker follows it from there as if it had read the card: the cards already lying in the play area
count, and the rest of the deal is read as usual.

Between two frames :meth:`PageDeals.events` looks at the table's log (one cheap query while it is
unchanged) and hands the tracker a deal the log began that the tracker is not following.
"""

from __future__ import annotations

from dataclasses import dataclass

from scorekeeper.rules import Deal, MatchRecord, parse_record
from scorekeeper.store import Store
from scorekeeper.tracking import Tracker
from scorekeeper.tracking.events import Event


def deal_in_progress(record: MatchRecord) -> Deal | None:
    """The engine's state of the record's last deal, if it is still being played."""
    if not record.deals:
        return None
    last = record.deals[-1]
    if last.thrown_in is not None:
        return None
    deal = Deal.start(dealer=last.dealer, turned=last.turned, rules=record.rules).play_all(
        last.plays
    )
    return None if deal.is_complete else deal


@dataclass(slots=True)
class PageDeals:
    store: Store
    table_id: str
    _seq: int | None = None
    _followed: tuple[int, int] | None = None
    """(matches, deals) in the log when the tracker last followed a deal or began to wait."""

    def events(self, tracker: Tracker) -> list[Event]:
        """What the tracker tells on taking up a deal begun on the page since the last call
        (nothing while the log is unchanged, or while the tracker follows a deal of its own). The
        first call only notes where the log stands."""
        seq = self.store.last_seq(self.table_id)
        if seq == self._seq:
            return []
        self._seq = seq
        folded = self.store.folded(self.table_id)
        where = (len(folded.matches), len(folded.record["deals"]))
        if tracker.deal is not None or self._followed is None or where == self._followed:
            self._followed = where
            return []
        self._followed = where
        deal = deal_in_progress(parse_record(folded.record))
        return [] if deal is None else tracker.take_up(deal)
