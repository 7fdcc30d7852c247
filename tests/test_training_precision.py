"""The training step's number format: bfloat16 only where it is measured faster, and a classifier
trained in it learns and keeps 32-bit weights."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from scorekeeper.training import precision
from scorekeeper.training.precision import check_precision, choose_precision


def test_an_unknown_training_precision_is_refused_with_the_ones_there_are() -> None:
    with pytest.raises(ValueError, match="'float16' is not one of auto, float32, bfloat16"):
        check_precision("float16")


@pytest.mark.parametrize(
    ("float32_s", "bfloat16_s", "chosen"),
    [(0.53, 0.23, "bfloat16"), (0.50, 0.45, "float32"), (0.50, 1.90, "float32")],
)
def test_auto_takes_bfloat16_only_where_its_step_is_clearly_faster(
    monkeypatch: pytest.MonkeyPatch, float32_s: float, bfloat16_s: float, chosen: str
) -> None:
    measured = {"float32": float32_s, "bfloat16": bfloat16_s}
    monkeypatch.setattr(precision, "_time_formats", lambda *args: measured)
    assert choose_precision("auto", lambda: None, (8, 3, 48, 48), 41, "cpu") == chosen


def test_a_named_precision_is_used_as_given_without_timing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def timed(*args: object) -> dict[str, float]:
        raise AssertionError("a precision given by name is not timed")

    monkeypatch.setattr(precision, "_time_formats", timed)
    assert choose_precision("float32", lambda: None, (8, 3, 48, 48), 41, "cpu") == "float32"
    assert choose_precision("bfloat16", lambda: None, (8, 3, 48, 48), 41, "cpu") == "bfloat16"


def test_timing_the_formats_leaves_the_training_random_stream_as_it_was() -> None:
    torch = pytest.importorskip("torch")
    from scorekeeper.training.classifier import build_network

    torch.manual_seed(7)
    expected = torch.rand(4)
    torch.manual_seed(7)
    chosen = choose_precision("auto", lambda: build_network(width=8), (4, 3, 48, 48), 41, "cpu")
    assert chosen in {"float32", "bfloat16"}
    assert torch.equal(torch.rand(4), expected)


def test_a_classifier_trained_in_bfloat16_learns_its_cards_and_keeps_float32_weights(
    tmp_path: Path,
) -> None:
    torch = pytest.importorskip("torch")
    from scorekeeper.training.classifier import ClassifierRecipe, CropData, train_classifier
    from scorekeeper.vision.reader import CLASSIFIER_CLASSES

    # Two looks a network tells apart in a few steps: dark crops are AH, light ones not_a_card.
    rng = np.random.default_rng(0)
    dark = rng.integers(0, 60, (64, 48, 48, 3), dtype=np.uint8)
    light = rng.integers(190, 255, (64, 48, 48, 3), dtype=np.uint8)
    crops = np.concatenate([dark, light])
    labels = np.array([0] * 64 + [len(CLASSIFIER_CLASSES) - 1] * 64)
    data = CropData(
        context=np.zeros((0, 96, 96, 3), np.uint8),
        context_labels=np.zeros((0,), np.int64),
        fixed=crops,
        fixed_labels=labels,
        val=crops,
        val_labels=labels,
    )
    recipe = ClassifierRecipe(
        epochs=1, batch=16, steps_per_epoch=40, width=8, lr=3e-3, precision="bfloat16"
    )
    best = train_classifier(data, tmp_path, recipe, log=lambda line: None)

    record = json.loads((tmp_path / "log.jsonl").read_text().splitlines()[-1])
    assert record["precision"] == "bfloat16"
    assert record["val_top1"] >= 0.95
    weights = torch.load(best, weights_only=False)["model"]
    assert {tensor.dtype for tensor in weights.values()} <= {torch.float32, torch.int64}
