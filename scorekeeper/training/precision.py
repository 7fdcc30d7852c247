"""The number format a training step runs in: 32-bit floats, or bfloat16 where that is faster.

On a CPU with bfloat16 instructions (AVX512-BF16, AMX) the classifier's training step runs in
about half the time under ``torch.autocast`` (0.20 s against 0.40 s for a batch of 128 crops,
augmentation included, on 2 cores of an AMD EPYC), so a fine-tune with a time budget takes twice
the steps; where the CPU lacks them bfloat16 is emulated and slower. Which is faster is measured
on the machine itself, on a throwaway copy of the network, rather than guessed from CPU flags.
The weights, the optimiser and the loss stay in 32 bits either way: only the layers' arithmetic
is rounded.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from typing import Any

PRECISIONS = ("auto", "float32", "bfloat16")
"""``auto`` times a few steps of each and keeps the faster."""

FASTER_BY = 0.8
"""bfloat16 is chosen only if its step takes at most this share of a 32-bit one: the rounding is
not worth a few per cent."""

PROBE_STEPS = 3
"""Timed steps of each format (after one untimed step that pays the first allocations)."""


def check_precision(precision: str) -> str:
    if precision not in PRECISIONS:
        raise ValueError(f"training precision {precision!r} is not one of {', '.join(PRECISIONS)}")
    return precision


def choose_precision(
    precision: str,
    network: Callable[[], Any],
    batch_shape: tuple[int, ...],
    classes: int,
    device: Any,
) -> str:
    """``float32`` or ``bfloat16``: ``precision`` itself unless it is ``auto``, which times
    :data:`PROBE_STEPS` training steps of a fresh ``network()`` on random inputs of
    ``batch_shape`` in each format. Only CPUs are timed; elsewhere ``auto`` means ``float32``.
    Leaves torch's random state as it found it."""
    check_precision(precision)
    if precision != "auto":
        return precision
    if str(device).split(":")[0] != "cpu":
        return "float32"
    seconds = _time_formats(network, batch_shape, classes)
    return "bfloat16" if seconds["bfloat16"] <= FASTER_BY * seconds["float32"] else "float32"


def _time_formats(
    network: Callable[[], Any], batch_shape: tuple[int, ...], classes: int
) -> dict[str, float]:
    """Seconds a training step takes in each format, torch's random state left as it was."""
    import torch

    with torch.random.fork_rng(devices=[]):
        return {fmt: _step_seconds(fmt, network, batch_shape, classes) for fmt in PRECISIONS[1:]}


def _step_seconds(
    fmt: str, network: Callable[[], Any], batch_shape: tuple[int, ...], classes: int
) -> float:
    import torch

    try:
        model = network()
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
        x = torch.rand(batch_shape).contiguous(memory_format=torch.channels_last)
        y = torch.randint(0, classes, (batch_shape[0],))
        for step in range(PROBE_STEPS + 1):
            if step == 1:
                began = time.perf_counter()
            optimizer.zero_grad(set_to_none=True)
            with autocast(fmt, "cpu"):
                out = model(x)
            torch.nn.functional.cross_entropy(out.float(), y).backward()
            optimizer.step()
        return (time.perf_counter() - began) / PROBE_STEPS
    except RuntimeError:  # a torch build without bfloat16 kernels for this CPU
        return float("inf")


@contextlib.contextmanager
def autocast(precision: str, device_type: str) -> Iterator[None]:
    """The forward pass's context: torch's autocast to bfloat16, or nothing for ``float32``."""
    import torch

    if precision == "bfloat16":
        with torch.autocast(device_type, dtype=torch.bfloat16):
            yield
    else:
        yield
