"""The faces gathered so far: one sighting per physical card shown, filed under a card name.

Photos and video differ in what "shown again" means. In a set of photos each card outline is a
sighting of its own, so a card photographed twice is reported as shown twice (harmless: the pack
keeps the better view). In a video the same card lies in view for many frames; :class:`ViewTracker`
follows each outline from frame to frame and makes one sighting of it once it has left the view,
pooling the reader's evidence over all its views and keeping the sharpest one.

A sighting is filed under the reader's best guess until a person confirms it, renames it, or skips
it (``card = None``). The collection is shared between the capture loop and the web page, so its
changes hold a lock.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

import numpy as np

from scorekeeper.enrol.identify import DOUBT_BELOW, Reading, pool_readings
from scorekeeper.enrol.outline import Outline
from scorekeeper.rules.cards import DECK, Card


@dataclass(eq=False)
class Sighting:
    """One physical card seen: its best flat face, what the reader made of it, what it is filed
    as."""

    id: int
    face: np.ndarray
    reading: Reading
    origin: str
    """Where it was seen, for a person: ``mesa1.jpg card 2``, ``frames 30-75``."""
    sharpness: float = 0.0
    card: Card | None = None
    """The name it is filed under; None when a person skipped it."""
    confirmed: bool = False
    """A person (or ``accept_guesses``) settled the name."""

    @property
    def doubtful(self) -> bool:
        """Still needs a person: the reading was doubtful and nobody has settled it."""
        return self.reading.doubtful and not self.confirmed and self.card is not None

    def rank(self) -> tuple[bool, float, float]:
        """Which of two sightings of a card the pack keeps: confirmed, then surer, then sharper."""
        sure = self.reading.probs[self.card.index] if self.card is not None else 0.0
        return (self.confirmed, float(sure), self.sharpness)


@dataclass
class Collection:
    """Every sighting, in the order seen."""

    sightings: list[Sighting] = field(default_factory=list)
    _lock: threading.RLock = field(default_factory=threading.RLock, repr=False)

    def add(
        self, face: np.ndarray, reading: Reading, *, origin: str, sharpness: float = 0.0
    ) -> Sighting:
        with self._lock:
            sighting = Sighting(
                id=len(self.sightings),
                face=face,
                reading=reading,
                origin=origin,
                sharpness=sharpness,
                card=reading.card,
            )
            self.sightings.append(sighting)
            return sighting

    def get(self, sighting_id: int) -> Sighting:
        with self._lock:
            if not 0 <= sighting_id < len(self.sightings):
                from scorekeeper.enrol import EnrolError

                raise EnrolError(
                    f"no card number {sighting_id}: the faces seen are numbered 0 to "
                    f"{len(self.sightings) - 1}"
                )
            return self.sightings[sighting_id]

    def rename(self, sighting_id: int, card: Card | None) -> Sighting:
        """File a sighting under ``card`` (None: leave it out), as settled by a person."""
        with self._lock:
            sighting = self.get(sighting_id)
            sighting.card = card
            sighting.confirmed = card is not None
            return sighting

    def accept(self, sighting_id: int) -> Sighting:
        """Keep the reader's guess, as settled by a person."""
        with self._lock:
            sighting = self.get(sighting_id)
            sighting.confirmed = sighting.card is not None
            return sighting

    def accept_guesses(self) -> int:
        """Settle every doubtful sighting on the reader's guess; how many were settled."""
        with self._lock:
            doubtful = self.doubtful()
            for sighting in doubtful:
                sighting.confirmed = True
            return len(doubtful)

    def drop_doubtful(self) -> int:
        """Leave out every doubtful sighting (nobody to ask); how many were left out."""
        with self._lock:
            doubtful = self.doubtful()
            for sighting in doubtful:
                sighting.card = None
            return len(doubtful)

    def __iter__(self) -> Iterator[Sighting]:
        with self._lock:
            return iter(list(self.sightings))

    def __len__(self) -> int:
        return len(self.sightings)

    def doubtful(self) -> list[Sighting]:
        with self._lock:
            return [s for s in self.sightings if s.doubtful]

    def by_card(self) -> dict[Card, list[Sighting]]:
        """The sightings filed under each card, best first (skipped ones are not filed)."""
        with self._lock:
            filed: dict[Card, list[Sighting]] = {}
            for sighting in self.sightings:
                if sighting.card is not None:
                    filed.setdefault(sighting.card, []).append(sighting)
            for sightings in filed.values():
                sightings.sort(key=Sighting.rank, reverse=True)
            return filed

    def best(self) -> dict[Card, Sighting]:
        """The sighting the pack keeps for each card collected, in :data:`DECK` order."""
        filed = self.by_card()
        return {card: filed[card][0] for card in DECK if card in filed}

    def faces(self) -> dict[Card, np.ndarray]:
        return {card: sighting.face for card, sighting in self.best().items()}

    def missing(self) -> list[Card]:
        filed = self.by_card()
        return [card for card in DECK if card not in filed]

    def duplicates(self) -> list[Card]:
        """Cards filed more than once: shown twice, or one of them misread."""
        filed = self.by_card()
        return [card for card in DECK if len(filed.get(card, ())) > 1]

    @property
    def complete(self) -> bool:
        return not self.missing()

    def summary(self) -> str:
        """One line: ``37 of 40 cards: missing 5H 3C KD; shown twice: 7S``."""
        missing, twice = self.missing(), self.duplicates()
        line = f"{len(DECK) - len(missing)} of {len(DECK)} cards"
        parts = []
        if missing:
            parts.append("missing " + " ".join(c.notation for c in missing))
        if twice:
            parts.append("shown twice: " + " ".join(c.notation for c in twice))
        doubtful = len(self.doubtful())
        if doubtful:
            parts.append(f"{doubtful} to confirm")
        return line + (": " + "; ".join(parts) if parts else "")

    def progress(self, *, pending: Iterable[Card] = ()) -> str:
        """The camera's running line: ``23/40 — faltam: 5H 3C ...``; ``pending`` are cards still
        in view (not yet a sighting) that already count."""
        waiting = set(pending)
        missing = [card for card in self.missing() if card not in waiting]
        shown = " ".join(c.notation for c in missing[:12]) + (" ..." if len(missing) > 12 else "")
        line = f"{len(DECK) - len(missing)}/{len(DECK)}"
        return line + (f" — faltam: {shown}" if missing else " — completo")


