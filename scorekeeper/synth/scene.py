"""One synthetic café-table frame: cards warped through a webcam onto a table top, with labels.

Cards are composited back to front while an owner map records which card (or hand) is on top at
each pixel; an index gets a label only when enough of it is still owned by its own card, so an
index under another card or a hand has no box. Boxes are in pixels of the full-resolution frame.
"""

from __future__ import annotations

import json
import os
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np

from scorekeeper.synth import SynthError
from scorekeeper.synth.faces import BACK_LABEL, NON_SUECA_LABELS, Face
from scorekeeper.synth.tables import TableImages, render_table
from scorekeeper.synth.webcam import Camera, apply_homography, card_to_table
from scorekeeper.vision.boxes import Box

CARD_MM = 88.0
"""Card height on the table; widths follow each face's own aspect."""

RANK_SHARE = 0.55
"""Share of an index's height taken by the rank glyph (the rest is the small suit pip)."""

HAND = -1
"""Owner-map value of hands and sleeves (cards are 1, 2, ...; the table is 0)."""


class Pack(Protocol):
    name: str

    def face(self, card: str) -> Face: ...

    def back(self) -> Face: ...


@dataclass(frozen=True)
class SceneConfig:
    """The ranges scenes are drawn from (``datasets/scenes.json`` holds the shipped values)."""

    index_px: tuple[float, float] = (10.0, 120.0)
    """Corner index height in OUTPUT pixels (log-uniform between the two)."""
    tilt: tuple[float, float] = (0.0, 45.0)
    hfov: tuple[float, float] = (55.0, 80.0)
    face_up: tuple[int, int] = (1, 14)
    trick_probability: float = 0.7
    trump_probability: float = 0.5
    face_down_stacks: tuple[int, int] = (0, 3)
    loose_backs: tuple[int, int] = (0, 3)
    distractor_probability: float = 0.3
    distractors: tuple[int, int] = (1, 3)
    hands: tuple[int, int] = (1, 2)
    hand_probability: float = 0.3
    card_shadow_probability: float = 0.6
    min_visible: float = 0.6
    """Fraction of an index's area that must be seen for it to get a box..."""
    min_part_visible: float = 0.7
    """...and of its rank part and of its pip part, each: half an index cannot be read."""
    min_box_px: float = 4.0
    """Smallest labelled box side in output pixels: anything smaller is unreadable."""
    aspects: tuple[float, ...] = (16 / 9, 4 / 3)
    fan_probability: float = 0.0
    """Share of scenes that show fanned hands instead of a game's layout: each fan's cards overlap
    so that only a strip along one edge shows, the corner index in it (a hand held or laid down)."""
    fans: tuple[int, int] = (1, 4)
    fan_cards: tuple[int, int] = (3, 10)

    def __post_init__(self) -> None:
        for name in (
            "index_px",
            "tilt",
            "hfov",
            "face_up",
            "face_down_stacks",
            "loose_backs",
            "distractors",
            "hands",
            "fans",
            "fan_cards",
        ):
            lo, hi = getattr(self, name)
            if lo > hi or lo < 0:
                raise SynthError(
                    f"scene setting {name} {[lo, hi]}: give [low, high] with 0 <= low <= high"
                )
        if not 1 <= self.face_up[0] <= self.face_up[1] <= 40:
            raise SynthError(f"scene setting face_up {list(self.face_up)}: between 1 and 40 cards")
        if (
            self.index_px[0] <= 0
            or self.tilt[1] >= 70
            or not 1 <= self.hfov[0] <= self.hfov[1] < 150
        ):
            raise SynthError(
                "scene settings: index_px above 0, tilt below 70 degrees, hfov 1-150 degrees"
            )
        if not 0 <= self.fan_probability <= 1 or self.fans[0] < 1 or self.fan_cards[0] < 2:
            raise SynthError(
                "scene settings: fan_probability 0 to 1, fans at least 1, fan_cards at least 2"
            )
        if not self.aspects or min(self.aspects) <= 0:
            raise SynthError("scene setting aspects: give width/height ratios above 0")

    @classmethod
    def from_json(cls, data: dict[str, object]) -> SceneConfig:
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known - {"comment"})
        if unknown:
            raise SynthError(
                f"unknown scene setting(s) {', '.join(unknown)}: use {' '.join(sorted(known))}"
            )
        # JSON values of any type: __post_init__ checks their ranges.
        values: dict[str, Any] = {}
        for f in fields(cls):
            if f.name in data:
                v = data[f.name]
                values[f.name] = tuple(v) if isinstance(v, list) else v
        return cls(**values)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> SceneConfig:
        try:
            data = json.loads(Path(path).read_text())
        except (OSError, json.JSONDecodeError) as error:
            raise SynthError(f"cannot read scene settings {str(path)!r}: {error}") from None
        if not isinstance(data, dict):
            raise SynthError(f"scene settings {str(path)!r} must be a JSON object")
        return cls.from_json(data)


