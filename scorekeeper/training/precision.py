"""The arithmetic a training step runs in: float32, or bfloat16 where the CPU computes it faster.

A CPU with bfloat16 units (AVX512-BF16, AMX) runs the classifier's convolutions in bfloat16 about
2.5 times as fast as in float32; one without them emulates bfloat16 and is slower. Which one a
machine has is measured, not guessed from its flags: a few steps are timed each way on a scratch
copy of the network before training starts. The weights, the optimizer's state and the exported
model stay float32 either way; only the convolutions' products are rounded (``torch.autocast``).

Float32 is the default. The extra steps bfloat16 buys helped one deck's photos, but a deck
enrolled in bfloat16 was read worse in play (3 deals of 4 rebuilt against 4 of 4 in float32).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

PRECISIONS = ("auto", "fp32", "bf16")
"""``auto``: bfloat16 where its trial steps are clearly faster here, float32 otherwise."""
BF16_SHARE = 0.85
"""bfloat16 is taken when its steps take at most this share of float32's: a near tie is not worth
the rounding."""
TRIAL_STEPS = 2
"""Timed steps each way, after one untimed step that pays the first allocations."""


class PrecisionError(ValueError):
    """A precision that is not one of :data:`PRECISIONS`."""


@dataclass(frozen=True)
class PrecisionChoice:
    precision: str
    """``fp32`` or ``bf16``: what the training steps run in."""
    fp32_seconds: float | None = None
    """Seconds per trial step in float32 (None: nothing was timed, the precision was asked for)."""
    bf16_seconds: float | None = None

    def describe(self) -> str:
        if self.fp32_seconds is None or self.bf16_seconds is None:
            return f"steps in {self.precision} (asked for)"
        return (
            f"steps in {self.precision} (trial steps: {self.bf16_seconds:.3f} s in bf16, "
            f"{self.fp32_seconds:.3f} s in fp32)"
        )


def check_precision(precision: str) -> str:
    if precision not in PRECISIONS:
        raise PrecisionError(
            f"precision {precision!r} is not one of {', '.join(PRECISIONS)}: pick one of them"
        )
    return precision


def choose_precision(
    asked: str,
    make_trial_step: Callable[[], Callable[[bool], object]],
    *,
    clock: Callable[[], float] = time.perf_counter,
) -> PrecisionChoice:
    """``asked`` as it is, or for ``auto`` the faster of the two on the step ``make_trial_step()``
    returns (``step(bf16)``: one training step, in bfloat16 when told; see :func:`scratch_step`),
    made only when there is something to time."""
    if check_precision(asked) != "auto":
        return PrecisionChoice(asked)
    trial_step = make_trial_step()
    seconds = {}
    for bf16 in (False, True):
        trial_step(bf16)
        began = clock()
        for _ in range(TRIAL_STEPS):
            trial_step(bf16)
        seconds[bf16] = (clock() - began) / TRIAL_STEPS
    faster = seconds[True] <= BF16_SHARE * seconds[False]
    return PrecisionChoice("bf16" if faster else "fp32", seconds[False], seconds[True])


def scratch_step(
    network: Any, inputs: Any, loss_of: Callable[[Any], Any], device_type: str
) -> Callable[[bool], None]:
    """``step(bf16)``: forward and back through a scratch copy of ``network`` on ``inputs`` (its
    own weights untouched), the loss ``loss_of(outputs)``, in bfloat16 when told."""
    import copy

    scratch = copy.deepcopy(network).float().train()
    for parameter in scratch.parameters():
        parameter.requires_grad_(True)

    def step(bf16: bool) -> None:
        scratch.zero_grad(set_to_none=True)
        with autocast("bf16" if bf16 else "fp32", device_type):
            loss = loss_of(scratch(inputs))
        loss.backward()

    return step


def autocast(precision: str, device_type: str) -> Any:
    """The context a training step's forward pass runs in."""
    if precision == "bf16":
        import torch

        return torch.autocast(device_type, dtype=torch.bfloat16)
    return contextlib.nullcontext()
