"""The table tracker: noisy per-frame card detections in, the exact story of the deal out.

Every stretch of sightings of one card lying still at one spot is a *run*; plays are decided on
runs, from several frames, never from one:

- a run is *played* when the card has lain in the play area for ``settle_seconds`` (seen in at
  least ``min_sightings`` frames and in ``min_presence`` of the frames that reached the tracker), so
  a one-frame ghost, a card sliding in and a hand passing over neither create nor lose a play;
- a sighting at the box of another card read more often around then (all its corners counted,
  even in a frame where its other corner is read) is that card misread; a run is judged on its other sightings only, and a run that
  is mostly misreads is never a play;
- runs are played in the order the cards landed: a card that landed, was seen a couple of times at
  one spot with confidence and then got covered by the next one is played first, as a weak read
  (flagged);
- the seat comes from the order of play (the rules engine's ``Deal.to_play``) and is cross-checked
  with the side the card came from: a disagreement is an ``uncertain`` event;
- before the first trick, a face-up card lying still by one side is the turned card: it gives the
  trump and the dealer, and seeing it there later is not a play; when the reader only makes it out
  after cards were played, the frames since the last deal are read again with it;
- a trick closes when it has four cards and none of them has been seen for ``clear_seconds``; no
  card lands on a full trick, so a read that began before the trick was gathered never leads;
- a trick is only gathered whole, so one that vanishes a card short had a card the reader missed:
  the cards read there since the last trick (however faintly) are put back where they landed, and
  the plays after them move one seat on (``play_corrected``); the last trick's missing card is the
  one card of the deck left;
- when nothing was glimpsed there, the next card is taken as the missing one, until it proves to
  have begun the next vaza (it still lies there when another lands): then the plays are held until
  the deal shows which card was never read, and ``tracking.missing`` places it;
- reads the rules forbid (a card played twice, the turned card from the wrong seat) are refused
  and flagged; the engine's proven renúncias are flagged with their evidence.

The tracker never reads a clock: time is the frame index divided by ``fps``. It never mutates the
detections it is given.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import Enum

from scorekeeper.errors import IllegalPlayError, RulesError
from scorekeeper.rules import DECK, Card, Deal, Rules
from scorekeeper.rules.deal import TRICKS_PER_DEAL
from scorekeeper.rules.trick import TRICK_SIZE
from scorekeeper.tracking.decoding import Decoded, Reads, decode_plays, explains
from scorekeeper.tracking.events import (
    CardPlayed,
    DealCorrected,
    DealEnded,
    DealStarted,
    Event,
    PlayCorrected,
    RevokeFlagged,
    TrickGathered,
    Uncertain,
)
from scorekeeper.tracking.geometry import Point, Side, TableGeometry
from scorekeeper.tracking.missing import Gap, place_missing_cards, seated_plays
from scorekeeper.tracking.runs import Played, Run, Track
from scorekeeper.tracking.thresholds import Thresholds
from scorekeeper.vision.boxes import iou, nested_share
from scorekeeper.vision.detections import CardDetection, FrameDetections

CARDS_PER_TRICK = TRICK_SIZE

OTHER_CORNER_SHARE = 0.9
"""How much of a play's box a new run's box must hold to be that card seen at another corner."""

REPLAY_SECONDS = 180.0
"""How much of the stream before the turned card was recognised is kept to be read again with it:
a whole deal at a café's pace, so memory stays bounded on a camera left running between deals."""


class Phase(str, Enum):
    AWAITING_TURN = "awaiting_turn"
    PLAYING = "playing"


@dataclass(slots=True, eq=False)
class _Hole:
    """A vaza was gathered with a card no frame showed. Who played each card after it depends on
    where that card went, so the cards that land from then on are held, in landing order, until
    the rest of the deal shows which cards were never read (``scorekeeper.tracking.missing``)."""

    trick: int
    """The first vaza gathered a card short."""
    before: Deal
    """The deal before that vaza."""
    told: list[Card]
    """The deal's plays as the events told them when the hole was found (to correct them)."""
    held: list[Played]
    """Every card read from that vaza on, in landing order."""
    gaps: list[Gap]
    gathered: list[int]
    """For each vaza from the first gap's on, the first frame without it."""
    short_from: int | None = None
    """Where (in ``held``) a held vaza that vanished a card short begins: the next card read was
    taken as its last, which the next landing may disprove."""

    @property
    def cards_accounted(self) -> int:
        """Cards played this deal, the ones never read included."""
        return len(self.before.played) + len(self.held) + len(self.gaps)


@dataclass(slots=True)
class _DealState:
    number: int
    deal: Deal
    trick: list[Played] = field(default_factory=list)
    confidence: dict[Card, float] = field(default_factory=dict)
    revokes_seen: int = 0
    cleared_at: int = -1
    """Last frame the previous trick's cards were seen: the next lead lands after it."""
    turned_spot: Point | None = None
    """Where the turned card lay by the dealer: seeing it there, even across the play area's
    edge, is not a play."""
    gathered_at: dict[Card, int] = field(default_factory=dict)
    gathered_labels: dict[Card, int] = field(default_factory=dict)
    """For each card name the reader gave a gathered play, when it was gathered: a later run of
    that name is a misread or, when the deal's decoding renamed that play, another card."""
    runs: dict[Card, Run | None] = field(default_factory=dict)
    """The run each play of the deal was made from."""
    evidence: dict[int, Reads] = field(default_factory=dict)
    """The reads' evidence for each play's card, by ``id`` of its run, kept when its vaza is
    gathered (the runs around it are forgotten later)."""
    turned_reads: Reads = field(default_factory=Reads.empty)
    turned_labels: frozenset[Card] = frozenset()
    """The names the reader gave the turned card where it lay."""
    trick_start: Deal | None = None
    """The deal as it stood before the trick on the table: a card of the trick found late is
    put back in its place by replaying the trick from here. None after a resume."""
    vanished_short: int | None = None
    """The vaza that vanished a card short with nothing seen to complete it, so the next card
    read was taken as its last: the landings after it may show that it began the next vaza."""
    hole: _Hole | None = None

    def taken(self) -> frozenset[Card]:
        """The cards played this deal, those held behind a hole included."""
        if self.hole is None:
            return self.deal.played
        return self.deal.played | {p.card for p in self.hole.held}


