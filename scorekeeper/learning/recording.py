"""While a table plays: keep what a finished deal needs to become a labelled recording.

:class:`PlayKeeper` sits beside the pipeline, never in its way. It wraps the card reader to note,
a few times a second, each frame's corner indices (boxes and reads) and the play area's pixels
(JPEG, in memory only), and it listens to the tracker's events. When a deal has ended and the table
has gone on to the next one (or the session ends), the deal's record is read back from the store,
with every correction the table made on the page; if it is complete (whether or not the tracker saw
it end: the table may have completed it on the page) and no doubt of it is left open, its indices
are named by it (:mod:`scorekeeper.learning.labels`) and the card-region tiles are kept
(:mod:`scorekeeper.learning.keep`). The play area is the middle of the table: the kept
tiles are cut from it around named cards only, so no one sitting at the table is kept.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from scorekeeper.learning.keep import keep_deal
from scorekeeper.learning.labels import IndexSighting, SampledFrame, name_sightings, spots_of_deal
from scorekeeper.learning.tiles import Tile, card_tile
from scorekeeper.rules.cards import DECK
from scorekeeper.tracking import events as game
from scorekeeper.tracking.geometry import TableGeometry
from scorekeeper.training.thresholds import INDEX_CONFS
from scorekeeper.vision.boxes import as_box
from scorekeeper.vision.detections import FrameDetections

SAMPLES_PER_SECOND = 2.0
"""Frames noted a second: a card lies still for seconds, so more frames would repeat themselves."""
MAX_BUFFERED_FRAMES = 1200
"""Frames held in memory (10 minutes at 2 a second, a slow deal): older ones are let go."""
PLAY_AREA_GROWTH = 0.15
"""The noted region is the play area grown by this share on each side (cards land on its edge)."""
REGION_JPEG_QUALITY = 95
NOTED_INDEX_CONF = min(INDEX_CONFS)
"""Detector score down to which a sampled frame's indices are noted, below the reader's own
``index_conf``: learning chooses that threshold again on the kept deals, and an index the reader
did not box there would otherwise lie unlabelled in the tiles, a false find at any lower one."""


class IndexReader(Protocol):
    """What the keeper needs of a card reader: its reading and every corner index it boxes."""

    def read(self, frame_bgr: np.ndarray, frame_index: int = 0) -> FrameDetections: ...

    def read_and_note(
        self, frame_bgr: np.ndarray, frame_index: int, *, note_conf: float
    ) -> tuple[FrameDetections, list[Any]]: ...


@dataclass(slots=True)
class _Noted:
    sample: SampledFrame
    region: bytes
    origin: tuple[int, int]
    frame_size: tuple[int, int]


@dataclass(slots=True)
class _Deal:
    number: int
    match: int
    """Where the deal lies in the store: the match (from 1) and the deal in it (from 1)."""
    deal_in_match: int
    events: list[game.Event] = field(default_factory=list)
    noted: list[_Noted] = field(default_factory=list)


@dataclass
class PlayKeeper:
    """Keeps a table's accepted deals of one deck (see the module's docstring)."""

    deck: str
    table_id: str
    log: Callable[[str], None] = print
    kept: int = 0
    """Deals kept during this session."""
    _store: Any = None
    _geometry: TableGeometry | None = None
    _stride: int = 1
    _buffer: deque[_Noted] = field(default_factory=lambda: deque(maxlen=MAX_BUFFERED_FRAMES))
    _current: _Deal | None = None
    _pending: _Deal | None = None

    def watch(self, reader: Any, *, store: Any, geometry: TableGeometry, fps: float) -> Any:
        """``reader``, noting frames as it reads them (unchanged when it gives no corner reads)."""
        self._store = store
        self._geometry = geometry
        self._stride = max(1, round((fps or 25.0) / SAMPLES_PER_SECOND))
        if not hasattr(reader, "read_and_note"):
            return reader
        return _NotingReader(reader, self)

    # -- frames ----------------------------------------------------------------------------------

    def note(
        self,
        frame_index: int,
        frame_bgr: np.ndarray,
        readings: list[Any],
        detections: FrameDetections,
    ) -> None:
        import cv2

        if frame_index % self._stride or self._geometry is None:
            return
        height, width = frame_bgr.shape[:2]
        x1, y1, x2, y2 = self._geometry.play_area
        grow_x, grow_y = PLAY_AREA_GROWTH * (x2 - x1), PLAY_AREA_GROWTH * (y2 - y1)
        rx1, ry1 = max(0, int(x1 - grow_x)), max(0, int(y1 - grow_y))
        rx2, ry2 = min(width, int(x2 + grow_x)), min(height, int(y2 + grow_y))
        sightings = [
            IndexSighting(
                box=as_box(r.box),
                label=int(r.label),
                prob=float(r.probs[r.label]),
            )
            for r in readings
        ]
        inside = [
            s
            for s in sightings
            if rx1 <= (s.box[0] + s.box[2]) / 2 <= rx2 and ry1 <= (s.box[1] + s.box[3]) / 2 <= ry2
        ]
        if not inside or rx2 <= rx1 or ry2 <= ry1:
            return
        ok, encoded = cv2.imencode(
            ".jpg", frame_bgr[ry1:ry2, rx1:rx2], [cv2.IMWRITE_JPEG_QUALITY, REGION_JPEG_QUALITY]
        )
        if not ok:
            return
        sample = SampledFrame(
            frame=frame_index, sightings=inside, cards={d.card: d.box for d in detections.cards}
        )
        self._buffer.append(_Noted(sample, encoded.tobytes(), (rx1, ry1), (width, height)))

    # -- events ----------------------------------------------------------------------------------

    def on_event(self, event: game.Event, _stored_at: float = 0.0) -> None:
        """An :data:`~scorekeeper.pipeline.loop.EventListener`: follows the deals."""
        if isinstance(event, game.DealStarted):
            if self._current is not None:
                # The tracker did not see the last deal end; the table may have completed its
                # record on the page all the same, and the record is what decides.
                self._end_current(event.frame - 1)
            self._settle_pending()
            match, deal_in_match = self._where_in_store(event)
            self._current = _Deal(event.deal, match, deal_in_match, [event])
            return
        current = self._current
        if current is None or getattr(event, "deal", None) != current.number:
            return
        current.events.append(event)
        if isinstance(event, game.DealEnded):
            self._end_current(event.frame)

    def _end_current(self, last_frame: int) -> None:
        """The current deal's frames are in; it waits for the table to go on (see the docstring)."""
        current = self._current
        assert current is not None
        current.noted = [n for n in self._buffer if n.sample.frame <= last_frame]
        self._drop_frames_before(last_frame + 1)
        self._settle_pending()  # at most one deal waits
        self._pending, self._current = current, None

    def close(self) -> int:
        """At the end of the session: keep the last deal if it was accepted; deals kept in all."""
        if self._current is not None:
            last = self._buffer[-1].sample.frame if self._buffer else 0
            self._end_current(last)
        self._settle_pending()
        self._buffer.clear()
        return self.kept

    # -- keeping ---------------------------------------------------------------------------------

    def _where_in_store(self, started: game.DealStarted) -> tuple[int, int]:
        """The match and deal the store holds this deal as; (0, 0) when its last deal is another
        (the deal's events held for "Nova partida", say): such a deal is never kept, since naming
        crops by another deal's record would teach the reader wrong names."""
        folded = self._store.folded(self.table_id)
        deals = folded.record["deals"]
        if (
            not deals
            or str(deals[-1].get("trump", deals[-1].get("turned"))) != started.turned.notation
        ):
            return 0, 0
        return len(folded.matches), len(deals)

    def _drop_frames_before(self, frame: int) -> None:
        while self._buffer and self._buffer[0].sample.frame < frame:
            self._buffer.popleft()

    def _settle_pending(self) -> None:
        deal, self._pending = self._pending, None
        if deal is None or self._store is None:
            return
        accepted = self._accepted_record(deal)
        if accepted is None:
            return
        plays, turned = accepted
        tiles, corrected = label_deal(deal.noted, deal.events, plays)
        if (
            keep_deal(
                self.deck,
                tiles,
                table=self.table_id,
                plays=plays,
                turned=turned,
                corrected=corrected,
            )
            is not None
        ):
            self.kept += 1

    def _accepted_record(self, deal: _Deal) -> tuple[list[str], str] | None:
        """The deal's plays and turned card as the table left them, if complete and undoubted."""
        folded = self._store.folded(self.table_id)
        if not 0 < deal.match <= len(folded.matches):
            return None
        match = folded.matches[deal.match - 1]
        deals = match.record["deals"]
        if not 0 < deal.deal_in_match <= len(deals):
            return None
        record = deals[deal.deal_in_match - 1]
        plays = list(record.get("plays", []))
        if len(plays) != len(DECK) or record.get("thrown_in"):
            return None
        if any(doubt.deal == deal.deal_in_match for doubt in match.doubts.values()):
            self.log(f"deal {deal.number}: a doubt is still open; not kept for learning")
            return None
        return plays, str(record.get("trump", record.get("turned", "")))  # the turned card


