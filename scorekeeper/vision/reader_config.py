"""What a model folder's ``reader.json`` says (:class:`ReaderConfig`), checked as it is loaded: a
malformed setting is a one-line :class:`~scorekeeper.errors.ModelError` naming it, never a reader
that half works. Also the classifier's classes, the one order both networks and their training
share."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scorekeeper.errors import ModelError
from scorekeeper.rules.cards import DECK
from scorekeeper.vision.registry import CONFIG_NAME

NOT_A_CARD = "not_a_card"
CLASSIFIER_CLASSES: tuple[str, ...] = tuple(card.notation for card in DECK) + (NOT_A_CARD,)
"""The classifier's 41 outputs: the 40 cards in :data:`DECK` order, then ``not_a_card``."""
CARD_VIEW_SPAN = 8.0
"""Index lengths across the card view: from a corner index a card reaches 4-7 index lengths, its
centre and the pips near it within 4, so a square this wide centred on the index holds them
whichever way the card lies."""
CARD_VIEW_MARGIN = (CARD_VIEW_SPAN - 1.0) / 2.0
"""The same square as a :func:`scorekeeper.vision.crops.crop_square` margin."""
VIEW_COUNTS = (1, 2, 4)
"""How many turned views of an index crop the reader can average (:attr:`ReaderConfig.views`)."""
TRACKER_SETTINGS = ("min_confidence", "play_confidence")
"""The tracker thresholds a model may set for its own reads (:attr:`ReaderConfig.tracker`)."""


