"""Where the play area and the four seats are in the camera image.

The camera looks straight down. Seat 0 sits by one side of the image (the bottom by default) and the
other seats follow in playing order: counter-clockwise as seen from above in Portugal (seat 1 on the
right, 2 at the top, 3 on the left), clockwise in Brazil.

>>> g = TableGeometry.default(1280, 720)
>>> g.seat_at(Side.RIGHT), g.side_of_seat(3)
(1, <Side.LEFT: 'left'>)
>>> g.in_play_area((640, 360)), g.side_of((640, 700))
(True, <Side.BOTTOM: 'bottom'>)
>>> TableGeometry.default(1280, 720, clockwise=True).seat_at(Side.RIGHT)
3
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from scorekeeper.errors import ScorekeeperError
from scorekeeper.vision.detections import Box

Point = tuple[float, float]


class Side(str, Enum):
    """A side of the image; the value is how JSON and the command line spell it."""

    BOTTOM = "bottom"
    RIGHT = "right"
    TOP = "top"
    LEFT = "left"


_COUNTER_CLOCKWISE: tuple[Side, ...] = (Side.BOTTOM, Side.RIGHT, Side.TOP, Side.LEFT)
"""Sides in counter-clockwise order as seen from above (the camera's view, not mirrored)."""

DEFAULT_PLAY_FRACTION = 0.5
"""Default play area: a centred square this fraction of the image's shorter side."""


@dataclass(frozen=True, slots=True)
class TableGeometry:
    """The image size, the play area (pixels) and how seats map to image sides."""

    width: int
    height: int
    play_area: Box
    seat0: Side = Side.BOTTOM
    clockwise: bool = False

    def __post_init__(self) -> None:
        x1, y1, x2, y2 = self.play_area
        if not (self.width > 0 and self.height > 0 and x2 > x1 and y2 > y1):
            raise ScorekeeperError(
                f"table geometry {self.width}x{self.height} with play area {self.play_area}: "
                "give a positive image size and a play area x1 < x2, y1 < y2"
            )

    @classmethod
    def default(
        cls,
        width: int,
        height: int,
        *,
        seat0: Side = Side.BOTTOM,
        clockwise: bool = False,
        play_fraction: float = DEFAULT_PLAY_FRACTION,
    ) -> TableGeometry:
        half = play_fraction * min(width, height) / 2
        cx, cy = width / 2, height / 2
        return cls(width, height, (cx - half, cy - half, cx + half, cy + half), seat0, clockwise)

    @property
    def center(self) -> Point:
        x1, y1, x2, y2 = self.play_area
        return ((x1 + x2) / 2, (y1 + y2) / 2)

    @property
    def shorter_side(self) -> int:
        return min(self.width, self.height)

    def in_play_area(self, point: Point) -> bool:
        x1, y1, x2, y2 = self.play_area
        return x1 <= point[0] <= x2 and y1 <= point[1] <= y2

    def _offset(self, point: Point) -> Point:
        """Offset from the play area's centre in half-sizes of the area: +-1 on its edges."""
        x1, y1, x2, y2 = self.play_area
        cx, cy = self.center
        return ((point[0] - cx) / ((x2 - x1) / 2), (point[1] - cy) / ((y2 - y1) / 2))

    def side_of(self, point: Point) -> Side:
        """The image side a point lies toward, seen from the play area's centre."""
        dx, dy = self._offset(point)
        if abs(dy) >= abs(dx):
            return Side.BOTTOM if dy > 0 else Side.TOP
        return Side.RIGHT if dx > 0 else Side.LEFT

    def seat_at(self, side: Side) -> int:
        steps = (_COUNTER_CLOCKWISE.index(side) - _COUNTER_CLOCKWISE.index(self.seat0)) % 4
        return (-steps) % 4 if self.clockwise else steps

    def seats_along(self, upright: bool) -> frozenset[int]:
        """The two seats at the ends of the image's vertical axis (``upright``: top and bottom)
        or of its horizontal one (left and right)."""
        sides = (Side.TOP, Side.BOTTOM) if upright else (Side.LEFT, Side.RIGHT)
        return frozenset(self.seat_at(side) for side in sides)

    def side_of_seat(self, seat: int) -> Side:
        step = -seat if self.clockwise else seat
        return _COUNTER_CLOCKWISE[(_COUNTER_CLOCKWISE.index(self.seat0) + step) % 4]

    def to_json(self) -> dict[str, object]:
        return {
            "width": self.width,
            "height": self.height,
            "play_area": [round(v, 1) for v in self.play_area],
            "seat0": self.seat0.value,
            "clockwise": self.clockwise,
        }

    @classmethod
    def from_json(cls, data: object) -> TableGeometry:
        """Read :meth:`to_json`'s shape; ``play_area`` and the seat keys may be left out.

        The simulator's table JSON (``seat_sides``: the side of each seat, ``direction``) reads too.
        """
        if not isinstance(data, dict):
            raise ScorekeeperError(
                f"table geometry {data!r}: expected an object with width and height"
            )
        try:
            width, height = int(data["width"]), int(data["height"])
            sides = [Side(s) for s in data.get("seat_sides", [])]
            seat0 = sides[0] if sides else Side(data.get("seat0", Side.BOTTOM.value))
            clockwise = bool(data.get("clockwise", data.get("direction") == "clockwise"))
            area = data.get("play_area")
        except (KeyError, TypeError, ValueError) as error:
            raise ScorekeeperError(
                f"table geometry {data!r}: {error}; give width, height, and optionally "
                "play_area [x1, y1, x2, y2], seat0 (bottom/right/top/left) and clockwise"
            ) from None
        if area is None:
            geometry = cls.default(width, height, seat0=seat0, clockwise=clockwise)
        elif isinstance(area, list | tuple) and len(area) == 4:
            x1, y1, x2, y2 = (float(v) for v in area)
            geometry = cls(width, height, (x1, y1, x2, y2), seat0, clockwise)
        else:
            raise ScorekeeperError(
                f"table geometry play_area {area!r}: give [x1, y1, x2, y2] in pixels"
            )
        if sides and sides != [geometry.side_of_seat(seat) for seat in range(len(sides))]:
            raise ScorekeeperError(
                f"table geometry seat_sides {[s.value for s in sides]}: seats must go round the "
                f"table in order ({'clockwise' if clockwise else 'counterclockwise'})"
            )
        return geometry


def load_geometry(path: str) -> TableGeometry:
    """A geometry JSON file (this module's shape, or a simulated clip's ``geometry`` object)."""
    import json
    from pathlib import Path

    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ScorekeeperError(f"cannot read geometry {path!r}: {error}") from None
    return TableGeometry.from_json(data)


def seated(
    geometry: TableGeometry, *, seat0: str | None = None, clockwise: bool = False
) -> TableGeometry:
    """``geometry`` with seat 0 moved to side ``seat0`` and/or the seats turned clockwise."""
    from dataclasses import replace

    if not seat0 and not clockwise:
        return geometry
    return replace(
        geometry,
        seat0=Side(seat0) if seat0 else geometry.seat0,
        clockwise=clockwise or geometry.clockwise,
    )
