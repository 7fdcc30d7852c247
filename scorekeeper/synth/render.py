"""Draw a timeline's scenes as webcam frames: table top, cards, hands, then the camera's flaws.

Everything drawn comes from :class:`~scorekeeper.synth.timeline.Scene` (poses from the tracks,
the camera homography of the frame), so the pixels agree with the ground truth by construction.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import cv2
import numpy as np

from scorekeeper.synth.camera import FrameEffects
from scorekeeper.synth.faces import Face, FacePack, FaceStyle, ProceduralPack
from scorekeeper.synth.geometry import (
    INDEX_STYLE,
    MOTION_BLUR_FROM,
    apply_homography,
    card_outline,
    motion_streaks,
)
from scorekeeper.synth.hands import hand_polygons
from scorekeeper.synth.tables import render_table
from scorekeeper.synth.timeline import HAND, STACK, Item, Scene, Timeline

MARGIN = 120
"""Table drawn this far past every frame edge, so shake and tilt never show its border."""

_SKINS = ((150, 180, 225), (120, 160, 210), (95, 130, 185), (70, 100, 150), (165, 195, 235))
_SLEEVES = (
    (40, 40, 40),
    (130, 60, 20),
    (30, 30, 140),
    (200, 200, 200),
    (60, 110, 60),
    (90, 70, 150),
)


def simulator_style(rng: np.random.Generator) -> FaceStyle:
    """A random deck whose corner indices sit where :data:`INDEX_REGIONS` says."""
    style = FaceStyle.random(rng)
    return replace(
        style,
        corner_radius=min(style.corner_radius, 20),
        border_inset=min(style.border_inset, 6),
        **INDEX_STYLE,  # type: ignore[arg-type]
    )


@dataclass(frozen=True, slots=True)
class _Layer:
    """One object's pixels over a region of interest of the frame."""

    x: int
    y: int
    color: np.ndarray
    alpha: np.ndarray


