"""A pinhole webcam above a table, for dataset scenes: table plane (mm) to image pixels."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Camera:
    """A camera looking at the table's point (0, 0) from ``distance`` mm, ``tilt`` degrees off
    vertical."""

    width: int
    height: int
    focal: float
    """Focal length in pixels."""
    tilt: float
    distance: float

    @classmethod
    def for_index_height(
        cls, *, width: int, height: int, hfov: float, tilt: float, index_mm: float, index_px: float
    ) -> Camera:
        """A camera placed so that an index ``index_mm`` tall at the centre is ``index_px`` tall."""
        focal = width / 2 / np.tan(np.radians(hfov) / 2)
        return cls(width, height, float(focal), tilt, float(focal * index_mm / index_px))

    def homography(self) -> np.ndarray:
        """3x3 matrix taking table (x, y, 1) in mm to image (u, v, w)."""
        t = np.radians(self.tilt)
        centre = np.array([0.0, -self.distance * np.sin(t), self.distance * np.cos(t)])
        x_axis = np.array([1.0, 0.0, 0.0])
        z_axis = np.array([0.0, np.sin(t), -np.cos(t)])
        y_axis = np.cross(z_axis, x_axis)
        rotation = np.stack([x_axis, y_axis, z_axis])
        k = np.array([[self.focal, 0, self.width / 2], [0, self.focal, self.height / 2], [0, 0, 1]])
        extrinsic = np.column_stack([rotation[:, 0], rotation[:, 1], -rotation @ centre])
        h: np.ndarray = k @ extrinsic
        normalised: np.ndarray = h / h[2, 2]
        return normalised

    def to_table(self, points: np.ndarray) -> np.ndarray:
        """Image points (N x 2) back onto the table plane, in mm."""
        return apply_homography(np.linalg.inv(self.homography()), points)


def apply_homography(h: np.ndarray, points: np.ndarray) -> np.ndarray:
    pts = np.asarray(points, np.float64).reshape(-1, 2)
    out = np.column_stack([pts, np.ones(len(pts))]) @ h.T
    projected: np.ndarray = out[:, :2] / out[:, 2:3]
    return projected


def card_to_table(
    width_px: int, height_px: int, *, card_mm: float, angle: float, centre: tuple[float, float]
) -> np.ndarray:
    """Face pixels to table mm: a card ``card_mm`` tall, turned ``angle`` degrees, centred."""
    s = card_mm / height_px
    c, si = np.cos(np.radians(angle)), np.sin(np.radians(angle))
    to_centre = np.array([[1, 0, -width_px / 2], [0, 1, -height_px / 2], [0, 0, 1]], float)
    scale_rot = np.array([[s * c, -s * si, 0], [s * si, s * c, 0], [0, 0, 1]], float)
    move = np.array([[1, 0, centre[0]], [0, 1, centre[1]], [0, 0, 1]], float)
    face_to_table: np.ndarray = move @ scale_rot @ to_centre
    return face_to_table
