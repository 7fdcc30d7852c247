"""Where things sit on the simulated table: seat sides, card poses, the play area, the camera.

Coordinates are "table pixels": the image a perfectly still camera would see, y pointing down.
The camera (tilt, shake) maps them to frame pixels with a homography, in one place
(:func:`apply_homography`), for the renderer and the ground-truth detections alike.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

import numpy as np

from scorekeeper.synth.plan import SimulationError
from scorekeeper.tracking.geometry import Side
from scorekeeper.vision.boxes import Box

TURNED_LATERAL = 0.9
"""How far, in card widths, the turned card may lie to either side of the dealer's centre line."""

SIDES: tuple[str, ...] = tuple(side.value for side in Side)
"""Counter-clockwise on the image (as seen from above): the Portuguese order of play."""

_OUTWARD: dict[str, tuple[float, float]] = {
    "bottom": (0.0, 1.0),
    "right": (1.0, 0.0),
    "top": (0.0, -1.0),
    "left": (-1.0, 0.0),
}

CARD_ASPECT = 400 / 560
"""Width over height: a Portuguese deck card (63 x 88 mm), and the procedural faces."""

INDEX_REGIONS: tuple[tuple[float, float, float, float], ...] = (
    (0.055, 0.036, 0.19, 0.23),
    (0.81, 0.77, 0.945, 0.964),
)
"""The two printed corner indices (rank over suit pip), as fractions of the card (x1, y1, x2, y2).

The ground-truth detections box these. Measured on procedural faces drawn with
:data:`INDEX_STYLE` (12 random styles, every fourth card: the ink stays inside these boxes within
a few hundredths), which is how the simulator's renderer draws its faces; ~27-31 px tall here.
"""

SHUTTER_OPEN = 0.5
"""Share of a frame's time the webcam's shutter is open: an object smears over this share of
the distance it travels between two frames."""
MOTION_BLUR_FROM = 3.0
"""Smear (frame pixels) from which the renderer blurs a moving object; below it the frame is sharp.
A card smeared this much or more is a streak, not a readable index."""


def motion_streaks(cameras: np.ndarray, now: np.ndarray, before: np.ndarray) -> np.ndarray:
    """The streak (frame pixels, x and y) each object's motion leaves in its frame: the shutter's
    share of how far its centre travelled on the table since the last frame, seen through this
    frame's camera (shake does not smear it). ``cameras`` F x 3 x 3, ``now`` and ``before``
    F x 2 table positions; returns F x 2. Its length is the smear that
    :data:`MOTION_BLUR_FROM` is compared with."""
    seen = apply_homography(cameras, np.stack([now, before], axis=1))  # F x 2 x 2
    streaks: np.ndarray = SHUTTER_OPEN * (seen[:, 0] - seen[:, 1])
    return streaks


INDEX_STYLE: dict[str, object] = {
    "index_height": 0.1,
    "pip_ratio": 0.7,
    "margin": (0.045, 0.03),
    "four_indices": False,
}
"""Face style fields the simulator pins so its faces print the indices where the truth says."""


@dataclass(frozen=True, slots=True)
class Pose:
    """A card or hand lying on the table: centre and rotation.

    ``phi`` rotates the card's x axis from the image's x axis; ``phi == 0`` is upright for the
    player at the bottom (his card's "down" points at him).
    """

    x: float
    y: float
    phi: float

    def axes(self) -> tuple[tuple[float, float], tuple[float, float]]:
        c, s = math.cos(self.phi), math.sin(self.phi)
        return (c, s), (-s, c)

    def points(self, local: np.ndarray) -> np.ndarray:
        """Table positions of ``local`` points (N x 2, in pixels from the centre, card axes)."""
        placed: np.ndarray = place(np.array([[self.x, self.y, self.phi]]), local)[0]
        return placed

    def lerp(self, other: Pose, t: float) -> Pose:
        turn = (other.phi - self.phi + math.pi) % (2 * math.pi) - math.pi
        return Pose(
            self.x + (other.x - self.x) * t, self.y + (other.y - self.y) * t, self.phi + turn * t
        )


def place(path: np.ndarray, local: np.ndarray) -> np.ndarray:
    """Table positions of ``local`` points (N x 2, card axes) for each pose of ``path`` (F x 3).

    Returns F x N x 2; the one place where a pose turns into positions.
    """
    c, s = np.cos(path[:, 2])[:, None], np.sin(path[:, 2])[:, None]
    x = path[:, 0:1] + local[None, :, 0] * c - local[None, :, 1] * s
    y = path[:, 1:2] + local[None, :, 0] * s + local[None, :, 1] * c
    return np.stack([x, y], axis=-1)


