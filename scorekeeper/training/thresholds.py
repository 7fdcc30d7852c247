"""Calibrate the classifier and choose the reader's thresholds, on real-like frames.

Two steps, both written to the model's ``reader.json``:

1. **Temperature.** The classifier's logits are divided by the temperature that makes its
   probabilities honest on the labelled corners of the frames (least negative log-likelihood):
   the tracker weighs a 0.8 as "right 8 times in 10".
2. **Thresholds.** ``index_conf`` (detector) and ``card_prob`` (classifier), and for a model
   with a card view the weight of its evidence, swept over a grid: the choice with the highest
   card recall whose precision is at least :data:`MIN_PRECISION`; where none reaches it, the one
   with the best F1.

A model may also carry ``photo_card_prob``, the ``card_prob`` its reader takes for a still photo,
chosen on labelled photos read as photos (:func:`choose_photo_card_prob`).

Thresholds chosen on clean synthetic scenes were too strict for real webcams (card_prob 0.7 cost
about 20 points of recall on real photos), so the frames should look like what a webcam delivers:
the webcam-scale view of a labelled photo set (:mod:`scorekeeper.vision.webcam_scale`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

INDEX_CONFS = (0.02, 0.05, 0.1, 0.15, 0.25, 0.35)
CARD_PROBS = (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.98)
PHOTO_CARD_PROBS = tuple(round(0.05 * step, 2) for step in range(4, 20))
"""The probabilities a photo threshold is chosen among (0.2-0.95, every 0.05): finer than
:data:`CARD_PROBS`, as it is one probability alone and each step down costs one more reading of
the photos. Three enrolments of photo_deck_mit that stopped at 0.8 on the 0.1 grid (0.7 under the
floor) all qualified at 0.75, and read the benchmark's photos at 0.923 instead of 0.914 (precision
0.978 and 0.984), 0.910 instead of 0.901 (0.982 and 0.988) and 0.934 instead of 0.923 (0.983 and
0.986)."""
CARD_VIEW_WEIGHTS = (0.5, 1.0)
"""Powers of the card view's probabilities tried with each threshold pair, for a model that has
one (:attr:`scorekeeper.vision.reader_config.ReaderConfig.card_view_weight`)."""
TEMPERATURES = tuple(round(t, 2) for t in np.arange(0.5, 3.01, 0.05))
MIN_PRECISION = 0.96
"""A false card costs the tracker more than a missed sighting (the card is read again a few
frames later), so recall is bought only while precision stays at or above this. At 0.95 the rule
took ``card_prob`` 0.9 for the reader with its card view (0.952-0.955 on the webcam-scale view),
and the tracker lost 2 of the 20 rendered deals of seeds 7200-7219 to false cards read from one
half-covered corner; with ``card_prob`` 0.95, which this floor takes, it lost none."""


def fit_temperature(
    logits: np.ndarray, labels: np.ndarray, temperatures: Sequence[float] = TEMPERATURES
) -> float:
    """The temperature with the least negative log-likelihood of ``labels`` under the reader's
    probabilities at that temperature: ``logits`` are N x 41, or N x views x 41 for a reader that
    averages the softmax of several views of each crop.

    >>> rng = np.random.default_rng(0)
    >>> labels = rng.integers(0, 4, 2000)
    >>> logits = np.where(np.eye(4)[labels] > 0, 2.0, 0.0) * 4  # four times too sure
    >>> noisy = logits + rng.normal(0, 4, logits.shape)
    >>> fit_temperature(noisy, labels) > 1.5
    True
    """
    from scorekeeper.vision.reader import view_probs

    if len(labels) == 0:
        return 1.0
    views = logits if logits.ndim == 3 else logits[:, None, :]
    best, best_nll = 1.0, float("inf")
    for t in temperatures:
        probs = view_probs(views, t).astype(np.float64)
        nll = float(-np.mean(np.log(np.maximum(probs[np.arange(len(labels)), labels], 1e-12))))
        if nll < best_nll:
            best, best_nll = float(t), nll
    return best


def pick_thresholds(
    rows: Sequence[dict[str, Any]],
    *,
    min_precision: float = MIN_PRECISION,
    confidence: float | None = None,
) -> dict[str, Any]:
    """The row (one per threshold pair) with the highest recall at ``min_precision``, else best F1.

    With ``confidence`` (rows carrying ``tp`` and ``fp``), a row qualifies only where the lower end
    of that confidence interval of its precision (Wilson) reaches ``min_precision``: the pair with
    the most recall among a hundred is the one whose precision on these images was luckiest, so on
    a few hundred cards the floor must be passed by more than chance. Where no row's interval
    reaches the floor (too few cards), the plain floor decides.

    >>> rows = [{"card_precision": 0.99, "card_recall": 0.5},
    ...         {"card_precision": 0.96, "card_recall": 0.7},
    ...         {"card_precision": 0.9, "card_recall": 0.9}]
    >>> pick_thresholds(rows)["card_recall"]
    0.7
    """
    from scorekeeper.vision.metrics import card_f1

    def over_floor(row: dict[str, Any]) -> bool:
        return not math.isnan(row["card_precision"]) and row["card_precision"] >= min_precision

    def most_recall(good: list[dict[str, Any]], rule: str) -> dict[str, Any]:
        return dict(max(good, key=lambda r: (r["card_recall"], r["card_precision"])), rule=rule)

    rule = f"recall at precision >= {min_precision}"
    good = [r for r in rows if over_floor(r)]
    if confidence is not None:
        sure = [
            r
            for r in good
            if precision_lower_bound(r["tp"], r["tp"] + r["fp"], confidence) >= min_precision
        ]
        if sure:
            return most_recall(sure, f"{rule} (the lower end of its {confidence:.0%} interval)")
        rule += f" (too few cards for the lower end of its {confidence:.0%} interval to reach it)"
    if good:
        return most_recall(good, rule)
    best_f1 = max(rows, key=card_f1)
    return dict(best_f1, rule="best F1 (no pair reached the precision floor)")


def precision_lower_bound(right: int, named: int, confidence: float) -> float:
    """Lower end of the Wilson interval of ``right / named`` at ``confidence`` (0 if none named).

    >>> [round(precision_lower_bound(n * 99 // 100, n, 0.95), 3) for n in (100, 1000)]
    [0.946, 0.982]
    """
    from scipy.stats import binomtest

    if named == 0:
        return 0.0
    interval = binomtest(right, named).proportion_ci(confidence_level=confidence, method="wilson")
    return float(interval.low)


def corner_logits(reader: Any, images: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
    """Raw logits (N x views x 41) and labels of every labelled Sueca corner."""
    from scorekeeper.vision.evaluate import labelled_corner_logits

    return labelled_corner_logits(reader, images)


def choose_on(
    model_dir: Path,
    images: Sequence[Any],
    *,
    on: str,
    min_precision: float = MIN_PRECISION,
    confidence: float | None = None,
    index_confs: Sequence[float] = INDEX_CONFS,
) -> dict[str, Any]:
    """Fit the temperature and choose the thresholds on ``images`` (labelled, see
    :func:`scorekeeper.vision.evaluate.labelled_images`); write both to ``reader.json``. A model
    whose detector did not change keeps its ``index_conf`` by passing that one value as
    ``index_confs``."""
    from scorekeeper.vision import evaluate as ev
    from scorekeeper.vision.reader import CardReader

    reader = CardReader(model_dir, temperature=1.0)
    logits, labels = corner_logits(reader, images)
    temperature = fit_temperature(logits, labels)
    reader = CardReader(model_dir, temperature=temperature)
    rows = ev.sweep_thresholds(
        reader,
        ev.labelled_truth(images),
        index_confs=index_confs,
        card_probs=CARD_PROBS,
        card_view_weights=CARD_VIEW_WEIGHTS,
    )
    best = pick_thresholds(rows, min_precision=min_precision, confidence=confidence)
    path = model_dir / "reader.json"
    config = json.loads(path.read_text())
    config["classifier"]["temperature"] = temperature
    config["thresholds"]["index_conf"] = best["index_conf"]
    config["thresholds"]["card_prob"] = best["card_prob"]
    # A photo threshold belongs to the classifier it was chosen for, not to this one.
    config["thresholds"].pop("photo_card_prob", None)
    config.pop("photo_threshold_choice", None)
    if "card_view_weight" in best:
        config["classifier"]["card_view"]["weight"] = best["card_view_weight"]
    rule = best.pop("rule")
    if len(index_confs) == 1:
        rule += f", index_conf held at {index_confs[0]} (the detector did not change)"
    config["threshold_choice"] = {
        "on": on,
        "rule": rule,
        "temperature": temperature,
        "corners": len(labels),
        "best": best,
    }
    path.write_text(json.dumps(config, indent=2) + "\n")
    choice: dict[str, Any] = config["threshold_choice"]
    return choice


PHOTO_ROW_FIGURES = ("images", "card_precision", "card_recall", "tp", "fp", "fn")


def search_photos(model_dir: Path, photos: Sequence[Any]) -> dict[Path, Any]:
    """The index boxes the model's detector finds in each labelled photo searched as a photo: the
    search does not depend on ``card_prob``, so the readings at each probability share it (it is
    most of a photo's reading time)."""
    import cv2

    from scorekeeper.vision.reader import CardReader

    reader = CardReader(model_dir, photo=True)
    searched = {}
    for photo in photos:
        frame = cv2.imread(str(photo.path))
        if frame is not None:
            searched[photo.path] = reader.detect_indices(frame)
    return searched


def read_photos_at(
    model_dir: Path, photos: Sequence[Any], searched: dict[Path, Any], card_prob: float
) -> dict[str, Any]:
    """Card precision and recall of the model reading the labelled ``photos`` as photos with
    ``card_prob``, from their shared search (:func:`search_photos`)."""
    from scorekeeper.vision.evaluate import labelled_truth, measure_cards
    from scorekeeper.vision.reader import CardReader

    reader = CardReader(model_dir, photo=True, card_prob=card_prob)
    return measure_cards(reader, labelled_truth(photos), detected=searched)


def choose_photo_card_prob(
    model_dir: Path, photos: Sequence[Any], *, on: str, min_precision: float, confidence: float
) -> dict[str, Any]:
    """Read the labelled ``photos`` as still photos at the model's ``card_prob`` and at each lower
    one of :data:`PHOTO_CARD_PROBS`; the one with the most card recall whose precision reaches
    ``min_precision`` by more than chance (the lower end of its ``confidence`` interval, as
    :func:`pick_thresholds`) becomes ``thresholds.photo_card_prob`` in ``reader.json`` (left out
    where it is the ``card_prob`` itself, or where no probability qualifies). The rows measured
    and the rule go to ``photo_threshold_choice``.

    The sweep goes down from ``card_prob`` and stops at the first probability that does not
    qualify: precision only falls as the probability does, and each row costs naming every photo's
    indices again (the detector's search of the photos is done once, :func:`search_photos`)."""
    path = model_dir / "reader.json"
    config = json.loads(path.read_text())
    live = float(config["thresholds"]["card_prob"])
    searched = search_photos(model_dir, photos)
    rows: list[dict[str, Any]] = []
    for card_prob in sorted({live, *(p for p in PHOTO_CARD_PROBS if p < live)}, reverse=True):
        figures = read_photos_at(model_dir, photos, searched, card_prob)
        low = precision_lower_bound(figures["tp"], figures["tp"] + figures["fp"], confidence)
        rows.append(
            {
                "card_prob": card_prob,
                **{k: figures[k] for k in PHOTO_ROW_FIGURES},
                "precision_lower_bound": round(low, 4),
            }
        )
        if low < min_precision:
            break
    good = [r for r in rows if r["precision_lower_bound"] >= min_precision]
    best = max(good, key=lambda r: (r["card_recall"], r["card_prob"])) if good else None
    if best is not None and best["card_prob"] < live:
        config["thresholds"]["photo_card_prob"] = best["card_prob"]
    else:
        config["thresholds"].pop("photo_card_prob", None)
    choice = {
        "on": on,
        "rule": f"recall at precision >= {min_precision} (the lower end of its "
        f"{confidence:.0%} interval), card_prob {live} or lower",
        "photo_card_prob": config["thresholds"].get("photo_card_prob", live),
        "rows": rows,
    }
    config["photo_threshold_choice"] = choice
    path.write_text(json.dumps(config, indent=2) + "\n")
    return choice
