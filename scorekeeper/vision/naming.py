"""From index readings to cards: what a card is decides the answer.

Indices read as ``not_a_card`` or below ``card_prob`` are dropped; an unsure index may be settled
by its card's other corner (:func:`pair_corners`) or by its card's view (:func:`with_card_view`);
indices read as the same card within a card's reach of each other are its corners (both agreeing
gives ``corners=2``); a card is reported once per frame (:func:`combine_indices`). Pure numpy: the
networks that give the readings live in :mod:`scorekeeper.vision.reader`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from scorekeeper.rules.cards import DECK, Card, card_from_index
from scorekeeper.vision.boxes import center, nested_share, union_box
from scorekeeper.vision.detections import MAX_ALTERNATIVES, Box, CardDetection, distinct_cards

CARD_VIEW_DOUBT = 0.5
"""Below this top probability a card view that names another card than its index is not taken
(:func:`with_card_view`). Measured on seeds 7200-7219 of the rendered table: the one deal lost with
every view taken was lost to such a view (3C 0.30 over a half-covered AC, 0.26), and all 20 are
rebuilt with it left out."""


@dataclass(frozen=True, slots=True)
class IndexReading:
    """One corner index: where the detector saw it and what the classifier called it."""

    box: Box
    score: float
    """Detector score."""
    probs: np.ndarray
    """Classifier probabilities over
    :data:`~scorekeeper.vision.reader_config.CLASSIFIER_CLASSES`."""

    @property
    def label(self) -> int:
        return int(np.argmax(self.probs))

    @property
    def height(self) -> float:
        return max(self.box[2] - self.box[0], self.box[3] - self.box[1])


CORNERS_APART = 2.0
"""Index heights between the centres of a card's two corners, at the least: the corners are at
opposite ends of the card, several index heights apart at any tilt."""


def pair_corners(
    readings: list[IndexReading], *, card_prob: float, corner_reach: float
) -> list[IndexReading]:
    """The readings, each one below ``card_prob`` read together with its card's other corner.

    The other corner is the nearest reading that names the same card, within ``corner_reach``
    index heights and at least :data:`CORNERS_APART` apart (closer, it is the same printed index
    boxed twice, whose evidence would count twice). The two corners are two looks at one card:
    their probabilities are multiplied and normalised. A reading the product does not make surer
    is kept as it was.
    """
    out = list(readings)
    for i, reading in enumerate(readings):
        label = reading.label
        if label >= len(DECK) or reading.probs[label] >= card_prob:
            continue
        x, y = center(reading.box)
        nearest: tuple[float, IndexReading] | None = None
        for j, other in enumerate(readings):
            if j == i or other.label != label:
                continue
            ox, oy = center(other.box)
            apart = float(np.hypot(ox - x, oy - y))
            height = max(reading.height, other.height)
            if CORNERS_APART * height <= apart <= corner_reach * height and (
                nearest is None or apart < nearest[0]
            ):
                nearest = (apart, other)
        if nearest is None:
            continue
        joint = reading.probs * nearest[1].probs
        joint = joint / joint.sum()
        if joint[label] > reading.probs[label]:
            out[i] = IndexReading(box=reading.box, score=reading.score, probs=joint)
    return out


def unsure_cards(readings: list[IndexReading], card_prob: float) -> list[int]:
    """Where in ``readings`` an index names a card below ``card_prob``: those its card's view may
    settle."""
    return [
        i
        for i, reading in enumerate(readings)
        if reading.label < len(DECK) and reading.probs[reading.label] < card_prob
    ]


def with_card_views(
    readings: list[IndexReading],
    views_of: Callable[[list[int]], np.ndarray],
    *,
    card_prob: float,
    weight: float,
) -> list[IndexReading]:
    """``readings`` with each index still below ``card_prob`` read together with its card's view;
    ``views_of(positions)`` gives the views' probabilities of those positions only, since the
    network runs for no other."""
    unsure = unsure_cards(readings, card_prob)
    settled = list(readings)
    for i, view in zip(unsure, views_of(unsure)):
        settled[i] = with_card_view(readings[i], view, weight=weight)
    return settled


def with_card_view(reading: IndexReading, card_view: np.ndarray, *, weight: float) -> IndexReading:
    """``reading`` read together with its card's view
    (:meth:`~scorekeeper.vision.reader.CardReader.card_view_probs`): the index's probabilities
    times the card view's raised to ``weight``, normalised. Two looks at one card, as
    :func:`pair_corners` reads two corners: an index torn between 3 and 5 is settled by the three
    or five pips beside it.

    A view that is itself unsure (its top below :data:`CARD_VIEW_DOUBT`) and names another card is
    left out: it mostly sees the card lying over a half-covered corner, and even its small lean
    would lift that other card over the index's."""
    view = np.asarray(card_view, np.float64)
    if int(np.argmax(view)) != reading.label and float(view.max()) < CARD_VIEW_DOUBT:
        return reading
    joint = np.asarray(reading.probs, np.float64) * np.power(view, weight)
    total = float(joint.sum())
    if not total > 0:
        return reading
    return IndexReading(
        box=reading.box, score=reading.score, probs=(joint / total).astype(np.float32)
    )