@dataclass(frozen=True)
class IndexLabel:
    """A visible corner index: its card's class id and its box in frame pixels."""

    class_id: int
    label: str
    box: Box
    visible: float


@dataclass
class Scene:
    image: np.ndarray
    """Full-resolution frame, BGR uint8, before camera effects."""
    labels: list[IndexLabel] = field(default_factory=list)
    negatives: list[tuple[str, Box]] = field(default_factory=list)
    """Boxes of what is not a Sueca index: (kind, box), kind one of distractor/back/pip/table."""
    owner: np.ndarray | None = None
    index_px: float = 0.0


@dataclass
class _Placed:
    face: Face
    to_image: np.ndarray
    """Face pixels to frame pixels."""
    owner_id: int
    kind: str
    """"up" (Sueca face), "distractor", "back"."""


def _log_uniform(rng: np.random.Generator, lo: float, hi: float) -> float:
    return float(np.exp(rng.uniform(np.log(lo), np.log(hi))))


def _irange(rng: np.random.Generator, bounds: Sequence[int]) -> int:
    return int(rng.integers(bounds[0], bounds[1] + 1))


def _index_fraction(face: Face) -> float:
    """Index height over card height for a face (how big the print is on this deck)."""
    if not face.index_boxes:
        return 0.2
    return float(np.mean([b[3] - b[1] for b in face.index_boxes])) / face.size[1]


