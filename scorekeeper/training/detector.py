"""Stage 1: a one-class YOLO (ultralytics, from a model YAML) that finds corner indices.

Nothing pretrained can be downloaded, so the network starts from ``yolo11n.yaml`` or from our own
checkpoint. The optimizer and its rate are set explicitly (``optimizer=auto`` picks a rate too low
to learn from scratch) and scale augmentation is wide, since indices span ~10-120 px in the scenes.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from scorekeeper.training.precision import choose_precision, scratch_step

FONT_CANDIDATES = (
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
)


def prepare_ultralytics(config_dir: Path) -> None:
    """Offline-safe settings; must run before ``import ultralytics``.

    ultralytics looks for ``Arial.ttf`` (and downloads it when missing, which hangs offline); a
    local font copied under that name stops the download.
    """
    os.environ.setdefault("YOLO_OFFLINE", "1")
    os.environ.setdefault("YOLO_AUTOINSTALL", "false")
    os.environ["YOLO_CONFIG_DIR"] = str(config_dir)
    font_dir = config_dir / "Ultralytics"
    font_dir.mkdir(parents=True, exist_ok=True)
    source = next((Path(p) for p in FONT_CANDIDATES if Path(p).is_file()), None)
    if source is None:
        try:
            import matplotlib

            candidate = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"
            source = candidate if candidate.is_file() else None
        except ImportError:
            source = None
    for name in ("Arial.ttf", "Arial.Unicode.ttf"):
        target = font_dir / name
        if source is not None and not target.exists():
            shutil.copyfile(source, target)


@dataclass
class DetectorRecipe:
    model: str = "yolo11n.yaml"
    imgsz: int = 320
    epochs: int = 10
    batch: int = 16
    optimizer: str = "AdamW"
    lr0: float = 1.5e-3
    scale: float = 0.6
    """Random zoom of +-60%: indices of 10-120 px in 640-px scenes become ~2-100 px at imgsz 320."""
    mosaic: float = 1.0
    close_mosaic: int = 2
    degrees: float = 10.0
    fliplr: float = 0.0
    """No mirror images: a mirrored index is not a printed index."""
    hsv_h: float = 0.01
    warmup_epochs: float = 3.0
    warmup_bias_lr: float = 0.0
    """ultralytics' default (0.1) is meant for SGD; with AdamW at lr0 ~1e-3 it would move the biases
    ~70x faster than the weights for the whole warm-up. (Not measured on its own: it changed
    together with ``pretrained``, whose absence was what wrecked the first resumed runs.)"""
    patience: int = 100
    device: str = "cpu"
    workers: int = 0
    seed: int = 0
    time: float | None = None
    """Hours: when set, ultralytics fits the epochs (and the learning-rate schedule) to it."""
    precision: str = "fp32"
    """What a CPU's steps compute in (:mod:`scorekeeper.training.precision`); on a GPU
    ultralytics' own mixed precision is used."""


def train_detector(
    data_yaml: Path,
    project: Path,
    name: str,
    recipe: DetectorRecipe,
    *,
    init: Path | None = None,
    resume: bool = False,
) -> Path:
    """Train (or resume) the index detector; returns the run folder (weights in ``weights/``)."""
    from ultralytics import YOLO

    run_dir = project / name
    last = run_dir / "weights" / "last.pt"
    if resume and last.is_file():
        model = YOLO(str(last))
        with _bfloat16_on_cpu():  # a run that started in bfloat16 goes on in it
            model.train(resume=True)
        return run_dir
    # From our own checkpoint (its one-class head included) or from the architecture YAML.
    model = YOLO(str(init)) if init is not None else YOLO(recipe.model)
    settings: dict[str, Any] = asdict(recipe)
    settings.pop("model")
    amp: bool | str = recipe.device != "cpu"
    if recipe.device == "cpu":
        choice = choose_precision(settings["precision"], lambda: _trial_step(model.model, recipe))
        print(f"detector: {choice.describe()}")
        amp = "bf16" if choice.precision == "bf16" else False
    settings.pop("precision")
    with _bfloat16_on_cpu():
        model.train(
            data=str(data_yaml),
            project=str(project),
            name=name,
            exist_ok=True,
            single_cls=True,
            save_period=1,
            plots=False,
            amp=amp,
            # With pretrained=False ultralytics builds the network afresh from the YAML and drops
            # the checkpoint's weights, so a "resumed" run would silently start from scratch.
            pretrained=init is not None,
            verbose=False,
            **settings,
        )
    return run_dir


def _trial_step(network: Any, recipe: DetectorRecipe) -> Callable[[bool], None]:
    """A detector step on a random batch, its loss standing in for the detector's (the same
    convolutions, forward and back): for timing the two precisions."""
    import torch

    images = torch.rand(recipe.batch, 3, recipe.imgsz, recipe.imgsz)
    return scratch_step(
        network, images, lambda out: sum(t.float().square().mean() for t in _tensors(out)), "cpu"
    )


def _tensors(outputs: Any) -> Iterator[Any]:
    import torch

    if torch.is_tensor(outputs):
        yield outputs
    elif isinstance(outputs, dict):
        for value in outputs.values():
            yield from _tensors(value)
    elif isinstance(outputs, (list, tuple)):
        for value in outputs:
            yield from _tensors(value)


@contextlib.contextmanager
def _bfloat16_on_cpu() -> Iterator[None]:
    """ultralytics' trainer takes ``amp="bf16"``, but its autocast helper refuses bfloat16 off
    CUDA; for the run, the trainer's helper gives torch's CPU autocast in that one case."""
    import torch
    from ultralytics.engine import trainer

    helper = trainer.autocast

    def cpu_aware(enabled: Any, device: str = "cuda") -> Any:
        if enabled is torch.bfloat16 and device == "cpu":
            return torch.autocast("cpu", dtype=torch.bfloat16)
        return helper(enabled, device)

    trainer.autocast = cpu_aware
    try:
        yield
    finally:
        trainer.autocast = helper


def export_detector(weights: Path, onnx_path: Path, *, imgsz: int = 320) -> Path:
    """ONNX with dynamic input size (the reader picks the size per camera), simplified when
    ``onnxslim`` is installed (the same graph either way; ultralytics cannot fetch it offline)."""
    import importlib.util
    import warnings

    from ultralytics import YOLO

    model = YOLO(str(weights))
    simplify = importlib.util.find_spec("onnxslim") is not None
    with warnings.catch_warnings():
        # ultralytics picks torch's TorchScript exporter; its deprecation notice is about that
        # choice, not about anything a user can fix (as in export_classifier).
        warnings.simplefilter("ignore", DeprecationWarning)
        exported = Path(
            model.export(
                format="onnx", imgsz=imgsz, dynamic=True, simplify=simplify, opset=17, device="cpu"
            )
        )
    onnx_path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(exported, onnx_path)
    return onnx_path


def strip_checkpoint(weights: Path, target: Path) -> Path:
    """A small copy of an ultralytics checkpoint (half precision, no optimizer) to commit."""
    from ultralytics.utils.torch_utils import strip_optimizer

    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(weights, target)
    strip_optimizer(str(target))
    return target
