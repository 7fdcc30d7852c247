"""The table tracker: noisy per-frame card detections in, the exact story of the deal out.

Every stretch of sightings of one card lying still at one spot is a *run*; plays are decided on
runs, from several frames, never from one:

- a run is *played* when the card has lain in the play area for ``settle_seconds`` (seen in at
  least ``min_sightings`` frames and in ``min_presence`` of the frames that reached the tracker), so
  a one-frame ghost, a card sliding in and a hand passing over neither create nor lose a play;
- a sighting at the box of another card read more often around then (all its corners counted,
  even in a frame where its other corner is read) is that card misread; a run is judged on its
  other sightings only, and a run that is mostly misreads is never a play;
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
- when nothing was glimpsed there, the next card (or two, when two are missing) is taken as the
  missing one, until it proves to have begun the next vaza (it still lies there when another
  lands): then the plays are held until the deal shows which cards were never read, and
  ``tracking.missing`` places them;
- reads the rules forbid (a card played twice, the turned card from the wrong seat) are refused
  and flagged; the engine's proven renúncias are flagged with their evidence.

The tracker never reads a clock: time is the frame index divided by ``fps``. It never mutates the
detections it is given.

Its rooms: :mod:`~scorekeeper.tracking.sightings` (runs and what they show),
:mod:`~scorekeeper.tracking.repairs` (cards the reader missed, put back),
:mod:`~scorekeeper.tracking.play_identities` (the deal's plays decided together, see
:mod:`~scorekeeper.tracking.decoding`), :mod:`~scorekeeper.tracking.deal_state` (what it keeps
about the deal); this module coordinates them: deals, plays, tricks and the events told.
"""

from __future__ import annotations

from collections import deque

from scorekeeper.errors import IllegalPlayError, RulesError
from scorekeeper.rules import DECK, Card, Deal, Rules, seat_label
from scorekeeper.rules.deal import TRICKS_PER_DEAL, Phase
from scorekeeper.tracking.deal_state import CARDS_PER_TRICK, DealState
from scorekeeper.tracking.events import (
    CardPlayed,
    DealEnded,
    DealStarted,
    Event,
    RevokeFlagged,
    TrickGathered,
    Uncertain,
)
from scorekeeper.tracking.geometry import TableGeometry
from scorekeeper.tracking.play_identities import PlayIdentities
from scorekeeper.tracking.repairs import Repairs
from scorekeeper.tracking.runs import Played, Run, Track
from scorekeeper.tracking.sightings import Sightings
from scorekeeper.tracking.thresholds import Thresholds
from scorekeeper.vision.detections import FrameDetections

REPLAY_SECONDS = 180.0
"""How much of the stream before the turned card was recognised is kept to be read again with it:
a whole deal at a café's pace, so memory stays bounded on a camera left running between deals."""


def check_camera_rules(rules: Rules) -> None:
    """Refuse rules the camera cannot follow: the card reader knows the 40 cards of the standard
    deck."""
    if rules.deck.deck.cards != DECK:
        raise RulesError(
            f"deck={rules.deck.value}: the card reader knows only the standard deck (it reads a "
            "10 as not a card), so the camera cannot follow this game: keep it on the page "
            "(scorekeeper serve), "
            "or run with --rules tournament"
        )