class Renderer:
    """Draws the frames of one timeline with one deck and one table top."""

    def __init__(
        self,
        timeline: Timeline,
        rng: np.random.Generator,
        pack: ProceduralPack | FacePack | None = None,
        *,
        table: str | None = None,
    ) -> None:
        self.timeline = timeline
        layout = timeline.layout
        self.size = (layout.width, layout.height)
        self.card_w, self.card_h = layout.card_width, layout.card_height
        self.pack = pack if pack is not None else ProceduralPack(simulator_style(rng))
        self.table = render_table(layout.width + 2 * MARGIN, layout.height + 2 * MARGIN, rng, table)
        self.shift = np.array([[1.0, 0, MARGIN], [0, 1.0, MARGIN], [0, 0, 1.0]])
        self.skins = [
            np.array(_SKINS[int(rng.integers(len(_SKINS)))], np.float32) for _ in range(4)
        ]
        self.sleeves = [
            np.array(_SLEEVES[int(rng.integers(len(_SLEEVES)))], np.float32) for _ in range(4)
        ]
        self._faces: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._table_camera: np.ndarray | None = None
        self._table_view = np.zeros((layout.height, layout.width, 3), np.float32)
        width, height = self.size
        self._noise = [rng.normal(0, 1, (height, width, 3)).astype(np.float32) for _ in range(3)]
        ys, xs = np.mgrid[0 : height // 8, 0 : width // 8].astype(np.float32)
        self._xs, self._ys = xs, ys
        # A webcam's vignette and the lamp's falloff: darker towards the corners.
        r2 = ((xs - width / 16) / (width / 16)) ** 2 + ((ys - height / 16) / (height / 16)) ** 2
        self._vignette = (1 - 0.12 * r2).astype(np.float32)
        self._rng = rng

    # -- faces --------------------------------------------------------------------------------

    def _face(self, item: Item) -> tuple[np.ndarray, np.ndarray]:
        """The face (or back) resized near its on-screen size, with its alpha in 0-1."""
        key = "BACK" if not item.face_up or item.card is None else item.card.notation
        if key not in self._faces:
            face: Face = self.pack.back() if key == "BACK" else self.pack.face(key)
            height = max(32, round(self.card_h * 1.5))
            width = max(24, round(self.card_w * 1.5))
            image = cv2.resize(face.image, (width, height), interpolation=cv2.INTER_AREA)
            mask = cv2.resize(face.mask, (width, height), interpolation=cv2.INTER_AREA)
            self._faces[key] = (image.astype(np.float32), mask.astype(np.float32) / 255.0)
        return self._faces[key]

    # -- frames -------------------------------------------------------------------------------

    def render(self, scene: Scene) -> np.ndarray:
        """The webcam frame of ``scene`` (BGR uint8, height x width x 3)."""
        frame = self._background(scene.camera).copy()
        for item in scene.items:
            motion = self.motion_streak(item, scene)
            if item.kind == HAND:
                layer = self._hand_layer(item, scene.camera)
                shadow_offset, softness, depth = 14.0, 9.0, 0.35
            else:
                layer = self._card_layer(item, scene.camera)
                shadow_offset, softness, depth = 2.5, 2.0, 0.3
            if layer is None:
                continue
            if motion is not None:
                layer = _blur_layer(layer, *motion, self.size)
            _shade(frame, layer, shadow_offset, softness, depth)
            _composite(frame, layer)
        return self._camera(frame, self.timeline.effects(scene.frame), scene.frame)

    def _background(self, camera: np.ndarray) -> np.ndarray:
        """The bare table through this frame's camera; reused while the camera holds still."""
        if self._table_camera is None or not np.array_equal(camera, self._table_camera):
            self._table_view = cv2.warpPerspective(
                self.table,
                camera @ np.linalg.inv(self.shift),
                self.size,
                flags=cv2.INTER_LINEAR,
                borderMode=cv2.BORDER_REFLECT,
            ).astype(np.float32)
            self._table_camera = camera.copy()
        return self._table_view

    def motion_streak(self, item: Item, scene: Scene) -> tuple[float, float] | None:
        """Length and angle (frame pixels) of the streak the object leaves in this frame, if it
        moved far enough to smear (see :func:`~scorekeeper.synth.geometry.motion_streaks`)."""
        track = self.timeline.tracks[item.track]
        if scene.frame - 1 < track.start:
            return None
        before = track.path()[scene.frame - 1 - track.start]
        now = np.array([item.pose.x, item.pose.y])
        dx, dy = motion_streaks(scene.camera[None], now[None], before[None, :2])[0]
        length = math.hypot(dx, dy)
        if length < MOTION_BLUR_FROM:
            return None
        return length, math.atan2(dy, dx)

    def _card_layer(self, item: Item, camera: np.ndarray) -> _Layer | None:
        image, mask = self._face(item)
        quad = apply_homography(camera, item.pose.points(card_outline(self.card_w, self.card_h)))
        if item.kind == STACK:
            # A stack of four shows its thickness: a darker edge peeking out below the top card.
            under = self._warp(image * np.float32(0.55), mask, quad + (1.5, 2.5))
            top = self._warp(image, mask, quad)
            if under is None or top is None:
                return top
            return _merge(under, top)
        return self._warp(image, mask, quad)

    def _warp(self, image: np.ndarray, mask: np.ndarray, quad: np.ndarray) -> _Layer | None:
        width, height = self.size
        x1, y1 = np.floor(quad.min(axis=0)).astype(int) - 2
        x2, y2 = np.ceil(quad.max(axis=0)).astype(int) + 2
        x1, y1, x2, y2 = max(0, x1), max(0, y1), min(width, x2), min(height, y2)
        if x2 <= x1 or y2 <= y1:
            return None
        h, w = mask.shape
        source = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
        matrix = cv2.getPerspectiveTransform(source, (quad - (x1, y1)).astype(np.float32))
        size = (int(x2 - x1), int(y2 - y1))
        color = cv2.warpPerspective(image, matrix, size, flags=cv2.INTER_LINEAR)
        alpha = cv2.warpPerspective(mask, matrix, size, flags=cv2.INTER_LINEAR)
        return _Layer(int(x1), int(y1), color, alpha)

    def _hand_layer(self, item: Item, camera: np.ndarray) -> _Layer | None:
        width, height = self.size
        shapes = {
            name: apply_homography(camera, shape)
            for name, shape in hand_polygons(item.pose, item.shoulder, self.card_h).items()
        }
        points = np.vstack(list(shapes.values()))
        x1, y1 = np.maximum(np.floor(points.min(axis=0)).astype(int) - 2, 0)
        x2, y2 = np.minimum(np.ceil(points.max(axis=0)).astype(int) + 2, (width, height))
        if x2 <= x1 or y2 <= y1:
            return None
        size = (int(y2 - y1), int(x2 - x1))
        color = np.zeros((*size, 3), np.float32)
        alpha: np.ndarray = np.zeros(size, np.float32)
        skin = self.skins[item.style % 4]
        sleeve = self.sleeves[item.style % 4]
        offset = np.array([x1, y1])
        for name in ("arm", "palm", "thumb", "fingers"):
            polygon = np.round((shapes[name] - offset) * 4).astype(np.int32)
            tint = skin * (0.93 if name == "thumb" else 1.0)
            cv2.fillConvexPoly(color, polygon, tint.tolist(), cv2.LINE_AA, shift=2)
            cv2.fillConvexPoly(alpha, polygon, 1.0, cv2.LINE_AA, shift=2)
        # The sleeve covers the forearm from a hand's length past the wrist.
        arm = shapes["arm"] - offset
        cuff = 0.35
        sleeve_quad = np.array(
            [
                arm[0] + (arm[1] - arm[0]) * cuff,
                arm[1],
                arm[2],
                arm[3] + (arm[2] - arm[3]) * cuff,
            ]
        )
        cv2.fillConvexPoly(
            color, np.round(sleeve_quad * 4).astype(np.int32), sleeve.tolist(), cv2.LINE_AA, shift=2
        )
        # Gaps between the fingers: three darker lines from the knuckles to the tips.
        fingers = shapes["fingers"] - offset
        for share in (0.25, 0.5, 0.75):
            base = fingers[0] + (fingers[1] - fingers[0]) * share
            tip = fingers[3] + (fingers[2] - fingers[3]) * share
            tip = base + (tip - base) * 0.8
            cv2.line(
                color,
                tuple(int(v) for v in base),
                tuple(int(v) for v in tip),
                (skin * 0.7).tolist(),
                max(1, int(self.card_h / 90)),
                cv2.LINE_AA,
            )
        # Light from above: the middle of the hand a little brighter than its edges.
        soft = cv2.GaussianBlur(alpha, (0, 0), max(1.0, self.card_h / 25))
        color *= (0.8 + 0.25 * soft)[:, :, None]
        # Skin is no paper cut-out: its outline falls off over a pixel or so.
        alpha = cv2.GaussianBlur(alpha, (0, 0), 0.8)
        return _Layer(int(x1), int(y1), color, alpha)

    def _camera(self, frame: np.ndarray, effects: FrameEffects, index: int) -> np.ndarray:
        width, height = self.size
        small = self._vignette * effects.gain
        if effects.shadow is not None:
            sx, sy, radius, strength = effects.shadow
            d2 = ((self._xs * 8 - sx) ** 2 + (self._ys * 8 - sy) ** 2) / (radius**2)
            small = small * (1 - strength * np.exp(-d2))
        light = small[:, :, None] * np.array(effects.white, np.float32)
        frame = cv2.multiply(
            frame, cv2.resize(light, (width, height), interpolation=cv2.INTER_LINEAR)
        )
        length, angle = effects.blur
        if length >= 2:
            frame = cv2.filter2D(frame, -1, _line_kernel(length, angle))
        if effects.noise > 0:
            frame = cv2.scaleAdd(self._noise[index % len(self._noise)], effects.noise, frame)
        out = cv2.convertScaleAbs(frame)  # saturates at 255; negatives only from noise on black
        if effects.jpeg < 95:
            ok, data = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, effects.jpeg])
            # Decoding what was just encoded does not fail; the check only tells mypy so.
            decoded = cv2.imdecode(data, cv2.IMREAD_COLOR) if ok else None
            if decoded is not None:
                out = decoded
        return out


