"""Ground-truth detections: which cards a perfect reader would see in each frame, no pixels.

A face-up card's corner index counts as readable when at least ``READABLE`` of its sample points
are inside the frame and under no later card or hand. A card is listed when one index is
readable; its box covers the readable indices (``box="index"``, what the two-stage reader
reports) or the visible part of the card (``box="card"``). Each sighting also knows how far the
card's own motion smears it in that frame, so a card in flight that the renderer draws as a streak
can be left out (``sharp_only``).

Occlusion is computed per pair of objects over all the frames both are on the table, from the
same :meth:`Track.path` poses the renderer draws: 20 deals take a few seconds.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from scorekeeper.rules import Card
from scorekeeper.synth.geometry import (
    INDEX_REGIONS,
    MOTION_BLUR_FROM,
    apply_homography,
    card_outline,
    motion_streaks,
    place,
)
from scorekeeper.synth.hands import hand_shapes
from scorekeeper.synth.plan import SimulationError
from scorekeeper.synth.timeline import CARD, HAND, Timeline, Track
from scorekeeper.vision.boxes import Box
from scorekeeper.vision.detections import CardDetection, FrameDetections

if TYPE_CHECKING:
    from scorekeeper.synth.faces import FacePack

READABLE = 7 / 9
"""Share of an index that must show for a reader to name it: lower lists cards whose index is
mostly under a finger (harder reads for the tracker), higher drops them sooner."""

GLIMPSED = 1 / 18
"""Share of an index above which part of it shows (one of its 9 sample points is 1/9): a card
named with that little of an index in view was not made up, though no reader is expected to
name it."""

BOX_MODES = ("index", "card")
_GRID = 3
_CARD_GRID = (5, 7)
_PER_INDEX = _GRID * _GRID

Regions = tuple[tuple[float, float, float, float], ...]
"""A card's printed indices as fractions of the card (x1, y1, x2, y2)."""
RegionsOf = Callable[[Card], Regions]


def _unit_samples(box: str, regions: Regions = INDEX_REGIONS) -> np.ndarray:
    """Sample points on a unit card: a grid per corner index, then (``card`` mode) the card."""
    points = [
        (fx, fy)
        for x1, y1, x2, y2 in regions
        for fy in np.linspace(y1, y2, _GRID)
        for fx in np.linspace(x1, x2, _GRID)
    ]
    if box == "card":
        nx, ny = _CARD_GRID
        points += [
            (fx, fy) for fy in np.linspace(0.02, 0.98, ny) for fx in np.linspace(0.02, 0.98, nx)
        ]
    return np.array(points)


def _region_corners(regions: Regions) -> np.ndarray:
    return np.array(
        [[(x1, y1), (x2, y1), (x2, y2), (x1, y2)] for x1, y1, x2, y2 in regions]
    ).reshape(-1, 2)


def face_regions(pack: FacePack) -> RegionsOf:
    """Where ``pack``'s faces print their indices, as fractions of the card: the renderer
    stretches a face over the whole card, so a face's own index boxes land there."""

    def regions(card: Card) -> Regions:
        width, height = pack.sizes[card.notation]
        return (
            tuple(
                (x1 / width, y1 / height, x2 / width, y2 / height)
                for x1, y1, x2, y2 in pack.boxes[card.notation]
            )
            or INDEX_REGIONS
        )

    return regions