def compose_scene(
    rng: np.random.Generator,
    *,
    pack: Pack,
    distractor_pack: Pack,
    width: int,
    height: int,
    output_scale: float,
    config: SceneConfig = SceneConfig(),
    tables: TableImages | None = None,
) -> Scene:
    """Draw one frame ``width`` x ``height``; labels are sized by ``output_scale`` (output px per
    frame px)."""
    from scorekeeper.rules.cards import DECK

    # Drawn only where fans are asked for, so scenes without them keep their seeds' frames.
    fanned = config.fan_probability > 0 and rng.random() < config.fan_probability
    if fanned:
        fan_sizes = [_irange(rng, config.fan_cards) for _ in range(_irange(rng, config.fans))]
        n_up = min(len(DECK), sum(fan_sizes))
    else:
        n_up = _irange(rng, config.face_up)
    cards = [DECK[i].notation for i in rng.permutation(len(DECK))[:n_up]]
    probe = pack.face(cards[0])
    index_mm = _index_fraction(probe) * CARD_MM
    target_out = _log_uniform(rng, *config.index_px)
    camera = Camera.for_index_height(
        width=width,
        height=height,
        hfov=rng.uniform(*config.hfov),
        tilt=rng.uniform(*config.tilt),
        index_mm=index_mm,
        index_px=target_out / output_scale,
    )
    h_cam = camera.homography()
    frame = _table_background(rng, camera, h_cam, tables)
    owner = np.zeros((height, width), np.int16)

    if fanned:
        aspect = probe.size[0] / probe.size[1]
        loose_poses: list[Pose] = []
        trick_poses = _fans_layout(rng, fan_sizes, camera, aspect)[: len(cards)]
    else:
        loose_poses, trick_poses = _layout(rng, len(cards), camera, config)
    n_loose = len(loose_poses)
    loose: list[tuple[Face, str, tuple[float, float, float]]] = [
        (pack.face(c), "up", pose) for c, pose in zip(cards[:n_loose], loose_poses, strict=True)
    ]
    trick = [
        (pack.face(c), "up", pose) for c, pose in zip(cards[n_loose:], trick_poses, strict=True)
    ]
    if rng.random() < config.distractor_probability:
        for _ in range(_irange(rng, config.distractors)):
            label = str(rng.choice(NON_SUECA_LABELS))
            loose.append((distractor_pack.face(label), "distractor", _random_spot(rng, camera)))
    backs: list[tuple[Face, str, tuple[float, float, float]]] = []
    for _ in range(_irange(rng, config.face_down_stacks)):
        x, y, a = _random_spot(rng, camera, margin=0.1)
        # Only the top cards of a stack show: three drawn stand for a taller pile.
        for _k in range(int(rng.integers(2, 4))):
            pose = (x + rng.normal(0, 1.5), y + rng.normal(0, 1.5), a + rng.normal(0, 4))
            backs.append((pack.back(), "back", pose))
    for _ in range(_irange(rng, config.loose_backs)):
        loose.append((pack.back(), "back", _random_spot(rng, camera)))
    # Stacks lie under what is played; loose cards in any order; the trick ends on top.
    order = backs + [loose[i] for i in rng.permutation(len(loose))] + trick

    shadows = rng.random() < config.card_shadow_probability
    placed: list[_Placed] = []
    for owner_id, (face, kind, (x, y, angle)) in enumerate(order, start=1):
        to_table = card_to_table(
            face.size[0], face.size[1], card_mm=CARD_MM, angle=angle, centre=(x, y)
        )
        to_image = h_cam @ to_table
        if _draw_card(frame, owner, face, to_image, owner_id, rng, shadows):
            placed.append(_Placed(face, to_image, owner_id, kind))

    if rng.random() < config.hand_probability:
        for _ in range(_irange(rng, config.hands)):
            _draw_hand(frame, owner, rng, placed)

    scene = Scene(image=frame, owner=owner, index_px=target_out)
    _collect_labels(scene, placed, owner, output_scale, config)
    _collect_background(scene, owner, rng, target_out / output_scale)
    return scene


@dataclass(frozen=True)
class CardPose:
    """A face and where it lands: ``to_image`` maps face pixels to frame pixels (3x3)."""

    face: Face
    to_image: np.ndarray
    kind: str = "up"
    """"up" for a Sueca face, "distractor" for 8/9/10/joker, "back" for a face-down card."""


def render_cards(
    background: np.ndarray,
    cards: Sequence[CardPose],
    *,
    occluders: Sequence[np.ndarray] = (),
    config: SceneConfig = SceneConfig(),
    output_scale: float = 1.0,
) -> Scene:
    """Lay ``cards`` bottom to top on a copy of ``background``, then fill each occluder polygon
    (N x 2 frame pixels, like a hand) in grey; labels as in :func:`compose_scene`.

    Poses are given, nothing is random: this is how tests check where boxes land.
    """
    frame = background.copy()
    owner = np.zeros(frame.shape[:2], np.int16)
    rng = np.random.default_rng(0)
    placed = []
    for owner_id, pose in enumerate(cards, start=1):
        if _draw_card(frame, owner, pose.face, pose.to_image, owner_id, rng, False):
            placed.append(_Placed(pose.face, pose.to_image, owner_id, pose.kind))
    for polygon in occluders:
        pts = np.round(np.asarray(polygon, float)).astype(np.int32)
        cv2.fillPoly(frame, [pts], (128, 128, 128))
        cover = np.zeros(owner.shape, np.uint8)
        cv2.fillPoly(cover, [pts], 1)
        owner[cover > 0] = HAND
    scene = Scene(image=frame, owner=owner)
    _collect_labels(scene, placed, owner, output_scale, config)
    return scene


