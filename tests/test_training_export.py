"""A fine-tuned classifier becomes a model folder the reader loads (needs the train extra)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from scorekeeper.cli import main

MODEL = Path(__file__).resolve().parents[1] / "models" / "sueca-reader"


@pytest.mark.skipif(
    not (MODEL / "checkpoints" / "index-classifier.pt").is_file(), reason="no checkpoints"
)
def test_a_classifier_only_export_reads_as_the_shipped_model(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("onnx")
    from scorekeeper.training.recipe import Recipe, export_model
    from scorekeeper.vision.evaluate import latency_frames
    from scorekeeper.vision.reader import CardReader

    data = tmp_path / "data"
    assert main(["dataset", "build", "--out", str(data), "--images", "12", "--seed", "3",
                 "--crops", "--workers", "1"]) == 0  # fmt: skip
    model_dir = tmp_path / "model"
    shutil.copytree(MODEL, model_dir)
    (model_dir / "calibration-crops.npz").unlink()
    (model_dir / "index-classifier-int8.onnx").unlink()
    (model_dir / "index-classifier.onnx").write_bytes(b"a stale float export")
    run = tmp_path / "runs" / "classifier" / "run"
    run.mkdir(parents=True)
    shutil.copyfile(MODEL / "checkpoints" / "index-classifier.pt", run / "best.pt")

    export_model(Recipe(data=data, runs=tmp_path / "runs", model_dir=model_dir), log=lambda _: None)

    config = json.loads((model_dir / "reader.json").read_text())
    assert config["classifier"]["file"] == "index-classifier-int8.onnx"
    assert config["classifier"]["int8"] is True
    assert (model_dir / "calibration-crops.npz").is_file()
    assert not (model_dir / "index-classifier.onnx").exists()
    # The folder's card view and its detector's index_conf stay: neither was trained again.
    shipped_config = json.loads((MODEL / "reader.json").read_text())
    assert config["classifier"]["card_view"]["file"] == "card-view.onnx"
    assert config["thresholds"]["index_conf"] == shipped_config["thresholds"]["index_conf"]
    assert "index_conf held" in config["threshold_choice"]["rule"]
    # The recipe says how each stage was made: the kept ones as the folder recorded them.
    for kept in ("detector", "card_view"):
        assert config["recipe"][kept] == shipped_config["recipe"][kept]
    # Same checkpoint, same detector, thresholds as chosen before: the same cards on the demo.
    shipped = CardReader(MODEL)
    exported = CardReader(
        model_dir,
        index_conf=shipped.config.index_conf,
        card_prob=shipped.config.card_prob,
        temperature=shipped.config.temperature,
    )
    for frame in latency_frames(4):
        ours = sorted(c.card.notation for c in exported.read(frame).cards)
        assert ours == sorted(c.card.notation for c in shipped.read(frame).cards)


@pytest.mark.skipif(not (MODEL / "checkpoints" / "card-view.pt").is_file(), reason="no checkpoints")
def test_a_card_view_only_export_keeps_both_stages_and_reads_with_the_new_view(
    tmp_path: Path,
) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("onnx")
    from scorekeeper.training.recipe import Recipe, export_model
    from scorekeeper.vision.reader import CardReader

    data = tmp_path / "data"
    assert main(["dataset", "build", "--out", str(data), "--images", "12", "--seed", "3",
                 "--workers", "1"]) == 0  # fmt: skip
    model_dir = tmp_path / "model"
    shutil.copytree(MODEL, model_dir)
    (model_dir / "card-view.onnx").unlink()
    run = tmp_path / "runs" / "card_view" / "run"
    run.mkdir(parents=True)
    shutil.copyfile(MODEL / "checkpoints" / "card-view.pt", run / "best.pt")
    classifier_bytes = (model_dir / "index-classifier-int8.onnx").read_bytes()

    export_model(Recipe(data=data, runs=tmp_path / "runs", model_dir=model_dir), log=lambda _: None)

    config = json.loads((model_dir / "reader.json").read_text())
    assert config["classifier"]["card_view"]["file"] == "card-view.onnx"
    assert config["classifier"]["card_view"]["weight"] in (0.5, 1.0)
    assert (model_dir / "index-classifier-int8.onnx").read_bytes() == classifier_bytes
    shipped_recipe = json.loads((MODEL / "reader.json").read_text())["recipe"]
    for kept in ("detector", "classifier"):
        assert config["recipe"][kept] == shipped_recipe[kept]
    assert config["recipe"]["card_view"] != shipped_recipe["card_view"]
    assert CardReader(model_dir).has_card_view
