"""Training steps in bfloat16 where this CPU does them faster, float32 otherwise."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from scorekeeper.training.precision import PrecisionError, check_precision, choose_precision


class StepClock:
    """A clock that only moves when a trial step runs: each takes its precision's seconds."""

    def __init__(self, fp32: float, bf16: float) -> None:
        self.now, self.seconds = 0.0, {False: fp32, True: bf16}
        self.steps: list[bool] = []

    def step(self, bf16: bool) -> None:
        self.steps.append(bf16)
        self.now += self.seconds[bf16]

    def __call__(self) -> float:
        return self.now


def test_auto_takes_bfloat16_where_its_steps_are_clearly_faster() -> None:
    clock = StepClock(fp32=0.60, bf16=0.23)
    choice = choose_precision("auto", lambda: clock.step, clock=clock)
    assert choice.precision == "bf16"
    assert choice.bf16_seconds == pytest.approx(0.23) and choice.fp32_seconds == pytest.approx(0.60)
    assert "bf16" in choice.describe() and "0.230 s" in choice.describe()


def test_auto_keeps_float32_where_bfloat16_is_emulated_or_barely_faster() -> None:
    for bf16_seconds in (1.5, 0.58):
        clock = StepClock(fp32=0.60, bf16=bf16_seconds)
        make_step = lambda step=clock.step: step  # bound now, in the loop
        assert choose_precision("auto", make_step, clock=clock).precision == "fp32"


def test_a_precision_asked_for_is_taken_without_trial_steps() -> None:
    clock = StepClock(fp32=0.60, bf16=0.23)
    assert choose_precision("fp32", lambda: clock.step, clock=clock).precision == "fp32"
    assert choose_precision("bf16", lambda: clock.step, clock=clock).precision == "bf16"
    assert clock.steps == []


def test_an_unknown_precision_is_named_with_the_known_ones() -> None:
    with pytest.raises(PrecisionError) as error:
        check_precision("fp16")
    message = str(error.value)
    assert "'fp16'" in message and "auto, fp32, bf16" in message and "\n" not in message


def stripes(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """96-px context crops of horizontal (class 0) or vertical (class 1) stripes."""
    labels = rng.integers(0, 2, n)
    crops = np.empty((n, 96, 96, 3), np.uint8)
    for k, label in enumerate(labels):
        period = int(rng.integers(6, 12))
        line = ((np.arange(96) // (period // 2)) % 2 * 200 + 30).astype(np.uint8)
        image = np.repeat(line[:, None], 96, axis=1) if label == 0 else np.repeat(line[None], 96, 0)
        crops[k] = image[:, :, None]
    return crops, labels.astype(np.int64)


@pytest.mark.parametrize("precision", ["bf16", "fp32"])
def test_a_classifier_trained_in_either_precision_learns_and_saves_float32_weights(
    tmp_path: Path, precision: str
) -> None:
    torch = pytest.importorskip("torch")
    from scorekeeper.training.classifier import (
        ClassifierRecipe,
        CropData,
        centre_crop,
        train_classifier,
    )

    rng = np.random.default_rng(0)
    train, train_labels = stripes(256, rng)
    val, val_labels = stripes(64, rng)
    recipe = ClassifierRecipe(
        epochs=1, batch=32, lr=3e-3, width=8, steps_per_epoch=40, precision=precision
    )
    data = CropData(
        context=train,
        context_labels=train_labels,
        fixed=np.zeros((0, recipe.size, recipe.size, 3), np.uint8),
        fixed_labels=np.zeros(0, np.int64),
        val=np.stack([centre_crop(c, margin=recipe.margin, size=recipe.size) for c in val]),
        val_labels=val_labels,
    )
    best = train_classifier(data, tmp_path, recipe, log=lambda _: None)
    record = json.loads((tmp_path / "log.jsonl").read_text().splitlines()[-1])
    assert record["precision"] == precision
    assert record["val_top1"] >= 0.9
    weights = torch.load(best, weights_only=False)["model"]
    assert all(t.dtype in (torch.float32, torch.int64) for t in weights.values())


@pytest.mark.slow
def test_the_detector_trains_in_bfloat16_on_a_cpu_and_leaves_ultralytics_as_it_was(
    tmp_path: Path,
) -> None:
    pytest.importorskip("torch")
    if importlib.util.find_spec("ultralytics") is None:
        pytest.skip("needs ultralytics (the train extra)")
    from scorekeeper.training.detector import DetectorRecipe, prepare_ultralytics, train_detector

    scenes = tmp_path / "scenes"
    done = subprocess.run(
        [sys.executable, "-m", "scorekeeper", "dataset", "build", "--out", str(scenes)]
        + ["--images", "8", "--seed", "3", "--quiet", "--workers", "1"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    prepare_ultralytics(tmp_path / "ultralytics")
    from ultralytics.engine import trainer

    helper = trainer.autocast
    data = tmp_path / "data.yaml"
    images = scenes / "images" / "train"
    data.write_text(f"train: {images}\nval: {images}\nnc: 1\nnames:\n  0: index\n")
    recipe = DetectorRecipe(epochs=1, batch=4, imgsz=160, precision="bf16")
    run = train_detector(data, tmp_path / "runs", "bf16", recipe)
    assert (run / "weights" / "last.pt").is_file()
    assert "amp: bf16" in (run / "args.yaml").read_text()
    assert trainer.autocast is helper


def test_trial_steps_run_both_ways_on_a_copy_and_leave_the_network_as_it_was() -> None:
    torch = pytest.importorskip("torch")
    from scorekeeper.training.classifier import build_network
    from scorekeeper.training.precision import scratch_step

    network = build_network(width=8)
    before = {k: v.clone() for k, v in network.state_dict().items()}
    losses: list[float] = []

    def loss_of(out):
        loss = torch.nn.functional.cross_entropy(out, torch.zeros(4, dtype=torch.long))
        losses.append(float(loss.detach()))
        return loss

    step = scratch_step(network, torch.rand(4, 3, 48, 48), loss_of, "cpu")
    step(False)
    step(True)
    assert len(losses) == 2 and all(np.isfinite(losses))
    assert all(torch.equal(before[k], v) for k, v in network.state_dict().items())
    assert all(p.grad is None for p in network.parameters())
