"""The card reader: a frame in, the Sueca cards it shows out (:class:`FrameDetections`).

Two ONNX models run with onnxruntime and OpenCV, nothing heavier:

1. the *index detector* (a one-class YOLO) finds every printed corner index (rank + small pip);
2. the *index classifier* (a small CNN) names each index from a square crop cut out of the
   full-resolution frame (:mod:`scorekeeper.vision.crops`): one of the 40 cards, or ``not_a_card``
   (8, 9, 10, jokers, backs, pips, table).

Then :mod:`scorekeeper.vision.naming` turns the readings into cards (what a card is decides the
answer), and :mod:`scorekeeper.vision.reader_config` says what a model folder's ``reader.json``
holds: the classifier's classes are :data:`scorekeeper.rules.cards.DECK` in order plus
``not_a_card``, and the reader refuses a model whose list differs.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from scorekeeper.errors import ModelError
from scorekeeper.rules.cards import DECK
from scorekeeper.vision.boxes import as_box, center, iou
from scorekeeper.vision.crops import crop_square
from scorekeeper.vision.detections import Box, FrameDetections
from scorekeeper.vision.naming import IndexReading, combine_indices, with_card_views
from scorekeeper.vision.reader_config import (
    CARD_VIEW_MARGIN,
    CLASSIFIER_CLASSES,
    VIEW_COUNTS,
    ReaderConfig,
)
from scorekeeper.vision.registry import find_model

Detected = tuple[np.ndarray, np.ndarray]
"""What :meth:`CardReader.detect_indices` gives: index boxes (N x 4) and detector scores (N)."""

CLASSIFIER_THREADS = 0
"""Threads of the classifier's pool; 0: as many as the detector's."""
PHOTO_MAX_SIZE = 2560
"""The largest detector input a still photo is searched at (:attr:`CardReader.photo`): a
12-megapixel phone photo (4032 px) is searched at up to 0.63 of its resolution, and time (about
1 s a photo on 2 cores, every size and the second looks together) and memory (~0.55 GB) stay
bounded."""
PHOTO_LONGER_SIDE = 1920
"""A reader not told whether its frames are photos (:attr:`CardReader.photo` None) reads a frame
whose longer side is above this as one: no webcam mode a table camera streams is larger (1920 x
1080 at the most), and a phone photo is (2560-4032 px), so a caller that passes a phone photo to
:meth:`CardReader.read` gets the finer search without asking for it."""
SECOND_LOOK_FLOOR = 0.3
"""In a photo, an index whose likeliest card is at least this sure but below ``card_prob`` is looked
at again (:meth:`CardReader.second_look`)."""
SECOND_LOOK_SPAN = 4.0
"""Index lengths across the window the detector searches again around an unsure index."""
SECOND_LOOK_SIZE = 160
"""The detector's input for that window: the index reaches it 40 px tall, mid-range of the index
heights it was trained on, wherever the first search saw it."""
SECOND_LOOK_OVERLAP = 0.3
"""The box found again must overlap the first one this much (intersection over union) to be the
same index."""
JOINT_FIRST_VIEW = 0.3
"""With ``joint_corners``, an index whose first view names no card at this probability is dropped
unread. On the webcam-scale view of realcards-dev, 0.3 reads the cards every view of every
index reads (0.5 loses a point of recall)."""


def _session(path: Path, threads: int, *, spin: bool = True) -> Any:
    import onnxruntime as ort

    if not path.is_file():
        raise ModelError(
            f"model file {path} is missing: run `scorekeeper train` or restore models/ from git"
        )
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    if not spin:
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    try:
        return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    except Exception as error:  # noqa: BLE001 - onnxruntime raises its own types for bad files
        first_line = str(error).strip().splitlines()[0][:160] if str(error).strip() else ""
        raise ModelError(
            f"model file {path} is not a loadable ONNX model ({first_line}): "
            "restore it from git or run `scorekeeper train`"
        ) from None


class CardReader:
    """Loads the two models once; :meth:`read` turns a BGR frame into :class:`FrameDetections`."""

    def __init__(
        self,
        model: str | os.PathLike[str] | None = None,
        *,
        detector_size: int | None = None,
        detector_scales: tuple[float, ...] | None = None,
        index_conf: float | None = None,
        card_prob: float | None = None,
        temperature: float | None = None,
        views: int | None = None,
        first_view_sure: float | None = None,
        card_view: bool = True,
        photo: bool | None = None,
        threads: int = 2,
    ) -> None:
        """``card_view=False`` reads the indices alone even where the model has a card view;
        ``photo=True`` reads frames as still photos, ``False`` as a camera's frames, None by
        their size (:attr:`photo`)."""
        config = ReaderConfig.load(find_model(model))
        overrides: dict[str, Any] = {}
        if not card_view:
            overrides["card_view_file"] = None
        if detector_size is not None:
            overrides["detector_size"] = int(detector_size)
        if detector_scales is not None:
            if not detector_scales or not all(0 < x <= 1 for x in detector_scales):
                raise ModelError(
                    f"detector scales {detector_scales} asked for: give numbers in (0, 1]"
                )
            overrides["detector_scales"] = tuple(float(x) for x in detector_scales)
        if index_conf is not None:
            overrides["index_conf"] = float(index_conf)
        if card_prob is not None:
            # Asked for by the caller, it holds for photos and live frames alike.
            overrides["card_prob"] = float(card_prob)
            overrides["photo_card_prob"] = None
        if temperature is not None:
            overrides["temperature"] = float(temperature)
        if views is not None:
            if views not in VIEW_COUNTS:
                raise ModelError(
                    f"{views} classifier views asked for: use one of "
                    f"{', '.join(map(str, VIEW_COUNTS))}"
                )
            overrides["views"] = int(views)
        if first_view_sure is not None:
            overrides["first_view_sure"] = float(first_view_sure)
        if overrides:
            from dataclasses import replace

            config = replace(config, **overrides)
        if config.detector_size % 32:
            raise ModelError(f"detector size {config.detector_size} is not a multiple of 32")
        self.config = config
        self.photo = photo
        """Still photos, where time matters less than finding every card: a frame larger than the
        detector's size is also searched at twice that size, four times, and so on up to its own
        resolution (at most :data:`PHOTO_MAX_SIZE`). A phone photo of four hands fanned on a table
        shows indices 25-65 px tall at 2560 px: at 640 they reach the network at 6-16 px, too
        small for most to be found, at 1280 and 2560 at the size it was trained on. A photo's
        unsure indices get a second look (:meth:`second_look`), and a card needs
        ``photo_card_prob`` where the model has one (:meth:`card_prob_for`). None: frames
        larger than :data:`PHOTO_LONGER_SIDE` are photos; a video source says False, so a 4K
        camera is still read at camera speed."""
        self._detector = _session(config.folder / config.detector_file, threads)
        # The classifier's threads must not spin-wait once its batch is done: they would hold the
        # detector's cores and slow the next frame's detection by half (92 -> 42 ms a 1280x720
        # frame on 2 cores with a spinning pool). Sleeping between batches, two threads read a
        # batch of crops in 0.44 ms a crop against 0.75 on the caller's thread alone.
        self._classifier = _session(
            config.folder / config.classifier_file, CLASSIFIER_THREADS or threads, spin=False
        )
        self._det_input = self._detector.get_inputs()[0].name
        self._cls_input = self._classifier.get_inputs()[0].name
        self._card_view = (
            _session(
                config.folder / config.card_view_file, CLASSIFIER_THREADS or threads, spin=False
            )
            if config.card_view_file
            else None
        )

    # -- stage 1 ---------------------------------------------------------------------------------

    def reads_as_photo(self, width: int, height: int) -> bool:
        """Whether a frame of ``width`` x ``height`` is read as a still photo (:attr:`photo`)."""
        if self.photo is not None:
            return self.photo
        return max(width, height) > PHOTO_LONGER_SIDE

    def card_prob_for(self, width: int, height: int) -> float:
        """The classifier probability a card needs in a frame of ``width`` x ``height``."""
        photo_card_prob = self.config.photo_card_prob
        if photo_card_prob is not None and self.reads_as_photo(width, height):
            return photo_card_prob
        return self.config.card_prob

    def detector_sizes(self, width: int, height: int) -> tuple[int, ...]:
        """The detector input sizes (longer side; multiples of 32, largest first) a frame of
        ``width`` x ``height`` is searched at."""
        longer = max(width, height)
        sizes = {
            max(32, round(min(self.config.detector_size, longer * scale) / 32) * 32)
            for scale in self.config.detector_scales
        }
        if self.reads_as_photo(width, height):
            finest = min(longer, PHOTO_MAX_SIZE) // 32 * 32
            size = self.config.detector_size * 2
            while size <= finest:
                sizes.add(size)
                size *= 2
            if finest > 1.5 * max(sizes):
                sizes.add(finest)
        return tuple(sorted(sizes, reverse=True))

    def detect_indices(
        self, frame_bgr: np.ndarray, *, conf: float | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Index boxes (N x 4, frame pixels, x1 y1 x2 y2) and detector scores (N), after NMS
        over every size the frame is searched at."""
        import cv2

        conf = self.config.index_conf if conf is None else conf
        height, width = frame_bgr.shape[:2]
        found = [
            self._detect_at(frame_bgr, size, conf) for size in self.detector_sizes(width, height)
        ]
        if len(found) == 1:
            return found[0]
        boxes = np.concatenate([b for b, _ in found])
        scores = np.concatenate([s for _, s in found])
        if len(boxes) == 0:
            return boxes, scores
        xywh = np.concatenate([boxes[:, :2], boxes[:, 2:] - boxes[:, :2]], axis=1)
        kept = cv2.dnn.NMSBoxes(xywh.tolist(), scores.tolist(), conf, self.config.nms_iou)
        chosen = np.asarray(kept, dtype=np.int64).reshape(-1)
        return boxes[chosen], scores[chosen]

    def _detect_at(
        self, frame_bgr: np.ndarray, size: int, conf: float
    ) -> tuple[np.ndarray, np.ndarray]:
        import cv2

        height, width = frame_bgr.shape[:2]
        scale = min(size / width, size / height)
        new_w, new_h = max(round(width * scale), 1), max(round(height * scale), 1)
        pad_w, pad_h = (-new_w) % 32, (-new_h) % 32
        resized = cv2.resize(
            frame_bgr,
            (new_w, new_h),
            interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR,
        )
        left, top = pad_w // 2, pad_h // 2
        padded = cv2.copyMakeBorder(
            resized,
            top,
            pad_h - top,
            left,
            pad_w - left,
            cv2.BORDER_CONSTANT,
            value=(114, 114, 114),
        )
        output = self._detector.run(None, {self._det_input: network_input(padded[None])})[0]
        prediction = output[0]  # (4 + nc, anchors): cx cy w h, then class scores
        scores = prediction[4:].max(axis=0)
        keep = scores >= conf
        if not np.any(keep):
            return np.zeros((0, 4), np.float32), np.zeros((0,), np.float32)
        cx, cy, bw, bh = prediction[:4, keep]
        scores = scores[keep]
        x1 = (cx - bw / 2 - left) / scale
        y1 = (cy - bh / 2 - top) / scale
        boxes = np.stack([x1, y1, bw / scale, bh / scale], axis=1)
        kept = cv2.dnn.NMSBoxes(boxes.tolist(), scores.tolist(), conf, self.config.nms_iou)
        chosen = np.asarray(kept, dtype=np.int64).reshape(-1)
        boxes, scores = boxes[chosen], scores[chosen]
        xyxy = np.stack(
            [
                np.clip(boxes[:, 0], 0, width),
                np.clip(boxes[:, 1], 0, height),
                np.clip(boxes[:, 0] + boxes[:, 2], 0, width),
                np.clip(boxes[:, 1] + boxes[:, 3], 0, height),
            ],
            axis=1,
        ).astype(np.float32)
        return xyxy, scores.astype(np.float32)

    # -- stage 2 ---------------------------------------------------------------------------------

    def crop(self, frame_bgr: np.ndarray, box: Box) -> np.ndarray:
        """The classifier's view of the index in ``box`` (BGR, crop_size square)."""
        return crop_square(
            frame_bgr, box, margin=self.config.crop_margin, size=self.config.crop_size
        )

    def crop_logits(self, crops_bgr: list[np.ndarray] | np.ndarray) -> np.ndarray:
        """The classifier's raw logits (N x 41) for BGR crops of crop_size."""
        if len(crops_bgr) == 0:
            return np.zeros((0, len(CLASSIFIER_CLASSES)), np.float64)
        batch = network_input(np.stack(list(crops_bgr)))
        logits: np.ndarray = self._classifier.run(None, {self._cls_input: batch})[0]
        return logits.astype(np.float64)

    def classify_crops(self, crops_bgr: list[np.ndarray] | np.ndarray) -> np.ndarray:
        """Probabilities (N x 41) over :data:`CLASSIFIER_CLASSES` for BGR crops of crop_size."""
        return view_probs(self.crop_logits(crops_bgr)[:, None, :], self.config.temperature)

    @property
    def has_card_view(self) -> bool:
        return self._card_view is not None

    def card_view_probs(self, frame_bgr: np.ndarray, boxes: list[Box]) -> np.ndarray:
        """The card-view network's probabilities (N x 41) for the cards whose corner indices are
        ``boxes``. A reader without the network has none to give: ModelError."""
        if self._card_view is None:
            raise ModelError(
                f"model {self.config.folder} has no card-view network: read the indices alone"
            )
        if not boxes:
            return np.zeros((0, len(CLASSIFIER_CLASSES)), np.float32)
        size = self.config.card_view_size
        squares = [crop_square(frame_bgr, box, margin=CARD_VIEW_MARGIN, size=size) for box in boxes]
        # Each view in its four quarter turns, their probabilities averaged: the network learnt
        # every turn, and reads one card a little differently at each (on the real webcam
        # frames' labelled corners, top-1 0.42 with one turn, 0.54 with four).
        views = np.stack([view for s in squares for view in turned_views(s, count=4, wide=False)])
        feed = {self._card_view.get_inputs()[0].name: network_input(views)}
        logits = np.asarray(self._card_view.run(None, feed)[0], np.float64)
        return view_probs(logits.reshape(len(boxes), 4, -1), 1.0)

    # -- both, and what a card is ----------------------------------------------------------------

    def view_logits(self, frame_bgr: np.ndarray, boxes: list[Box]) -> np.ndarray:
        """Raw logits (N x views x 41) of the configured :attr:`ReaderConfig.views` of the crop
        of each index in ``boxes``."""
        views = [view for box in boxes for view in self._views_of(frame_bgr, box)]
        return self.crop_logits(views).reshape(
            len(boxes), self.config.views, len(CLASSIFIER_CLASSES)
        )

    def _views_of(self, frame_bgr: np.ndarray, box: Box) -> list[np.ndarray]:
        """The configured quarter-turned views of the crop of one index (:func:`turned_views`)."""
        crop = self.crop(frame_bgr, box)
        return turned_views(crop, count=self.config.views, wide=box[2] - box[0] > box[3] - box[1])

    def classify_boxes(self, frame_bgr: np.ndarray, boxes: list[Box]) -> np.ndarray:
        """Probabilities (N x 41) for the indices in ``boxes`` of a frame: those of each crop's
        views, averaged."""
        return view_probs(self.view_logits(frame_bgr, boxes), self.config.temperature)

    def read_indices(
        self, frame_bgr: np.ndarray, *, conf: float | None = None, detected: Detected | None = None
    ) -> list[IndexReading]:
        """Every index the detector found (at ``conf``, default ``index_conf``; or ``detected``,
        the boxes and scores :meth:`detect_indices` gave already), with the classifier's
        probabilities."""
        boxes, scores = (
            detected if detected is not None else self.detect_indices(frame_bgr, conf=conf)
        )
        box_list = [as_box(b) for b in boxes]
        probs = self.classify_boxes(frame_bgr, box_list)
        return [
            IndexReading(box=b, score=float(s), probs=p) for b, s, p in zip(box_list, scores, probs)
        ]

    def read_possible_cards(
        self,
        frame_bgr: np.ndarray,
        *,
        detected: Detected | None = None,
        card_prob: float | None = None,
    ) -> list[IndexReading]:
        """The indices that can still be named a card at ``card_prob``: the readings of
        :meth:`read_indices` that :func:`combine_indices` would keep, read for fewer classifier
        passes.

        Every index's first view is read. Averaged over V views a class's probability is at most
        (p + V - 1) / V, where p is its probability in the first view, so an index whose first
        view gives no card V * card_prob - (V - 1) or more cannot reach ``card_prob``: it is
        dropped unread. An index whose first view gives a card ``first_view_sure`` or more keeps
        its first view as its reading. Only the rest are read in every view. With
        ``joint_corners`` a weak index can still name its card together with the other corner:
        every index whose first view gives a card :data:`JOINT_FIRST_VIEW` or more is read.
        """
        count = self.config.views
        if count == 1:
            return self.read_indices(frame_bgr, detected=detected)
        if card_prob is None:
            card_prob = self.config.card_prob
        if self.config.joint_corners:
            floor = JOINT_FIRST_VIEW
        else:
            floor = count * card_prob - (count - 1) - 1e-6
        boxes, scores = detected if detected is not None else self.detect_indices(frame_bgr)
        box_list = [as_box(b) for b in boxes]
        views = [self._views_of(frame_bgr, box) for box in box_list]
        first = self.crop_logits([v[0] for v in views])
        first_probs = view_probs(first[:, None, :], self.config.temperature)
        best_card = first_probs[:, : len(DECK)].max(axis=1)
        probs = {
            i: first_probs[i]
            for i in range(len(box_list))
            if best_card[i] >= self.config.first_view_sure
        }
        again = [i for i in range(len(box_list)) if best_card[i] >= floor and i not in probs]
        if again:
            rest = self.crop_logits([view for i in again for view in views[i][1:]])
            logits = np.concatenate(
                [first[again][:, None, :], rest.reshape(len(again), count - 1, -1)], axis=1
            )
            probs.update(zip(again, view_probs(logits, self.config.temperature)))
        return [
            IndexReading(box=box_list[i], score=float(scores[i]), probs=probs[i])
            for i in sorted(probs)
        ]

    def second_look(
        self, frame_bgr: np.ndarray, readings: list[IndexReading], card_prob: float
    ) -> list[IndexReading]:
        """``readings`` with each unsure index (its likeliest card between
        :data:`SECOND_LOOK_FLOOR` and ``card_prob``) boxed again by the detector in a window
        around it, brought to :data:`SECOND_LOOK_SIZE`, and read there when that reading is surer.

        In a photo of fanned hands most of the cards not named are found, but the box drawn
        around an index in a fan's strip is loose (median overlap 0.66 with the index, against
        0.81 for every index found, on rendered phone photos), so the crop is framed unlike the
        classifier's training crops and holds the next card's index too. The detector draws a
        tighter box around an index that fills its input as the training scenes' indices did."""
        height, width = frame_bgr.shape[:2]
        conf = self.config.index_conf
        cards = len(DECK)
        again: list[tuple[int, Box]] = []
        for i, reading in enumerate(readings):
            if not SECOND_LOOK_FLOOR <= reading.probs[:cards].max() < card_prob:
                continue
            cx, cy = center(reading.box)
            half = reading.height * SECOND_LOOK_SPAN / 2.0
            x0, y0 = max(0, int(cx - half)), max(0, int(cy - half))
            x1, y1 = min(width, int(cx + half) + 1), min(height, int(cy + half) + 1)
            if x1 - x0 < 8 or y1 - y0 < 8:
                continue
            boxes, _ = self._detect_at(frame_bgr[y0:y1, x0:x1], SECOND_LOOK_SIZE, conf)
            found = [as_box(box + np.array([x0, y0, x0, y0], np.float32)) for box in boxes]
            overlaps = [iou(reading.box, box) for box in found]
            if overlaps and max(overlaps) >= SECOND_LOOK_OVERLAP:
                again.append((i, found[int(np.argmax(overlaps))]))
        if not again:
            return readings
        probs = self.classify_boxes(frame_bgr, [box for _, box in again])
        looked = list(readings)
        for (i, box), p in zip(again, probs):
            if p[:cards].max() > readings[i].probs[:cards].max():
                looked[i] = IndexReading(box=box, score=readings[i].score, probs=p)
        return looked

    def read(
        self, frame_bgr: np.ndarray, frame_index: int = 0, *, detected: Detected | None = None
    ) -> FrameDetections:
        """The distinct Sueca cards in a BGR frame (H x W x 3 uint8); ``detected``: the index
        boxes and scores :meth:`detect_indices` gave already at ``index_conf``."""
        if not isinstance(frame_bgr, np.ndarray) or frame_bgr.ndim != 3 or frame_bgr.shape[2] != 3:
            shape = getattr(frame_bgr, "shape", None)
            raise ValueError(
                f"frame {frame_index}: expected an H x W x 3 BGR image, got shape {shape}"
            )
        height, width = frame_bgr.shape[:2]
        card_prob = self.card_prob_for(width, height)
        readings = self.read_possible_cards(frame_bgr, detected=detected, card_prob=card_prob)
        if self.reads_as_photo(width, height):
            readings = self.second_look(frame_bgr, readings, card_prob)
        if self._card_view is not None:
            readings = with_card_views(
                readings,
                lambda unsure: self.card_view_probs(frame_bgr, [readings[i].box for i in unsure]),
                card_prob=card_prob,
                weight=self.config.card_view_weight,
            )
        cards = combine_indices(
            readings,
            card_prob=card_prob,
            corner_reach=self.config.corner_reach,
            joint_corners=self.config.joint_corners,
        )
        return FrameDetections(frame_index=frame_index, cards=cards, width=width, height=height)

    def read_and_note(
        self, frame_bgr: np.ndarray, frame_index: int, *, note_conf: float
    ) -> tuple[FrameDetections, list[IndexReading]]:
        """:meth:`read`, and every index boxed down to ``note_conf`` with its probabilities, the
        frame searched once: the boxes a search down to ``note_conf`` keeps at ``index_conf`` or
        more are the ones a search at ``index_conf`` keeps (a weaker box suppresses none)."""
        boxes, scores = self.detect_indices(frame_bgr, conf=min(note_conf, self.config.index_conf))
        own = scores >= self.config.index_conf
        detections = self.read(frame_bgr, frame_index, detected=(boxes[own], scores[own]))
        noted = scores >= note_conf
        return detections, self.read_indices(frame_bgr, detected=(boxes[noted], scores[noted]))