def card_outline(width: float, height: float) -> np.ndarray:
    w, h = width / 2, height / 2
    return np.array([[-w, -h], [w, -h], [w, h], [-w, h]], dtype=np.float64)


def card_corners(pose: Pose, width: float, height: float) -> np.ndarray:
    """The card's corners in table pixels: top-left, top-right, bottom-right, bottom-left."""
    return pose.points(card_outline(width, height))


def apply_homography(matrix: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Map ``points`` (... x 2) through ``matrix`` (3 x 3, or one per leading index: F x 3 x 3)."""
    if matrix.ndim == 2:
        matrix = matrix[None]
        flat = points.reshape(1, -1, 2)
    else:
        flat = points.reshape(matrix.shape[0], -1, 2)
    x, y = flat[..., 0], flat[..., 1]
    m = matrix[:, None, :, :]
    w = m[..., 2, 0] * x + m[..., 2, 1] * y + m[..., 2, 2]
    u = (m[..., 0, 0] * x + m[..., 0, 1] * y + m[..., 0, 2]) / w
    v = (m[..., 1, 0] * x + m[..., 1, 1] * y + m[..., 1, 2]) / w
    return np.stack([u, v], axis=-1).reshape(points.shape)


def seat_sides(*, clockwise: bool = False, seat0: str = "bottom") -> tuple[str, ...]:
    """The side of the image each seat (0-3, in playing order) sits on."""
    if seat0 not in SIDES:
        raise SimulationError(f"seat 0 side {seat0!r} is not one of {', '.join(SIDES)}")
    start = SIDES.index(seat0)
    step = -1 if clockwise else 1
    return tuple(SIDES[(start + step * seat) % 4] for seat in range(4))


@dataclass(frozen=True, slots=True)
class TableLayout:
    """The table as this camera sees it: seat sides, card size, where cards land and rest."""

    width: int
    height: int
    center: tuple[float, float]
    card_height: float
    sides: tuple[str, ...]
    clockwise: bool
    camera: tuple[tuple[float, ...], ...]
    """Base homography, table pixels to frame pixels (the tilt of the webcam), row-major."""

    @property
    def card_width(self) -> float:
        return self.card_height * CARD_ASPECT

    @property
    def camera_matrix(self) -> np.ndarray:
        return np.array(self.camera, dtype=np.float64)

    def outward(self, seat: int) -> tuple[float, float]:
        return _OUTWARD[self.sides[seat]]

    def facing(self, seat: int) -> float:
        """``phi`` of a card lying upright for ``seat`` (its bottom edge toward him)."""
        ox, oy = self.outward(seat)
        return math.atan2(-ox, oy)

    def reach(self, seat: int) -> float:
        """Distance from the table centre to the frame edge on ``seat``'s side."""
        ox, oy = self.outward(seat)
        cx, cy = self.center
        if ox > 0:
            return self.width - cx
        if ox < 0:
            return cx
        return self.height - cy if oy > 0 else cy

    def spot(self, seat: int, distance: float, lateral: float = 0.0, turn: float = 0.0) -> Pose:
        """A pose ``distance`` toward ``seat`` from the centre, ``lateral`` to his right."""
        ox, oy = self.outward(seat)
        rx, ry = oy, -ox  # his right hand as he faces the centre (y points down)
        cx, cy = self.center
        return Pose(
            cx + ox * distance + rx * lateral,
            cy + oy * distance + ry * lateral,
            self.facing(seat) + turn,
        )

    @property
    def land_distance(self) -> tuple[float, float]:
        """Range of how far from the centre a played card lands, toward its player."""
        return 0.28 * self.card_height, 0.45 * self.card_height

    @property
    def play_half(self) -> float:
        return self.land_distance[1] + 0.5 * self.card_height + 0.12 * self.card_height

    def turned_distance(self, seat: int) -> float:
        """Where the turned card rests: past the play area, inside the frame."""
        return min(
            self.play_half + 0.62 * self.card_height + 60,
            self.reach(seat) - 0.62 * self.card_height,
        )

    def play_area(self) -> Box:
        cx, cy = self.center
        r = self.play_half
        return (cx - r, cy - r, cx + r, cy + r)

    def to_json(self) -> dict[str, object]:
        """What the tracker needs to know about this table, in frame pixels (camera at rest)."""
        camera = self.camera_matrix
        x1, y1, x2, y2 = self.play_area()
        polygon = apply_homography(camera, np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]]))
        center = apply_homography(camera, np.array([self.center]))[0]
        card = self.card_height * abs(camera[0, 0] + camera[1, 1]) / 2
        return {
            "width": self.width,
            "height": self.height,
            "direction": "clockwise" if self.clockwise else "counterclockwise",
            "seat_sides": list(self.sides),
            "play_area": _box(polygon),
            "play_area_polygon": [[round(float(x), 1), round(float(y), 1)] for x, y in polygon],
            "table_center": [round(float(center[0]), 1), round(float(center[1]), 1)],
            "card_height_px": round(float(card), 1),
            "card_width_px": round(float(card * CARD_ASPECT), 1),
            "turned_card_spots": {
                str(seat): _box(apply_homography(camera, self.turned_zone(seat)))
                for seat in range(4)
            },
        }

    def turned_pose(self, seat: int, rng: random.Random) -> Pose:
        """Where a dealer leaves the turned card: past the play area, to his left or right."""
        h = self.card_height
        return self.spot(
            seat,
            self.turned_distance(seat) + rng.uniform(-0.1, 0.05) * h,
            rng.choice((-1.0, 1.0)) * rng.uniform(0.2, TURNED_LATERAL) * self.card_width,
            rng.uniform(-0.3, 0.3),
        )

    def turned_zone(self, seat: int) -> np.ndarray:
        """Corners of every card :meth:`turned_pose` can place (table pixels, 32 x 2)."""
        h, d = self.card_height, self.turned_distance(seat)
        corners = [
            card_corners(
                self.spot(seat, d + along * h, side * TURNED_LATERAL * self.card_width, turn),
                self.card_width,
                h,
            )
            for along in (-0.1, 0.05)
            for side in (-1.0, 1.0)
            for turn in (-0.3, 0.3)
        ]
        return np.vstack(corners)


