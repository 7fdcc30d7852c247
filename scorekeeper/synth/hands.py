"""The shape of a player's hand and forearm seen from above, as convex polygons.

Convex pieces keep occlusion tests exact and cheap; the renderer fills exactly these polygons
(shading and finger lines only inside them), so what the truth calls covered is covered.
"""

from __future__ import annotations

import numpy as np

from scorekeeper.synth.geometry import Pose, place

# In card heights, hand axes: x to the player's right, y toward the player (fingers point to -y).
_PALM = np.array(
    [
        [-0.42, -0.36],
        [-0.30, -0.46],
        [0.30, -0.46],
        [0.42, -0.36],
        [0.40, 0.30],
        [0.26, 0.44],
        [-0.26, 0.44],
        [-0.40, 0.30],
    ]
)
_FINGERS = np.array([[-0.40, -0.40], [0.40, -0.40], [0.33, -0.88], [-0.31, -0.84]])
_THUMB = np.array([[-0.38, -0.05], [-0.72, -0.40], [-0.62, -0.56], [-0.40, -0.30]])
WRIST = np.array([0.0, 0.40])
ARM_WIDTH = (0.50, 0.66)
"""Forearm width at the wrist and at the frame edge, in card heights."""


def hand_polygons(
    pose: Pose, shoulder: tuple[float, float], card_height: float
) -> dict[str, np.ndarray]:
    """A hand's polygons in table pixels, in drawing order: ``arm``, ``palm``, ``thumb``,
    ``fingers``."""
    path = np.array([[pose.x, pose.y, pose.phi]])
    return {name: shape[0] for name, shape in hand_shapes(path, shoulder, card_height).items()}


def hand_shapes(
    path: np.ndarray, shoulder: tuple[float, float], card_height: float
) -> dict[str, np.ndarray]:
    """:func:`hand_polygons` for every pose of ``path`` (F x 3): each shape F x V x 2."""
    wrist = place(path, WRIST[None, :] * card_height)[:, 0, :]
    far = np.asarray(shoulder, dtype=np.float64)[None, :]
    along = far - wrist
    length = np.maximum(np.hypot(along[:, 0], along[:, 1]), 1.0)[:, None]
    side = np.stack([-along[:, 1], along[:, 0]], axis=1) / length
    near_w, far_w = ARM_WIDTH[0] * card_height / 2, ARM_WIDTH[1] * card_height / 2
    far = np.broadcast_to(far, wrist.shape)
    arm = np.stack(
        [wrist - side * near_w, far - side * far_w, far + side * far_w, wrist + side * near_w],
        axis=1,
    )
    return {
        "arm": arm,
        "palm": place(path, _PALM * card_height),
        "thumb": place(path, _THUMB * card_height),
        "fingers": place(path, _FINGERS * card_height),
    }
