"""Cards lying on a table: find each one's outline in a photo and warp it flat, upright-ish.

A card is the brightest, least coloured thing on a café table, so the outlines come from a
"whiteness" image (the darkest of the three colour channels: paper is high in all three, wood,
felt and most cloths are not). Two thresholds of it are tried, a global one (Otsu) and a local one
(brighter than the neighbourhood), because uneven light defeats the first and large cards the
second; every bright blob that looks like a card (four corners, convex, the right aspect, not
touching the photo's edge) is kept once.

Warping maps the four corners onto one portrait size, the long side vertical. Which of the two
upright orientations comes out is decided by the photo (the side nearer the photo's top stays on
top); the other would do as well, since Sueca indices are printed in two opposite corners.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from scorekeeper.synth.faces import FACE_H, FACE_W

FLAT_SIZE: tuple[int, int] = (FACE_W, FACE_H)
"""(width, height) of every flat face: 400 x 560, a 63 x 88 mm card, like the procedural faces."""

ASPECT_RANGE: tuple[float, float] = (1.3, 1.7)
"""Long side over short side a blob must show to be a card (a flat card is ~1.4). Widening it
lets more tilted cards in; it also lets in two touching cards, a phone, a beer mat."""

MIN_AREA_FRACTION = 0.002
"""Smallest card, as a fraction of the photo: below this the indices are too small to read."""

MAX_AREA_FRACTION = 0.6
"""Largest card, as a fraction of the photo: above it the blob is the table or a sheet of paper."""

MIN_SOLIDITY = 0.9
"""Blob area over its convex hull's: lower accepts cards with a shadow bite, and L-shaped pairs."""

MIN_FILL = 0.85
"""Blob area over its four-corner outline's: rounded corners cost ~2 %, a bent card more."""


@dataclass(frozen=True, eq=False)
class Outline:
    """Four corners of one card in photo pixels: top-left, top-right, bottom-right, bottom-left of
    the card as it will be warped (its short side on top)."""

    corners: np.ndarray
    """4 x 2 float32."""

    @property
    def center(self) -> tuple[float, float]:
        x, y = self.corners.mean(axis=0)
        return float(x), float(y)

    @property
    def sides(self) -> tuple[float, float]:
        """(short, long): the mean lengths of the two pairs of opposite sides."""
        c = self.corners
        a = (np.linalg.norm(c[1] - c[0]) + np.linalg.norm(c[2] - c[3])) / 2
        b = (np.linalg.norm(c[3] - c[0]) + np.linalg.norm(c[2] - c[1])) / 2
        return float(min(a, b)), float(max(a, b))

    @property
    def area(self) -> float:
        return float(cv2.contourArea(self.corners.astype(np.float32)))


def whiteness(image_bgr: np.ndarray) -> np.ndarray:
    """The darkest channel per pixel (uint8), lightly blurred: high only where all three are."""
    low: np.ndarray = cv2.GaussianBlur(image_bgr.min(axis=2), (5, 5), 0)
    return low