def _box(points: np.ndarray) -> list[float]:
    return [
        round(float(points[:, 0].min()), 1),
        round(float(points[:, 1].min()), 1),
        round(float(points[:, 0].max()), 1),
        round(float(points[:, 1].max()), 1),
    ]


def random_layout(
    rng: random.Random,
    *,
    width: int = 1280,
    height: int = 720,
    clockwise: bool = False,
    seat0: str = "bottom",
) -> TableLayout:
    """A webcam a metre above the table: index ~25-35 px tall at 1280x720, a slight tilt."""
    if width < 320 or height < 240:
        raise SimulationError(f"frame size {width}x{height} is too small: use at least 320x240")
    scale = height / 720
    card_height = rng.uniform(135, 158) * scale
    center = (width / 2 + rng.uniform(-30, 30) * scale, height / 2 + rng.uniform(-12, 12) * scale)
    return TableLayout(
        width=width,
        height=height,
        center=center,
        card_height=card_height,
        sides=seat_sides(clockwise=clockwise, seat0=seat0),
        clockwise=clockwise,
        camera=_tilted_camera(rng, width, height),
    )


def _tilted_camera(rng: random.Random, width: int, height: int) -> tuple[tuple[float, ...], ...]:
    """A webcam not quite square to the table: a little keystone and roll."""
    import cv2

    keystone = rng.uniform(0.0, 0.05)
    roll = math.radians(rng.uniform(-3, 3))
    edge = rng.randrange(4)
    w, h = float(width), float(height)
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float32)
    dst = src.copy()
    # The far edge of a tilted camera's view looks shorter: pull that edge's corners inward.
    pairs = ((0, 1), (1, 2), (2, 3), (3, 0))
    a, b = pairs[edge]
    for index, other in ((a, b), (b, a)):
        dst[index] += (src[other] - src[index]) * keystone
    cx, cy = w / 2, h / 2
    c, s = math.cos(roll), math.sin(roll)
    rolled = np.array(
        [[cx + (x - cx) * c - (y - cy) * s, cy + (x - cx) * s + (y - cy) * c] for x, y in dst],
        dtype=np.float32,
    )
    matrix = cv2.getPerspectiveTransform(src, rolled.astype(np.float32))
    return tuple(tuple(float(v) for v in row) for row in matrix)
