"""Every test runs with its own empty scorekeeper home, so a developer's enrolled decks and chosen
model never change what a test sees, and no test writes into the real one."""

import pytest


@pytest.fixture(autouse=True)
def _isolated_scorekeeper_home(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("SCOREKEEPER_HOME", str(tmp_path_factory.mktemp("scorekeeper-home")))