@dataclass(frozen=True, slots=True)
class ReaderConfig:
    """What ``reader.json`` says about a model folder (every knob the reader uses)."""

    folder: Path
    detector_file: str = "index-detector.onnx"
    detector_size: int = 640
    """Longer side of the detector's input, in pixels (a multiple of 32). Larger finds smaller
    indices (a webcam a metre up) and costs time roughly with its square; smaller suits
    close-ups."""
    detector_scales: tuple[float, ...] = (1.0,)
    """The frame is searched once per scale, each time at that share of its own resolution (but
    never above ``detector_size``), and the boxes merged. A webcam's indices are soft at the
    frame's full resolution and the detector finds them better halved, while the smallest need
    every pixel: with 1.0 and 0.5, real 640x360 webcam frames read at 640 and 320, and 0.78 of
    their indices are found (0.54 at 640 alone, 0.74 at 320 alone). A 1280x720 frame at
    ``detector_size`` 640 is already read at half its resolution: one pass, no extra cost."""
    classifier_file: str = "index-classifier.onnx"
    crop_size: int = 48
    crop_margin: float = 0.2
    views: int = 1
    """How many quarter-turned views of each index crop the classifier reads, their probabilities
    averaged: 1 (the crop as cut), 2 (a tall index upright and upside down, a wide one turned both
    ways) or 4 (all four turns). The small CNN reads one index differently at each turn, so the
    average is right more often (real corners 0.895 -> 0.942 with 2); each view costs one more
    classifier pass (~0.4 ms a crop on 2 threads)."""
    first_view_sure: float = 1.0
    """An index whose first view names a card with at least this probability is not read in its
    other views: its first view is its reading. Crisp indices (a camera close over the table)
    are read at one view's cost, soft ones still at every view's. 1.0 reads every view of every
    index; lower saves time and, too low, keeps a first view's misreads the other views would
    have outvoted."""
    temperature: float = 1.0
    """The classifier's logits are divided by this before the softmax, so that its probabilities
    are calibrated (a 0.8 right 8 times in 10); fitted on real-like crops when thresholds are
    chosen."""
    index_conf: float = 0.25
    """Detector score to keep an index. Lower finds more faint indices, and hands more junk to the
    classifier (which can still call it ``not_a_card``)."""
    nms_iou: float = 0.5
    card_prob: float = 0.5
    """Classifier probability to accept a reading. Higher trades recall for precision."""
    photo_card_prob: float | None = None
    """``card_prob`` for a still photo (:attr:`~scorekeeper.vision.reader.CardReader.photo`),
    where it differs: a photo is searched at finer sizes and its unsure indices get a second
    look, so it keeps its precision at a lower probability than a live frame does. None:
    ``card_prob`` for photos too."""
    corner_reach: float = 7.0
    """How far apart (in index heights) two indices read as the same card may be and still count as
    the two corners of one card."""
    joint_corners: bool = False
    """An index below ``card_prob`` whose card's other corner (the nearest index within
    ``corner_reach`` that names the same card) agrees is read from both: their probabilities
    multiplied (:func:`~scorekeeper.vision.naming.pair_corners`). Two soft corners that each say
    the same card at 0.75 say it together at more than 0.9."""
    card_view_file: str | None = None
    """The card-view network (ONNX), or None for a reader that reads the indices alone. It sees
    the square :data:`CARD_VIEW_SPAN` index lengths wide around an unsure index, the card's body
    with it, and names the card (:func:`~scorekeeper.vision.naming.with_card_view`)."""
    card_view_size: int = 80
    card_view_weight: float = 1.0
    """The card view's probabilities are raised to this power before they are multiplied into the
    index's: below 1 the index keeps more say."""
    tracker: dict[str, float] = field(default_factory=dict)
    """Tracker thresholds on read confidence that this model's reads call for (``reader.json``'s
    ``tracker``, keys among :data:`TRACKER_SETTINGS`): the confidence below which a read is no
    evidence, and the one a card lying in the play area needs to count as played on its own. A
    model adapted to one deck has its confidences fitted on that deck and sets them; without
    them the tracker keeps its defaults."""
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def load(cls, folder: Path) -> ReaderConfig:
        path = folder / CONFIG_NAME
        if not path.is_file():
            raise ModelError(
                f"model file {path} is missing: run `scorekeeper train` or restore models/ from git"
            )
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            detector = data["detector"]
            classifier = data["classifier"]
            thresholds = data.get("thresholds", {})
            classes = tuple(classifier["classes"])
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise ModelError(
                f"model file {path} is unreadable ({error.__class__.__name__}: {error}): "
                "restore it from git or run `scorekeeper train`"
            ) from None
        temperature = classifier.get("temperature", 1.0)
        if (
            isinstance(temperature, bool)
            or not isinstance(temperature, (int, float))
            or not temperature > 0
        ):
            raise ModelError(
                f"model file {path} gives the classifier temperature {temperature!r}: it must be a "
                "number above 0; restore reader.json from git or run `scorekeeper train`"
            )
        scales = detector.get("scales", [1.0])
        if (
            not isinstance(scales, list)
            or not scales
            or not all(
                isinstance(x, (int, float)) and not isinstance(x, bool) and 0 < x <= 1
                for x in scales
            )
        ):
            raise ModelError(
                f"model file {path} gives the detector scales {scales!r}: they must be a list of "
                "numbers in (0, 1], e.g. [1.0, 0.5]; restore reader.json from git"
            )
        views = classifier.get("views", 1)
        if isinstance(views, bool) or views not in VIEW_COUNTS:
            raise ModelError(
                f"model file {path} asks for {views!r} classifier views: it must be one of "
                f"{', '.join(map(str, VIEW_COUNTS))}; restore reader.json from git"
            )
        joint = classifier.get("joint_corners", False)
        if not isinstance(joint, bool):
            raise ModelError(
                f"model file {path} gives the classifier joint_corners {joint!r}: it must be true "
                "or false; restore reader.json from git"
            )
        sure = classifier.get("first_view_sure", 1.0)
        if isinstance(sure, bool) or not isinstance(sure, (int, float)) or not 0 < sure <= 1:
            raise ModelError(
                f"model file {path} gives the classifier first_view_sure {sure!r}: it must be a "
                "probability in (0, 1] (1 reads every view); restore reader.json from git"
            )
        tracker = _tracker_settings(data.get("tracker", {}), path)
        card_view = _card_view_settings(classifier.get("card_view"), path)
        if classes != CLASSIFIER_CLASSES:
            raise ModelError(
                f"model file {path} lists classifier classes that differ "
                "from the 40-card deck order plus not_a_card: retrain with `scorekeeper train`"
            )
        defaults = cls(folder=folder)
        return cls(
            folder=folder,
            detector_file=str(detector.get("file", defaults.detector_file)),
            detector_size=int(detector.get("size", defaults.detector_size)),
            detector_scales=tuple(float(x) for x in scales),
            classifier_file=str(classifier.get("file", defaults.classifier_file)),
            crop_size=int(classifier.get("crop_size", defaults.crop_size)),
            crop_margin=float(classifier.get("crop_margin", defaults.crop_margin)),
            temperature=float(classifier.get("temperature", defaults.temperature)),
            views=int(views),
            first_view_sure=float(classifier.get("first_view_sure", defaults.first_view_sure)),
            index_conf=float(thresholds.get("index_conf", defaults.index_conf)),
            nms_iou=float(thresholds.get("nms_iou", defaults.nms_iou)),
            card_prob=float(thresholds.get("card_prob", defaults.card_prob)),
            photo_card_prob=_photo_card_prob(thresholds.get("photo_card_prob"), path),
            corner_reach=float(thresholds.get("corner_reach", defaults.corner_reach)),
            joint_corners=joint,
            **card_view,
            tracker=tracker,
            extra={
                k: v
                for k, v in data.items()
                if k not in {"detector", "classifier", "thresholds", "tracker"}
            },
        )


