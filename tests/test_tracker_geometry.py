"""Table geometry: seat sides both ways round, the simulator's table JSON, the package's
doctests."""

from __future__ import annotations

import doctest

import pytest

import scorekeeper.tracking.geometry
import scorekeeper.tracking.tracker
from scorekeeper.errors import ScorekeeperError
from scorekeeper.tracking import Side, TableGeometry


def test_portugal_goes_counter_clockwise_from_the_bottom() -> None:
    g = TableGeometry.default(1280, 720)
    assert [g.side_of_seat(s) for s in range(4)] == [Side.BOTTOM, Side.RIGHT, Side.TOP, Side.LEFT]
    assert [g.seat_at(g.side_of_seat(s)) for s in range(4)] == [0, 1, 2, 3]


def test_brazil_goes_clockwise_and_seat0_can_sit_anywhere() -> None:
    g = TableGeometry.default(1280, 720, seat0=Side.TOP, clockwise=True)
    assert [g.side_of_seat(s) for s in range(4)] == [Side.TOP, Side.RIGHT, Side.BOTTOM, Side.LEFT]
    assert g.seat_at(Side.LEFT) == 3


def test_sides_are_judged_from_the_play_area_not_the_image() -> None:
    g = TableGeometry(1000, 1000, (100, 100, 300, 300))  # play area in the top-left corner
    assert g.side_of((200, 500)) is Side.BOTTOM
    assert g.side_of((500, 200)) is Side.RIGHT
    assert g.in_play_area((150, 290)) and not g.in_play_area((350, 200))


def test_reads_the_simulators_table_json() -> None:
    g = TableGeometry.from_json(
        {
            "width": 1280,
            "height": 720,
            "direction": "clockwise",
            "seat_sides": ["left", "top", "right", "bottom"],
            "play_area": [500.0, 220.0, 780.0, 500.0],
            "card_height_px": 140.0,
        }
    )
    assert (g.seat0, g.clockwise, g.play_area) == (Side.LEFT, True, (500.0, 220.0, 780.0, 500.0))
    assert TableGeometry.from_json(g.to_json()) == g


@pytest.mark.parametrize(
    "data",
    [
        {"width": 1280},
        {"width": 1280, "height": 720, "play_area": [1, 2, 3]},
        {"width": 1280, "height": 720, "seat_sides": ["bottom", "top", "right", "left"]},
        {"width": 1280, "height": 720, "play_area": [700, 200, 600, 300]},
    ],
)
def test_bad_geometry_is_one_clear_error(data: dict[str, object]) -> None:
    with pytest.raises(ScorekeeperError, match="geometry"):
        TableGeometry.from_json(data)


@pytest.mark.parametrize("module", [scorekeeper.tracking.geometry, scorekeeper.tracking.tracker])
def test_doctests(module: object) -> None:
    failures, tried = doctest.testmod(module)  # type: ignore[arg-type]
    assert tried and not failures