class Tracker(Sightings, Repairs, PlayIdentities):
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
        self._state: DealState | None = None
        self._finished: list[Deal] = []
        self._flagged: set[tuple[str, Card | None, int]] = set()
        self._forget_waiting()

    def _forget_waiting(self) -> None:
        # Frames given while no deal was under way, with the update count before each: if cards
        # were played before the turned card could be read, they are read again once it is known.
        self._waiting: deque[tuple[int, FrameDetections]] = deque(
            maxlen=max(1, int(REPLAY_SECONDS * self.fps))
        )
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
        """Take one frame's detections (frames may be skipped, not reordered); return new events."""
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
            events.append(
                Uncertain(
                    frame=frame,
                    deal=state.number,
                    reason="stream_ended",
                    detail=f"the stream ended after {len(deal.tricks)} of {TRICKS_PER_DEAL} tricks",
                )
            )
            events.append(
                DealEnded(
                    frame=frame, deal=state.number, points=deal.points.to_json(), complete=False
                )
            )
            self._finished.append(deal)
            self._state = None
        return events

    def resume(self, deal: Deal, *, number: int = 1, missing_after: int | None = None) -> None:
        """Carry on a deal already under way (after a restart): its plays so far are known and
        the cards of its current trick lie on the table. ``number`` counts deals in events.

        ``missing_after``: the play (from 1) of the deal's open ``missing_card`` doubt, told as
        the last card of a vaza gathered with a card never read. The plays from that vaza on
        were told as if none was missing; they are held again, as before the stop, until the
        rest of the deal shows which card it was and where it went."""
        self.reset()
        self._deal_number = number
        self._state = self._carry_on(deal, number)
        if missing_after is not None:
            self._reopen_hole(self._state, missing_after)

    @staticmethod
    def _carry_on(deal: Deal, number: int) -> DealState:
        """The state of a deal whose plays so far are known: its current trick's cards lie on the
        table, read by nobody."""
        state = DealState(number, deal)
        trick = deal.current_trick
        state.trick = [
            Played(card, seat, None) for card, seat in zip(trick.cards, trick.seats(), strict=True)
        ]
        return state

    # -- the turned card ------------------------------------------------------------------

    def _look_for_turned_card(self, frame: int) -> list[Event]:
        events: list[Event] = []
        candidates = [
            t for t in self._tracks.values() if self._steady(t.outside, frame, self._turned)
        ]
        if not candidates:
            for run in self._runs():
                # A card straddling the area's edge is also seen outside: a turned card settling.
                track = self._tracks[run.card]
                outside_now = track.last_outside is not None and (
                    frame - track.last_outside[0] <= self._forget
                )
                if self._steady(run, frame, self._settle) and not outside_now:
                    self._played_before_turn = True
                    events += self._flag_once(
                        frame,
                        "play_before_turned",
                        card=run.card,
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
        self._state = DealState(self._deal_number, deal, trick_start=deal)
        self._state.confidence[best.card] = best.outside.confidence
        self._state.turned_spot = best.outside.at
        self._remember_turned(self._state)
        events.append(
            DealStarted(
                frame=best.outside.start_frame,
                deal=self._deal_number,
                dealer=dealer,
                turned=best.card,
                confidence=best.outside.confidence,
            )
        )
        if others:
            events.append(
                Uncertain(
                    frame=frame,
                    deal=self._deal_number,
                    reason="several_turned",
                    card=best.card,
                    seat=dealer,
                    detail=f"face-up cards by the sides: {best.card} (taken, seen most) "
                    f"and {', '.join(others)}",
                )
            )
        if self._played_before_turn:
            return events + self._replay_waiting(frame)
        self._forget_waiting()
        return events + self._advance(frame)

    def take_up(self, deal: Deal) -> list[Event]:
        """Follow a deal the table started by hand (on the page) while the camera had read no
        turned card: face down, under a hand, too dim. Its trump and dealer are the table's word;
        cards already lying in the play area count, as when the turned card is read late.

        Plays the deal already holds (entered on the page) are taken as made; then the frames
        since the last deal are not read again, since the page's plays are the record."""
        if self._state is not None:
            raise ValueError(
                f"deal {self._state.number} is under way: a deal started on the page is taken up "
                "only while the camera waits for a turned card"
            )
        frame = self._last_frame if self._last_frame is not None else 0
        self._deal_number += 1
        if deal.plays:
            self._state = self._carry_on(deal, self._deal_number)
        else:
            self._state = DealState(self._deal_number, deal, trick_start=deal)
        events: list[Event] = [
            DealStarted(
                frame=frame,
                deal=self._deal_number,
                dealer=deal.dealer,
                turned=deal.turned,
                confidence=1.0,
                from_page=True,
            )
        ]
        if deal.plays:
            self._forget_waiting()
            return events
        if self._played_before_turn:
            return events + self._replay_waiting(
                frame, why=f"the deal was started on the page at frame {frame}"
            )
        self._forget_waiting()
        return events + (self._advance(frame) if self._last_frame is not None else [])

    def _replay_waiting(self, frame: int, *, why: str | None = None) -> list[Event]:
        """Cards lay in the play area before the turned card could be read (the reader may see
        it only faintly for a while): now that the trump and the dealer are known, the frames
        since the last deal are read again, so those plays count instead of being lost."""
        state = self._state
        assert state is not None
        waiting = list(self._waiting)
        self._forget_waiting()
        self._tracks = {}
        self._updates = waiting[0][0]
        known = why or f"the turned card {state.deal.turned} was recognised only at frame {frame}"
        events: list[Event] = [
            Uncertain(
                frame=frame,
                deal=state.number,
                reason="late_turned",
                card=state.deal.turned,
                seat=state.deal.dealer,
                detail=f"{known}, after cards lay in the play area; the {len(waiting)} frames "
                f"since frame {waiting[0][1].frame_index} were read again with it",
            )
        ]
        for _, waited in waiting:
            events += self._step(waited)
            if self._state is not state:
                break
        return events

    def _advance(self, frame: int) -> list[Event]:
        state = self._state
        assert state is not None
        events = [] if self.decode else self._flag_replays(state, frame)
        played = state.taken()
        # Cards are played in the order they land: the next one landed after the last one played
        # (and after the last trick was gathered).
        last_run = state.trick[-1].run if state.trick else None
        after = max(state.cleared_at, last_run.start_frame if last_run else -1)
        # Decoding, a card that began to be read before the last one played but settled after it
        # (read too seldom at first) is put back in its place (``_landed_before``), unless its
        # reads name a card of the vaza on the table: then it is that card under another name.
        candidates = [
            r
            for r in self._runs()
            if self._may_be_played(state, r, played)
            and not r.refused
            and (
                r.start_frame > after
                or (
                    self.decode
                    and r.start_frame > state.cleared_at
                    and not self._names_the_trick(state, r)
                )
            )
            and not self._turned_at_rest(state, r)
        ]
        own = {
            id(r): self._unexplained(r) for r in candidates if frame - r.last_frame <= self._forget
        }
        pending = [
            r
            for r in candidates
            if id(r) in own
            and 2 * len(own[id(r)]) > r.seen
            and r.confidence >= self.thresholds.play_confidence
        ]
        # A run some of whose sightings are another card misread is judged on the rest alone:
        # whether it is a card must not depend on how soon the other card is read again.
        ready = sorted(
            (r for r in pending if self._steady(r, frame, self._settle, own[id(r)])),
            key=lambda r: r.start_frame,
        )
        if state.trick and len(state.trick) < CARDS_PER_TRICK:
            if state.hole is not None:
                events += self._held_trick_vanished(state, ready, frame)
                if self._state is not state:
                    return events
            else:
                events += self._salvage(state, ready, frame)
                events += self._complete_last_trick(state, frame)
        read = self._gathered_short(state, ready) if len(state.trick) == CARDS_PER_TRICK else None
        if read is not None:
            taken = [p.run for p in state.trick[read:] if p.run is not None]
            events += self._open_hole(state, frame, state.trick[:read], taken)
        if len(state.trick) == CARDS_PER_TRICK and self.decode:
            events += self._displace_glimpse(state, ready, frame)
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
            if (
                not self._may_be_played(state, run, state.taken())
                or run.refused
                or run.start_frame <= state.cleared_at
            ):
                continue
            earlier = [
                r
                for r in candidates
                if r.start_frame < run.start_frame
                and self._may_be_played(state, r, state.taken())
                and r not in ready
                and self._lay_there(r)
            ]
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

    # -- a card never seen ----------------------------------------------------------------

    @staticmethod
    def _allowed(state: DealState, card: Card) -> bool:
        try:
            state.deal.check_play(card)
        except IllegalPlayError:
            return False
        return True

    def _play(self, state: DealState, run: Run, frame: int, *, weak: bool) -> list[Event]:
        if state.hole is not None:
            card = self._held_name(state, run) if self.decode else run.card
            if card is None:
                return []
            played = Played(card, -1, run)
            state.hole.held.append(played)
            state.trick.append(played)
            state.confidence[card] = run.confidence
            return self._tell_held(state, card, run)
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
        place = self._landed_before(state, run, card) if self.decode else None
        if place is not None:
            reordered = self._reorder(state, [run], frame, insert=(place, card))
            if reordered is not None:
                return events + reordered
        deal = state.deal
        try:
            deal.check_play(card)
        except IllegalPlayError as error:
            run.refused = True
            return [
                Uncertain(
                    frame=frame,
                    deal=state.number,
                    reason="illegal_read",
                    card=card,
                    seat=seat,
                    confidence=run.confidence,
                    detail=f"read {card} for {seat_label(seat)} but the rules refuse it: {error}",
                )
            ]
        trick_number = len(deal.tricks) + 1
        state.deal = deal.play(card)
        state.trick.append(Played(card, seat, run))
        state.confidence[card] = run.confidence
        state.runs[card] = run
        side_seat = self.geometry.seat_at(run.approach) if run.approach is not None else None
        events.append(
            CardPlayed(
                frame=run.start_frame,
                deal=state.number,
                trick=trick_number,
                seat=seat,
                card=card,
                confidence=run.confidence,
                side_seat=side_seat,
            )
        )
        if weak:
            events.append(
                state.doubt_about(
                    run,
                    card,
                    seat,
                    reason="weak_read",
                    detail=f"{card} was seen only {run.seen} times at one spot "
                    "before it was covered",
                )
            )
        if side_seat is not None and side_seat != seat:
            events.append(
                state.doubt_about(
                    run,
                    card,
                    seat,
                    reason="seat",
                    detail=f"{card} is {seat_label(seat)}'s by the order of play but came from the "
                    f"{run.approach.value if run.approach else '?'} side, "
                    f"{seat_label(side_seat)}'s",
                )
            )
        return events + self._new_revokes(state, run.start_frame, card)

    def _new_revokes(self, state: DealState, frame: int, proof_card: Card) -> list[Event]:
        revokes = state.deal.revokes
        events: list[Event] = []
        for revoke in revokes[state.revokes_seen :]:
            # The proof rests on the card led, the revoking card and the card that proves it (the
            # play just made, or the turned card the dealer still held).
            tricks = (*state.deal.tricks, state.deal.current_trick)
            led_card = tricks[revoke.trick - 1].cards[0]
            proving = proof_card if revoke.proven_in_trick != revoke.trick else state.deal.turned
            evidence = [state.confidence.get(c, 1.0) for c in (led_card, revoke.card, proving)]
            confidence = min(evidence)
            events.append(
                RevokeFlagged(
                    frame=frame,
                    deal=state.number,
                    trick=revoke.trick,
                    seat=revoke.seat,
                    card=revoke.card,
                    led=str(revoke.led),
                    proof=str(revoke.proof),
                    suspected=confidence < self.thresholds.suspect_confidence,
                    confidence=confidence,
                )
            )
        state.revokes_seen = len(revokes)
        return events

    def _gather(self, state: DealState, frame: int) -> list[Event]:
        if state.hole is not None:
            return self._gather_held(state, frame)
        deal = state.deal
        trick = deal.tricks[-1]
        winner = trick.winner(deal.trump)
        assert winner is not None
        last_seen = self._trick_last_seen(state)
        events: list[Event] = [
            TrickGathered(
                frame=last_seen + 1,
                deal=state.number,
                trick=len(deal.tricks),
                winner=winner,
                cards=trick.cards,
                points=trick.points,
            )
        ]
        for played in state.trick:
            self._mark_gathered(state, played, frame)
        state.trick = []
        state.trick_start = state.deal
        state.cleared_at = last_seen
        if deal.is_complete:
            events += self._final_decoding(state, last_seen + 1)
            events.append(self._end_deal(state, last_seen + 1))
        return events

    def _end_deal(self, state: DealState, frame: int) -> DealEnded:
        """The deal's tenth vaza is gathered: forget its cards and wait for the next turned card."""
        self._finished.append(state.deal)
        self._state = None
        self._tracks = {}
        self._forget_waiting()
        return DealEnded(frame=frame, deal=state.number, points=state.deal.points.to_json())

    def _flag_replays(self, state: DealState, frame: int) -> list[Event]:
        """A gathered card seen lying in the play area again: a misread the rules rule out."""
        events: list[Event] = []
        for card, gathered in state.gathered_at.items():
            track = self._tracks.get(card)
            if track is None:
                continue
            for run in track.runs:
                # One that other frames explain as another card misread is corrected, not flagged.
                if (
                    run.start_frame > gathered
                    and self._steady(run, frame, self._settle)
                    and self._steady(run, frame, self._settle, self._unexplained(run))
                ):
                    events += self._flag_once(
                        frame,
                        "already_played",
                        card=card,
                        confidence=run.confidence,
                        detail=f"{card} lies in the play area but was already played this deal: "
                        "a misread of another card, not counted",
                    )
        return events

    def _flag_once(
        self,
        frame: int,
        reason: str,
        *,
        detail: str,
        card: Card | None = None,
        seat: int | None = None,
        confidence: float | None = None,
        play: int | None = None,
        options: tuple[Card, ...] = (),
    ) -> list[Event]:
        key = (reason, card, self._deal_number)
        if key in self._flagged:
            return []
        self._flagged.add(key)
        return [
            Uncertain(
                frame=frame,
                deal=max(self._deal_number, 1),
                reason=reason,
                card=card,
                seat=seat,
                detail=detail,
                confidence=confidence,
                play=play,
                options=options,
            )
        ]
