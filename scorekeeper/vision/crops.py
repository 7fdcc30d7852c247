"""Index crops: the one place that says how a corner index is cut out of a frame for the classifier.

The reader (run time) and the classifier's training data use the same function, so what the
classifier learned on is what it is shown. A crop is a square centred on the index box, of side
``max(w, h) * (1 + 2 * margin)``, cut from the full-resolution frame (edges repeated where the
square leaves the frame) and resized to ``size`` x ``size``.

>>> import numpy as np
>>> frame = np.zeros((100, 200, 3), np.uint8)
>>> crop_square(frame, (10.0, 20.0, 30.0, 50.0), margin=0.0, size=24).shape
(24, 24, 3)
>>> square_around((10.0, 20.0, 30.0, 50.0), margin=0.5)
(-10.0, 5.0, 50.0, 65.0)
"""

from __future__ import annotations

import numpy as np

from scorekeeper.vision.boxes import Box

DEFAULT_MARGIN = 0.2
"""Context around the index box, as a fraction of its longer side on each side."""

DEFAULT_SIZE = 48
"""Side in pixels of the square the classifier sees."""


def square_around(box: Box, *, margin: float = DEFAULT_MARGIN) -> Box:
    """The square (x1, y1, x2, y2) centred on ``box`` whose side is its longer side plus margins."""
    x1, y1, x2, y2 = box
    side = max(x2 - x1, y2 - y1, 1.0) * (1.0 + 2.0 * margin)
    cx, cy = (x1 + x2) / 2.0, (y1 + y2) / 2.0
    return (cx - side / 2.0, cy - side / 2.0, cx + side / 2.0, cy + side / 2.0)


def crop_square(
    frame: np.ndarray, box: Box, *, margin: float = DEFAULT_MARGIN, size: int = DEFAULT_SIZE
) -> np.ndarray:
    """Cut the square around ``box`` out of ``frame`` (H x W x 3, any dtype) at ``size`` x ``size``.

    One affine warp does the cut and the resize; pixels outside the frame repeat the edge.
    """
    import cv2

    sx1, sy1, sx2, _sy2 = square_around(box, margin=margin)
    side = max(sx2 - sx1, 1e-6)
    # Cut at native resolution first when shrinking, so the resize can average (INTER_AREA).
    native = max(round(side), 1)
    out = max(size, native)
    scale = out / side
    matrix = np.array([[scale, 0.0, -sx1 * scale], [0.0, scale, -sy1 * scale]], dtype=np.float64)
    crop = cv2.warpAffine(
        frame, matrix, (out, out), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    if out != size:
        crop = cv2.resize(crop, (size, size), interpolation=cv2.INTER_AREA)
    return crop