def _merge(under: _Layer, top: _Layer) -> _Layer:
    x1, y1 = min(under.x, top.x), min(under.y, top.y)
    x2 = max(under.x + under.alpha.shape[1], top.x + top.alpha.shape[1])
    y2 = max(under.y + under.alpha.shape[0], top.y + top.alpha.shape[0])
    color = np.zeros((y2 - y1, x2 - x1, 3), np.float32)
    alpha = np.zeros((y2 - y1, x2 - x1), np.float32)
    for layer in (under, top):
        h, w = layer.alpha.shape
        ys, xs = slice(layer.y - y1, layer.y - y1 + h), slice(layer.x - x1, layer.x - x1 + w)
        a = layer.alpha[:, :, None]
        color[ys, xs] = color[ys, xs] * (1 - a) + layer.color * a
        alpha[ys, xs] = np.maximum(alpha[ys, xs], layer.alpha)
    return _Layer(x1, y1, color, alpha)


def _composite(frame: np.ndarray, layer: _Layer) -> None:
    h, w = layer.alpha.shape
    region = frame[layer.y : layer.y + h, layer.x : layer.x + w]
    region[:] = cv2.blendLinear(layer.color, region, layer.alpha, 1 - layer.alpha)


def _shade(frame: np.ndarray, layer: _Layer, offset: float, softness: float, depth: float) -> None:
    """A soft shadow under ``layer``, cast down and to the right by a lamp above the table.

    Blurred at a quarter of the resolution: a shadow has no detail to lose, and a hand's is big.
    """
    height, width = frame.shape[:2]
    h, w = layer.alpha.shape
    dx = dy = round(offset)
    pad = int(3 * softness) + 4
    x1, y1 = layer.x + dx - pad, layer.y + dy - pad
    small = cv2.resize(
        cv2.copyMakeBorder(layer.alpha, pad, pad, pad, pad, cv2.BORDER_CONSTANT),
        ((w + 2 * pad) // 4 + 1, (h + 2 * pad) // 4 + 1),
        interpolation=cv2.INTER_AREA,
    )
    small = cv2.GaussianBlur(small, (0, 0), max(0.5, softness / 4))
    canvas = cv2.resize(small, (w + 2 * pad, h + 2 * pad), interpolation=cv2.INTER_LINEAR)
    fx1, fy1 = max(0, x1), max(0, y1)
    fx2, fy2 = min(width, x1 + canvas.shape[1]), min(height, y1 + canvas.shape[0])
    if fx2 <= fx1 or fy2 <= fy1:
        return
    patch = 1 - depth * canvas[fy1 - y1 : fy2 - y1, fx1 - x1 : fx2 - x1]
    region = frame[fy1:fy2, fx1:fx2]
    region[:] = cv2.multiply(region, cv2.merge([patch, patch, patch]))


def _line_kernel(length: float, angle: float) -> np.ndarray:
    size = max(3, math.ceil(length) | 1)
    kernel = np.zeros((size, size), np.float32)
    c = size // 2
    dx, dy = math.cos(angle) * length / 2, math.sin(angle) * length / 2
    cv2.line(
        kernel, (round(c - dx), round(c - dy)), (round(c + dx), round(c + dy)), 1.0, 1, cv2.LINE_AA
    )
    total = float(kernel.sum())
    return kernel / total if total > 0 else kernel


def _blur_layer(layer: _Layer, length: float, angle: float, size: tuple[int, int]) -> _Layer:
    """Smear a moving object along its motion (colour premultiplied, so edges fade right)."""
    kernel = _line_kernel(min(length, 40.0), angle)
    pad = kernel.shape[0] // 2 + 1
    color = cv2.copyMakeBorder(
        layer.color * layer.alpha[:, :, None], pad, pad, pad, pad, cv2.BORDER_CONSTANT
    )
    alpha = cv2.copyMakeBorder(layer.alpha, pad, pad, pad, pad, cv2.BORDER_CONSTANT)
    color = cv2.filter2D(color, -1, kernel)
    alpha = cv2.filter2D(alpha, -1, kernel)
    color = color / np.maximum(alpha, 1e-4)[:, :, None]
    x1, y1 = layer.x - pad, layer.y - pad
    # Keep the layer inside the frame.
    width, height = size
    cx1, cy1 = max(0, -x1), max(0, -y1)
    cx2 = min(alpha.shape[1], width - x1)
    cy2 = min(alpha.shape[0], height - y1)
    return _Layer(x1 + cx1, y1 + cy1, color[cy1:cy2, cx1:cx2], alpha[cy1:cy2, cx1:cx2])
