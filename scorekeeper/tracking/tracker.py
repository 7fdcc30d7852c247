"""The table tracker: noisy per-frame card detections in, the exact story of the deal out.

It keeps one small track per card and decides from several frames, never from one:

- a card is *played* when it has lain still in the play area for ``settle_seconds`` (seen in at
  least ``min_sightings`` frames and in ``min_presence`` of the frames that reached the tracker), so a
  one-frame ghost, a misread for a frame or two, a card sliding through and a hand passing over
  neither create nor lose a play; a card that landed earlier, was seen a few times and then got
  covered by the next one is played first, as a weak read (flagged);
- the seat comes from the order of play (the rules engine's ``Deal.to_play``) and is cross-checked
  with the side the card came from: a disagreement is an ``uncertain`` event;
- before the first trick, a face-up card lying still by one side is the turned card: it gives the
  trump and the dealer, and seeing it there later is not a play;
- a trick closes when it has four cards and none of them has been seen for ``clear_seconds``;
- reads the rules forbid (a card played twice, the turned card from the wrong seat) are refused
  and flagged; the engine's proven renúncias are flagged with their evidence.

The tracker never reads a clock: time is the frame index divided by ``fps``. It never mutates the
detections it is given.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass, field
from enum import Enum

from scorekeeper.errors import IllegalPlayError
from scorekeeper.rules import Card, Deal, Rules
from scorekeeper.tracking.events import (
    CardPlayed,
    DealEnded,
    DealStarted,
    Event,
    RevokeFlagged,
    TrickGathered,
    Uncertain,
)
from scorekeeper.tracking.geometry import Point, Side, TableGeometry
from scorekeeper.vision.detections import Box, CardDetection, FrameDetections

TRICKS_PER_DEAL = 10
CARDS_PER_TRICK = 4


@dataclass(frozen=True, slots=True, kw_only=True)
class Thresholds:
    """The tracker's tuning knobs, each a trade-off between missing something and inventing it."""

    settle_seconds: float = 0.25
    """How long a card must lie still in the play area before it counts as played. Raising it keeps
    out more ghosts, misreads and cards waved over the table; it delays every ``card_played`` and
    leaves more cards to be caught only as weak reads when the next card covers them quickly."""

    min_sightings: int = 3
    """Frames in which a card must be seen during that time. Raising it needs more evidence against
    misreads that repeat; with many dropped frames it slows plays down (a card seen in 2 of 4 frames
    waits for a third)."""

    min_presence: float = 0.4
    """Share of the frames since a card landed in which it must be seen. Raising it refuses a
    misread that comes back now and then at the same spot; it delays a card a hand covers right
    after it lands, until the hand has gone."""

    still_radius: float = 0.15
    """How far (share of the image's shorter side) a card's box may move from one sighting to the
    next and still be the same stretch of lying still. The reader's box is one corner index or
    both, so a card lying still jumps by about half a card: keep it above that. Raising it
    tolerates more jitter and slow nudges; lowering it better ignores a card still sliding or
    waved over the table, at the cost of restarting the wait on jumpy boxes."""

    clear_seconds: float = 0.8
    """How long the four cards of a full trick must all be unseen before the trick is gathered. Raising
    it survives longer hands over the pile; it delays ``trick_gathered`` (a new card is played only
    after the old trick is gathered, so a quick lead waits too)."""

    turned_seconds: float = 0.6
    """How long a face-up card must lie still by one side, before any play, to be taken as the turned
    card. Raising it ignores cards shown briefly; it delays the start of the deal."""

    forget_seconds: float = 1.5
    """Gap after which a card's still run is over and a new sighting starts a new one. Raising it
    bridges longer occlusions; it risks joining a card's old spot to a new one."""

    approach_seconds: float = 3.0
    """How far back a sighting outside the play area still tells which side a card came from.
    Raising it finds the side of slow plays; it risks taking a side from a stale or wrong read."""

    side_margin: float = 0.35
    """When a card is first seen already inside the play area, how far toward a side (0 centre, 1 edge)
    it must lie for that side to count. Raising it avoids false seat disagreements on a crowded pile;
    it checks fewer seats."""

    weak_sightings: int = 2
    """Sightings (the last two at one spot) that make a card, covered by the next one before it
    settled, a weak play. Raising it refuses more two-frame misreads; it loses more cards hidden
    quickly."""

    same_spot: float = 0.5
    """Box overlap (intersection over union) at which two cards are read at one spot, at about the
    same time: the one seen less since the other appeared is a misread of it. Raising it lets more
    misreads through; lowering it risks dismissing a real card dropped almost exactly on another
    one. (A box merely inside another is no sign: a card's two-corner box spans the whole card, and
    the next card lands on it.)"""

    suspect_confidence: float = 0.6
    """A proven renúncia resting on a read below this confidence is flagged as suspected. Raising it
    marks more renúncias as doubtful; lowering it lets misreads accuse players."""


