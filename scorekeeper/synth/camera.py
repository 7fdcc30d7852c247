"""What the webcam adds to a simulated clip: shake, bumps of the table, light drifting and
jumping, a passing shadow, blur, noise, compression.

Drawn once per clip into per-frame arrays, so any frame's camera is a lookup: the renderer and
the ground-truth detections read the same shake from here.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, replace

import numpy as np


@dataclass(frozen=True, slots=True)
class FrameEffects:
    gain: float
    white: tuple[float, float, float]
    """Per-channel multipliers, B G R: the webcam's white balance wandering."""
    shadow: tuple[float, float, float, float] | None
    """x, y, radius (frame pixels) and strength of a soft shadow (someone leaning over)."""
    blur: tuple[int, float]
    """Motion blur length in pixels (0: sharp) and direction in radians."""
    noise: float
    jpeg: int


@dataclass(frozen=True, slots=True)
class CameraPlan:
    shake: np.ndarray
    """frames x 3: dx, dy (pixels) and roll (radians) added to the camera at rest."""
    gain: np.ndarray
    white: np.ndarray
    shadow: np.ndarray
    """frames x 4: x, y, radius, strength (strength 0: no shadow)."""
    blur: np.ndarray
    """frames x 2: length, angle."""
    noise: float
    jpeg: np.ndarray
    hum: np.ndarray
    """frames x 3: the part of ``shake`` that never stops (the stand's vibration)."""
    drift: np.ndarray
    """frames x 4: the slow wandering of exposure (x ``gain``) and white balance (x ``white``)."""

    def mild(self) -> CameraPlan:
        """The same bumps, light jumps, shadows and blur, without hum, drift, noise and JPEG.

        Each of those changes every pixel of every frame, and OpenCV's MPEG-4 writer takes no
        bitrate setting: a mild clip takes far fewer bytes (the shipped demo uses it).
        """
        return replace(
            self,
            shake=self.shake - self.hum,
            hum=np.zeros_like(self.hum),
            gain=self.gain / self.drift[:, 0],
            white=self.white / self.drift[:, 1:],
            drift=np.ones_like(self.drift),
            noise=0.0,
            jpeg=np.full_like(self.jpeg, 95),
        )

    @classmethod
    def still(cls, frames: int) -> CameraPlan:
        """A perfect camera: no shake, even light, sharp, clean."""
        return cls(
            shake=np.zeros((frames, 3)),
            gain=np.ones(frames),
            white=np.ones((frames, 3)),
            shadow=np.zeros((frames, 4)),
            blur=np.zeros((frames, 2)),
            noise=0.0,
            jpeg=np.full(frames, 95, dtype=np.int64),
            hum=np.zeros((frames, 3)),
            drift=np.ones((frames, 4)),
        )

    @classmethod
    def random(
        cls, rng: random.Random, *, frames: int, fps: float, size: tuple[int, int] = (1280, 720)
    ) -> CameraPlan:
        seconds = np.arange(frames) / fps
        shake = np.zeros((frames, 3))
        # A webcam on a clamp or a stand hums: a few slow and fast sways of a pixel or so.
        for axis, scale in ((0, 1.0), (1, 1.0), (2, 0.0012)):
            for _ in range(3):
                amplitude = rng.uniform(0.15, 0.6) * scale
                hz = rng.uniform(0.1, 3.0)
                shake[:, axis] += amplitude * np.sin(
                    2 * math.pi * hz * seconds + rng.uniform(0, 6.3)
                )
        hum = shake.copy()
        blur = np.zeros((frames, 2))
        # Someone bumps the table: a jolt of several pixels ringing down in half a second.
        for start in _poisson(rng, frames, fps, every=25.0):
            t = seconds[start:] - seconds[start]
            # Over after 1.5 s: a lingering hundredth of a pixel would still cost the encoder bytes.
            ring = np.where(t < 1.5, np.exp(-t / 0.25) * np.cos(2 * math.pi * 4.0 * t), 0.0)
            angle = rng.uniform(0, 2 * math.pi)
            jolt_px = rng.uniform(4, 12)
            shake[start:, 0] += jolt_px * math.cos(angle) * ring
            shake[start:, 1] += jolt_px * math.sin(angle) * ring
            shake[start:, 2] += rng.uniform(-0.004, 0.004) * ring
            jolt = min(frames, start + max(1, round(0.2 * fps)))
            blur[start:jolt, 0] = np.maximum(blur[start:jolt, 0], jolt_px)
            blur[start:jolt, 1] = angle
        for frame in range(frames):
            if blur[frame, 0] == 0 and rng.random() < 0.02:
                blur[frame] = (rng.uniform(4, 12), rng.uniform(0, math.pi))
        drift = np.ones((frames, 4))
        drift[:, 0] = 1 + 0.04 * np.sin(
            2 * math.pi * rng.uniform(0.02, 0.1) * seconds + rng.uniform(0, 6.3)
        )
        level = np.full(frames, rng.uniform(0.85, 1.05))
        # A lamp switched, a cloud, a door: the exposure jumps and the webcam settles over a second.
        for start in _poisson(rng, frames, fps, every=20.0):
            step = rng.uniform(-0.2, 0.15)
            t = seconds[start:] - seconds[start]
            level[start:] *= 1 + step * (0.4 + 0.6 * np.exp(-t / 1.0))
        white = np.ones((frames, 3))
        for channel in range(3):
            drift[:, 1 + channel] = 1 + 0.03 * np.sin(
                2 * math.pi * rng.uniform(0.01, 0.05) * seconds + rng.uniform(0, 6.3)
            )
            white[:, channel] = (1 + rng.uniform(-0.05, 0.05)) * drift[:, 1 + channel]
        shadow = np.zeros((frames, 4))
        for start in _poisson(rng, frames, fps, every=15.0):
            length = min(frames - start, round(rng.uniform(2, 7) * fps))
            t = np.linspace(0, 1, length)
            x0, y0 = rng.uniform(0, size[0]), rng.uniform(0, size[1])
            x1 = x0 + rng.uniform(-0.25, 0.25) * size[0]
            y1 = y0 + rng.uniform(-0.25, 0.25) * size[1]
            shadow[start : start + length, 0] = x0 + (x1 - x0) * t
            shadow[start : start + length, 1] = y0 + (y1 - y0) * t
            shadow[start : start + length, 2] = rng.uniform(0.3, 0.6) * size[1]
            shadow[start : start + length, 3] = rng.uniform(0.2, 0.45) * np.sin(math.pi * t)
        jpeg = np.array([rng.randint(55, 90) for _ in range(frames)], dtype=np.int64)
        return cls(
            shake=shake,
            gain=np.clip(level, 0.6, 1.2) * drift[:, 0],
            white=white,
            shadow=shadow,
            blur=blur,
            noise=rng.uniform(1.5, 4.0),
            jpeg=jpeg,
            hum=hum,
            drift=drift,
        )

    def matrices(self, base: np.ndarray, center: tuple[float, float]) -> np.ndarray:
        """frames x 3 x 3: table pixels to each frame's pixels, the camera at rest, then shaken."""
        dx, dy, roll = self.shake[:, 0], self.shake[:, 1], self.shake[:, 2]
        c, s = np.cos(roll), np.sin(roll)
        w, h = center
        jitter = np.zeros((len(roll), 3, 3))
        jitter[:, 0, 0], jitter[:, 0, 1], jitter[:, 0, 2] = c, -s, w - c * w + s * h + dx
        jitter[:, 1, 0], jitter[:, 1, 1], jitter[:, 1, 2] = s, c, h - s * w - c * h + dy
        jitter[:, 2, 2] = 1.0
        per_frame: np.ndarray = jitter @ base
        return per_frame

    def effects(self, frame: int) -> FrameEffects:
        x, y, radius, strength = self.shadow[frame]
        length, angle = self.blur[frame]
        b, g, r = self.white[frame]
        return FrameEffects(
            gain=float(self.gain[frame]),
            white=(float(b), float(g), float(r)),
            shadow=(float(x), float(y), float(radius), float(strength))
            if strength > 0.01
            else None,
            blur=(round(length), float(angle)),
            noise=self.noise,
            jpeg=int(self.jpeg[frame]),
        )


def _poisson(rng: random.Random, frames: int, fps: float, *, every: float) -> list[int]:
    """Frames where a rare event starts, about one per ``every`` seconds."""
    starts = []
    t = rng.expovariate(1 / every)
    while t * fps < frames:
        starts.append(int(t * fps))
        t += rng.expovariate(1 / every)
    return starts