@dataclass(eq=False)
class _Track:
    first: int
    last: int
    outline: Outline
    readings: list[Reading]
    face: np.ndarray
    sharpness: float
    score: float
    """Sharpness times confidence of the kept view: the face a person would pick."""
    views: int = 1


class ViewTracker:
    """Outlines at about the same place in nearby frames are one physical card.

    ``update(frame_index, views)`` takes the frame's (outline, face, reading, sharpness) and
    returns the sightings that ended (their card left the view); ``finish()`` ends the rest.
    ``max_gap``: frames a card may go unseen (a hand passing over it) and still be the same
    sighting; raising it merges a card taken away and a different one put in its place quickly.
    ``reach``: how far, in card widths, its centre may move between two views; raising it follows
    a card slid across the table, and risks joining two neighbouring cards.
    """

    def __init__(
        self,
        collection: Collection,
        *,
        max_gap: int = 15,
        reach: float = 0.5,
        doubt_below: float = DOUBT_BELOW,
    ) -> None:
        self.collection = collection
        self.max_gap = max_gap
        self.reach = reach
        self.doubt_below = doubt_below
        self._tracks: list[_Track] = []

    def update(
        self, frame_index: int, views: list[tuple[Outline, np.ndarray, Reading, float]]
    ) -> list[Sighting]:
        free = list(self._tracks)
        for outline, face, reading, sharp in views:
            track = self._nearest(outline, free)
            if track is None:
                self._tracks.append(
                    _Track(
                        frame_index,
                        frame_index,
                        outline,
                        [reading],
                        face,
                        sharp,
                        sharp * reading.confidence,
                    )
                )
                continue
            free.remove(track)
            track.last, track.outline = frame_index, outline
            track.readings.append(reading)
            track.views += 1
            if sharp * reading.confidence > track.score:
                track.face, track.sharpness, track.score = face, sharp, sharp * reading.confidence
        ended = [t for t in self._tracks if frame_index - t.last > self.max_gap]
        return [self._close(t) for t in ended]

    def open_cards(self) -> list[Card]:
        """The pooled best guess of each card still in view."""
        return [pool_readings(t.readings, doubt_below=self.doubt_below).card for t in self._tracks]

    def finish(self) -> list[Sighting]:
        return [self._close(t) for t in list(self._tracks)]

    def reset(self) -> None:
        self._tracks.clear()

    def _nearest(self, outline: Outline, tracks: list[_Track]) -> _Track | None:
        x, y = outline.center
        best, best_d = None, float("inf")
        for track in tracks:
            tx, ty = track.outline.center
            d = float(np.hypot(x - tx, y - ty))
            if d <= self.reach * min(outline.sides[0], track.outline.sides[0]) and d < best_d:
                best, best_d = track, d
        return best

    def _close(self, track: _Track) -> Sighting:
        self._tracks.remove(track)
        reading = pool_readings(track.readings, doubt_below=self.doubt_below)
        origin = (
            f"frame {track.first}"
            if track.first == track.last
            else f"frames {track.first}-{track.last}"
        )
        return self.collection.add(track.face, reading, origin=origin, sharpness=track.sharpness)
