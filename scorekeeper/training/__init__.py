"""Building the card reader's models (``scorekeeper train``). Needs the ``train`` extra.

Only ``train`` and ``enrol`` import the modules that need torch; nothing on the run-time path does,
so torch and ultralytics stay out of ``detect``, ``track`` and ``serve``. (:mod:`.jobs` reads an
enrolment's progress file and needs nothing extra: ``models`` uses it.)
"""

from __future__ import annotations

from scorekeeper.errors import ScorekeeperError


class TrainingSetupError(ScorekeeperError):
    """The training extra is missing or the training data is not usable."""


def require_training_extra() -> None:
    """Raise a one-line error unless torch and ultralytics import."""
    import importlib.util

    missing = [m for m in ("torch", "ultralytics", "onnx") if importlib.util.find_spec(m) is None]
    if missing:
        raise TrainingSetupError(
            f"training needs {', '.join(missing)}: install the train extra with "
            "`pip install -e '.[train]'` (in a separate venv; the run-time does not need it)"
        )
