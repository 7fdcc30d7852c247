"""From per-frame card detections to game events: geometry, the tracker and its event types."""

from scorekeeper.rules.deal import Phase
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
from scorekeeper.tracking.geometry import Side, TableGeometry
from scorekeeper.tracking.thresholds import Thresholds
from scorekeeper.tracking.tracker import Tracker

__all__ = [
    "CardPlayed",
    "DealCorrected",
    "DealEnded",
    "DealStarted",
    "Event",
    "Phase",
    "PlayCorrected",
    "RevokeFlagged",
    "Side",
    "TableGeometry",
    "Thresholds",
    "Tracker",
    "TrickGathered",
    "Uncertain",
]