class Phase(str, Enum):
    AWAITING_TURN = "awaiting_turn"
    PLAYING = "playing"


@dataclass(slots=True, eq=False)
class _Run:
    """A stretch of sightings of one card lying still, either in the play area or by a side."""

    start_update: int
    """The tracker's update count at the first sighting: frames given since, dropped ones not."""
    frames: list[int] = field(default_factory=list)
    boxes: list[Box] = field(default_factory=list)
    confidence_sum: float = 0.0

    def add(self, detection: CardDetection, frame: int) -> None:
        self.frames.append(frame)
        self.boxes.append(detection.box)
        self.confidence_sum += detection.confidence

    @property
    def start_frame(self) -> int:
        return self.frames[0]

    @property
    def last_frame(self) -> int:
        return self.frames[-1]

    @property
    def box(self) -> Box:
        return self.boxes[-1]

    @property
    def at(self) -> Point:
        x1, y1, x2, y2 = self.boxes[-1]
        return ((x1 + x2) / 2, (y1 + y2) / 2)

    @property
    def seen(self) -> int:
        return len(self.frames)

    def seen_since(self, frame: int) -> int:
        return len(self.frames) - bisect.bisect_left(self.frames, frame)

    def between(self, first: float, last: float) -> tuple[list[int], list[Box]]:
        """The frames and boxes of the sightings from frame ``first`` to frame ``last``."""
        lo, hi = bisect.bisect_left(self.frames, first), bisect.bisect_right(self.frames, last)
        return self.frames[lo:hi], self.boxes[lo:hi]

    @property
    def confidence(self) -> float:
        return self.confidence_sum / self.seen


@dataclass(slots=True, eq=False)
class _Track:
    card: Card
    inside: _Run | None = None
    outside: _Run | None = None
    approach: Side | None = None
    """The side the current in-area run came from."""
    last_outside: tuple[int, Side] | None = None
    refused_run: int | None = None
    """Start frame of the in-area run whose play the rules refused (flagged once, not retried)."""
    gathered_at: int | None = None
    """Frame at which the trick holding this card was gathered: seeing it lie there afresh after
    that is a misread."""


@dataclass(slots=True)
class _Played:
    track: _Track
    seat: int
    confidence: float


@dataclass(slots=True)
class _DealState:
    number: int
    deal: Deal
    trick: list[_Played] = field(default_factory=list)
    confidence: dict[Card, float] = field(default_factory=dict)
    revokes_seen: int = 0
    cleared_at: int = -1
    """Last frame the previous trick's cards were seen: the next lead lands after it."""