def _random_spot(
    rng: np.random.Generator, camera: Camera, margin: float = -0.05
) -> tuple[float, float, float]:
    u = rng.uniform(margin, 1 - margin) * camera.width
    v = rng.uniform(margin, 1 - margin) * camera.height
    x, y = camera.to_table(np.array([[u, v]]))[0]
    return float(x), float(y), float(rng.uniform(0, 360))


Pose = tuple[float, float, float]
"""x mm, y mm on the table, angle in degrees."""


def _layout(
    rng: np.random.Generator, n: int, camera: Camera, config: SceneConfig
) -> tuple[list[Pose], list[Pose]]:
    """Poses of ``n`` face-up cards: scattered ones, the turned trump, then the trick in order."""
    poses: list[Pose] = []
    trick: list[Pose] = []
    n_trick = min(n, int(rng.integers(1, 5))) if rng.random() < config.trick_probability else 0
    has_trump = n - n_trick >= 1 and rng.random() < config.trump_probability
    n_scattered = n - n_trick - int(has_trump)
    for _ in range(n_scattered):
        poses.append(_random_spot(rng, camera))
    if has_trump:
        side = int(rng.integers(4))
        along = rng.uniform(0.2, 0.8)
        edge = rng.uniform(0.05, 0.2)
        u, v = [(along, edge), (1 - edge, along), (along, 1 - edge), (edge, along)][side]
        x, y = camera.to_table(np.array([[u * camera.width, v * camera.height]]))[0]
        poses.append((float(x), float(y), float(side * 90 + rng.normal(0, 15))))
    if n_trick:
        cu = rng.uniform(0.3, 0.7) * camera.width
        cv = rng.uniform(0.3, 0.7) * camera.height
        cx, cy = camera.to_table(np.array([[cu, cv]]))[0]
        first_seat = int(rng.integers(4))
        spread = rng.uniform(8, 40)
        for k in range(n_trick):
            seat = (first_seat + k) % 4
            angle = seat * 90 + rng.normal(0, 18)
            t = np.radians(angle)
            # Each player pushes the card out from his own side of the table towards the middle.
            off = spread + rng.normal(0, 4)
            x = cx - np.sin(t) * off + rng.normal(0, 5)
            y = cy + np.cos(t) * off + rng.normal(0, 5)
            trick.append((float(x), float(y), float(angle)))
    return poses, trick


def _fans_layout(
    rng: np.random.Generator, sizes: Sequence[int], camera: Camera, aspect: float
) -> list[Pose]:
    """Poses of fanned hands, each fan's cards bottom to top: every card turned a little further
    clockwise about a pivot below the cards, so the next one covers all but a strip along the
    left edge, where the upright index is. A pivot near the cards is a fan held in the hand; a far
    one, cards spread in a row on the table. Some cards lie upside down, showing their other index.
    """
    poses: list[Pose] = []
    card_w = CARD_MM * aspect
    for size in sizes:
        # The middle card lies at a random spot of the frame, the pivot ``reach`` below it.
        mx, my, heading = _random_spot(rng, camera, margin=0.2)
        reach = _log_uniform(rng, 0.3, 2.5) * CARD_MM
        up = np.radians(heading)
        px, py = mx - np.sin(up) * reach, my + np.cos(up) * reach
        strip = rng.uniform(0.18, 0.35) * card_w
        step = np.degrees(strip / (reach + CARD_MM / 2))
        for k in range(size):
            angle = heading + (k - (size - 1) / 2) * step + rng.normal(0, 0.1 * step)
            t = np.radians(angle)
            # The face's up (0, -1) turned by ``angle``: the card's centre lies that way.
            x, y = px + np.sin(t) * reach, py - np.cos(t) * reach
            flipped = 180.0 if rng.random() < 0.15 else 0.0
            poses.append((float(x), float(y), float(angle + flipped)))
    return poses