def network_input(images_bgr: np.ndarray) -> np.ndarray:
    """Both networks' input (N x 3 x H x W, RGB in [0, 1], float32) from N BGR uint8 images.

    One channel plane at a time: converting the interleaved pixels in one numpy expression costs
    ~8 ms for a 640 x 384 frame on these CPUs, plane by plane under 1 ms, the same numbers.
    """
    count, height, width = images_bgr.shape[:3]
    out = np.empty((count, 3, height, width), np.float32)
    for channel in range(3):
        out[:, channel] = images_bgr[:, :, :, 2 - channel]
    out *= np.float32(1.0 / 255.0)
    return out


def view_probs(logits: np.ndarray, temperature: float) -> np.ndarray:
    """Probabilities (N x 41) from logits of N indices' views (N x views x 41): each view's
    softmax at ``temperature``, averaged over the views."""
    scaled = logits / temperature
    scaled = scaled - scaled.max(axis=2, keepdims=True)
    exp = np.exp(scaled)
    probs: np.ndarray = (exp / exp.sum(axis=2, keepdims=True)).mean(axis=1).astype(np.float32)
    return probs


def turned_views(crop: np.ndarray, *, count: int, wide: bool) -> list[np.ndarray]:
    """``count`` views of an index crop in quarter turns. Two views keep the index's long side
    where it is (a tall index upright and upside down, a wide one turned a quarter both ways): a
    printed index is read at both of those in any photo, as each card carries it twice, once
    upside down."""
    if count == 4:
        turns: tuple[int, ...] = (0, 1, 2, 3)
    elif count == 2:
        turns = (1, 3) if wide else (0, 2)
    else:
        turns = (0,)
    return [np.ascontiguousarray(np.rot90(crop, k)) for k in turns]
