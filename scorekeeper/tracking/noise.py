"""Degrade perfect detections the way a real reader and a real table do, to test the tracker.

Frames dropped (the reader too slow, or nothing read), cards misread for a frame or two, ghost
cards for one frame, hands covering part of the table for a few frames, and a card never read at
all. Deterministic for a
given ``random.Random``; the input frames are never changed, new ones are made.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace

from scorekeeper.rules import DECK, Card
from scorekeeper.rules.cards import RANKS, Suit
from scorekeeper.vision.detections import CardDetection, FrameDetections, distinct_cards


@dataclass(frozen=True, slots=True, kw_only=True)
class Noise:
    """How much trouble to add; the defaults are the tracker benchmark's conditions."""

    drop: float = 0.3
    """Share of frames that never reach the tracker."""
    misread: float = 0.05
    """Share of reads that are wrong: a card read as another card for 1-2 frames at a time."""
    spurious: float = 0.05
    """Chance per frame of one ghost card, somewhere in the image, for that frame only."""
    cover: float = 0.03
    """Chance per frame that a hand starts covering a spot of the table for 3-8 frames."""
    cover_radius: float = 0.12
    """A hand's reach over the table, as a share of the image's shorter side."""

    @classmethod
    def none(cls) -> Noise:
        return cls(drop=0.0, misread=0.0, spurious=0.0, cover=0.0)


_MEAN_MISREAD_FRAMES = 1.5


@dataclass(slots=True)
class _Hand:
    x: float
    y: float
    radius: float
    until: int


def degrade(
    frames: Iterable[FrameDetections],
    noise: Noise,
    rng: random.Random,
    *,
    focus: tuple[float, float] | None = None,
) -> Iterator[FrameDetections]:
    """The frames as a noisy reader would report them; ``focus`` is where hands mostly go."""
    misreads: dict[Card, tuple[Card, int]] = {}
    hands: list[_Hand] = []
    for frame in frames:
        index = frame.frame_index
        width, height = frame.width or 1280, frame.height or 720
        if rng.random() < noise.cover:
            cx, cy = focus or (width / 2, height / 2)
            spread = 0.15 * min(width, height)
            hands.append(
                _Hand(
                    rng.gauss(cx, spread),
                    rng.gauss(cy, spread),
                    noise.cover_radius * min(width, height),
                    index + rng.randint(3, 8),
                )
            )
        hands = [h for h in hands if h.until > index]
        cards: list[CardDetection] = []
        for detection in frame.cards:
            x, y = detection.center
            if any((x - h.x) ** 2 + (y - h.y) ** 2 <= h.radius**2 for h in hands):
                continue
            wrong = misreads.get(detection.card)
            if wrong is None and rng.random() < noise.misread / _MEAN_MISREAD_FRAMES:
                wrong = (
                    rng.choice([c for c in DECK if c != detection.card]),
                    index + rng.randint(1, 2),
                )
                misreads[detection.card] = wrong
            if wrong is not None and wrong[1] > index:
                detection = replace(
                    detection,
                    card=wrong[0],
                    confidence=detection.confidence * rng.uniform(0.4, 0.9),
                )
            cards.append(detection)
        misreads = {card: w for card, w in misreads.items() if w[1] > index}
        if rng.random() < noise.spurious:
            size = 0.04 * min(width, height)
            x, y = rng.uniform(0, width - size), rng.uniform(0, height - size)
            cards.append(
                CardDetection(
                    rng.choice(DECK), rng.uniform(0.3, 0.9), (x, y, x + size, y + 1.4 * size)
                )
            )
        if rng.random() < noise.drop:
            continue
        yield FrameDetections(index, _distinct(cards), frame.width, frame.height)


def _distinct(cards: list[CardDetection]) -> tuple[CardDetection, ...]:
    """One detection per card, as a reader reports: the most confident read of each wins."""
    best: dict[Card, CardDetection] = {}
    for d in cards:
        if d.card not in best or d.confidence > best[d.card].confidence:
            best[d.card] = d
    return tuple(best.values())


