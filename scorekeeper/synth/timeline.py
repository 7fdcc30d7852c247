"""The one source of truth for where every card and hand is in every frame of a simulated deal.

A :class:`Timeline` is a list of :class:`Track` (one card, trick stack or hand, keyframed poses)
plus the ground-truth events: the tracker's own event types (:mod:`scorekeeper.tracking.events`),
as a tracker that missed nothing would emit them (deals from 1, every read at confidence 1), with
where on the table each was staged added (:func:`truth_event`). :meth:`Timeline.scene` evaluates
a frame; the renderer draws that scene and :mod:`scorekeeper.synth.truth` lists the cards visible
in it, so pixels and labels cannot drift apart.
"""

from __future__ import annotations

import bisect
import random
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from scorekeeper.rules import Card
from scorekeeper.synth.camera import CameraPlan, FrameEffects
from scorekeeper.synth.geometry import Pose, TableLayout, apply_homography, card_corners
from scorekeeper.synth.plan import DealPlan
from scorekeeper.tracking import events as game

CARD, STACK, HAND = "card", "stack", "hand"


@dataclass(frozen=True, slots=True)
class Key:
    frame: int
    pose: Pose


@dataclass(slots=True)
class Track:
    """One object's life on the table: keyed poses from ``keys[0].frame`` until ``end`` (exclusive).

    Between keys the pose eases in and out (hands and cards start and stop smoothly); after the
    last key the object rests there until ``end``. :meth:`path` is the only place poses are
    computed: the renderer and the ground truth both read it.
    """

    kind: str
    keys: list[Key]
    end: int
    z: int
    card: Card | None = None
    face_up: bool = True
    seat: int = 0
    count: int = 1
    style: int = 0
    shoulder: tuple[float, float] = (0.0, 0.0)
    _path: np.ndarray | None = None

    @property
    def start(self) -> int:
        return self.keys[0].frame

    def path(self) -> np.ndarray:
        """(end - start) x 3: x, y, phi for every frame of the object's life.

        Computed once, after the director has written every key.
        """
        if self._path is None:
            self._path = _ease(self.keys, np.arange(self.start, self.end))
        return self._path

    def at(self, frame: int) -> Pose:
        x, y, phi = self.path()[frame - self.start]
        return Pose(float(x), float(y), float(phi))

    def resting_until(self, frame: int) -> int:
        """The first frame after ``frame`` where this object may have moved."""
        frames = [key.frame for key in self.keys]
        i = bisect.bisect_right(frames, frame) - 1
        if i < 0:
            return frames[0]
        if i + 1 >= len(frames):
            return self.end
        if self.keys[i + 1].pose == self.keys[i].pose:
            return frames[i + 1]
        return frame + 1


def _ease(keys: list[Key], frames: np.ndarray) -> np.ndarray:
    """Poses at ``frames``: smoothstep between keys, turning the short way round."""
    times = np.array([key.frame for key in keys], dtype=np.float64)
    poses = np.array([(key.pose.x, key.pose.y, key.pose.phi) for key in keys], dtype=np.float64)
    if len(keys) > 1:
        turns = (np.diff(poses[:, 2]) + np.pi) % (2 * np.pi) - np.pi
        poses[1:, 2] = poses[0, 2] + np.cumsum(turns)
    i = np.clip(np.searchsorted(times, frames, side="right") - 1, 0, len(keys) - 1)
    j = np.minimum(i + 1, len(keys) - 1)
    span = np.maximum(times[j] - times[i], 1.0)
    t = np.clip((frames - times[i]) / span, 0.0, 1.0)
    t = np.where(j == i, 0.0, t * t * (3 - 2 * t))
    return poses[i] + (poses[j] - poses[i]) * t[:, None]


@dataclass(frozen=True, slots=True)
class Item:
    """One object as it is in one frame, bottom to top."""

    kind: str
    pose: Pose
    face_up: bool
    card: Card | None
    track: int
    count: int = 1
    style: int = 0
    shoulder: tuple[float, float] = (0.0, 0.0)


@dataclass(frozen=True, slots=True)
class Scene:
    frame: int
    items: tuple[Item, ...]
    camera: np.ndarray
    """Homography from table pixels to this frame's pixels (tilt and shake)."""
    still: bool
    """Nothing moved on the table since the previous frame (only the camera may have)."""