def combine_indices(
    readings: list[IndexReading],
    *,
    card_prob: float = 0.5,
    corner_reach: float = 7.0,
    joint_corners: bool = False,
) -> tuple[CardDetection, ...]:
    """Turn index readings into distinct cards.

    With ``joint_corners`` the readings are first read in pairs (:func:`pair_corners`). Each
    reading votes for its most likely class. ``not_a_card`` and readings below ``card_prob``
    are dropped. Readings of the same card are grouped around the strongest one; a second reading
    within ``corner_reach`` index heights is the card's other corner (``corners=2``); one further
    away is another card read wrongly (a card exists once): it is named by its likeliest other
    card still free, or dropped (:func:`~scorekeeper.vision.detections.distinct_cards`). A card's
    confidence is detector score x class probability of its best corner, raised by the second
    corner as 1 - (1 - a)(1 - b); its alternatives are the best corner's runners-up, on the same
    scale.
    """
    if joint_corners:
        readings = pair_corners(readings, card_prob=card_prob, corner_reach=corner_reach)
    votes_all: list[tuple[float, IndexReading]] = []
    for reading in readings:
        label = reading.label
        if label >= len(DECK):
            continue
        prob = float(reading.probs[label])
        if prob < card_prob:
            continue
        votes_all.append((reading.score * prob, reading))
    by_card: dict[int, list[tuple[float, IndexReading]]] = {}
    kept: list[IndexReading] = []
    for vote in sorted(votes_all, key=lambda v: v[0], reverse=True):
        reading = vote[1]
        # One printed index boxed twice (the rank alone inside rank and suit) and named two ways
        # is one card: the better reading names it.
        if any(other.label != reading.label and _nested(reading.box, other.box) for other in kept):
            continue
        kept.append(reading)
        by_card.setdefault(reading.label, []).append(vote)
    detections: list[CardDetection] = []
    for label, votes in by_card.items():
        votes.sort(key=lambda vote: vote[0], reverse=True)
        best_score, best = votes[0]
        partner: tuple[float, IndexReading] | None = None
        bx, by = center(best.box)
        for score, other in votes[1:]:
            ox, oy = center(other.box)
            reach = corner_reach * max(best.height, other.height)
            if np.hypot(ox - bx, oy - by) <= reach:
                partner = (score, other)
                break
        card: Card = card_from_index(label)
        for score, other in votes[1:]:
            if partner is None or other is not partner[1]:
                detections.append(
                    CardDetection(
                        card=card,
                        confidence=score,
                        box=other.box,
                        corners=1,
                        alternatives=_runners_up(other),
                    )
                )
        box, confidence, corners = best.box, best_score, 1
        if partner is not None:
            score, other = partner
            box = union_box(best.box, other.box)
            confidence = 1.0 - (1.0 - best_score) * (1.0 - score)
            corners = 2
        detections.append(
            CardDetection(
                card=card,
                confidence=confidence,
                box=box,
                corners=corners,
                alternatives=_runners_up(best),
            )
        )
    return distinct_cards(detections)


RUNNER_UP_PROB = 0.01
"""A class below this probability is no alternative worth carrying."""


def _runners_up(reading: IndexReading) -> tuple[tuple[Card, float], ...]:
    """The reading's next likeliest cards (not ``not_a_card``), scaled by the detector's score."""
    order = np.argsort(reading.probs[: len(DECK)])[::-1]
    out: list[tuple[Card, float]] = []
    for label in order:
        if int(label) == reading.label:
            continue
        prob = float(reading.probs[label])
        if prob < RUNNER_UP_PROB or len(out) == MAX_ALTERNATIVES:
            break
        out.append((card_from_index(int(label)), reading.score * prob))
    return tuple(out)


NESTED_SHARE = 0.7
"""Two boxes are one index when this share of the smaller lies inside the larger."""


def _nested(a: Box, b: Box) -> bool:
    return nested_share(a, b) >= NESTED_SHARE