def _photo_card_prob(value: Any, path: Path) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 1:
        raise ModelError(
            f"model file {path} gives thresholds.photo_card_prob {value!r}: it must be a "
            "probability in (0, 1] or left out; restore reader.json from git or enrol again"
        )
    return float(value)


def _card_view_settings(section: Any, path: Path) -> dict[str, Any]:
    if section is None:
        return {}
    problem = None
    if not isinstance(section, dict) or not isinstance(section.get("file"), str):
        problem = 'must be an object naming its "file"'
    else:
        size, weight = section.get("size", 80), section.get("weight", 1.0)
        span = section.get("span", CARD_VIEW_SPAN)
        if isinstance(size, bool) or not isinstance(size, int) or size < 16:
            problem = f"gives the size {size!r}: it must be a whole number of pixels, 16 or more"
        elif isinstance(weight, bool) or not isinstance(weight, (int, float)) or not weight > 0:
            problem = f"gives the weight {weight!r}: it must be a number above 0"
        elif span != CARD_VIEW_SPAN:
            problem = f"was trained on views {span!r} index lengths wide, not {CARD_VIEW_SPAN}"
    if problem is not None:
        raise ModelError(
            f"model file {path}: the classifier's card_view {problem}; restore reader.json from "
            "git or remove card_view to read the indices alone"
        )
    return {
        "card_view_file": section["file"],
        "card_view_size": int(section.get("size", 80)),
        "card_view_weight": float(section.get("weight", 1.0)),
    }


def _tracker_settings(section: Any, path: Path) -> dict[str, float]:
    if not isinstance(section, dict):
        raise ModelError(
            f"model file {path} gives tracker settings {section!r}: they must be an object such as "
            '{"min_confidence": 0.15}; restore reader.json from git or enrol the deck again'
        )
    for name, value in section.items():
        if name not in TRACKER_SETTINGS:
            raise ModelError(
                f"model file {path} sets the unknown tracker setting {name!r}: the known ones are "
                f"{', '.join(TRACKER_SETTINGS)}; remove it from reader.json"
            )
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < 1:
            raise ModelError(
                f"model file {path} gives the tracker's {name} {value!r}: it must be a confidence "
                "in [0, 1); fix reader.json or enrol the deck again"
            )
    return {name: float(value) for name, value in section.items()}