def _readable_indices(
    timeline: Timeline,
    box: str,
    regions_of: RegionsOf | None = None,
    readable_share: float = READABLE,
) -> Iterator[_Sighting]:
    """Each face-up card over the frames where at least one of its indices is readable."""
    layout = timeline.layout
    width, height = layout.width, layout.height
    card_w, card_h = layout.card_width, layout.card_height
    scale = np.array([card_w, card_h])

    def on_the_card(regions: Regions) -> tuple[np.ndarray, np.ndarray, int]:
        """Sample points and index corners in card pixels, and how many indices."""
        return (
            (_unit_samples(box, regions) - 0.5) * scale,
            (_region_corners(regions) - 0.5) * scale,
            len(regions),
        )

    nominal = on_the_card(INDEX_REGIONS)
    cameras = timeline.cameras
    tracks = timeline.tracks
    shapes = _Shapes(tracks, card_w, card_h)
    starts = np.array([t.start for t in tracks])
    ends = np.array([t.end for t in tracks])
    depth = np.array([t.z for t in tracks])
    for index, track in enumerate(tracks):
        if track.kind != CARD or not track.face_up or track.end <= track.start:
            continue
        start, end = track.start, track.end
        assert track.card is not None
        samples, index_corners, indices = (
            nominal if regions_of is None else on_the_card(regions_of(track.card))
        )
        path = track.path()
        points = place(path, samples)  # F x S x 2
        covered = np.zeros(points.shape[:2], dtype=bool)
        for other in np.flatnonzero((starts < end) & (ends > start) & (depth > track.z)):
            lo, hi = max(start, int(starts[other])), min(end, int(ends[other]))
            polygons, edges = shapes.get(int(other), lo, hi)
            covered[lo - start : hi - start] |= _inside(
                points[lo - start : hi - start], polygons, edges
            )
        frame_points = apply_homography(cameras[start:end], points)
        in_frame = (
            (frame_points[..., 0] >= 0)
            & (frame_points[..., 0] < width)
            & (frame_points[..., 1] >= 0)
            & (frame_points[..., 1] < height)
        )
        seen = in_frame & ~covered
        per_index = seen[:, : indices * _PER_INDEX].reshape(len(seen), indices, _PER_INDEX)
        shares = per_index.mean(axis=2)
        readable = shares >= readable_share
        listed = np.flatnonzero(readable.any(axis=1))
        if not len(listed):
            continue
        quads = apply_homography(
            cameras[start:end][listed], place(path[listed], index_corners)
        ).reshape(len(listed), indices, 4, 2)
        # As the renderer does: a card's first frame is never smeared.
        before = np.concatenate([path[:1, :2], path[:-1, :2]])
        streaks = motion_streaks(cameras[start:end][listed], path[listed, :2], before[listed])
        smear = np.linalg.norm(streaks, axis=1)
        yield _Sighting(
            track,
            start + listed,
            readable[listed],
            shares[listed],
            quads,
            frame_points[listed],
            seen[listed],
            smear,
        )


class _Sighting(NamedTuple):
    track: Track
    frames: np.ndarray  # L frame numbers where an index is readable
    readable: np.ndarray  # L x K: which of the card's K indices (two on most decks)
    shares: np.ndarray  # L x K: how much of each index shows (share of its sample points)
    index_quads: np.ndarray  # L x K x 4 x 2: each index's outline in the frame
    points: np.ndarray  # L x S x 2: the sample points in the frame
    seen: np.ndarray  # L x S: which sample points show
    smear: np.ndarray  # L: how far the card's motion smears it in the frame (pixels)

    def where(self, keep: np.ndarray) -> _Sighting:
        """The frames of this sighting where ``keep`` (L booleans) holds."""
        return _Sighting(self.track, *(part[keep] for part in self[1:]))


