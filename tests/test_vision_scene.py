"""The shipped card reader reads cards on synthetic café scenes rendered by the project itself.

A fast check that the committed weights, the ONNX decoding and the corner combining work together
(onnxruntime + OpenCV only). The bar is the shipped model's measured level (see models/README.md),
not the issue's targets: raise it when better weights are committed.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from scorekeeper.vision.detections import FrameDetections
from tests.rendered_tables import rendered_table

MODEL = Path(__file__).resolve().parents[1] / "models" / "sueca-reader"

pytestmark = pytest.mark.skipif(not (MODEL / "reader.json").is_file(), reason="no shipped model")


def _scenes(count: int) -> list[tuple[np.ndarray, set[str]]]:
    from scorekeeper.synth.faces import FaceStyle, ProceduralPack
    from scorekeeper.synth.scene import SceneConfig

    config = SceneConfig(
        index_px=(26.0, 36.0),
        tilt=(0.0, 15.0),
        face_up=(3, 6),
        distractor_probability=0.0,
        hand_probability=0.0,
        face_down_stacks=(0, 0),
        loose_backs=(0, 1),
    )
    out = []
    for seed in range(count):
        rng = np.random.default_rng(2024 + seed)
        pack = ProceduralPack(FaceStyle.random(rng))
        out.append(rendered_table(rng, pack, config, width=1280, height=720))
    return out


@pytest.fixture(scope="module")
def reader():
    from scorekeeper.vision.reader import CardReader

    return CardReader()


def test_reader_returns_frame_detections_for_a_frame(reader) -> None:
    frame = np.full((720, 1280, 3), 90, np.uint8)
    result = reader.read(frame, frame_index=7)
    assert isinstance(result, FrameDetections)
    assert (result.frame_index, result.width, result.height) == (7, 1280, 720)


def test_shipped_reader_finds_cards_on_rendered_scenes(reader) -> None:
    found = reported = present = 0
    for image, truth in _scenes(4):
        seen = {d.card.notation for d in reader.read(image).cards}
        found += len(seen & truth)
        reported += len(seen)
        present += len(truth)
    assert present > 0
    recall = found / present
    precision = found / reported if reported else 0.0
    assert recall >= MIN_RECALL, f"recall {recall:.2f} ({found}/{present})"
    assert precision >= MIN_PRECISION, f"precision {precision:.2f} ({found}/{reported})"


# Measured with the shipped model (2026-11-30): recall 10/13, precision 10/14 on these four scenes.
MIN_RECALL = 0.5
MIN_PRECISION = 0.3