def check_camera_rules(rules: Rules) -> None:
    """Refuse rules the camera cannot follow: the card reader knows the 40 cards of the standard deck."""
    if rules.deck.deck.cards != DECK:
        raise RulesError(
            f"deck={rules.deck.value}: the card reader knows only the standard deck (it reads a 10 as not a "
            "card), so the camera cannot follow this game: keep it on the page (scorekeeper serve), "
            "or run with --rules tournament"
        )


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
        decode: bool = True,
    ) -> None:
        """``decode``: decide the plays' cards together over the deal (each card once, the
        rules' prior, the reader's runners-up); off, each play is its run's best read, as the
        tracker did before (kept to measure the difference)."""
        if fps <= 0:
            raise ValueError(f"fps {fps!r}: give the stream's frames per second (> 0)")
        self.geometry = geometry
        self.rules = rules if rules is not None else Rules()
        check_camera_rules(self.rules)
        self.fps = fps
        self.thresholds = thresholds if thresholds is not None else Thresholds()
        self.decode = decode
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
        self._tracks: dict[Card, Track] = {}
        self._updates = 0
        self._last_frame: int | None = None
        self._deal_number = 0
        self._state: _DealState | None = None
        self._finished: list[Deal] = []
        self._flagged: set[tuple[str, Card | None, int]] = set()
        self._forget_waiting()

    def _forget_waiting(self) -> None:
        # Frames given while no deal was under way, with the update count before each: if cards
        # were played before the turned card could be read, they are read again once it is known.
        self._waiting: deque[tuple[int, FrameDetections]] = deque(
            maxlen=max(1, int(REPLAY_SECONDS * self.fps)))
        self._played_before_turn = False

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
        if self._state is None:
            self._waiting.append((self._updates, frame))
        return self._step(frame)

    def _step(self, frame: FrameDetections) -> list[Event]:
        index = frame.frame_index
        self._updates += 1
        for detection in frame.cards:
            if detection.confidence >= self.thresholds.min_confidence:
                self._observe(detection, index)
        if self._updates % 64 == 0:
            self._prune(index)
        if self._state is None:
            return self._look_for_turned_card(index)
        return self._advance(index)

    def finish(self) -> list[Event]:
        """The stream ended: gather a full trick still on the table and close the deal."""
        state = self._state
        if state is None or self._last_frame is None:
            return []
        frame = self._last_frame + 1
        if state.hole is not None:
            events: list[Event] = self._fill_hole(state, frame)
            if self._state is None:
                return events
        else:
            events = []
        events += self._complete_last_trick(state, frame, stream_ended=True)
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

    def resume(self, deal: Deal, *, number: int = 1) -> None:
        """Carry on a deal already under way (after a restart): its plays so far are known and
        the cards of its current trick lie on the table. ``number`` counts deals in events."""
        self.reset()
        self._deal_number = number
        self._state = _DealState(number, deal)
        trick = deal.current_trick
        self._state.trick = [Played(card, seat, None)
                             for card, seat in zip(trick.cards, trick.seats(), strict=True)]

    # -- evidence -------------------------------------------------------------------------

    def _observe(self, detection: CardDetection, frame: int) -> None:
        track = self._tracks.get(detection.card)
        if track is None:
            track = self._tracks[detection.card] = Track(detection.card)
        center = detection.center
        if not self.geometry.in_play_area(center):
            track.last_outside = (frame, self.geometry.side_of(center))
            if track.outside is None or not self._continues(track.outside, center, frame):
                track.outside = Run(track.card, self._updates)
            track.outside.add(detection, frame)
            return
        for run in reversed(track.runs):
            if self._continues(run, center, frame):
                run.add(detection, frame)
                return
        run = Run(track.card, self._updates, approach=self._approach_side(track, frame))
        run.add(detection, frame)
        track.runs.append(run)

    def _continues(self, run: Run, center: Point, frame: int) -> bool:
        # A run of a sighting or two is no card yet: after a short gap it starts over, so stray
        # misreads do not lend a card that lands later an earlier landing frame.
        gap = self._forget if run.seen >= self.thresholds.min_sightings else self._forget / 2
        return frame - run.last_frame <= gap and math.dist(center, run.at) <= self._still

    def _approach_side(self, track: Track, frame: int) -> Side | None:
        """The side the card was last seen on before it entered the play area, if lately.

        Where a card lies inside the area says little: cards land near the middle, and the
        reader's box may be either corner index.
        """
        if track.last_outside is not None and frame - track.last_outside[0] <= self._approach:
            return track.last_outside[1]
        return None

    def _prune(self, frame: int) -> None:
        """Drop runs long unseen; played ones stay while their trick is on the table."""
        keep = {id(p.run) for p in self._state.trick if p.run} if self._state else set()
        horizon = frame - 3 * self._forget
        # Reads since the last trick was gathered may still be a missed card of the trick on the
        # table (see _salvage), for as long as a slow trick plausibly takes.
        trick_began = self._state.cleared_at if self._state else frame
        trick_horizon = frame - 20 * self._forget
        for track in self._tracks.values():
            track.runs = [r for r in track.runs if r.last_frame >= horizon or id(r) in keep
                          or (r.start_frame > trick_began and r.last_frame >= trick_horizon)]

    def _runs(self) -> Iterator[Run]:
        for track in self._tracks.values():
            yield from track.runs

    def _steady(self, run: Run | None, frame: int, span: float,
                frames: list[int] | None = None) -> bool:
        """Seen often enough, for long enough, and recently: the run is a card lying there.

        ``frames``: judge only these sightings of the run (those no other card explains).
        """
        if run is None or frame - run.last_frame > self._forget:
            return False
        seen = run.frames if frames is None else frames
        frames_given = self._updates - run.start_update + 1
        return (
            len(seen) >= max(1, self.thresholds.min_sightings)
            and seen[-1] - seen[0] >= span
            and len(seen) >= self.thresholds.min_presence * frames_given
        )

    def _unexplained(self, run: Run) -> list[int]:
        """The frames of this run's sightings that are not another card misread.

        A misread names the card under the reader's box wrongly: a sighting is explained by
        another card, read more often around then (all its runs together: a card's two corners
        are two spots, and one may be misread while the other is read in the same frame), at the
        same box about then, and read there within ``clear_seconds`` of it. A card that lands exactly on another one and hides
        it is taken for a misread only until the hidden card has been unseen that long.
        """
        lo, hi = run.start_frame - self._forget, run.last_frame + self._forget
        # Only a card read more often than this one around then can explain it away (counting
        # all its runs: its two corners are two spots).
        nearby: dict[Card, list[Run]] = {}
        for other in self._runs():
            if (other.card != run.card and other.last_frame >= run.start_frame - self._clear
                    and other.start_frame <= hi and not self._replayed(other)):
                nearby.setdefault(other.card, []).append(other)
        others = [o for runs in nearby.values()
                  if sum(len(o.between(lo, hi)[0]) for o in runs) > run.seen for o in runs]
        if not others:
            return run.frames
        own: list[int] = []
        for frame, box in zip(run.frames, run.boxes, strict=True):
            for other in others:
                if other.last_frame < frame - self._clear:
                    continue
                _, boxes = other.between(max(lo, frame - self._forget), frame + self._forget)
                if any(iou(box, theirs) >= self.thresholds.same_spot for theirs in boxes):
                    break
            else:
                own.append(frame)
        return own

    def _misread(self, run: Run) -> bool:
        """Half of this run or more is another card misread: it is no card of its own."""
        return 2 * len(self._unexplained(run)) <= run.seen

    def _replayed(self, run: Run) -> bool:
        """A run of a gathered card that began after its trick was gathered: by the rules a
        misread itself, so it explains nothing away."""
        state = self._state
        return (state is not None and run.card in state.gathered_labels
                and run.start_frame > state.gathered_labels[run.card])

    def _turned_at_rest(self, state: _DealState, run: Run) -> bool:
        """The turned card still lying where the dealer put it (its box may reach into the play
        area): it stays in his hand until he moves it to the middle."""
        return ((run.card == state.deal.turned or run.card in state.turned_labels)
                and state.turned_spot is not None
                and math.dist(run.at, state.turned_spot) <= self._still)

    def _lay_there(self, run: Run) -> bool:
        """Seen ``weak_sightings`` times with confidence, the last two at one spot: a card that
        landed, not a misread of a card in motion."""
        return (
            run.seen >= max(2, self.thresholds.weak_sightings)
            and run.confidence >= self.thresholds.weak_confidence
            and iou(run.boxes[-2], run.boxes[-1]) >= self.thresholds.same_spot
        )

    # -- the turned card ------------------------------------------------------------------

    def _look_for_turned_card(self, frame: int) -> list[Event]:
        events: list[Event] = []
        candidates = [t for t in self._tracks.values() if self._steady(t.outside, frame, self._turned)]
        if not candidates:
            for run in self._runs():
                # A card straddling the area's edge is also seen outside: a turned card settling.
                track = self._tracks[run.card]
                outside_now = track.last_outside is not None and (
                    frame - track.last_outside[0] <= self._forget)
                if self._steady(run, frame, self._settle) and not outside_now:
                    self._played_before_turn = True
                    events += self._flag_once(
                        frame, "play_before_turned", card=run.card,
                        detail=f"{run.card} lies in the play area before any turned card was seen "
                        "by a side; the trump and dealer are unknown, so it is not counted",
                    )
            return events
        best = max(candidates, key=lambda t: t.outside.seen if t.outside else 0)
        assert best.outside is not None
        dealer = self.geometry.seat_at(self.geometry.side_of(best.outside.at))
        others = sorted(str(t.card) for t in candidates if t is not best)
        self._deal_number += 1
        deal = Deal.start(dealer=dealer, turned=best.card, rules=self.rules)
        self._state = _DealState(self._deal_number, deal, trick_start=deal)
        self._state.confidence[best.card] = best.outside.confidence
        self._state.turned_spot = best.outside.at
        self._remember_turned(self._state)
        events.append(DealStarted(frame=best.outside.start_frame, deal=self._deal_number,
                                  dealer=dealer, turned=best.card,
                                  confidence=best.outside.confidence))
        if others:
            events.append(Uncertain(
                frame=frame, deal=self._deal_number, reason="several_turned", card=best.card,
                seat=dealer, detail=f"face-up cards by the sides: {best.card} (taken, seen most) "
                f"and {', '.join(others)}",
            ))
        if self._played_before_turn:
            return events + self._replay_waiting(frame)
        self._forget_waiting()
        return events + self._advance(frame)

    def _replay_waiting(self, frame: int) -> list[Event]:
        """Cards lay in the play area before the turned card could be read (the reader may see
        it only faintly for a while): now that the trump and the dealer are known, the frames
        since the last deal are read again, so those plays count instead of being lost."""
        state = self._state
        assert state is not None
        waiting = list(self._waiting)
        self._forget_waiting()
        self._tracks = {}
        self._updates = waiting[0][0]
        events: list[Event] = [Uncertain(
            frame=frame, deal=state.number, reason="late_turned", card=state.deal.turned,
            seat=state.deal.dealer,
            detail=f"the turned card {state.deal.turned} was recognised only at frame {frame}, "
            f"after cards lay in the play area; the {len(waiting)} frames since frame "
            f"{waiting[0][1].frame_index} were read again with it",
        )]
        for _, waited in waiting:
            events += self._step(waited)
            if self._state is not state:
                break
        return events

    # -- plays and tricks -----------------------------------------------------------------

    def _may_be_played(self, state: _DealState, run: Run, played: frozenset[Card]) -> bool:
        """Not a card already played. Decoding, a read of a card played in a vaza gathered
        since may be another card (the two may have been read the same): the deal decides."""
        if not self.decode or state.hole is not None:
            return run.card not in played
        if self._other_corner(state, run) is not None:
            return False
        if run.card not in played:
            return True
        on_table = {p.label for p in state.trick} | {p.card for p in state.trick}
        if self._other_corner(state, run) is not None:
            return False
        gathered = [at for at in (state.gathered_labels.get(run.card), state.gathered_at.get(run.card))
                    if at is not None]
        return (bool(gathered) and run.start_frame > max(gathered) and run.card not in on_table
                and all(r is not run for r in state.runs.values()))

    def _advance(self, frame: int) -> list[Event]:
        state = self._state
        assert state is not None
        events = [] if self.decode else self._flag_replays(state, frame)
        played = state.taken()
        # Cards are played in the order they land: the next one landed after the last one played
        # (and after the last trick was gathered).
        last_run = state.trick[-1].run if state.trick else None
        after = max(state.cleared_at, last_run.start_frame if last_run else -1)
        candidates = [r for r in self._runs()
                      if self._may_be_played(state, r, played) and not r.refused
                      and r.start_frame > after and not self._turned_at_rest(state, r)]
        own = {id(r): self._unexplained(r) for r in candidates if frame - r.last_frame <= self._forget}
        pending = [r for r in candidates
                   if id(r) in own and 2 * len(own[id(r)]) > r.seen
                   and r.confidence >= self.thresholds.play_confidence]
        # A run some of whose sightings are another card misread is judged on the rest alone:
        # whether it is a card must not depend on how soon the other card is read again.
        ready = sorted((r for r in pending if self._steady(r, frame, self._settle, own[id(r)])),
                       key=lambda r: r.start_frame)
        if state.trick and len(state.trick) < CARDS_PER_TRICK:
            if state.hole is not None:
                events += self._held_trick_vanished(state, ready, frame)
                if self._state is not state:
                    return events
            else:
                events += self._salvage(state, ready, frame)
                events += self._complete_last_trick(state, frame)
        if len(state.trick) == CARDS_PER_TRICK and self._gathered_short(state, ready):
            taken = state.trick[-1]
            assert taken.run is not None
            events += self._open_hole(state, frame, state.trick[:-1], [taken.run])
        if len(state.trick) == CARDS_PER_TRICK:
            # No card lands on a full trick: a read that began while the trick still lay there is
            # a misread or a card of the trick, never the next lead.
            last_seen = self._trick_last_seen(state)
            fresh = [r for r in ready if r.start_frame > last_seen]
            unseen = frame - last_seen
            if not (unseen >= self._clear or (fresh and unseen >= self._settle)):
                return events
            events += self._gather(state, frame)
            if self._state is not state:
                return events
            ready = [r for r in ready if r.start_frame > state.cleared_at]
        for run in ready:
            if (not self._may_be_played(state, run, state.taken()) or run.refused
                    or run.start_frame <= state.cleared_at):
                continue
            earlier = [r for r in candidates
                       if r.start_frame < run.start_frame and self._may_be_played(state, r, state.taken())
                       and r not in ready and self._lay_there(r)]
            # Even a read that looks like a misread now waits while it is still in view: it may
            # be a card the next one covered, whose rival stops being seen.
            if any(frame - r.last_frame < self._settle for r in earlier):
                return events
            for weak in sorted((r for r in earlier if r in pending), key=lambda r: r.start_frame):
                if not self._may_be_played(state, weak, state.taken()) or weak.refused:
                    continue
                events += self._play(state, weak, frame, weak=True)
                if len(state.trick) == CARDS_PER_TRICK:
                    return events
            events += self._play(state, run, frame, weak=False)
            if len(state.trick) == CARDS_PER_TRICK:
                return events
        return events

    def _salvage(self, state: _DealState, ready: list[Run], frame: int) -> list[Event]:
        """A card lands after an unfinished trick vanished from view: a trick is only gathered
        whole, so cards glimpsed there since the last trick are its missing ones (the most read
        first, however faintly), put back where they landed as weak reads; with none, the new card
        may follow a long occlusion, or close a trick whose last card was never seen, and that is
        flagged."""
        last_seen = self._trick_last_seen(state)
        fresh = [r for r in ready if r.start_frame > last_seen]
        if frame - last_seen < self._clear or not fresh:
            return []
        seen: dict[Card, list[Run]] = {}
        # Any card read there since the last trick was gathered, even one read before the cards
        # played after it: a missed card may be anywhere in the trick.
        for run in self._runs():
            if (state.cleared_at < run.start_frame <= last_seen and run.card not in state.deal.played
                    and not run.refused and not self._turned_at_rest(state, run)
                    and not self._misread(run)):
                seen.setdefault(run.card, []).append(run)
        glimpsed = [runs for runs in seen.values()
                    if sum(r.seen for r in runs) >= self.thresholds.weak_sightings
                    and self._allowed(state, runs[0].card)]
        missing = CARDS_PER_TRICK - len(state.trick)
        if len(glimpsed) < missing:
            if missing == 1:
                state.vanished_short = len(state.deal.tricks) + 1
            turned = self._turned_refused(state, last_seen)
            if missing == 2 and turned is not None and not glimpsed:
                # The dealer's trunfo lay there but the order of play gave it to another seat:
                # a card before it was never read.
                read = sorted([*state.trick, Played(turned.card, -1, turned)],
                              key=lambda p: p.run.start_frame if p.run else -1)
                return self._open_hole(state, frame, read, [])
            return self._flag_once(
                frame, "trick_vanished", card=fresh[0].card, seat=state.deal.to_play,
                detail=f"the play area looked empty for {(frame - last_seen) / self.fps:.1f} s "
                f"after {len(state.trick)} cards of vaza {len(state.deal.tricks) + 1}; "
                f"{fresh[0].card} is taken as the next card of it",
                confidence=fresh[0].confidence,
            )
        # A trick is only gathered whole, so its missing cards were played: the cards read there
        # most (by summed confidence) are the best evidence left, however faint each read was.
        chosen = sorted(glimpsed, key=lambda runs: -sum(r.confidence_sum for r in runs))[:missing]
        found = sorted((runs[0] for runs in chosen), key=lambda r: r.start_frame)
        events = self._reorder(state, found, frame)
        if events is not None:
            return events
        events = []
        for run in found:
            events += self._play(state, run, frame, weak=True)
        return events

    def _complete_last_trick(self, state: _DealState, frame: int, *,
                             stream_ended: bool = False) -> list[Event]:
        """The last vaza vanished (or the stream ended) one card short: every other card of the
        deck has been played, so the missing one is the card left, and it is put back where it
        was glimpsed landing, or last when it was never read (flagged either way)."""
        if (len(state.deal.tricks) != TRICKS_PER_DEAL - 1 or len(state.trick) != CARDS_PER_TRICK - 1
                or (not stream_ended and frame - self._trick_last_seen(state) < self._clear)):
            return []
        left = [card for card in DECK if card not in state.deal.played]
        if len(left) != 1 or not self._allowed(state, left[0]):
            return []
        card = left[0]
        track = self._tracks.get(card)
        runs = [r for r in track.runs if r.start_frame > state.cleared_at] if track else []
        if runs:
            first = min(runs, key=lambda r: r.start_frame)
            reordered = self._reorder(state, [first], frame)
            return reordered if reordered is not None else self._play(state, first, frame, weak=True)
        seat = state.deal.to_play
        assert seat is not None
        state.deal = state.deal.play(card)
        state.trick.append(Played(card, seat, None))
        state.confidence[card] = 0.0
        events: list[Event] = [
            CardPlayed(frame=frame, deal=state.number, trick=TRICKS_PER_DEAL, seat=seat, card=card,
                       confidence=0.0),
            Uncertain(frame=frame, deal=state.number, reason="deduced", card=card, seat=seat,
                      detail=f"{card} was never read; it is the one card left, so seat {seat} "
                      f"played it in the last vaza"),
        ]
        return events + self._new_revokes(state, frame, card)

    def _reorder(self, state: _DealState, found: list[Run], frame: int) -> list[Event] | None:
        """Put cards of the trick found late back where they landed, among the cards already
        played: the cards read after a missed one move one seat on. Returns the events (a
        ``play_corrected`` for each play that changed, ``card_played`` for the ones added), or
        None when the cards found all landed after the trick's last card or the rules refuse
        the new order (then they are simply added at the end)."""
        if state.trick_start is None or any(p.run is None for p in state.trick):
            return None
        last_landed = max(p.run.start_frame for p in state.trick if p.run is not None)
        if all(r.start_frame > last_landed for r in found):
            return None
        order = sorted([(p.run, p.card) for p in state.trick if p.run is not None]
                       + [(r, r.card) for r in found], key=lambda pair: pair[0].start_frame)
        deal = state.trick_start
        seats: list[int] = []
        try:
            for _, card in order:
                seat = deal.to_play
                if seat is None:
                    return None
                seats.append(seat)
                deal = deal.play(card)
        except IllegalPlayError:
            return None
        before = len(state.trick_start.played)
        trick_number = len(state.trick_start.tricks) + 1
        old = [p.card for p in state.trick]
        events: list[Event] = []
        for position, ((run, card), seat) in enumerate(zip(order, seats, strict=True)):
            if run in found:
                state.confidence[card] = run.confidence
                events.append(Uncertain(
                    frame=run.start_frame, deal=state.number, reason="weak_read", card=card,
                    seat=seat, confidence=run.confidence,
                    detail=f"{card} was seen only {self._sightings_since(card, state.cleared_at)} "
                    f"times, faintly; vaza {trick_number} vanished without it, so it is put back "
                    f"as its card {position + 1}",
                ))
            if position < len(old):
                if old[position] != card:
                    events.append(PlayCorrected(
                        frame=run.start_frame, deal=state.number, trick=trick_number,
                        play=before + position + 1, seat=seat, card=card, confidence=run.confidence))
            else:
                events.append(CardPlayed(
                    frame=run.start_frame, deal=state.number, trick=trick_number, seat=seat,
                    card=card, confidence=run.confidence))
        state.deal = deal
        state.trick = [Played(card, seat, run) for (run, card), seat in zip(order, seats, strict=True)]
        for run, card in order:
            state.runs[card] = run
        return events + self._new_revokes(state, frame, order[-1][1])

    # -- the deal decided together --------------------------------------------------------

    def _mark_gathered(self, state: _DealState, played: Played, frame: int) -> None:
        state.gathered_at[played.card] = frame
        state.gathered_labels[played.label] = frame
        if played.run is not None and self.decode:
            state.evidence[id(played.run)] = self._spot_evidence(state, played.run)

    def _remember_turned(self, state: _DealState) -> None:
        """The reads of the turned card where it lies, every name it was given counted."""
        spot = state.turned_spot
        if spot is None:
            return
        reads = Reads.empty()
        labels: set[Card] = set()
        for track in self._tracks.values():
            run = track.outside
            if (run is not None and run.seen >= self.thresholds.min_sightings
                    and math.dist(run.at, spot) <= self._still):
                for sighting in run.sightings:
                    reads.add(sighting)
                labels.add(run.card)
        # Its runs by the side grow while it lies there; one broken off starts again smaller.
        if reads.sightings > state.turned_reads.sightings:
            state.turned_reads = reads
        state.turned_labels = state.turned_labels | labels

    def _spot_evidence(self, state: _DealState, run: Run) -> Reads:
        """What the reads say the card of ``run`` is: its own sightings, those at its box under
        other names while it lay there (its misreads), and those of its other corner under
        another name, runners-up included."""
        total = run.reads()
        on_table = next((p for p in state.trick if p.run is run), None)
        for other in self._runs() if on_table is not None else ():
            if other is not run and self._other_corner(state, other) is on_table:
                for sighting in other.sightings:
                    total.add(sighting)
        # Only while it lay there: the next card put on the same spot is not its misread.
        lo, hi = run.start_frame, run.last_frame
        plays = {id(r) for r in state.runs.values() if r is not None}
        for other in self._runs():
            if (other is run or id(other) in plays or other.last_frame < lo
                    or other.start_frame > hi):
                continue
            for frame, box, sighting in zip(other.frames, other.boxes, other.sightings, strict=True):
                if not lo <= frame <= hi:
                    continue
                _, boxes = run.between(frame - self._forget, frame + self._forget)
                if any(iou(box, mine) >= self.thresholds.same_spot for mine in boxes):
                    total.add(sighting)
        return total

    def _other_corner(self, state: _DealState, run: Run) -> Played | None:
        """The play on the table whose card ``run`` is, seen at its other corner (or both): its
        box holds the play's, and its reads name a card the play's reads name. A deck misread
        systematically gives one card two names, so the name alone does not tell."""
        for played in state.trick:
            if played.run is None or played.run is run or played.run.card == run.card:
                continue
            if run.start_frame < played.run.start_frame or not any(
                    nested_share(a, b) >= OTHER_CORNER_SHARE
                    for a in run.boxes[:3] for b in played.run.boxes[-6:]):
                continue
            mine = run.reads().weighed()
            theirs = played.run.reads().weighed()
            if any(explains(mine, c) and explains(theirs, c) for c in mine.keys() & theirs.keys()):
                return played
        return None

    def _play_evidence(self, state: _DealState, card: Card) -> Reads:
        run = state.runs.get(card)
        if run is None:
            return Reads.empty()
        cached = state.evidence.get(id(run))
        return cached if cached is not None else self._spot_evidence(state, run)

    def _decode(self, state: _DealState, extra: Run | None, *, doubts: bool = False) -> Decoded | None:
        """The deal's plays (and ``extra``, about to be played) decided together."""
        deal = state.deal
        self._remember_turned(state)
        rows = [self._play_evidence(state, card) for card in deal.plays]
        if extra is not None:
            rows.append(self._spot_evidence(state, extra))
        return decode_plays(dealer=deal.dealer, turned=state.turned_reads, plays=rows,
                            rules=self.rules, decided=deal.plays, decided_turned=deal.turned,
                            doubts=doubts)

    def _decide(self, state: _DealState, run: Run, frame: int) -> tuple[list[Event], Card | None] | None:
        """The card ``run`` is, decided with the deal's other plays, and the corrections that
        decision makes to earlier plays; card None when no card fits its reads (flagged, not
        played). None when the rules accept no assignment (the read is taken as it is)."""
        decoded = self._decode(state, run)
        if decoded is None:
            return None
        plays = list(state.deal.plays)
        new = len(plays)
        evidence = [self._play_evidence(state, card).weighed() for card in plays]
        before = {i for i, card in enumerate(plays) if not explains(evidence[i], card)}
        if new in decoded.unexplained or set(decoded.unexplained) - before - {new}:
            turned = state.turned_reads.weighed()
            if explains(turned, run.card) and state.deal.turned_in_hand:
                # Read as the turned card, which the order of play gives another seat: the rules
                # refuse it as they always did, and a card never read before it is looked for.
                return None
            run.refused = True
            options = tuple(c for c, _ in sorted(self._spot_evidence(state, run).total.items(),
                                                   key=lambda item: -item[1])[:3])
            return self._flag_once(
                frame, "unexplained_read", card=run.card, confidence=run.confidence,
                detail=f"{run.card} lies in the play area but no card left in the deal fits its "
                f"reads ({', '.join(str(c) for c in options)}): not counted", options=options,
                play=new + 1), None
        events = self._adopt(state, decoded.turned, list(decoded.cards[:new]), frame)
        return events, decoded.cards[new]

    def _adopt(self, state: _DealState, turned: Card, cards: list[Card], frame: int) -> list[Event]:
        """Make the deal's plays ``cards`` (and its turned card ``turned``), telling each change."""
        old = list(state.deal.plays)
        if turned == state.deal.turned and cards == old:
            return []
        deal = Deal.start(dealer=state.deal.dealer, turned=turned, rules=self.rules).play_all(cards)
        events: list[Event] = []
        if turned != state.deal.turned:
            events.append(DealCorrected(frame=frame, deal=state.number, dealer=deal.dealer,
                                        turned=turned))
        renamed = dict(zip(old, cards, strict=True))
        state.runs = {renamed.get(c, c): r for c, r in state.runs.items()}
        state.confidence = {renamed.get(c, c): v for c, v in state.confidence.items()}
        state.gathered_at = {renamed.get(c, c): v for c, v in state.gathered_at.items()}
        plays = seated_plays(deal)
        for index, (was, card) in enumerate(zip(old, cards, strict=True)):
            if was != card:
                run = state.runs.get(card)
                trick_no, _, seat = plays[index]
                events.append(PlayCorrected(
                    frame=run.start_frame if run else frame, deal=state.number, trick=trick_no,
                    play=index + 1, seat=seat, card=card,
                    confidence=state.confidence.get(card, 0.0)))
        current = deal.current_trick
        state.trick = [Played(card, seat, state.runs.get(card))
                       for card, seat in zip(current.cards, current.seats(), strict=True)]
        state.trick_start = Deal.start(dealer=deal.dealer, turned=turned, rules=self.rules).play_all(
            cards[:len(cards) - len(current.cards)])
        state.deal = deal
        state.revokes_seen = min(state.revokes_seen, len(deal.revokes))
        return events + (self._new_revokes(state, frame, cards[-1]) if cards else [])

    def _final_decoding(self, state: _DealState, frame: int) -> list[Event]:
        """The deal is over: its plays decided together once more, firmly; a play whose reads
        no card fits is flagged."""
        if not self.decode:
            return []
        decoded = self._decode(state, None, doubts=True)
        if decoded is None:
            return []
        events = self._adopt(state, decoded.turned, list(decoded.cards), frame)
        plays = seated_plays(state.deal)
        for index, options in decoded.doubts:
            trick_no, card, seat = plays[index]
            events.append(Uncertain(
                frame=frame, deal=state.number, reason="suit_swap", card=card, seat=seat,
                play=index + 1, options=options,
                detail=f"vaza {trick_no}: {' or '.join(str(c) for c in options)}? The reads of "
                f"play {index + 1} (seat {seat}) fit {card} best, by little once the rest of "
                "the deal is weighed"))
        for index in decoded.unexplained:
            trick_no, card, seat = plays[index]
            evidence = self._play_evidence(state, card).total
            options = tuple(c for c, _ in sorted(evidence.items(), key=lambda item: -item[1])[:3])
            events.append(Uncertain(
                frame=frame, deal=state.number, reason="unexplained_read", card=card, seat=seat,
                play=index + 1, options=(card, *(c for c in options if c != card))[:5],
                detail=f"play {index + 1} (vaza {trick_no}, seat {seat}) was read as "
                f"{', '.join(str(c) for c in options)}, but each of those was played elsewhere: "
                f"it is taken as {card}, the card left"))
        return events

    # -- a card never seen ----------------------------------------------------------------

    def _gathered_short(self, state: _DealState, ready: list[Run]) -> bool:
        """The vaza that vanished a card short got the next card read as its last, but that card
        still lay there when another landed, and the vaza's other cards were gone: it began the
        next vaza, and the vaza before was gathered with a card no frame showed."""
        if any(p.run is None for p in state.trick) or state.trick_start is None:
            return False
        if state.hole is None and state.vanished_short != len(state.deal.tricks):
            return False
        if state.hole is not None and state.hole.short_from != len(state.hole.held) - CARDS_PER_TRICK:
            return False
        taken, others = state.trick[-1], state.trick[:-1]
        assert taken.run is not None
        landed = taken.run.start_frame
        if max(self._last_seen(p.label) for p in others) >= landed:
            return False  # they came back: a hand had hidden them
        still_there = self._last_seen(taken.label)
        return any(landed < r.start_frame <= still_there for r in ready)

    def _turned_refused(self, state: _DealState, last_seen: int) -> Run | None:
        """The turned trunfo, refused in this vaza because another seat was to play."""
        track = self._tracks.get(state.deal.turned)
        if track is None or state.deal.turned in state.deal.played or state.trick_start is None:
            return None
        return next((r for r in track.runs if r.refused and state.cleared_at < r.start_frame <= last_seen
                     and not self._turned_at_rest(state, r)), None)

    def _last_seen(self, card: Card) -> int:
        track = self._tracks.get(card)
        return max((r.last_frame for r in track.runs), default=-1) if track else -1

    def _open_hole(self, state: _DealState, frame: int, read: list[Played],
                   landed: list[Run]) -> list[Event]:
        """The vaza on the table was gathered with ``read`` (in landing order) and a card no frame
        showed; ``landed``: cards that have landed since, which begin the next."""
        gone = max(self._last_seen(p.label) for p in read)
        if state.hole is None:
            before = state.trick_start
            assert before is not None
            told = list(state.deal.plays)
            state.hole = _Hole(before.trick_number, before, told, [], [], [])
            state.deal = before  # until the gaps are filled, the plays since are only held
        hole = state.hole
        held_before = [p for p in hole.held if p not in read and p.run not in landed]
        hole.held = [*held_before, *read]
        hole.gaps.append(Gap(len(held_before), len(read)))
        hole.gathered.append(gone + 1)
        hole.short_from = None
        number = hole.trick + len(hole.gathered) - 1
        for played in read:
            self._mark_gathered(state, played, frame)
        # Cards landed since then were taken for this vaza's seats; the rules may have refused
        # one for the seat it seemed to be (the turned trunfo): seats are unknown until the gaps
        # are filled, so they are all held again, in landing order.
        since: dict[Card, Run] = {}
        for run in sorted(self._runs(), key=lambda r: r.start_frame):
            if (run.start_frame > gone and run.card not in state.taken() and run.card not in since
                    and (run in landed or (run.refused and not self._turned_at_rest(state, run)))):
                run.refused = False
                since[run.card] = run
        state.cleared_at = gone
        state.trick = []
        for run in since.values():
            held = Played(run.card, -1, run)
            hole.held.append(held)
            state.trick.append(held)
        began = f"{', '.join(str(c) for c in since)} began vaza {number + 1}. " if since else ""
        return [Uncertain(
            frame=frame, deal=state.number, reason="missing_card", card=None,
            detail=f"vaza {number} was gathered with {len(read)} cards read: {began}The plays "
            "from here are held until the rest of the deal shows which card was never read and "
            "where it went",
        )]

    def _gather_held(self, state: _DealState, frame: int) -> list[Event]:
        hole = state.hole
        assert hole is not None
        last_seen = self._trick_last_seen(state)
        for played in state.trick:
            self._mark_gathered(state, played, frame)
        state.trick = []
        state.cleared_at = last_seen
        hole.gathered.append(last_seen + 1)
        if hole.cards_accounted == len(DECK):
            return self._fill_hole(state, frame)
        return []

    def _held_trick_vanished(self, state: _DealState, ready: list[Run], frame: int) -> list[Event]:
        """A held vaza vanished a card short. The deal's last: the card it lacks is placed with
        the ones never read. Another, once the next card lands: that card is taken as its last,
        until it proves to have begun the next vaza (``_gathered_short``)."""
        hole = state.hole
        assert hole is not None
        last_seen = self._trick_last_seen(state)
        if len(state.trick) != CARDS_PER_TRICK - 1 or frame - last_seen < self._clear:
            return []
        if hole.cards_accounted == len(DECK) - 1:
            return self._fill_hole(state, frame)
        if any(r.start_frame > last_seen for r in ready):
            hole.short_from = len(hole.held) - len(state.trick)
        return []

    def _fill_hole(self, state: _DealState, frame: int) -> list[Event]:
        """Put the cards never read where the rules fit them best, replay the held cards with
        them, and tell what changed: the plays told before are corrected, the held ones played."""
        hole = state.hole
        assert hole is not None
        state.hole = None
        held = [p.card for p in hole.held]
        seen = hole.before.played | set(held)
        missing = [card for card in DECK if card not in seen]
        runs = {p.card: p.run for p in hole.held}
        sides = {card: self.geometry.seat_at(run.approach) for card, run in runs.items()
                 if run is not None and run.approach is not None}
        placement = place_missing_cards(hole.before, held, hole.gaps, missing, sides)
        if placement is not None:
            deal = placement.deal
            order = list(placement.cards)
            detail = "; ".join(
                f"{card} was never read: it goes in vaza {hole.trick + order.index(card) // 4} as "
                f"its card {place + 1}" for card, place in placement.places
            ) + " (where the rules fit best)"
        else:
            deal = hole.before
            for card in held:
                if deal.can_play(card):
                    deal = deal.play(card)
            unplaced = ", ".join(str(card) for card in missing)
            detail = (f"the cards never read ({unplaced}) cannot be placed by the rules: the held "
                      "plays follow as they landed")
        events: list[Event] = [Uncertain(frame=frame, deal=state.number, reason="missing_card",
                                         detail=detail)]
        plays = seated_plays(deal)
        for index in range(len(hole.before.played), len(plays)):
            trick_no, card, seat = plays[index]
            run = runs.get(card)
            confidence = state.confidence.setdefault(card, run.confidence if run else 0.0)
            at = run.start_frame if run else frame
            if index < len(hole.told):
                if hole.told[index] != card:
                    events.append(PlayCorrected(frame=at, deal=state.number, trick=trick_no,
                                                play=index + 1, seat=seat, card=card,
                                                confidence=confidence))
            else:
                events.append(CardPlayed(frame=at, deal=state.number, trick=trick_no, seat=seat,
                                         card=card, confidence=confidence))
        for trick_no in range(hole.trick, len(deal.tricks) + 1):
            trick = deal.tricks[trick_no - 1]
            winner = trick.winner(deal.trump)
            assert winner is not None
            later = trick_no - hole.trick
            gone = hole.gathered[later] if later < len(hole.gathered) else frame
            events.append(TrickGathered(frame=gone, deal=state.number, trick=trick_no, winner=winner,
                                        cards=trick.cards, points=trick.points))
        state.deal = deal
        state.revokes_seen = min(state.revokes_seen, len(hole.before.revokes))
        events += self._new_revokes(state, frame, plays[-1][1])
        current = deal.current_trick
        state.trick = [Played(card, seat, runs.get(card))
                       for card, seat in zip(current.cards, current.seats(), strict=True)]
        state.trick_start = hole.before.play_all(
            card for _, card, _ in plays[len(hole.before.played):len(plays) - len(current.cards)])
        state.vanished_short = None
        for card, run in runs.items():
            if card in deal.played:
                state.runs[card] = run
        if deal.is_complete:
            events += self._final_decoding(state, frame)
            events.append(self._end_deal(state, frame))
        return events

    def _sightings_since(self, card: Card, frame: int) -> int:
        track = self._tracks.get(card)
        return sum(r.seen for r in track.runs if r.start_frame > frame) if track else 0

    @staticmethod
    def _allowed(state: _DealState, card: Card) -> bool:
        try:
            state.deal.check_play(card)
        except IllegalPlayError:
            return False
        return True

    def _play(self, state: _DealState, run: Run, frame: int, *, weak: bool) -> list[Event]:
        if state.hole is not None:
            played = Played(run.card, -1, run)
            state.hole.held.append(played)
            state.trick.append(played)
            state.confidence[run.card] = run.confidence
            return []
        seat = state.deal.to_play
        card = run.card
        if seat is None:
            return []
        events: list[Event] = []
        if self.decode:
            decided = self._decide(state, run, frame)
            if decided is not None:
                events, card = decided
                if card is None:
                    return events
        deal = state.deal
        try:
            deal.check_play(card)
        except IllegalPlayError as error:
            run.refused = True
            return [Uncertain(frame=frame, deal=state.number, reason="illegal_read", card=card,
                              seat=seat, confidence=run.confidence,
                              detail=f"read {card} for seat {seat} but the rules refuse it: {error}")]
        trick_number = len(deal.tricks) + 1
        state.deal = deal.play(card)
        state.trick.append(Played(card, seat, run))
        state.confidence[card] = run.confidence
        state.runs[card] = run
        side_seat = self.geometry.seat_at(run.approach) if run.approach is not None else None
        events.append(CardPlayed(
            frame=run.start_frame, deal=state.number, trick=trick_number, seat=seat, card=card,
            confidence=run.confidence, side_seat=side_seat,
        ))
        if weak:
            events.append(Uncertain(
                frame=run.start_frame, deal=state.number, reason="weak_read", card=card, seat=seat,
                confidence=run.confidence,
                detail=f"{card} was seen only {run.seen} times at one spot before it was covered",
            ))
        if side_seat is not None and side_seat != seat:
            events.append(Uncertain(
                frame=run.start_frame, deal=state.number, reason="seat", card=card, seat=seat,
                confidence=run.confidence,
                detail=f"{card} is seat {seat}'s by the order of play but came from the "
                f"{run.approach.value if run.approach else '?'} side, seat {side_seat}'s",
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

    def _trick_last_seen(self, state: _DealState) -> int:
        """The last frame any card of the trick on the table was read (its box may have jumped
        to the other corner index, which starts a new run of it)."""
        return max((r.last_frame for p in state.trick
                    for r in (self._tracks[p.label].runs if p.label in self._tracks else ())),
                   default=-1)

    def _gather(self, state: _DealState, frame: int) -> list[Event]:
        if state.hole is not None:
            return self._gather_held(state, frame)
        deal = state.deal
        trick = deal.tricks[-1]
        winner = trick.winner(deal.trump)
        assert winner is not None
        last_seen = self._trick_last_seen(state)
        events: list[Event] = [TrickGathered(
            frame=last_seen + 1, deal=state.number, trick=len(deal.tricks), winner=winner,
            cards=trick.cards, points=trick.points,
        )]
        for played in state.trick:
            self._mark_gathered(state, played, frame)
        state.trick = []
        state.trick_start = state.deal
        state.cleared_at = last_seen
        if deal.is_complete:
            events += self._final_decoding(state, last_seen + 1)
            events.append(self._end_deal(state, last_seen + 1))
        return events

    def _end_deal(self, state: _DealState, frame: int) -> DealEnded:
        """The deal's tenth vaza is gathered: forget its cards and wait for the next turned card."""
        self._finished.append(state.deal)
        self._state = None
        self._tracks = {}
        self._forget_waiting()
        return DealEnded(frame=frame, deal=state.number, points=dict(state.deal.points))

    def _flag_replays(self, state: _DealState, frame: int) -> list[Event]:
        """A gathered card seen lying in the play area again: a misread the rules rule out."""
        events: list[Event] = []
        for card, gathered in state.gathered_at.items():
            track = self._tracks.get(card)
            if track is None:
                continue
            for run in track.runs:
                # One that other frames explain as another card misread is corrected, not flagged.
                if (run.start_frame > gathered and self._steady(run, frame, self._settle)
                        and self._steady(run, frame, self._settle, self._unexplained(run))):
                    events += self._flag_once(
                        frame, "already_played", card=card, confidence=run.confidence,
                        detail=f"{card} lies in the play area but was already played this deal: "
                        "a misread of another card, not counted",
                    )
        return events

    def _flag_once(self, frame: int, reason: str, *, detail: str, card: Card | None = None,
                   seat: int | None = None, confidence: float | None = None,
                   play: int | None = None, options: tuple[Card, ...] = ()) -> list[Event]:
        key = (reason, card, self._deal_number)
        if key in self._flagged:
            return []
        self._flagged.add(key)
        return [Uncertain(frame=frame, deal=max(self._deal_number, 1), reason=reason, card=card,
                          seat=seat, detail=detail, confidence=confidence, play=play,
                          options=options)]