def detection_stream(
    timeline: Timeline,
    *,
    box: str = "index",
    sharp_only: bool = False,
    regions_of: RegionsOf | None = None,
    readable_share: float = READABLE,
) -> list[FrameDetections]:
    """One :class:`FrameDetections` per frame of ``timeline``: what a perfect reader reports.

    ``sharp_only`` leaves out the sightings of a card in flight that the camera smears into a
    streak (:data:`~scorekeeper.synth.geometry.MOTION_BLUR_FROM` pixels or more, where the
    renderer blurs it): an index no reader, person or network, can read in that frame.
    ``regions_of`` says where the deck the video was rendered with prints its indices
    (:func:`face_regions`; default: where procedural faces print them): a deck whose index is
    twice as tall is half covered where a procedural one still shows. ``readable_share``: how
    much of an index must show for the card to be listed.
    """
    if box not in BOX_MODES:
        raise SimulationError(f"box mode {box!r} is not one of {', '.join(BOX_MODES)}")
    width, height = timeline.layout.width, timeline.layout.height
    per_frame: list[list[tuple[int, CardDetection]]] = [[] for _ in range(timeline.frames)]
    for sighting in _readable_indices(timeline, box, regions_of, readable_share):
        if sharp_only:
            sighting = sighting.where(sighting.smear < MOTION_BLUR_FROM)
        count = len(sighting.frames)
        if box == "index":
            # Unreadable indices drop out of the box: NaN is ignored by nanmin/nanmax.
            quads = np.where(
                sighting.readable[:, :, None, None], sighting.index_quads, np.nan
            ).reshape(count, -1, 2)
        else:
            quads = np.where(sighting.seen[:, :, None], sighting.points, np.nan)
        low = np.clip(np.nanmin(quads, axis=1), 0, (width, height))
        high = np.clip(np.nanmax(quads, axis=1), 0, (width, height))
        corners = sighting.readable.sum(axis=1)
        card = sighting.track.card
        assert card is not None
        for k, frame in enumerate(sighting.frames):
            per_frame[int(frame)].append(
                (
                    sighting.track.z,
                    CardDetection(
                        card=card,
                        confidence=1.0,
                        box=(
                            float(low[k, 0]),
                            float(low[k, 1]),
                            float(high[k, 0]),
                            float(high[k, 1]),
                        ),
                        corners=int(corners[k]),
                    ),
                )
            )
    return [
        FrameDetections(
            frame_index=frame,
            cards=tuple(det for _, det in sorted(found, key=lambda pair: pair[0])),
            width=width,
            height=height,
        )
        for frame, found in enumerate(per_frame)
    ]


@dataclass
class ReadScore:
    """A reader's reads of a simulated deal against its truth, summed over the frames read."""

    named_right: int = 0
    """Cards named in a frame where an index of theirs is in view."""
    named_partly_shown: int = 0
    """Cards named in a frame where part of an index of theirs shows, too little to count it in
    view (:data:`READABLE`): neither a miss nor a false card."""
    named_wrong: int = 0
    """Cards named in a frame where no part of their indices shows."""
    missed: int = 0
    """Cards with an index in view that the frame's reads do not name."""
    sharp_named: int = 0
    """Of the sightings the camera does not smear (``sharp_only``), those named."""
    sharp_missed: int = 0
    missed_cards: Counter[str] = field(default_factory=Counter)
    """Per card, the frames it was in view and not named."""
    misread_cards: Counter[str] = field(default_factory=Counter)
    """Per card, the frames it was named wrongly (mostly another card read as it)."""

    @property
    def precision(self) -> float:
        """Share of the cards named that lie there with part of an index showing."""
        named = self.named_right + self.named_partly_shown + self.named_wrong
        return (self.named_right + self.named_partly_shown) / max(named, 1)

    @property
    def recall(self) -> float:
        """Share of the cards with an index in view that are named."""
        return self.named_right / max(self.named_right + self.missed, 1)

    @property
    def sharp_recall(self) -> float:
        """Share of the sightings the camera does not smear that are named."""
        return self.sharp_named / max(self.sharp_named + self.sharp_missed, 1)


def score_reads(
    reads: Iterable[FrameDetections], timeline: Timeline, regions_of: RegionsOf | None = None
) -> ReadScore:
    """Compare each frame's reads (matched by ``frame_index``) with the cards in view then;
    ``regions_of``: where the rendered deck prints its indices, as in :func:`detection_stream`."""
    # One occlusion pass down to a glimpse; the in-view and sharp sets are cut from its shares.
    in_view: list[set[Card]] = [set() for _ in range(timeline.frames)]
    sharp: list[set[Card]] = [set() for _ in range(timeline.frames)]
    glimpsed: list[set[Card]] = [set() for _ in range(timeline.frames)]
    for sighting in _readable_indices(timeline, "index", regions_of, GLIMPSED):
        card = sighting.track.card
        assert card is not None
        readable = (sighting.shares >= READABLE).any(axis=1)
        steady = sighting.smear < MOTION_BLUR_FROM
        for frames, seen_as in (
            (sighting.frames, glimpsed),
            (sighting.frames[readable], in_view),
            (sighting.frames[readable & steady], sharp),
        ):
            for frame in frames.tolist():
                seen_as[frame].add(card)
    score = ReadScore()
    for frame in reads:
        got = {d.card for d in frame.cards}
        want = in_view[frame.frame_index]
        clear = sharp[frame.frame_index]
        shown = glimpsed[frame.frame_index]
        wrong = got - want - shown
        score.named_right += len(got & want)
        score.named_partly_shown += len((got - want) & shown)
        score.named_wrong += len(wrong)
        score.missed += len(want - got)
        score.sharp_named += len(got & clear)
        score.sharp_missed += len(clear - got)
        score.missed_cards.update(card.notation for card in want - got)
        score.misread_cards.update(card.notation for card in wrong)
    return score