@dataclass(slots=True)
class Timeline:
    layout: TableLayout
    fps: float
    tracks: list[Track]
    events: list[dict[str, object]]
    frames: int
    camera: CameraPlan
    cameras: np.ndarray = field(init=False)
    """frames x 3 x 3: table pixels to each frame's pixels (tilt and shake)."""

    def __post_init__(self) -> None:
        self.cameras = self.camera.matrices(
            self.layout.camera_matrix, (self.layout.width / 2, self.layout.height / 2)
        )

    def effects(self, frame: int) -> FrameEffects:
        return self.camera.effects(frame)

    def scene(self, frame: int) -> Scene:
        alive = [
            (index, track)
            for index, track in enumerate(self.tracks)
            if track.start <= frame < track.end
        ]
        return self._scene(frame, alive)

    def scenes(self) -> Iterator[Scene]:
        """Every frame in order; much faster than :meth:`scene` for each (resting poses reused)."""
        order = sorted(range(len(self.tracks)), key=lambda i: self.tracks[i].start)
        pending = 0
        alive: list[int] = []
        cache: dict[int, tuple[int, Item]] = {}
        for frame in range(self.frames):
            changed = False
            while pending < len(order) and self.tracks[order[pending]].start <= frame:
                alive.append(order[pending])
                pending += 1
                changed = True
            if any(self.tracks[i].end <= frame for i in alive):
                alive = [i for i in alive if self.tracks[i].end > frame]
                changed = True
            if changed:
                alive.sort(key=lambda i: self.tracks[i].z)
            items = []
            moved = changed
            for index in alive:
                cached = cache.get(index)
                if cached is not None and frame < cached[0]:
                    items.append(cached[1])
                    continue
                track = self.tracks[index]
                item = _item(index, track, frame)
                rest = track.resting_until(frame)
                if rest > frame + 1:
                    cache[index] = (rest, item)
                moved = moved or cached is None or cached[1].pose != item.pose
                items.append(item)
            yield Scene(
                frame=frame, items=tuple(items), camera=self.cameras[frame], still=not moved
            )

    def _scene(self, frame: int, alive: list[tuple[int, Track]]) -> Scene:
        alive.sort(key=lambda pair: pair[1].z)
        items = tuple(_item(index, track, frame) for index, track in alive)
        return Scene(frame=frame, items=items, camera=self.cameras[frame], still=False)


def _item(index: int, track: Track, frame: int) -> Item:
    return Item(
        kind=track.kind,
        pose=track.at(frame),
        face_up=track.face_up,
        card=track.card,
        track=index,
        count=track.count,
        style=track.style,
        shoulder=track.shoulder,
    )


class _Director:
    """Writes the tracks of a match, one action after another, on a frame clock."""

    def __init__(self, rng: random.Random, layout: TableLayout, fps: float, pace: float) -> None:
        self.rng = rng
        self.layout = layout
        self.fps = fps
        self.pace = pace
        self.tracks: list[Track] = []
        self.events: list[dict[str, object]] = []
        self.now = 0
        self._z = 0

    def frames(self, low: float, high: float) -> int:
        """A random duration in frames, ``low``-``high`` seconds scaled by the pace."""
        return max(1, round(self.rng.uniform(low, high) * self.pace * self.fps))

    def z(self) -> int:
        self._z += 1
        return self._z

    def wait(self, low: float, high: float) -> None:
        self.now += self.frames(low, high)

    def add(self, track: Track) -> Track:
        self.tracks.append(track)
        return track

    # -- where things are ---------------------------------------------------------------------

    def offstage(self, seat: int, lateral: float) -> Pose:
        """Just past the frame edge on ``seat``'s side, where his hand brings cards from."""
        h = self.layout.card_height
        return self.layout.spot(seat, self.layout.reach(seat) + 0.75 * h, lateral)

    def shoulder(self, seat: int) -> tuple[float, float]:
        h = self.layout.card_height
        pose = self.layout.spot(seat, self.layout.reach(seat) + 2.2 * h, 0.45 * h)
        return (pose.x, pose.y)

    def grip(self, card: Pose, seat: int) -> Pose:
        """The hand pushing a card: fingertips on the card's near third, palm past its edge."""
        h = self.layout.card_height
        turn = self.rng.uniform(-0.25, 0.25)
        ox, oy = self.layout.outward(seat)
        lateral = self.rng.uniform(-0.12, 0.12) * h
        rx, ry = oy, -ox
        reach = 0.95 * h
        return Pose(
            card.x + ox * reach + rx * lateral,
            card.y + oy * reach + ry * lateral,
            self.layout.facing(seat) + turn,
        )

    def hand(self, seat: int, keys: list[Key]) -> Track:
        return self.add(
            Track(
                kind=HAND,
                keys=keys,
                end=keys[-1].frame + 1,
                z=10_000 + self.z(),
                seat=seat,
                style=seat,
                shoulder=self.shoulder(seat),
            )
        )

    def hand_away(self, seat: int) -> Pose:
        away = self.offstage(seat, 0.3 * self.layout.card_height)
        return Pose(away.x, away.y, self.layout.facing(seat))

    # -- actions ------------------------------------------------------------------------------

    def slide_in(self, seat: int, card_track: Track, target: Pose, start: Pose | None) -> int:
        """The player's hand brings a card to ``target``; returns the frame it lands."""
        away = self.hand_away(seat)
        if start is None:
            start = self.offstage(seat, self.rng.uniform(-0.3, 0.6) * self.layout.card_height)
            start = Pose(start.x, start.y, target.phi + self.rng.uniform(-0.4, 0.4))
            begin = self.now
            card_track.keys.append(Key(begin, start))
            hand_keys = [Key(begin, self.grip(start, seat))]
        else:
            reach = self.frames(0.35, 0.6)
            begin = self.now + reach
            card_track.keys.append(Key(begin, start))
            hand_keys = [Key(self.now, away), Key(begin, self.grip(start, seat))]
        landed = begin + self.frames(0.4, 0.75)
        card_track.keys.append(Key(landed, target))
        grip = self.grip(target, seat)
        hand_keys.append(Key(landed, grip))
        release = landed + self.frames(0.05, 0.3)
        hand_keys.append(Key(release, grip))
        gone = release + self.frames(0.3, 0.55)
        hand_keys.append(Key(gone, away))
        self.hand(seat, hand_keys)
        self.now = release
        return landed

    def pass_over(self, seat: int) -> None:
        """Someone reaches across the play area (points, scratches, lifts a glass)."""
        h = self.layout.card_height
        cx, cy = self.layout.center
        target = Pose(
            cx + self.rng.uniform(-0.6, 0.6) * h,
            cy + self.rng.uniform(-0.6, 0.6) * h,
            self.layout.facing(seat) + self.rng.uniform(-0.5, 0.5),
        )
        away = self.hand_away(seat)
        there = self.now + self.frames(0.3, 0.5)
        stay = there + self.frames(0.0, 0.4)
        back = stay + self.frames(0.3, 0.5)
        self.hand(
            seat, [Key(self.now, away), Key(there, target), Key(stay, target), Key(back, away)]
        )
        self.now = back