def _masks(white: np.ndarray) -> list[np.ndarray]:
    """Candidate card masks: a global and a local threshold of ``white``, cleaned up."""
    h, w = white.shape
    _, global_mask = cv2.threshold(white, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    block = max(31, (min(h, w) // 3) | 1)
    local_mask = cv2.adaptiveThreshold(
        white, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY, block, -12
    )
    # Otsu on a photo of dark felt with bright cards is clean; on a pale table it is not, so the
    # local threshold must also clear a floor (cards are never darker than mid grey here).
    local_mask[white < 90] = 0
    # Closing first joins a card's white rim to its middle across a printed border line (else the
    # outline found is the border's); opening then cuts thin bridges of bright table between cards.
    c = max(5, min(h, w) // 120) | 1
    k = max(3, round(min(h, w) / 300)) | 1
    close = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (c, c))
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    out = []
    for mask in (global_mask, local_mask):
        mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, close)
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, kernel)
        out.append(mask)
    return out


def _quad(contour: np.ndarray) -> np.ndarray | None:
    """Four corners of a convex blob: the hull simplified to four points, then each side refitted
    to the blob's edge and the corners put where the sides meet (rounded corners cut nothing)."""
    hull = cv2.convexHull(contour)
    perimeter = cv2.arcLength(hull, True)
    rough: np.ndarray | None = None
    for fraction in (0.01, 0.02, 0.03, 0.045, 0.06, 0.08):
        approx = cv2.approxPolyDP(hull, fraction * perimeter, True)
        if len(approx) == 4:
            rough = approx.reshape(4, 2).astype(np.float32)
            break
        if len(approx) < 4:
            break
    if rough is None:
        rough = np.asarray(cv2.boxPoints(cv2.minAreaRect(contour)), np.float32)
    return _refine(rough, contour.reshape(-1, 2).astype(np.float32))


def _refine(rough: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Fit a line to the edge points along the middle of each side of ``rough``; intersect them."""
    lines = []
    for i in range(4):
        a, b = rough[i], rough[(i + 1) % 4]
        length = float(np.linalg.norm(b - a))
        if length < 4:
            return rough
        direction = (b - a) / length
        normal = np.array([-direction[1], direction[0]], np.float32)
        rel = points - a
        along = rel @ direction
        across = np.abs(rel @ normal)
        near = points[
            (along > 0.15 * length) & (along < 0.85 * length) & (across < 0.04 * length + 2)
        ]
        if len(near) < 2:
            lines.append((a, direction))
            continue
        vx, vy, x0, y0 = cv2.fitLine(near, cv2.DIST_HUBER, 0, 0.01, 0.01).reshape(4)
        lines.append((np.array([x0, y0], np.float32), np.array([vx, vy], np.float32)))
    corners = []
    for i in range(4):
        (p, u), (q, v) = lines[i - 1], lines[i]
        matrix = np.array([u, -v], np.float64).T
        if abs(np.linalg.det(matrix)) < 1e-6:
            return rough
        t = np.linalg.solve(matrix, (q - p).astype(np.float64))[0]
        corners.append(p + t * u)
    refined = np.asarray(corners, np.float32)
    # A fit gone wrong (a shadow along one side) moves a corner far: keep the rough one then.
    if float(np.abs(refined - rough).max()) > 0.15 * float(np.linalg.norm(rough[2] - rough[0])):
        return rough
    return refined


def _order(quad: np.ndarray) -> np.ndarray:
    """Corners clockwise on screen from the card's top-left, short side on top, top nearer y=0."""
    center = quad.mean(axis=0)
    angles = np.arctan2(quad[:, 1] - center[1], quad[:, 0] - center[0])
    q = quad[np.argsort(angles)]  # y points down: ascending angle is clockwise on screen
    top = np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[2] - q[3])
    left = np.linalg.norm(q[3] - q[0]) + np.linalg.norm(q[2] - q[1])
    if top > left:  # long side on top: start one corner later so it stands
        q = np.roll(q, -1, axis=0)
    if q[0, 1] + q[1, 1] > q[2, 1] + q[3, 1]:  # upside down in the photo: turn it half round
        q = np.roll(q, 2, axis=0)
    return q


def _card_outline(
    contour: np.ndarray, shape: tuple[int, int], *, aspect_range: tuple[float, float]
) -> tuple[Outline, float] | None:
    """The blob's outline and a score (fill), or None when it is not card-shaped."""
    h, w = shape
    area = float(cv2.contourArea(contour))
    if not MIN_AREA_FRACTION * h * w <= area <= MAX_AREA_FRACTION * h * w:
        return None
    x, y, bw, bh = cv2.boundingRect(contour)
    if x <= 1 or y <= 1 or x + bw >= w - 1 or y + bh >= h - 1:
        return None  # cut by the photo's edge: its outline would be wrong
    hull_area = float(cv2.contourArea(cv2.convexHull(contour)))
    if hull_area <= 0 or area / hull_area < MIN_SOLIDITY:
        return None
    quad = _quad(contour)
    if quad is None or not cv2.isContourConvex(quad.reshape(-1, 1, 2)):
        return None
    outline = Outline(corners=_order(quad))
    short, long = outline.sides
    if short <= 0 or not aspect_range[0] <= long / short <= aspect_range[1]:
        return None
    fill = area / max(outline.area, 1.0)
    if not MIN_FILL <= fill <= 1.05:
        return None
    return outline, fill


def find_outlines(
    image_bgr: np.ndarray, *, aspect_range: tuple[float, float] = ASPECT_RANGE
) -> list[Outline]:
    """Every card-shaped bright blob in a BGR photo, once each, top to bottom then left to right."""
    if image_bgr.ndim != 3 or image_bgr.shape[2] != 3:
        raise ValueError(f"expected an H x W x 3 BGR image, got shape {image_bgr.shape}")
    shape = image_bgr.shape[:2]
    found: list[tuple[Outline, float]] = []
    for mask in _masks(whiteness(image_bgr)):
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        for contour in contours:
            hit = _card_outline(contour, shape, aspect_range=aspect_range)
            if hit is None:
                continue
            outline, fill = hit
            same = next((i for i, (o, _) in enumerate(found) if _same_card(o, outline)), None)
            if same is None:
                found.append(hit)
                continue
            kept, kept_fill = found[same]
            # Two outlines round one centre: the larger is the card's edge, the other a printed
            # frame; between near equals, the one the blob fills best.
            if outline.area > 1.05 * kept.area or (
                outline.area > kept.area / 1.05 and abs(fill - 1.0) < abs(kept_fill - 1.0)
            ):
                found[same] = hit
    outlines = [o for o, _ in found]
    outlines.sort(key=lambda o: (round(o.center[1] / max(o.sides[1], 1.0)), o.center[0]))
    return outlines


def _same_card(a: Outline, b: Outline) -> bool:
    ax, ay = a.center
    bx, by = b.center
    return float(np.hypot(ax - bx, ay - by)) < 0.3 * min(a.sides[0], b.sides[0])


def warp_flat(
    image_bgr: np.ndarray, outline: Outline, *, size: tuple[int, int] = FLAT_SIZE
) -> np.ndarray:
    """The card inside ``outline`` seen from straight above, ``size`` (width, height), BGR."""
    width, height = size
    # A card much bigger than the output would alias if warped straight down: warp it at a
    # multiple of the size near its own, then shrink by area averaging.
    scale = int(np.clip(outline.sides[1] // height, 1, 4))
    w, h = width * scale, height * scale
    target = np.array([(0, 0), (w - 1, 0), (w - 1, h - 1), (0, h - 1)], np.float32)
    matrix = cv2.getPerspectiveTransform(outline.corners.astype(np.float32), target)
    flat = cv2.warpPerspective(
        image_bgr, matrix, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    if scale > 1:
        flat = cv2.resize(flat, (width, height), interpolation=cv2.INTER_AREA)
    return flat


def sharpness(face_bgr: np.ndarray) -> float:
    """Variance of the Laplacian: higher is sharper (to keep the best of many views of a card)."""
    grey = cv2.cvtColor(face_bgr, cv2.COLOR_BGR2GRAY)
    return float(cv2.Laplacian(grey, cv2.CV_64F).var())


def flat_faces(image_bgr: np.ndarray) -> list[tuple[Outline, np.ndarray]]:
    """Each card in the photo with its flat face."""
    return [(outline, warp_flat(image_bgr, outline)) for outline in find_outlines(image_bgr)]