def label_deal(
    noted: list[_Noted], events: list[game.Event], plays: list[str]
) -> tuple[list[Tile], list[int]]:
    """The deal's tiles named by ``plays``, and the plays (from 1) whose read was corrected."""
    import cv2

    spots = spots_of_deal([n.sample for n in noted], events, plays)
    tiles = []
    for item in noted:
        names = name_sightings(item.sample, spots)
        if not any(names):
            continue
        region = cv2.imdecode(np.frombuffer(item.region, np.uint8), cv2.IMREAD_COLOR)
        if region is None:
            continue
        tile = card_tile(
            region, item.origin, item.frame_size, item.sample.frame, item.sample.sightings, names
        )
        if tile is not None:
            tiles.append(tile)
    corrected = sorted(plays.index(spot.card.notation) + 1 for spot in spots if spot.corrected)
    return tiles, corrected


class _NotingReader:
    """The card reader, reading exactly as it does alone, and noting every sampled frame's
    corner indices down to :data:`NOTED_INDEX_CONF` (the indices below ``index_conf`` read by
    the classifier too, twice a second)."""

    def __init__(self, reader: IndexReader, keeper: PlayKeeper) -> None:
        self._reader = reader
        self._keeper = keeper

    def __getattr__(self, name: str) -> Any:
        return getattr(self._reader, name)

    def read(self, frame_bgr: np.ndarray, frame_index: int = 0) -> FrameDetections:
        if frame_index % self._keeper._stride:
            return self._reader.read(frame_bgr, frame_index)
        detections, readings = self._reader.read_and_note(
            frame_bgr, frame_index, note_conf=NOTED_INDEX_CONF
        )
        self._keeper.note(frame_index, frame_bgr, readings, detections)
        return detections