IndexBox = tuple[Card, Box]


def index_boxes(timeline: Timeline, regions_of: RegionsOf | None = None) -> list[list[IndexBox]]:
    """Per frame, every readable corner index on its own: the card and the index's box.

    What a detector of corner indices should find (training labels), where
    :func:`detection_stream` joins a card's two indices into one reading. ``regions_of`` says
    where a card's indices are printed when the faces are not the procedural ones
    (:func:`face_regions`).
    """
    width, height = timeline.layout.width, timeline.layout.height
    per_frame: list[list[IndexBox]] = [[] for _ in range(timeline.frames)]
    for sighting in _readable_indices(timeline, "index", regions_of):
        card = sighting.track.card
        assert card is not None
        low = np.clip(sighting.index_quads.min(axis=2), 0, (width, height))  # L x 2 x 2
        high = np.clip(sighting.index_quads.max(axis=2), 0, (width, height))
        for k, frame in enumerate(sighting.frames):
            for corner in np.flatnonzero(sighting.readable[k]):
                x1, y1 = low[k, corner]
                x2, y2 = high[k, corner]
                if x2 - x1 >= 2 and y2 - y1 >= 2:
                    per_frame[int(frame)].append(
                        (card, (float(x1), float(y1), float(x2), float(y2)))
                    )
    return per_frame


class _Shapes:
    """Each track's covering polygons over its life, built once: F x P x V x 2, and their edges."""

    def __init__(self, tracks: list[Track], card_w: float, card_h: float) -> None:
        self.tracks = tracks
        self.card_h = card_h
        self.outline = card_outline(card_w, card_h)
        self.cache: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def get(self, index: int, lo: int, hi: int) -> tuple[np.ndarray, np.ndarray]:
        if index not in self.cache:
            track = self.tracks[index]
            if track.kind == HAND:
                shapes = list(hand_shapes(track.path(), track.shoulder, self.card_h).values())
            else:
                shapes = [place(track.path(), self.outline)]
            polygons = np.stack([_padded(_clockwise(shape)) for shape in shapes], axis=1)
            following = np.concatenate([polygons[:, :, 1:], polygons[:, :, :1]], axis=2)
            self.cache[index] = (polygons, following - polygons)
        start = self.tracks[index].start
        polygons, edges = self.cache[index]
        return polygons[lo - start : hi - start], edges[lo - start : hi - start]


_VERTICES = 8


def _padded(shape: np.ndarray) -> np.ndarray:
    """F x V x 2 to F x 8 x 2 by repeating the last vertex (a zero-length edge tests as inside)."""
    missing = _VERTICES - shape.shape[1]
    if missing <= 0:
        return shape
    return np.concatenate([shape, np.repeat(shape[:, -1:], missing, axis=1)], axis=1)


def _clockwise(shape: np.ndarray) -> np.ndarray:
    """Vertices in one winding (clockwise on screen, y down) so one sign test means inside."""
    x, y = shape[0, :, 0].tolist(), shape[0, :, 1].tolist()
    area = sum(x[i - 1] * y[i] - y[i - 1] * x[i] for i in range(len(x)))
    return shape if area > 0 else shape[:, ::-1]


def _inside(points: np.ndarray, polygons: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """F x S: is each point (F x S x 2) in any convex polygon of its frame (F x P x V x 2)?"""
    dx = points[:, :, None, None, 0] - polygons[:, None, :, :, 0]
    dy = points[:, :, None, None, 1] - polygons[:, None, :, :, 1]
    cross = edges[:, None, :, :, 0] * dy - edges[:, None, :, :, 1] * dx
    inside: np.ndarray = (cross >= 0).all(axis=3).any(axis=2)
    return inside