class Tracker:
    """Feed it every frame's detections in order; it returns the game events each frame settles.

    >>> from scorekeeper.tracking import TableGeometry
    >>> tracker = Tracker(TableGeometry.default(1280, 720), fps=10)
    >>> tracker.update(FrameDetections(0))
    []
    """

    def __init__(
        self,
        geometry: TableGeometry,
        rules: Rules | None = None,
        *,
        fps: float = 10.0,
        thresholds: Thresholds | None = None,
    ) -> None:
        if fps <= 0:
            raise ValueError(f"fps {fps!r}: give the stream's frames per second (> 0)")
        self.geometry = geometry
        self.rules = rules if rules is not None else Rules()
        self.fps = fps
        self.thresholds = thresholds if thresholds is not None else Thresholds()
        t = self.thresholds
        self._settle = t.settle_seconds * fps
        self._clear = t.clear_seconds * fps
        self._turned = t.turned_seconds * fps
        self._forget = t.forget_seconds * fps
        self._approach = t.approach_seconds * fps
        self._still = t.still_radius * geometry.shorter_side
        self.reset()

    def reset(self) -> None:
        """Forget everything: the next frame may belong to a new table or a new stream."""
        self._tracks: dict[Card, _Track] = {}
        self._updates = 0
        self._last_frame: int | None = None
        self._deal_number = 0
        self._state: _DealState | None = None
        self._finished: list[Deal] = []
        self._flagged: set[tuple[str, Card | None, int]] = set()

    @property
    def phase(self) -> Phase:
        return Phase.PLAYING if self._state is not None else Phase.AWAITING_TURN

    @property
    def deal(self) -> Deal | None:
        """The engine's state of the deal being played, if one has started."""
        return self._state.deal if self._state is not None else None

    @property
    def deals(self) -> tuple[Deal, ...]:
        """Every deal seen so far, finished ones first, the current one last."""
        return (*self._finished, *([self._state.deal] if self._state else []))

    def update(self, frame: FrameDetections) -> list[Event]:
        """Take one frame's detections (frames may be skipped, never reordered); return new events."""
        index = frame.frame_index
        if self._last_frame is not None and index <= self._last_frame:
            raise ValueError(
                f"frame {index} came after frame {self._last_frame}: feed frames in order"
            )
        self._last_frame = index
        self._updates += 1
        for detection in frame.cards:
            self._observe(detection, index)
        if self._state is None:
            return self._look_for_turned_card(index)
        return self._advance(index)

    def finish(self) -> list[Event]:
        """The stream ended: gather a full trick still on the table and close the deal."""
        state = self._state
        if state is None or self._last_frame is None:
            return []
        frame = self._last_frame + 1
        events: list[Event] = []
        if len(state.trick) == CARDS_PER_TRICK:
            events += self._gather(state, frame)
        if self._state is not None:
            deal = self._state.deal
            events.append(Uncertain(
                frame=frame, deal=state.number, reason="stream_ended",
                detail=f"the stream ended after {len(deal.tricks)} of {TRICKS_PER_DEAL} tricks",
            ))
            events.append(DealEnded(frame=frame, deal=state.number, points=dict(deal.points),
                                    complete=False))
            self._finished.append(deal)
            self._state = None
        return events

    # -- evidence -------------------------------------------------------------------------

    def _observe(self, detection: CardDetection, frame: int) -> None:
        track = self._tracks.get(detection.card)
        if track is None:
            track = self._tracks[detection.card] = _Track(detection.card)
        center = detection.center
        if self.geometry.in_play_area(center):
            if self._continues(track.inside, center, frame):
                assert track.inside is not None
                track.inside.add(detection, frame)
            else:
                track.inside = self._new_run(detection, frame)
                track.approach = self._approach_side(track, center, frame)
        else:
            side = self.geometry.side_of(center)
            track.last_outside = (frame, side)
            if self._continues(track.outside, center, frame):
                assert track.outside is not None
                track.outside.add(detection, frame)
            else:
                track.outside = self._new_run(detection, frame)

    def _continues(self, run: _Run | None, center: Point, frame: int) -> bool:
        return (
            run is not None
            and frame - run.last_frame <= self._forget
            and math.dist(center, run.at) <= self._still
        )

    def _new_run(self, detection: CardDetection, frame: int) -> _Run:
        run = _Run(self._updates)
        run.add(detection, frame)
        return run

    def _approach_side(self, track: _Track, center: Point, frame: int) -> Side | None:
        if track.last_outside is not None and frame - track.last_outside[0] <= self._approach:
            return track.last_outside[1]
        if self.geometry.lean(center) >= self.thresholds.side_margin:
            return self.geometry.side_of(center)
        return None

    def _steady(self, run: _Run | None, frame: int, span: float) -> bool:
        """Seen often enough, for long enough, and recently: the run is a card lying there."""
        if run is None or frame - run.last_frame > self._forget:
            return False
        frames_seen = self._updates - run.start_update + 1
        return (
            run.seen >= self.thresholds.min_sightings
            and run.last_frame - run.start_frame >= span
            and run.seen >= self.thresholds.min_presence * frames_seen
        )

    def _rival(self, track: _Track) -> _Track | None:
        """A card read at this spot and seen more since this one appeared: this is its misread.

        A misread names the card under the reader's box wrongly: the same box, in frames where
        the real card is not read, and the real card is still read there. Two cards mostly read
        in the same frames are two cards; a card no longer read where a new one lies is covered.
        """
        run = track.inside
        assert run is not None
        # Count the other card's sightings from well before this one appeared: a card lying there
        # for long has been seen there more than a misread that keeps coming back.
        since = run.start_frame - self._forget
        for other in self._tracks.values():
            o = other.inside
            if (other is track or o is None or o.last_frame < run.last_frame - self._settle
                    or o.seen_since(since) <= run.seen):
                continue
            # Compare boxes read at about the same time: a card's box moves when a hand uncovers
            # its other corner.
            frames, boxes = o.between(since, run.last_frame + self._forget)
            if 2 * len(set(frames) & set(run.frames)) >= run.seen:
                continue
            if any(_iou(a, b) >= self.thresholds.same_spot for a in boxes for b in set(run.boxes)):
                return other
        return None

    # -- the turned card ------------------------------------------------------------------

    def _look_for_turned_card(self, frame: int) -> list[Event]:
        events: list[Event] = []
        candidates = [t for t in self._tracks.values() if self._steady(t.outside, frame, self._turned)]
        if not candidates:
            for track in self._tracks.values():
                if self._steady(track.inside, frame, self._settle):
                    events += self._flag_once(
                        frame, "play_before_turned", track.card, None,
                        f"{track.card} lies in the play area before any turned card was seen by a "
                        "side; the trump and dealer are unknown, so it is not counted", None,
                    )
            return events
        best = max(candidates, key=lambda t: (t.outside.seen if t.outside else 0))
        assert best.outside is not None
        side = self.geometry.side_of(best.outside.at)
        dealer = self.geometry.seat_at(side)
        others = sorted(str(t.card) for t in candidates if t is not best)
        self._deal_number += 1
        self._state = _DealState(self._deal_number,
                                 Deal.start(dealer=dealer, turned=best.card, rules=self.rules))
        self._state.confidence[best.card] = best.outside.confidence
        events.append(DealStarted(frame=best.outside.start_frame, deal=self._deal_number,
                                  dealer=dealer, turned=best.card,
                                  confidence=best.outside.confidence))
        if others:
            events.append(Uncertain(
                frame=frame, deal=self._deal_number, reason="several_turned", card=best.card,
                seat=dealer, detail=f"face-up cards by the sides: {best.card} (taken, seen most) "
                f"and {', '.join(others)}",
            ))
        return events + self._advance(frame)

    # -- plays and tricks -----------------------------------------------------------------

    def _advance(self, frame: int) -> list[Event]:
        state = self._state
        assert state is not None
        played = set(state.deal.played)
        pending = [t for t in self._tracks.values() if self._pending(t, played, frame)]
        ready = sorted((t for t in pending if self._steady(t.inside, frame, self._settle)),
                       key=_landed)
        events = self._flag_replays(state, frame)
        if len(state.trick) == CARDS_PER_TRICK:
            # No card lands on a full trick: a read that began while the trick still lay there is
            # a misread or a card of the trick, never the next lead.
            last_seen = max(_last_seen(p.track, frame) for p in state.trick)
            ready = [t for t in ready if _landed(t) > last_seen]
            unseen = frame - last_seen
            if unseen >= self._clear or (ready and unseen >= self._settle):
                events += self._gather(state, frame)
            if self._state is not state or len(state.trick) == CARDS_PER_TRICK:
                return events
        pending = [t for t in pending if _landed(t) > state.cleared_at]
        ready = [t for t in ready if _landed(t) > state.cleared_at]
        for track in ready:
            # Cards landed before this one but not yet steady: wait for one still in view, take
            # one the new card has covered as a weak play, so neither is lost nor played late.
            if track.card in state.deal.played:
                continue
            earlier = [t for t in pending if t not in ready and _landed(t) < _landed(track)
                       and t.card not in state.deal.played and self._lay_there(t)]
            if any(frame - _last_seen(t, frame) < self._settle for t in earlier):
                return events
            for weak in sorted(earlier, key=_landed):
                events += self._play(state, weak, frame, weak=True)
                if len(state.trick) == CARDS_PER_TRICK:
                    return events
            events += self._play(state, track, frame, weak=False)
            if len(state.trick) == CARDS_PER_TRICK:
                return events
        return events

    def _lay_there(self, track: _Track) -> bool:
        """Seen ``weak_sightings`` times, the last two at one spot: a card that landed, not a
        misread of a card in motion."""
        run = track.inside
        return (
            run is not None
            and run.seen >= max(2, self.thresholds.weak_sightings)
            and _iou(run.boxes[-2], run.boxes[-1]) >= self.thresholds.same_spot
        )

    def _pending(self, track: _Track, played: set[Card], frame: int) -> bool:
        """In the play area now, not played, not refused, not a rival's misread twin."""
        run = track.inside
        return (
            run is not None
            and track.card not in played
            and track.refused_run != run.start_frame
            and frame - run.last_frame <= self._forget
            and self._rival(track) is None
        )

    def _play(self, state: _DealState, track: _Track, frame: int, *, weak: bool) -> list[Event]:
        run = track.inside
        assert run is not None
        deal = state.deal
        seat = deal.to_play
        card = track.card
        if seat is None:
            return []
        try:
            deal.check_play(card)
        except IllegalPlayError as error:
            track.refused_run = run.start_frame
            return [Uncertain(frame=frame, deal=state.number, reason="illegal_read", card=card,
                              seat=seat, confidence=run.confidence,
                              detail=f"read {card} for seat {seat} but the rules refuse it: {error}")]
        trick_number = len(deal.tricks) + 1
        state.deal = deal.play(card)
        state.trick.append(_Played(track, seat, run.confidence))
        state.confidence[card] = run.confidence
        side_seat = self.geometry.seat_at(track.approach) if track.approach is not None else None
        events: list[Event] = [CardPlayed(
            frame=run.start_frame, deal=state.number, trick=trick_number, seat=seat, card=card,
            confidence=run.confidence, side_seat=side_seat,
        )]
        if weak:
            events.append(Uncertain(
                frame=run.start_frame, deal=state.number, reason="weak_read", card=card, seat=seat,
                confidence=run.confidence,
                detail=f"{card} was seen only {run.seen} times before the next card covered it",
            ))
        if side_seat is not None and side_seat != seat:
            events.append(Uncertain(
                frame=run.start_frame, deal=state.number, reason="seat", card=card, seat=seat,
                confidence=run.confidence,
                detail=f"{card} is seat {seat}'s by the order of play but came from the "
                f"{track.approach.value if track.approach else '?'} side, seat {side_seat}'s",
            ))
        return events + self._new_revokes(state, run.start_frame, card)

    def _new_revokes(self, state: _DealState, frame: int, proof_card: Card) -> list[Event]:
        revokes = state.deal.revokes
        events: list[Event] = []
        for revoke in revokes[state.revokes_seen:]:
            # The proof rests on the card led, the revoking card and the card that proves it (the
            # play just made, or the turned card the dealer still held).
            tricks = (*state.deal.tricks, state.deal.current_trick)
            led_card = tricks[revoke.trick - 1].cards[0]
            proving = proof_card if revoke.proven_in_trick != revoke.trick else state.deal.turned
            evidence = [state.confidence.get(c, 1.0) for c in (led_card, revoke.card, proving)]
            confidence = min(evidence)
            events.append(RevokeFlagged(
                frame=frame, deal=state.number, trick=revoke.trick, seat=revoke.seat,
                card=revoke.card, led=str(revoke.led), proof=str(revoke.proof),
                suspected=confidence < self.thresholds.suspect_confidence, confidence=confidence,
            ))
        state.revokes_seen = len(revokes)
        return events

    def _gather(self, state: _DealState, frame: int) -> list[Event]:
        deal = state.deal
        trick = deal.tricks[-1]
        winner = trick.winner(deal.trump)
        assert winner is not None
        last_seen = max(_last_seen(p.track, frame) for p in state.trick)
        events: list[Event] = [TrickGathered(
            frame=last_seen + 1, deal=state.number, trick=len(deal.tricks), winner=winner,
            cards=trick.cards, points=trick.points,
        )]
        for played in state.trick:
            played.track.gathered_at = frame
        state.trick = []
        state.cleared_at = last_seen
        if deal.is_complete:
            events.append(DealEnded(frame=last_seen + 1, deal=state.number,
                                    points=dict(deal.points)))
            self._finished.append(deal)
            self._state = None
            self._tracks = {}
        return events

    def _flag_replays(self, state: _DealState, frame: int) -> list[Event]:
        """A gathered card seen lying in the play area again: a misread the rules rule out."""
        events: list[Event] = []
        in_trick = {p.track.card for p in state.trick}
        for card in state.deal.played - in_trick:
            track = self._tracks.get(card)
            if (track is not None and track.inside is not None
                    and track.gathered_at is not None
                    and track.inside.start_frame > track.gathered_at
                    and self._steady(track.inside, frame, self._settle)):
                events += self._flag_once(
                    frame, "already_played", card, None,
                    f"{card} lies in the play area but was already played this deal: a misread "
                    "of another card, not counted", track.inside.confidence,
                )
        return events

    def _flag_once(self, frame: int, reason: str, card: Card | None, seat: int | None,
                   detail: str, confidence: float | None) -> list[Event]:
        key = (reason, card, self._deal_number)
        if key in self._flagged:
            return []
        self._flagged.add(key)
        return [Uncertain(frame=frame, deal=max(self._deal_number, 1), reason=reason, card=card,
                          seat=seat, detail=detail, confidence=confidence)]



def _landed(track: _Track) -> int:
    return track.inside.start_frame if track.inside is not None else -1


def _last_seen(track: _Track, default: int) -> int:
    return track.inside.last_frame if track.inside is not None else default


def _iou(a: Box, b: Box) -> float:
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0
