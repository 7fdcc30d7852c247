"""What a café and a cheap webcam do to a frame: uneven light, shadows, glare, white balance,
motion or focus blur, sensor noise and JPEG. Vectorised with OpenCV; one call per frame.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np


@dataclass(frozen=True)
class EffectsConfig:
    """Probabilities and strengths; each trade-off: stronger effects generalise further but can
    make a labelled index unreadable (a box the detector cannot possibly find)."""

    light_probability: float = 0.8
    dim_probability: float = 0.2
    """Frames lit like a dim room: the whole frame at 35-70% of its light, before the sensor's
    noise and JPEG. Real webcam frames of an office or a café at night look like this; a reader
    trained only on well-lit scenes found half the indices in them."""
    shadow_probability: float = 0.35
    glare_probability: float = 0.3
    white_balance: float = 0.12
    """Largest per-channel gain change (0.12 = +-12%)."""
    motion_blur_probability: float = 0.15
    focus_blur_probability: float = 0.25
    noise_sigma: tuple[float, float] = (0.0, 9.0)
    jpeg_quality: tuple[int, int] = (35, 95)


PHONE_PHOTO = EffectsConfig(
    dim_probability=0.1,
    motion_blur_probability=0.0,
    focus_blur_probability=0.2,
    noise_sigma=(0.0, 3.0),
    jpeg_quality=(80, 95),
)
"""A phone's still photo of a table: the room's light and shadows as a webcam sees them, but no
motion blur (nothing moves while a still is taken, and a webcam's streak, up to 1/90 of the frame's
width, would smear a 2560-px photo's indices by 28 px), rarely out of focus, the sensor's noise
mostly cleaned by the phone, and JPEG at a photo's quality."""

CAMERAS = {"webcam": EffectsConfig(), "phone": PHONE_PHOTO}
"""The effects ``scorekeeper dataset build --camera`` can render with."""

_GRAIN_SIGMA = 32.0
_GRAIN: dict[tuple[int, int], np.ndarray] = {}


def _grain(h: int, w: int, rng: np.random.Generator) -> np.ndarray:
    """Sensor noise (uint8 around 128): a fixed bank a little bigger than the frame, cut at a
    random place.

    Drawing 3 million normals per frame would cost more than the whole scene; a shifted window of
    a bank looks the same to a detector.
    """
    key = (h, w)
    if key not in _GRAIN:
        bank = np.random.default_rng(12345).standard_normal((h + 64, w + 64, 3), np.float32)
        _GRAIN[key] = np.clip(128 + _GRAIN_SIGMA * bank, 0, 255).astype(np.uint8)
    y, x = int(rng.integers(64)), int(rng.integers(64))
    return _GRAIN[key][y : y + h, x : x + w]


def apply_effects(
    image: np.ndarray, rng: np.random.Generator, config: EffectsConfig = EffectsConfig()
) -> np.ndarray:
    """A new frame: ``image`` (BGR uint8) as a webcam in a café would have delivered it."""
    h, w = image.shape[:2]
    gain = np.ones((12, 12), np.float32)
    if rng.random() < config.light_probability:
        # Light falls off away from the lamp: a tilted plane plus a few soft blobs.
        yy, xx = np.mgrid[0:12, 0:12].astype(np.float32) / 11
        gx, gy = rng.uniform(-0.35, 0.35, 2)
        gain = gain * (1 + gx * (xx - 0.5) + gy * (yy - 0.5))
        gain = gain * (
            1 + cv2.GaussianBlur(rng.normal(0, 0.12, (12, 12)).astype(np.float32), (0, 0), 2)
        )
        gain = gain * np.float32(rng.uniform(0.7, 1.2))
    if rng.random() < config.dim_probability:
        gain = gain * np.float32(rng.uniform(0.35, 0.7))
    if rng.random() < config.shadow_probability:
        # A person leaning over the table: one soft dark region.
        small: np.ndarray = np.zeros((48, 48), np.float32)
        pts = rng.uniform(-10, 58, (int(rng.integers(3, 6)), 2)).astype(np.int32)
        cv2.fillPoly(small, [cv2.convexHull(pts)], 1.0)
        small = cv2.GaussianBlur(small, (0, 0), rng.uniform(2, 6))
        gain = cv2.resize(gain, (48, 48)) * (1 - np.float32(rng.uniform(0.2, 0.55)) * small)
    balance = 1 + rng.uniform(-config.white_balance, config.white_balance, 3)
    # Light and white balance as one smooth 3-channel gain, applied in a single uint8 pass.
    gain3 = cv2.merge([gain * np.float32(b) for b in balance])
    field = cv2.resize(gain3, (w, h), interpolation=cv2.INTER_LINEAR)
    frame = cv2.multiply(image, field, dtype=cv2.CV_8U)
    if rng.random() < config.glare_probability:
        # A lamp's reflection on glossy cards: an additive, washed-out ellipse.
        glare: np.ndarray = np.zeros((h // 8 + 1, w // 8 + 1), np.float32)
        c = (int(rng.uniform(0, glare.shape[1])), int(rng.uniform(0, glare.shape[0])))
        axes = (int(rng.uniform(3, glare.shape[1] / 4)), int(rng.uniform(2, glare.shape[0] / 5)))
        cv2.ellipse(glare, c, axes, rng.uniform(0, 180), 0, 360, 1.0, -1)
        glare = cv2.GaussianBlur(glare, (0, 0), max(1.0, min(axes) * 0.6))
        glare = (glare * np.float32(rng.uniform(60, 170))).astype(np.uint8)
        glare = cv2.resize(glare, (w, h), interpolation=cv2.INTER_LINEAR)
        frame = cv2.add(frame, cv2.cvtColor(glare, cv2.COLOR_GRAY2BGR))

    if rng.random() < config.motion_blur_probability:
        length = int(rng.integers(3, max(4, w // 90)))
        kernel: np.ndarray = np.zeros((length, length), np.float32)
        kernel[length // 2, :] = 1.0 / length
        rot = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5), rng.uniform(0, 180), 1)
        kernel = cv2.warpAffine(kernel, rot, (length, length))
        kernel = kernel / max(kernel.sum(), 1e-6)
        frame = cv2.filter2D(frame, -1, kernel)
    elif rng.random() < config.focus_blur_probability:
        frame = cv2.GaussianBlur(frame, (0, 0), rng.uniform(0.6, 1.8))

    sigma = rng.uniform(*config.noise_sigma)
    if sigma > 0.5:
        grain = _grain(h, w, rng)
        k = sigma / _GRAIN_SIGMA
        frame = cv2.addWeighted(frame, 1.0, grain, k, -128.0 * k)

    quality = int(rng.integers(config.jpeg_quality[0], config.jpeg_quality[1] + 1))
    ok, data = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, quality])
    # Decoding what was just encoded does not fail; the check only tells mypy so.
    decoded = cv2.imdecode(data, cv2.IMREAD_COLOR) if ok else None
    return frame if decoded is None else decoded
