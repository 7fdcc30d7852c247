"""Every JSON the program shows the outside stays byte for byte what the golden files hold.

The outputs (``replay --json`` on the examples, the variants and the demo record, under every
preset; the page's state for those records and for a table's evening of writes) are made by
:mod:`tests.golden.outputs`, which says how to regenerate the files when an output is meant to
change: ``PYTHONPATH=$PWD python -m tests.golden.outputs --write``.
"""

from __future__ import annotations

import pytest

from tests.golden.outputs import golden, outputs

GOLDEN = golden()


@pytest.fixture(scope="module")
def made() -> dict[str, str]:
    return outputs()


def test_the_same_outputs_are_made(made: dict[str, str]) -> None:
    assert sorted(made) == sorted(GOLDEN)


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_each_output_is_byte_identical(made: dict[str, str], name: str) -> None:
    assert made[name] == GOLDEN[name], f"{name} changed: see tests/golden/outputs.py"
