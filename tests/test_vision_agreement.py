"""The exported ONNX models give the training framework's answers (needs the train extra).

Skipped on the light run-time install; run in the training venv:
``python -m pytest tests/test_vision_agreement.py``.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

MODEL = Path(__file__).resolve().parents[1] / "models" / "sueca-reader"
CHECKPOINTS = MODEL / "checkpoints"

pytestmark = pytest.mark.skipif(
    not (CHECKPOINTS / "index-detector.pt").is_file(), reason="no committed checkpoints"
)


def _frames(count: int = 3) -> list[np.ndarray]:
    """Synthetic café frames from the project's own scene renderer (procedural decks)."""
    from scorekeeper.synth.faces import FaceStyle, ProceduralPack
    from scorekeeper.synth.scene import SceneConfig, compose_scene

    frames = []
    for seed in range(count):
        rng = np.random.default_rng(100 + seed)
        pack = ProceduralPack(FaceStyle.random(rng))
        scene = compose_scene(
            rng,
            pack=pack,
            distractor_pack=pack,
            width=640,
            height=480,
            output_scale=1.0,
            config=SceneConfig(index_px=(20.0, 40.0)),
        )
        frames.append(scene.image)
    return frames


def test_onnx_detector_matches_ultralytics(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    os.environ.setdefault("YOLO_OFFLINE", "1")
    from scorekeeper.training.detector import prepare_ultralytics

    prepare_ultralytics(tmp_path / "yolo")
    ultralytics = pytest.importorskip("ultralytics")
    from scorekeeper.vision.reader import CardReader

    reader = CardReader(MODEL, detector_size=640, detector_scales=(1.0,))
    model = ultralytics.YOLO(str(CHECKPOINTS / "index-detector.pt"))
    for frame in _frames():
        boxes, scores = reader.detect_indices(frame, conf=0.05)
        result = model.predict(
            frame, imgsz=640, conf=0.05, iou=reader.config.nms_iou, verbose=False, device="cpu"
        )[0]
        theirs = result.boxes.xyxy.cpu().numpy()
        their_scores = result.boxes.conf.cpu().numpy()
        strong = scores >= 0.1
        their_strong = their_scores >= 0.1
        assert strong.sum() == their_strong.sum()
        if strong.any():
            mine = boxes[strong][np.argsort(-scores[strong])]
            other = theirs[their_strong][np.argsort(-their_scores[their_strong])]
            assert np.abs(mine - other).max() < 0.5  # pixels (half precision checkpoint)


def test_onnx_classifier_matches_torch(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    import onnxruntime as ort

    from scorekeeper.training.classifier import build_network, export_classifier
    from scorekeeper.vision.reader import view_probs

    state = torch.load(CHECKPOINTS / "index-classifier.pt", map_location="cpu", weights_only=False)
    network = build_network(width=int(state.get("recipe", {}).get("width", 32)))
    network.load_state_dict(state["model"])
    network.eval()
    exported = export_classifier(CHECKPOINTS / "index-classifier.pt", tmp_path / "float.onnx")
    session = ort.InferenceSession(str(exported), providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(0)
    batch = rng.random((6, 3, 48, 48), dtype=np.float32)
    ours = view_probs(session.run(None, {"crops": batch})[0][:, None, :], 1.0)
    with torch.no_grad():
        theirs = torch.softmax(network(torch.from_numpy(batch)), dim=1).numpy()
    assert np.abs(ours - theirs).max() < 1e-4


def test_shipped_int8_classifier_names_indices_as_the_float_network_does(tmp_path: Path) -> None:
    """The reader runs the classifier in 8 bits: on the crops it was quantized against (the
    model folder's bank, the same on every machine) it must name the same card as the float
    network it was made from, about as surely."""
    pytest.importorskip("torch")
    import onnxruntime as ort

    from scorekeeper.training.classifier import export_classifier
    from scorekeeper.training.quantize import read_calibration_bank
    from scorekeeper.vision.reader import CardReader, network_input, view_probs

    reader = CardReader(MODEL, views=1)
    exported = export_classifier(CHECKPOINTS / "index-classifier.pt", tmp_path / "float.onnx")
    session = ort.InferenceSession(str(exported), providers=["CPUExecutionProvider"])
    crops = read_calibration_bank(MODEL)
    int8 = reader.classify_crops(list(crops))
    floats = view_probs(
        session.run(None, {"crops": network_input(crops)})[0][:, None, :],
        reader.config.temperature,
    )
    agree = (int8.argmax(axis=1) == floats.argmax(axis=1)).mean()
    assert agree >= 0.95, f"the 8-bit classifier names {agree:.0%} of crops as the float one"
    assert np.abs(int8.max(axis=1) - floats.max(axis=1)).mean() < 0.05
