"""One table's session: the source, the card reader, the tracker, the store and the page, wired up.

``TableSession`` owns the order things start in: the store first (the match is safe before
anything else runs), then the page (the phones see the score even before the camera answers), then
the source and the reader, each failing with a one-line error. Frames then flow one way through
:func:`~scorekeeper.pipeline.loop.run_loop` until the source ends or Ctrl-C; every event is stored
as it happens, so stopping at any moment loses nothing and a restart continues the same match.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from scorekeeper.pipeline.capture import ResilientCapture, SourceSpec
from scorekeeper.pipeline.loop import EventListener, FrameReader, LoopStats, run_loop
from scorekeeper.pipeline.page_deals import PageDeals, deal_in_progress
from scorekeeper.pipeline.recorder import StoreRecorder
from scorekeeper.pipeline.status import LiveStatus
from scorekeeper.rules import Rules, parse_record
from scorekeeper.store import RulesChanged, Store
from scorekeeper.tracking import TableGeometry, Tracker
from scorekeeper.tracking.events import DealStarted, Event, Uncertain
from scorekeeper.tracking.geometry import seated
from scorekeeper.tracking.thresholds import Thresholds
from scorekeeper.tracking.tracker import check_camera_rules

if TYPE_CHECKING:
    from scorekeeper.learning.recording import PlayKeeper

ReaderFactory = Callable[[], FrameReader]


@dataclass
class TableSession:
    source: str
    database: str
    table_id: str
    reader_factory: ReaderFactory
    rules: Rules | None = None
    """Rules to set for the match; None keeps what the store has."""
    geometry: TableGeometry | None = None
    """Where the seats and the play area are; None: the default overhead layout for the frame
    size."""
    seat0: str | None = None
    """Side of the image seat 0 sits by (bottom, right, top, left); None keeps the geometry's."""
    clockwise: bool = False
    realtime: bool = False
    confirm_next_match: bool = False
    """A won match waits for "Nova partida" on the page; else the next trunfo starts the next
    match."""
    warn: Callable[[str], None] = print
    on_event: EventListener | None = None
    status: LiveStatus = field(default_factory=LiveStatus)
    capture: ResilientCapture | None = None
    recorder: StoreRecorder | None = None
    play_keeper: PlayKeeper | None = None
    """Keeps the accepted deals for learning (:mod:`scorekeeper.learning`); None keeps nothing."""

    def open_store(self) -> Store:
        store = Store.open(self.database)
        if self.rules is not None:
            check_camera_rules(self.rules)  # before the table's rules change for nothing
            if store.table_state(self.table_id).result.rules != self.rules:
                store.append(self.table_id, RulesChanged(self.rules.to_json()))
        return store

    def run(self, store: Store) -> LoopStats:
        """Open the source and the reader (one-line errors), then follow the game to the end."""
        self.capture = ResilientCapture(
            SourceSpec(self.source),
            on_status=lambda state, detail: self.status.update(state, detail),
        )
        self.capture.open()
        reader = self.reader_factory()
        geometry = seated(
            self.geometry or TableGeometry.default(*self.capture.frame_size()),
            seat0=self.seat0,
            clockwise=self.clockwise,
        )
        tracker = self.tracker_for(store, geometry, reader_thresholds(reader))
        page_deals = PageDeals(store, self.table_id)
        page_deals.events(tracker)  # where the log stands now: a deal begun from here on is new
        self.recorder = StoreRecorder(
            store, self.table_id, warn=self.warn, confirm_next_match=self.confirm_next_match
        )
        on_event = _both(self.on_event, self._follow_trunfo)
        keeper = self.play_keeper
        if keeper is not None:
            reader = keeper.watch(reader, store=store, geometry=geometry, fps=self.capture.fps())
            on_event = _both(self.on_event, keeper.on_event)
        try:
            stats = run_loop(
                self.capture,
                reader,
                tracker,
                self.recorder,
                realtime=self.realtime,
                on_event=on_event,
                page_deals=page_deals,
            )
        finally:
            if keeper is not None:
                keeper.close()
        if self.recorder.held:
            self.warn(
                f"{len(self.recorder.held)} events of the deal after the won match "
                'were not stored: the source ended before "Nova partida"'
            )
        return stats

    def _follow_trunfo(self, event: Event, _stored_at: float) -> None:
        if isinstance(event, Uncertain) and event.reason == "play_before_turned":
            self.status.trunfo_unread(True)
        elif isinstance(event, DealStarted):
            self.status.trunfo_unread(False)

    @property
    def waiting_for_next_match(self) -> bool:
        """Whether the deal being seen is held until the table starts the next match."""
        return self.recorder is not None and self.recorder.waiting_for_next_match

    def tracker_for(
        self, store: Store, geometry: TableGeometry, thresholds: Thresholds | None = None
    ) -> Tracker:
        """A tracker for the match in the store: a deal left in progress by a stop is carried on."""
        assert self.capture is not None
        record = parse_record(store.record(self.table_id))
        tracker = Tracker(geometry, record.rules, fps=self.capture.fps(), thresholds=thresholds)
        deal = deal_in_progress(record)
        if deal is not None:
            number = len(record.deals)
            tracker.resume(
                deal, number=number, missing_after=missing_card_play(store, self.table_id, number)
            )
        return tracker

    def stop(self) -> None:
        if self.capture is not None:
            self.capture.stop()


def missing_card_play(store: Store, table_id: str, deal: int) -> int | None:
    """The play of the deal's open ``missing_card`` doubt, if any: when the camera stopped, the
    tracker held the plays after a vaza gathered with a card never read, and a resumed tracker
    carries on holding them (``Tracker.resume(..., missing_after=...)``)."""
    return next(
        (
            doubt["play"]
            for doubt in store.state(table_id)["doubts"]
            if doubt["reason"] == "missing_card"
            and doubt["deal"] == deal
            and doubt["play"] is not None
        ),
        None,
    )


def _both(first: EventListener | None, second: EventListener) -> EventListener:
    if first is None:
        return second

    def both(event: Event, stored_at: float) -> None:
        first(event, stored_at)
        second(event, stored_at)

    return both


def reader_thresholds(reader: object) -> Thresholds:
    """The tracker's thresholds with those the reader's model sets for its own reads
    (:attr:`scorekeeper.vision.reader_config.ReaderConfig.tracker`); the defaults for a reader
    that sets none, or that has no model folder (a recorded stream, a test's reader)."""
    config = getattr(reader, "config", None)
    return Thresholds(**getattr(config, "tracker", {}))
