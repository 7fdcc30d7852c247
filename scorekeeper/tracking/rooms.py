"""What the tracker's rooms (:class:`~scorekeeper.tracking.sightings.Sightings`,
:class:`~scorekeeper.tracking.repairs.Repairs`,
:class:`~scorekeeper.tracking.play_identities.PlayIdentities`) share: the tracker's settings and
state, and the methods one room calls in another.

They are declared for the type checker only: :class:`~scorekeeper.tracking.tracker.Tracker` sets
the attributes and the rooms or the tracker define the methods, which mypy then checks against
these signatures."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping

    from scorekeeper.rules import Card, Rules
    from scorekeeper.tracking.deal_state import DealState
    from scorekeeper.tracking.events import DealEnded, Event
    from scorekeeper.tracking.geometry import TableGeometry
    from scorekeeper.tracking.missing import SeatClues
    from scorekeeper.tracking.runs import Played, Run, Track
    from scorekeeper.tracking.thresholds import Thresholds


class TrackerRooms:
    """The base of each room; empty at run time."""

    if TYPE_CHECKING:
        geometry: TableGeometry
        rules: Rules
        fps: float
        thresholds: Thresholds
        decode: bool
        _clear: float
        _forget: float
        _approach: float
        _still: float
        _tracks: dict[Card, Track]
        _updates: int
        _state: DealState | None

        # Sightings
        def _runs(self) -> Iterator[Run]: ...
        def _last_seen(self, card: Card) -> int: ...
        def _misread(self, run: Run) -> bool: ...
        def _sightings_since(self, card: Card, frame: int) -> int: ...
        def _trick_last_seen(self, state: DealState) -> int: ...
        def _turned_at_rest(self, state: DealState, run: Run) -> bool: ...
        def _read_apart(self, run: Run) -> bool: ...

        # PlayIdentities
        def _mark_gathered(self, state: DealState, played: Played, frame: int) -> None: ...
        def _names_the_trick(self, state: DealState, run: Run) -> bool: ...
        def _same_spot_as_play(self, state: DealState, run: Run) -> bool: ...
        @staticmethod
        def _is_a_play(state: DealState, run: Run) -> bool: ...
        def _final_decoding(self, state: DealState, frame: int) -> list[Event]: ...

        # Repairs
        def _clues_of(self, played: Mapping[Card, Run]) -> SeatClues: ...

        # Tracker
        @staticmethod
        def _allowed(state: DealState, card: Card) -> bool: ...
        def _play(self, state: DealState, run: Run, frame: int, *, weak: bool) -> list[Event]: ...
        def _new_revokes(self, state: DealState, frame: int, proof_card: Card) -> list[Event]: ...
        def _end_deal(self, state: DealState, frame: int) -> DealEnded: ...
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
        ) -> list[Event]: ...
