"""The tracker's sightings: runs of each card lying still, and whether a run is a card lying
there, another card misread, or a card already gathered."""

from __future__ import annotations

import math
from collections.abc import Iterator

from scorekeeper.rules import Card
from scorekeeper.tracking.deal_state import DealState
from scorekeeper.tracking.decoding import Evidence
from scorekeeper.tracking.geometry import Point, Side
from scorekeeper.tracking.rooms import TrackerRooms
from scorekeeper.tracking.runs import Run, Track
from scorekeeper.vision.boxes import Box, iou, nested_share
from scorekeeper.vision.boxes import center as box_center
from scorekeeper.vision.detections import CardDetection

SAME_CARD_SHARE = 0.9
"""How much of the smaller of two boxes must lie in the larger for both to be one card lying there
(a corner index inside the whole card's box)."""

APART_SHARE = 0.5
"""Two boxes lie apart (two cards, not one card's corner index and its whole) when less than this
much of the smaller lies in the larger. Loose on purpose: a corner index read at the card's edge
pokes out of the whole card's box, and taking one card for two makes a play out of nothing."""

SPOT_BOXES = 8
"""How many of a run's latest boxes tell where its card lies now."""

OTHER_CARD_SHARE = 0.9
"""A card read at a box holding less than this much of another box (or held by it) is elsewhere:
not the same card seen at its other corner."""