def build_timeline(
    plans: list[DealPlan],
    layout: TableLayout,
    rng: random.Random,
    *,
    fps: float,
    pace: float = 1.0,
    camera_rng: random.Random | None = None,
    mild: bool = False,
) -> Timeline:
    """Stage ``plans`` on ``layout``: every card, hand and event, frame by frame.

    ``camera_rng`` draws the shake, light and blur (a separate source, so turning them off does
    not change the plays or the motion); without it the camera is perfectly still and clean.
    ``mild`` keeps the shake, light and blur but drops sensor noise and JPEG artefacts.
    """
    director = _Director(rng, layout, fps, pace)
    director.wait(0.5, 0.8)
    for number, plan in enumerate(plans, start=1):
        _stage_deal(director, plan, number)
    director.wait(0.6, 1.0)
    camera = (
        CameraPlan.random(
            camera_rng, frames=director.now, fps=fps, size=(layout.width, layout.height)
        )
        if camera_rng is not None
        else CameraPlan.still(director.now)
    )
    return Timeline(
        layout=layout,
        fps=fps,
        tracks=director.tracks,
        events=director.events,
        frames=director.now,
        camera=camera.mild() if mild else camera,
    )


def _stage_deal(d: _Director, plan: DealPlan, number: int) -> None:
    layout, rng = d.layout, d.rng
    h = layout.card_height
    dealer = plan.dealer
    turned_pose = layout.turned_pose(dealer, rng)
    # Won tricks piled on the other side of each player from the turned card.
    cx, cy = layout.center
    ox, oy = layout.outward(dealer)
    turned_side = 1.0 if (turned_pose.x - cx) * oy - (turned_pose.y - cy) * ox > 0 else -1.0
    turned = d.add(Track(kind=CARD, keys=[], end=0, z=d.z(), card=plan.turned, seat=dealer))
    settled = d.slide_in(dealer, turned, turned_pose, None)
    d.events.append(
        truth_event(
            game.DealStarted(
                frame=settled, deal=number, dealer=dealer, turned=plan.turned, confidence=1.0
            ),
            trump=plan.turned.suit.value,
            side=layout.sides[dealer],
            box=_frame_box(layout, turned_pose),
        )
    )
    d.wait(0.6, 1.2)
    stacks: list[Track] = []
    pile_count = {seat: 0 for seat in range(4)}
    low, high = layout.land_distance
    for trick in plan.tricks:
        on_table: list[Track] = []
        for position, (seat, card) in enumerate(zip(trick.seats, trick.cards)):
            d.wait(0.25, 1.3)
            if rng.random() < 0.08:
                d.pass_over(rng.randrange(4))
                d.wait(0.1, 0.4)
            target = layout.spot(
                seat, rng.uniform(low, high), rng.uniform(-0.22, 0.22) * h, rng.uniform(-0.3, 0.3)
            )
            start = turned.keys[-1].pose if card == plan.turned else None
            track = d.add(Track(kind=CARD, keys=[], end=0, z=d.z(), card=card, seat=seat))
            landed = d.slide_in(seat, track, target, start)
            if start is not None:
                # The turned card leaves its spot as a new track, so it passes over the trick.
                turned.end = track.start
            on_table.append(track)
            d.events.append(
                truth_event(
                    game.CardPlayed(
                        frame=landed,
                        deal=number,
                        trick=trick.number,
                        seat=seat,
                        card=card,
                        confidence=1.0,
                        side_seat=seat,
                    ),
                    position=position,
                    side=layout.sides[seat],
                    from_turned=card == plan.turned,
                )
            )
        d.wait(0.6, 1.4)
        gathered = _gather(d, trick.winner, on_table, pile_count[trick.winner], -turned_side)
        pile_count[trick.winner] += 1
        stacks.append(gathered[1])
        d.events.append(
            truth_event(
                game.TrickGathered(
                    frame=gathered[0],
                    deal=number,
                    trick=trick.number,
                    winner=trick.winner,
                    cards=tuple(trick.cards),
                    points=trick.points,
                ),
                side=layout.sides[trick.winner],
            )
        )
    d.wait(0.8, 1.5)
    d.events.append(
        truth_event(
            game.DealEnded(frame=d.now, deal=number, points=dict(plan.points)),
            revokes=[dict(r) for r in plan.revokes],
        )
    )
    _clear_table(d, stacks, (dealer + 1) % 4)