def _table_background(
    rng: np.random.Generator, camera: Camera, h_cam: np.ndarray, tables: TableImages | None
) -> np.ndarray:
    corners = np.array(
        [[0, 0], [camera.width, 0], [camera.width, camera.height], [0, camera.height]], float
    )
    on_table = camera.to_table(corners)
    limit = camera.distance * 4
    on_table = np.clip(on_table, -limit, limit)
    x0, y0 = on_table.min(axis=0)
    x1, y1 = on_table.max(axis=0)
    tw = 384
    th = int(np.clip(tw * (y1 - y0) / max(x1 - x0, 1e-6), 64, 1024))
    if tables is not None and rng.random() < 0.5:
        texture = tables.sample(tw, th, rng)
    else:
        texture = render_table(tw, th, rng)
    to_table = np.array([[(x1 - x0) / tw, 0, x0], [0, (y1 - y0) / th, y0], [0, 0, 1]])
    return cv2.warpPerspective(
        texture,
        h_cam @ to_table,
        (camera.width, camera.height),
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REFLECT,
    )


_MIPS: weakref.WeakKeyDictionary[Face, dict[int, np.ndarray]] = weakref.WeakKeyDictionary()
"""Shrunk copies per face, dropped with the face (an ``id()`` key could be reused by another)."""


