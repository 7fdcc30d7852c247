"""Reading the pictures a test wrote, failing with the path when one cannot be read."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np


def read_image(path: str | Path) -> np.ndarray:
    """The BGR picture at ``path``; an assertion names the file when OpenCV cannot read it."""
    image = cv2.imread(str(path))
    assert image is not None, f"OpenCV cannot read {path}"
    return image