def truth_event(event: game.Event, **staging: object) -> dict[str, object]:
    """One ground-truth event: the tracker's event as JSON, plus how the simulator staged it
    (``side`` of the table, the turned card's ``box``, a card's ``position`` in its vaza...)."""
    return {**event.to_json(), **staging}


def _frame_box(layout: TableLayout, pose: Pose) -> list[float]:
    """A resting card's box in frame pixels, the camera at rest."""
    corners = apply_homography(
        layout.camera_matrix, card_corners(pose, layout.card_width, layout.card_height)
    )
    low, high = corners.min(axis=0), corners.max(axis=0)
    return [round(float(v), 1) for v in (low[0], low[1], high[0], high[1])]


def _gather(
    d: _Director, winner: int, cards: list[Track], piled: int, pile_side: float
) -> tuple[int, Track]:
    """The winner sweeps the four cards together, turns them down and pulls them to his side.

    Returns the frame the trick turns face down (nothing of it left face up) and its stack.
    """
    layout, rng = d.layout, d.rng
    h = layout.card_height
    middle = layout.spot(winner, rng.uniform(0.0, 0.2) * h, rng.uniform(-0.15, 0.15) * h)
    away = d.hand_away(winner)
    arrive = d.now + d.frames(0.35, 0.6)
    together = arrive + d.frames(0.2, 0.35)
    for track in cards:
        track.keys.append(Key(arrive, track.keys[-1].pose))
        track.keys.append(Key(together, middle))
        track.end = together
    pile = layout.spot(
        winner,
        layout.turned_distance(winner) + rng.uniform(-0.1, 0.1) * h,
        pile_side * (1.6 * layout.card_width + piled * 3) + rng.uniform(-6, 6),
        rng.uniform(-0.2, 0.2),
    )
    piled_at = together + d.frames(0.35, 0.6)
    stack = d.add(
        Track(
            kind=STACK,
            face_up=False,
            keys=[Key(together, middle), Key(piled_at, pile)],
            end=0,
            z=piled + 1,
            count=4,
            seat=winner,
        )
    )
    grip_middle = d.grip(middle, winner)
    grip_pile = d.grip(pile, winner)
    gone = piled_at + d.frames(0.3, 0.5)
    d.hand(
        winner,
        [
            Key(d.now, away),
            Key(arrive, grip_middle),
            Key(together, grip_middle),
            Key(piled_at, grip_pile),
            Key(gone, away),
        ],
    )
    d.now = piled_at
    return together, stack


def _clear_table(d: _Director, stacks: list[Track], collector: int) -> None:
    """The next dealer collects every pile to shuffle; the table is empty for the next deal."""
    reach = d.now + d.frames(0.4, 0.6)
    start = reach
    gone = start + d.frames(0.8, 1.2)
    away = d.offstage(collector, 0.0)
    # His hand reaches across the table and sweeps the piles back with it.
    middle = d.grip(d.layout.spot(collector, -0.3 * d.layout.card_height), collector)
    d.hand(collector, [Key(d.now, d.hand_away(collector)), Key(reach, middle), Key(gone, away)])
    for stack in stacks:
        rest = stack.keys[-1].pose
        stack.keys.append(Key(start, rest))
        stack.keys.append(Key(gone, Pose(away.x, away.y, rest.phi)))
        stack.end = gone
    d.now = gone
    d.wait(1.0, 1.6)