def _mip(face: Face, level: int) -> np.ndarray:
    """The face as BGRA (mask in alpha) shrunk 2**level times, area-averaged so warps do not alias.

    One 4-channel warp per card instead of two; kept per face so a deck is shrunk once.
    """
    levels = _MIPS.setdefault(face, {})
    hit = levels.get(level)
    if hit is None:
        if level == 0:
            hit = cv2.merge([*cv2.split(face.image), face.mask])
        else:
            f = 2**level
            w, h = max(2, face.size[0] // f), max(2, face.size[1] // f)
            hit = cv2.resize(_mip(face, 0), (w, h), interpolation=cv2.INTER_AREA)
        levels[level] = hit
    return hit


def _draw_card(
    frame: np.ndarray,
    owner: np.ndarray,
    face: Face,
    to_image: np.ndarray,
    owner_id: int,
    rng: np.random.Generator,
    shadow: bool,
) -> bool:
    fw, fh = face.size
    quad = apply_homography(to_image, np.array([[0, 0], [fw, 0], [fw, fh], [0, fh]], float))
    H, W = owner.shape
    pad = 6
    x0 = int(max(0, np.floor(quad[:, 0].min()) - pad))
    y0 = int(max(0, np.floor(quad[:, 1].min()) - pad))
    x1 = int(min(W, np.ceil(quad[:, 0].max()) + pad))
    y1 = int(min(H, np.ceil(quad[:, 1].max()) + pad))
    if x1 - x0 < 2 or y1 - y0 < 2:
        return False
    projected_h = float(np.linalg.norm(quad[3] - quad[0]))
    level = int(np.clip(np.floor(np.log2(max(fh / max(projected_h, 1.0), 1.0))) - 0, 0, 6))
    bgra = _mip(face, level)
    s = bgra.shape[1] / fw
    to_roi = (
        np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], float)
        @ to_image
        @ np.array([[1 / s, 0, 0], [0, 1 / s, 0], [0, 0, 1]])
    )
    size = (x1 - x0, y1 - y0)
    warped4 = cv2.warpPerspective(
        bgra, to_roi, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT
    )
    alpha = cv2.extractChannel(warped4, 3)
    solid = cv2.threshold(alpha, 127, 255, cv2.THRESH_BINARY)[1]
    if not solid.any():
        return False
    roi = frame[y0:y1, x0:x1]
    if shadow:
        # A soft contact shadow a little down-right: cards lift off the cloth. Box blur at a
        # quarter of the size keeps it cheap on close-ups where one card fills the frame.
        k = max(1, int(projected_h * 0.03))
        small = cv2.resize(
            alpha, (max(1, size[0] // 4), max(1, size[1] // 4)), interpolation=cv2.INTER_AREA
        )
        small = cv2.blur(small, (max(1, k // 2) | 1, max(1, k // 2) | 1))
        shade = cv2.resize(small, size, interpolation=cv2.INTER_LINEAR)
        shade = cv2.warpAffine(shade, np.array([[1, 0, k / 3], [0, 1, k / 2]], np.float32), size)
        factor = cv2.cvtColor(
            255 - (shade.astype(np.uint16) * 90 // 255).astype(np.uint8), cv2.COLOR_GRAY2BGR
        )
        cv2.multiply(roi, factor, dst=roi, scale=1 / 255)
    warped = cv2.convertScaleAbs(
        cv2.cvtColor(warped4, cv2.COLOR_BGRA2BGR), alpha=float(rng.uniform(0.88, 1.08))
    )
    # A hard edge is enough: the frame is shrunk for the detector and blurred by the camera.
    cv2.copyTo(warped, solid, roi)
    np.putmask(owner[y0:y1, x0:x1], solid > 0, owner_id)
    return True


_SKIN = ((90, 130, 190), (60, 100, 160), (120, 160, 215), (40, 65, 110), (100, 145, 200))


def _draw_hand(
    frame: np.ndarray, owner: np.ndarray, rng: np.random.Generator, placed: list[_Placed]
) -> None:
    """A hand reaching in from a frame edge over a card, with its sleeve: covers what it covers."""
    H, W = owner.shape
    ups = [p for p in placed if p.kind == "up"] or placed
    if ups:
        target = ups[int(rng.integers(len(ups)))]
        fw, fh = target.face.size
        ends = apply_homography(
            target.to_image,
            np.array([[rng.uniform(0, fw), rng.uniform(0, fh)], [0, 0], [0, fh]], float),
        )
        tx, ty = ends[0]
        card_h = float(np.linalg.norm(ends[2] - ends[1]))
    else:
        tx, ty, card_h = rng.uniform(0, W), rng.uniform(0, H), H * 0.3
    side = int(rng.integers(4))
    ex, ey = [
        (rng.uniform(0, W), H * 1.2),
        (W * 1.2, rng.uniform(0, H)),
        (rng.uniform(0, W), -H * 0.2),
        (-W * 0.2, rng.uniform(0, H)),
    ][side]
    edge = np.array([ex, ey])
    direction = np.array([tx - ex, ty - ey])
    direction /= max(np.linalg.norm(direction), 1e-6)
    normal = np.array([-direction[1], direction[0]])
    # A palm is about as wide as a card is tall (~9 cm): sizes follow the card under it.
    palm_w = card_h * rng.uniform(0.8, 1.0)
    tip = np.array([tx, ty]) + direction * rng.uniform(-0.1, 0.3) * palm_w
    palm_c = tip - direction * palm_w * 1.1
    wrist = palm_c - direction * palm_w * 0.55
    arm_w = palm_w * 0.45
    arm = np.array(
        [
            wrist + normal * arm_w,
            wrist - normal * arm_w,
            edge - normal * arm_w * 1.3,
            edge + normal * arm_w * 1.3,
        ]
    )
    sleeve_start = wrist - direction * palm_w * rng.uniform(0.2, 1.5)
    cut = np.array(
        [
            sleeve_start + normal * arm_w * 2,
            sleeve_start - normal * arm_w * 2,
            edge - normal * arm_w * 3 - direction * palm_w * 2,
            edge + normal * arm_w * 3 - direction * palm_w * 2,
        ]
    )
    n_fingers = int(rng.integers(2, 5))
    fingers = []
    for k in range(n_fingers):
        off = (k - (n_fingers - 1) / 2) * palm_w * 0.2
        base = palm_c + normal * off + direction * palm_w * 0.25
        end = base + direction * palm_w * rng.uniform(0.35, 0.7) + normal * off * 0.2
        fingers.append((base, end, max(2, int(palm_w * 0.15))))
    thumb_base = palm_c + normal * palm_w * 0.38
    thumb_end = thumb_base + (direction * 0.5 + normal * 0.6) * palm_w * 0.5
    fingers.append((thumb_base, thumb_end, max(2, int(palm_w * 0.17))))

    every = np.vstack([arm, [palm_c - palm_w, palm_c + palm_w], [f[1] for f in fingers]])
    x0 = int(np.clip(every[:, 0].min() - 4, 0, W))
    y0 = int(np.clip(every[:, 1].min() - 4, 0, H))
    x1 = int(np.clip(every[:, 0].max() + 4, 0, W))
    y1 = int(np.clip(every[:, 1].max() + 4, 0, H))
    if x1 - x0 < 2 or y1 - y0 < 2:
        return
    shift = np.array([x0, y0])

    def pt(p: np.ndarray) -> tuple[int, int]:
        return int(p[0] - x0), int(p[1] - y0)

    mask: np.ndarray = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillPoly(mask, [(arm - shift).astype(np.int32)], 255, cv2.LINE_AA)
    angle = float(np.degrees(np.arctan2(direction[1], direction[0])))
    cv2.ellipse(
        mask,
        pt(palm_c),
        (int(palm_w * 0.55), int(palm_w * 0.45)),
        angle,
        0,
        360,
        255,
        -1,
        cv2.LINE_AA,
    )
    for base, end, thick in fingers:
        cv2.line(mask, pt(base), pt(end), 255, thick, cv2.LINE_AA)
    sleeve = np.zeros_like(mask)
    cv2.fillPoly(sleeve, [(cut - shift).astype(np.int32)], 255)
    sleeve = cv2.bitwise_and(mask, sleeve)

    skin = np.clip(np.array(_SKIN[int(rng.integers(len(_SKIN)))]) * rng.uniform(0.85, 1.15), 0, 255)
    cloth = rng.uniform(20, 230, 3)
    colour = np.empty((*mask.shape, 3), np.uint8)
    colour[:] = skin.astype(np.uint8)
    colour[sleeve > 127] = cloth.astype(np.uint8)
    # Hands are rounded: darker towards their edges (a blurred silhouette, at a quarter size).
    h, w = mask.shape
    small = cv2.resize(mask, (max(1, w // 4), max(1, h // 4)), interpolation=cv2.INTER_AREA)
    k = max(1, int(palm_w * 0.05)) | 1
    small = cv2.blur(small, (k, k))
    shade = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    shade = cv2.cvtColor(
        (150 + shade.astype(np.uint16) * 105 // 255).astype(np.uint8), cv2.COLOR_GRAY2BGR
    )
    cv2.multiply(colour, shade, dst=colour, scale=1 / 255)
    solid = cv2.threshold(mask, 127, 255, cv2.THRESH_BINARY)[1]
    cv2.copyTo(colour, solid, frame[y0:y1, x0:x1])
    np.putmask(owner[y0:y1, x0:x1], solid > 0, HAND)


def _visible_box(owner: np.ndarray, owner_id: int, quad: np.ndarray) -> tuple[float, Box | None]:
    """How much of the polygon ``quad`` is owned by ``owner_id``, and the box of what is seen."""
    area = abs(cv2.contourArea(quad.astype(np.float32)))
    if area < 1:
        return 0.0, None
    H, W = owner.shape
    x0 = int(max(0, np.floor(quad[:, 0].min())))
    y0 = int(max(0, np.floor(quad[:, 1].min())))
    x1 = int(min(W, np.ceil(quad[:, 0].max()) + 1))
    y1 = int(min(H, np.ceil(quad[:, 1].max()) + 1))
    if x1 <= x0 or y1 <= y0:
        return 0.0, None
    poly = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillPoly(poly, [np.round((quad - [x0, y0]) * 4).astype(np.int32)], 1, cv2.LINE_8, shift=2)
    seen = (poly > 0) & (owner[y0:y1, x0:x1] == owner_id)
    count = int(seen.sum())
    if count == 0:
        return 0.0, None
    ys, xs = np.nonzero(seen)
    return min(1.0, count / area), (
        float(x0 + xs.min()),
        float(y0 + ys.min()),
        float(x0 + xs.max() + 1),
        float(y0 + ys.max() + 1),
    )


def _collect_labels(
    scene: Scene, placed: list[_Placed], owner: np.ndarray, output_scale: float, config: SceneConfig
) -> None:
    from scorekeeper.rules.cards import Card

    min_side = config.min_box_px / output_scale
    for p in placed:
        face_h = p.face.size[1]
        for x1, y1, x2, y2 in p.face.index_boxes:
            quad = apply_homography(
                p.to_image, np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], float)
            )
            visible, box = _visible_box(owner, p.owner_id, quad)
            if box is None or visible < config.min_visible:
                continue
            # Both halves must show: a pip without its rank (or the reverse) cannot be read.
            upright = (y1 + y2) / 2 < face_h / 2
            split = y1 + RANK_SHARE * (y2 - y1) if upright else y2 - RANK_SHARE * (y2 - y1)
            top = np.array([[x1, y1], [x2, y1], [x2, split], [x1, split]], float)
            bottom = np.array([[x1, split], [x2, split], [x2, y2], [x1, y2]], float)
            rank_part, pip_part = (top, bottom) if upright else (bottom, top)
            rank_seen, _ = _visible_box(owner, p.owner_id, apply_homography(p.to_image, rank_part))
            pip_seen, _ = _visible_box(owner, p.owner_id, apply_homography(p.to_image, pip_part))
            if rank_seen < config.min_part_visible or pip_seen < config.min_part_visible:
                continue
            if min(box[2] - box[0], box[3] - box[1]) < min_side:
                continue
            if p.kind == "up":
                card = Card.parse(p.face.label)
                scene.labels.append(IndexLabel(card.index, card.notation, box, visible))
            else:
                scene.negatives.append(("distractor", box))
        # One pip (or patch of back) per card is plenty of negatives, and each costs a raster.
        extra = (
            p.face.pip_boxes[(p.owner_id * 7) % len(p.face.pip_boxes) :][:1]
            if p.face.pip_boxes
            else ()
        )
        for pip_box in extra:
            x1f, y1f, x2f, y2f = (float(v) for v in pip_box)
            if p.kind == "back":
                # A patch of the back the size of an index, somewhere on it.
                w, h = (x2f - x1f) * 0.3, (y2f - y1f) * 0.25
                x1f, y1f = x1f + (x2f - x1f - w) * 0.5, y1f + (y2f - y1f - h) * 0.5
                x2f, y2f = x1f + w, y1f + h
            quad = apply_homography(
                p.to_image, np.array([[x1f, y1f], [x2f, y1f], [x2f, y2f], [x1f, y2f]], float)
            )
            visible, box = _visible_box(owner, p.owner_id, quad)
            if (
                box is not None
                and visible >= 0.8
                and min(box[2] - box[0], box[3] - box[1]) >= min_side
            ):
                scene.negatives.append(("back" if p.kind == "back" else "pip", box))


def _collect_background(
    scene: Scene, owner: np.ndarray, rng: np.random.Generator, index_px: float
) -> None:
    H, W = owner.shape
    h = max(8.0, index_px * rng.uniform(0.8, 1.5))
    w = h * 0.7
    for _ in range(6):
        x, y = rng.uniform(0, max(1, W - w)), rng.uniform(0, max(1, H - h))
        patch = owner[int(y) : int(y + h), int(x) : int(x + w)]
        if patch.size and (patch == 0).mean() > 0.9:
            scene.negatives.append(("table", (float(x), float(y), float(x + w), float(y + h))))
            return


__all__ = [
    "BACK_LABEL",
    "CARD_MM",
    "CardPose",
    "IndexLabel",
    "Scene",
    "SceneConfig",
    "compose_scene",
    "render_cards",
]