class Sightings(TrackerRooms):
    """Sightings of cards: runs, steadiness, misreads (the evidence room of :class:`Tracker`)."""

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
        continuing = [r for r in reversed(track.runs) if self._continues(r, center, frame)]
        box = detection.box
        # Read at the very box of one of its runs: that run's card.
        run = max(
            (r for r in continuing if self._at_box(r, box)),
            key=lambda r: r.last_frame,
            default=None,
        )
        beside: Run | None = None
        if run is None and continuing:
            nearest = min(continuing, key=lambda r: _distance(r, center))
            if self._rests_apart(nearest, box):
                beside = nearest
            else:
                run = next((r for r in continuing if self._at_spot(r, box)), nearest)
        elif run is None:
            lying = [
                r
                for r in track.runs
                if r.last_frame >= frame - self._forget and self._rests_apart(r, box)
            ]
            beside = max(lying, key=lambda r: r.last_frame, default=None)
        if run is None:
            # Read apart from where a card of its name lies lately (beside): perhaps another card
            # the reader names alike (a deck misread systematically), perhaps the same card
            # moved; a run of its own, played only once both spots are read at once.
            run = Run(
                track.card,
                self._updates,
                approach=self._approach_side(track, frame),
                beside=beside,
            )
            track.runs.append(run)
        run.add(detection, frame)

    def _rests_apart(self, run: Run, box: Box) -> bool:
        """Decoding, ``run``'s card has come to rest at a box apart from ``box``."""
        resting = self._resting_box(run)
        return self.decode and resting is not None and nested_share(resting, box) < APART_SHARE

    def _at_spot(self, run: Run, box: Box) -> bool:
        """The box is where ``run``'s card lay lately: the same box, or one holding the other
        (a corner index of the whole card)."""
        return any(
            _one_card(box, mine, self.thresholds.same_spot) for mine in run.boxes[-SPOT_BOXES:]
        )

    def _read_apart(self, run: Run) -> bool:
        """``run`` was told apart from a run of its name (:attr:`Run.beside`), and that one was
        read since at a box apart from all of this one's: two cards lie there at once, not one
        card whose box moved (it slid on, or another card covered one corner index)."""
        beside = run.beside
        if beside is None:
            return False
        # Only its own reads: another card misread under its name elsewhere is not it.
        own = set(self._unexplained(beside))
        return any(
            frame in own and all(nested_share(theirs, mine) < APART_SHARE for mine in run.boxes)
            for frame, theirs in zip(beside.frames, beside.boxes, strict=True)
            if frame > run.start_frame
        )

    def _resting_box(self, run: Run) -> Box | None:
        """Where ``run``'s card lies now: its latest box read there twice (a box seen once may be
        another card sliding in, read under the same name); None before it came to rest."""
        boxes = run.boxes[-SPOT_BOXES:]
        for i in range(len(boxes) - 1, 0, -1):
            if any(iou(boxes[i], b) >= self.thresholds.same_spot for b in boxes[:i]):
                return boxes[i]
        return None

    def _at_box(self, run: Run, box: Box) -> bool:
        """The very box where ``run``'s card lay lately."""
        return any(iou(box, mine) >= self.thresholds.same_spot for mine in run.boxes[-SPOT_BOXES:])

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
            track.runs = [
                r
                for r in track.runs
                if r.last_frame >= horizon
                or id(r) in keep
                or (r.start_frame > trick_began and r.last_frame >= trick_horizon)
            ]

    def _runs(self) -> Iterator[Run]:
        for track in self._tracks.values():
            yield from track.runs

    def _steady(
        self, run: Run | None, frame: int, span: float, frames: list[int] | None = None
    ) -> bool:
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
        same box about then, and read there within ``clear_seconds`` of it, and named among its
        runners-up when the reader gives any. A card that lands exactly on another one and hides
        it is taken for a misread only until the hidden card has been unseen that long.
        """
        lo, hi = run.start_frame - self._forget, run.last_frame + self._forget
        # Only a card read more often than this one around then can explain it away (counting
        # all its runs: its two corners are two spots).
        nearby: dict[Card, list[Run]] = {}
        for other in self._runs():
            if (
                other.card != run.card
                and other.last_frame >= run.start_frame - self._clear
                and other.start_frame <= hi
                and not self._replayed(other)
            ):
                nearby.setdefault(other.card, []).append(other)
        rivals = [
            runs
            for runs in nearby.values()
            if sum(len(o.between(lo, hi)[0]) for o in runs) > run.seen
        ]
        if not rivals:
            return run.frames
        own: list[int] = []
        for frame, box, sighting in zip(run.frames, run.boxes, run.sightings, strict=True):
            if not any(self._explains(runs, frame, box, sighting, lo) for runs in rivals):
                own.append(frame)
        return own

    def _explains(
        self, runs: list[Run], frame: int, box: Box, sighting: Evidence, lo: float
    ) -> bool:
        """Whether the card of ``runs``, read at ``box`` about ``frame``, explains a sighting
        there as itself misread. Not when the reader names runners-up and leaves that card out
        (it names the card it misread among them), nor when that card was read elsewhere in the
        same frame: then two cards lie there (a deck misread systematically gives two cards one
        name, and the reader names the weaker read by its runner-up)."""
        card = runs[0].card
        if len(sighting) > 1 and card not in sighting:
            return False
        there: list[Box] = []
        for other in runs:
            if other.last_frame < frame - self._clear:
                continue
            _, boxes = other.between(max(lo, frame - self._forget), frame + self._forget)
            there += [b for b in boxes if iou(box, b) >= self.thresholds.same_spot]
        if not there:
            return False
        for other in runs:
            _, now = other.between(frame, frame)
            if any(
                nested_share(b, box) < OTHER_CARD_SHARE
                and all(nested_share(b, t) < OTHER_CARD_SHARE for t in there)
                for b in now
            ):
                return False
        return True

    def _misread(self, run: Run) -> bool:
        """Half of this run or more is another card misread: it is no card of its own."""
        return 2 * len(self._unexplained(run)) <= run.seen

    def _replayed(self, run: Run) -> bool:
        """A run of a gathered card that began after its trick was gathered: by the rules a
        misread itself, so it explains nothing away. Decoding, the card the deal decided a play
        was, not the name the reader gave it (that name may be another card's, still to come)."""
        state = self._state
        if state is None:
            return False
        gathered = state.gathered_at if self.decode else state.gathered_labels
        return run.card in gathered and run.start_frame > gathered[run.card]

    def _turned_at_rest(self, state: DealState, run: Run) -> bool:
        """The turned card still lying where the dealer put it (its box may reach into the play
        area): it stays in his hand until he moves it to the middle."""
        return (
            (run.card == state.deal.turned or run.card in state.turned_labels)
            and state.turned_spot is not None
            and math.dist(run.at, state.turned_spot) <= self._still
        )

    def _lay_there(self, run: Run) -> bool:
        """Seen ``weak_sightings`` times with confidence, the last two at one spot: a card that
        landed, not a misread of a card in motion."""
        return (
            run.seen >= max(2, self.thresholds.weak_sightings)
            and run.confidence >= self.thresholds.weak_confidence
            and iou(run.boxes[-2], run.boxes[-1]) >= self.thresholds.same_spot
        )

    def _last_seen(self, card: Card) -> int:
        track = self._tracks.get(card)
        return max((r.last_frame for r in track.runs), default=-1) if track else -1

    def _sightings_since(self, card: Card, frame: int) -> int:
        track = self._tracks.get(card)
        return sum(r.seen for r in track.runs if r.start_frame > frame) if track else 0

    def _trick_last_seen(self, state: DealState) -> int:
        """The last frame any card of the trick on the table was read (its box may have jumped
        to the other corner index, which starts a new run of it)."""
        return max(
            (
                r.last_frame
                for p in state.trick
                for r in (self._tracks[p.label].runs if p.label in self._tracks else ())
            ),
            default=-1,
        )


def _distance(run: Run, point: Point) -> float:
    """How far ``point`` is from the nearest of ``run``'s latest spots."""
    return min(math.dist(box_center(box), point) for box in run.boxes[-SPOT_BOXES:])


def _one_card(a: Box, b: Box, same_spot: float) -> bool:
    """Two boxes of one card lying there: the same box, or one holding the other (a corner index
    and the whole card)."""
    return iou(a, b) >= same_spot or nested_share(a, b) >= SAME_CARD_SHARE
