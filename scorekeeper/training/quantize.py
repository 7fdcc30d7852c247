"""The index classifier in 8-bit integers, as the reader runs it.

The classifier reads every view of every index a frame shows (four views of ~6 indices on a
played table), and in 32-bit floats that was a third of a 1280x720 frame's time on two cores.
onnxruntime's static quantization (weights per channel and activations in 8 bits, their ranges
measured on a bank of crops) made it ~2.3x faster on a CPU with 8-bit dot-product instructions
(VNNI); on one without them (AVX2 only) it runs at ~0.9x the float network's speed, and it
names real corners as the float network does on both (model card: the figures).

The calibration bank is a few hundred of the training set's own crops (rendered scenes, cards
and ``not_a_card`` alike), stored in the model folder (:data:`CALIBRATION_BANK`) so that a
classifier fine-tuned later (enrolment, learning) is quantized against the same ranges' source
without the training data at hand.

The first convolution stays in floats. It multiplies 8-bit pixels (up to 255) by 8-bit weights,
and a CPU without VNNI adds such products in pairs into 16 bits, which overflow and saturate:
quantized, that layer changed the card named for 22% of the bank's own crops on such a CPU and
took a third of the reads the float network is 0.95 sure of below 0.95; kept in floats (its share
of the work is small), the network names 98% of them as the float one does. 7-bit weights
(``reduce_range``) mend it as well (97.7%) at the cost of a bit in every layer.

The detector stays in floats: in 8 bits it lost 2-4 points of card recall on real webcam frames
for a gain lost in the noise of a frame's time.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from scorekeeper.training import TrainingSetupError

CALIBRATION_BANK = "calibration-crops.npz"
"""The model folder's calibration crops (``crops``: N x size x size x 3, BGR uint8)."""
BANK_SIZE = 512
CROP_SUFFIXES = (".png", ".jpg", ".jpeg")


def write_calibration_bank(
    crop_set: Path, model_dir: Path, *, size: int, count: int = BANK_SIZE, seed: int = 0
) -> Path:
    """Store ``count`` crops drawn at random from a folder crop set (``train/<class>/``) in the
    model folder."""
    import cv2

    paths = sorted(p for p in (crop_set / "train").glob("*/*") if p.suffix.lower() in CROP_SUFFIXES)
    if not paths:
        raise TrainingSetupError(
            f"no crops under {crop_set / 'train'} to calibrate the 8-bit classifier on: "
            "build the data set with `scorekeeper dataset build --crops`"
        )
    chosen = np.random.default_rng(seed).permutation(len(paths))[:count]
    crops = []
    for index in sorted(chosen):
        image = cv2.imread(str(paths[index]))
        if image is not None:
            crops.append(cv2.resize(image, (size, size), interpolation=cv2.INTER_AREA))
    out = model_dir / CALIBRATION_BANK
    np.savez_compressed(out, crops=np.stack(crops))
    return out


def read_calibration_bank(model_dir: Path) -> np.ndarray:
    path = model_dir / CALIBRATION_BANK
    try:
        with np.load(path) as data:
            crops: np.ndarray = data["crops"]
    except (OSError, KeyError, ValueError) as error:
        raise TrainingSetupError(
            f"the model's calibration crops {path} are missing or unreadable ({error}): "
            "restore the model folder from git or run `scorekeeper train`"
        ) from None
    return crops


def quantize_classifier(float_onnx: Path, out: Path, crops_bgr: np.ndarray) -> Path:
    """Write the 8-bit classifier to ``out``, its activation ranges measured on ``crops_bgr``."""
    from onnxruntime.quantization import (
        CalibrationDataReader,
        QuantFormat,
        QuantType,
        quantize_static,
    )
    from onnxruntime.quantization.shape_inference import quant_pre_process

    from scorekeeper.vision.reader import network_input

    batches = [network_input(crops_bgr[i : i + 64]) for i in range(0, len(crops_bgr), 64)]

    class Bank(CalibrationDataReader):  # type: ignore[misc]
        def __init__(self, input_name: str) -> None:
            self._feeds = iter([{input_name: batch} for batch in batches])

        def get_next(self) -> dict[str, Any] | None:
            return next(self._feeds, None)

    with tempfile.TemporaryDirectory(prefix="quantize-") as scratch:
        prepared = Path(scratch) / "prepared.onnx"
        quant_pre_process(str(float_onnx), str(prepared), skip_symbolic_shape=True)
        import onnx

        graph = onnx.load(str(prepared)).graph
        input_name = graph.input[0].name
        first_convolution = [node.name for node in graph.node if input_name in node.input]
        staged = Path(scratch) / "int8.onnx"
        quantize_static(
            str(prepared),
            str(staged),
            Bank(input_name),
            quant_format=QuantFormat.QDQ,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
            per_channel=True,
            nodes_to_exclude=first_convolution,
        )
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(staged), out)
    return out


def install_classifier_onnx(
    float_onnx: Path, model_dir: Path, classifier_config: dict[str, Any]
) -> Path:
    """Put an exported classifier where ``reader.json`` says the reader finds it: as it is, or
    quantized against the folder's bank when the config asks for ``"int8": true``."""
    target = model_dir / str(classifier_config["file"])
    if classifier_config.get("int8"):
        return quantize_classifier(float_onnx, target, read_calibration_bank(model_dir))
    shutil.copyfile(float_onnx, target)
    return target