@dataclass(frozen=True, slots=True, kw_only=True)
class ReaderProfile:
    """How a real reader errs on a webcam table, with its runners-up: the reads the tracker's
    deal-level decoding is measured on (``benchmarks/tracker_error_profile.py``)."""

    read: float = 0.5
    """Share of the frames showing a card in which it is read at all."""
    swap: tuple[Suit, Suit] | None = (Suit.PAUS, Suit.ESPADAS)
    """One deck's cards of the first suit read as the same rank of the second, in the same cards
    every frame (the deck's ink or the light), or None."""
    swap_share: tuple[float, float] = (0.8, 0.9)
    """For each swapped card, the share of its reads that are wrong is drawn from this range."""
    slip: float = 0.05
    """Share of reads naming a neighbouring rank of the same suit."""
    confidence: tuple[float, float] = (0.3, 0.8)
    runner_up: tuple[float, float] = (0.02, 0.3)
    """A right read's runner-up (the same rank of the other suit of its colour), as a share of
    its confidence: a classifier that names a card right is mostly sure of it."""
    confused_runner_up: tuple[float, float] = (0.3, 0.9)
    """A wrong read's runner-up (the true card), as a share of its confidence: a classifier that
    names a card wrongly is mostly unsure between the two."""
    ghost: float = 0.05
    """Chance per frame of one faint ghost card (confidence 0.1-0.3) somewhere, for that frame."""


def read_like_a_reader(
    frames: Iterable[FrameDetections], profile: ReaderProfile, rng: random.Random
) -> Iterator[FrameDetections]:
    """Perfect detections as ``profile``'s reader would report them, each read with its runners-up;
    a frame's duplicate names are settled as the reader does (:func:`distinct_cards`)."""
    wrong_share: dict[Card, float] = {}
    if profile.swap is not None:
        wrong_share = {
            c: rng.uniform(*profile.swap_share) for c in DECK if c.suit is profile.swap[0]
        }
    for frame in frames:
        width, height = frame.width or 1280, frame.height or 720
        cards: list[CardDetection] = []
        for detection in frame.cards:
            if rng.random() >= profile.read:
                continue
            cards.append(_read(detection, profile, wrong_share, rng))
        if rng.random() < profile.ghost:
            size = 0.04 * min(width, height)
            x, y = rng.uniform(0, width - size), rng.uniform(0, height - size)
            cards.append(
                CardDetection(
                    rng.choice(DECK), rng.uniform(0.1, 0.3), (x, y, x + size, y + 1.4 * size)
                )
            )
        yield FrameDetections(frame.frame_index, distinct_cards(cards), frame.width, frame.height)


def _read(
    detection: CardDetection,
    profile: ReaderProfile,
    wrong_share: dict[Card, float],
    rng: random.Random,
) -> CardDetection:
    card = detection.card
    confidence = rng.uniform(*profile.confidence)
    twin = _twin(card, profile)
    share = profile.confused_runner_up
    if card in wrong_share and rng.random() < wrong_share[card]:
        best, runner = twin, card
    elif rng.random() < profile.slip:
        best, runner = _neighbour(card, rng), card
    else:
        # The true card read; the same rank of the other suit of its colour is the usual runner-up.
        best, runner, share = card, twin, profile.runner_up
    third = rng.choice([c for c in DECK if c not in (best, runner)])
    alternatives = (
        (runner, confidence * rng.uniform(*share)),
        (third, confidence * rng.uniform(0.0, 0.05)),
    )
    return replace(detection, card=best, confidence=confidence, alternatives=alternatives)


def _twin(card: Card, profile: ReaderProfile) -> Card:
    """The same rank in the other suit of the card's colour (the swap's partner when it has one)."""
    pairs = {
        Suit.PAUS: Suit.ESPADAS,
        Suit.ESPADAS: Suit.PAUS,
        Suit.COPAS: Suit.OUROS,
        Suit.OUROS: Suit.COPAS,
    }
    if profile.swap is not None and card.suit in profile.swap:
        source, target = profile.swap
        return Card(card.rank, target if card.suit is source else source)
    return Card(card.rank, pairs[card.suit])


def _neighbour(card: Card, rng: random.Random) -> Card:
    ranks = list(RANKS)
    at = ranks.index(card.rank)
    choices = [ranks[i] for i in (at - 1, at + 1) if 0 <= i < len(ranks)]
    return Card(rng.choice(choices), card.suit)


def never_read(frames: Iterable[FrameDetections], card: Card) -> list[FrameDetections]:
    """``frames`` with every read of ``card`` taken out: a card the reader never named."""
    return [replace(f, cards=tuple(d for d in f.cards if d.card != card)) for f in frames]
