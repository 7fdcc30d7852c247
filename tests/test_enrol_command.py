"""``scorekeeper enrol`` end to end: a face-pack folder saved as a deck, the missing train extra,
and (with torch) a short adaptation of both stages that installs a model and only makes it the
default if better (the one real fine-tune of the suite)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from scorekeeper.cli import main
from scorekeeper.paths import decks_dir, user_models_dir
from scorekeeper.rules.cards import DECK
from scorekeeper.synth.faces import FaceStyle, ProceduralPack, pack_file_name
from scorekeeper.vision.reader import CardReader
from scorekeeper.vision.registry import DEFAULT_MODEL, active_model_name, installed_models
from tests.images import read_image


def _face_pack(folder: Path, seed: int = 3) -> Path:
    pack = ProceduralPack(FaceStyle.random(np.random.default_rng(seed)))
    folder.mkdir(parents=True)
    for card in DECK:
        cv2.imwrite(str(folder / f"{pack_file_name(card)}.png"), pack.face(card).image)
    return folder


def test_a_face_pack_folder_becomes_a_deck_without_reading_anything(tmp_path, capsys) -> None:
    source = _face_pack(tmp_path / "my-deck")
    assert main(["enrol", "--source", str(source), "--name", "cafe", "--no-adapt", "--json"]) == 0
    outcome = json.loads(capsys.readouterr().out)
    saved = decks_dir() / "cafe"
    assert outcome == {"deck": str(saved), "adapted": False}
    assert sorted(p.name for p in saved.iterdir()) == sorted(
        f"{pack_file_name(c)}.png" for c in DECK
    )


def test_a_pack_missing_cards_is_named_in_one_line(tmp_path, capsys) -> None:
    source = _face_pack(tmp_path / "short")
    for name in ("5h.png", "Kc.png"):
        (source / name).unlink()
    assert (
        main(["enrol", "--source", str(source), "--name", "cafe", "--no-adapt", "--accept-guesses"])
        == 2
    )
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert error.startswith("scorekeeper enrol:")
    assert not (decks_dir() / "cafe").exists()


def test_without_the_train_extra_the_deck_is_kept_and_the_next_step_named(
    tmp_path, capsys, monkeypatch
) -> None:
    from scorekeeper import training

    def missing() -> None:
        raise training.TrainingSetupError("training needs torch: install the train extra")

    monkeypatch.setattr(training, "require_training_extra", missing)
    source = _face_pack(tmp_path / "deck")
    assert main(["enrol", "--source", str(source), "--name", "cafe"]) == 2
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert "deck saved at" in error and "train extra" in error and "--name cafe" in error
    assert (decks_dir() / "cafe" / "Ah.png").is_file()
    assert active_model_name() == DEFAULT_MODEL


@pytest.mark.slow
def test_a_short_adaptation_installs_a_model_and_records_its_figures(tmp_path, capsys) -> None:
    pytest.importorskip("torch")
    # Not imported here: its first import on a machine announces its settings file on stdout,
    # which `enrol --json` keeps clean only for the imports it makes itself.
    if importlib.util.find_spec("ultralytics") is None:
        pytest.skip("needs ultralytics (the train extra)")
    source = _face_pack(tmp_path / "deck", seed=8)
    assert (
        main(
            [
                "enrol",
                "--source",
                str(source),
                "--name",
                "cafe",
                "--scenes",
                "12",
                "--heldback",
                "10",
                "--heldback-deals",
                "0",
                "--photos",
                "2",
                "--minutes",
                "0.1",
                "--detector",
                "on",
                "--precision",
                "bf16",
                "--json",
            ]
        )
        == 0
    )
    outcome = json.loads(capsys.readouterr().out)
    model = user_models_dir() / "cafe"
    assert outcome["model"] == str(model) and (model / "index-classifier-int8.onnx").is_file()
    record = json.loads((model / "enrol.json").read_text())
    # Thresholds chosen on one half of the held-back scenes, every model judged on the other half.
    assert record["calibration_images"] == 5 and record["judged_images"] == 5
    for figures in (record["before"], record["after"], *record["candidates"].values()):
        assert 0.0 <= figures["card_precision"] <= 1.0 and figures["images"] == 5
    # Both stages were fine-tuned within the budget, the classifier's steps fitted to it in the run.
    assert set(record["candidates"]) == {"thresholds", "classifier", "classifier+detector"}
    assert record["detector"]["fine_tuned"] and record["steps"]["classifier"]["steps"] >= 1
    assert record["steps"]["detector"]["epochs"] >= 1
    # The classifier also learned the indices as the shipped detector frames them in the scenes.
    assert record["steps"]["classifier"]["detector_framed_crops"] > 0
    # Each stage computed its steps in the precision asked for, and says so.
    assert record["steps"]["classifier"]["precision"] == "bf16"
    assert record["steps"]["detector"]["precision"] == "bf16"
    assert record["learned_from"] == {"deck": "cafe", "deal_ids": [], "deals": 0}
    # The kept model's photo threshold was chosen on the deck's phone photos, read as photos.
    photos = record["photo_threshold"]
    assert photos["on"] == "2 rendered phone photos of the deck's fanned hands"
    config = CardReader(model).config
    assert photos["rows"][0]["card_prob"] == config.card_prob
    chosen = photos["photo_card_prob"]
    assert config.photo_card_prob == (chosen if chosen < config.card_prob else None)
    assert [m.name for m in installed_models()] == [DEFAULT_MODEL, "cafe"]
    # Made the default exactly when it measured better; the shipped model stays either way.
    assert (active_model_name() == "cafe") == outcome["active"]


def test_json_output_moves_only_ultralytics_console_log_off_stdout() -> None:
    """``--json`` needs a clean stdout, so ultralytics' console log goes to stderr; a handler
    someone else attached to ultralytics (a log collector, a test runner's capture) keeps its
    stream and its lines."""
    pytest.importorskip("ultralytics")
    import io
    import logging
    import sys

    from ultralytics.utils import LOGGER

    from scorekeeper.training.adapt import log_to_stderr

    class Collector(logging.StreamHandler):
        pass

    console = next(h for h in LOGGER.handlers if type(h) is logging.StreamHandler)
    collected = io.StringIO()
    collector = Collector(collected)
    LOGGER.addHandler(collector)
    try:
        log_to_stderr()
        LOGGER.info("epoch 1/4")
    finally:
        LOGGER.removeHandler(collector)
    assert console.stream is sys.stderr
    assert collector.stream is collected and "epoch 1/4" in collected.getvalue()


def test_json_output_stays_clean_on_a_machine_where_ultralytics_never_ran(tmp_path) -> None:
    # Its first import creates its settings file and announces it: not on stdout, before the JSON.
    pytest.importorskip("ultralytics")
    import os
    import subprocess
    import sys

    script = (
        "from scorekeeper.training.adapt import log_to_stderr\n"
        "log_to_stderr()\n"
        "from ultralytics.utils import LOGGER\n"
        "LOGGER.info('epoch 1/4')\n"
        "print('{}')\n"
    )
    env = {**os.environ, "YOLO_CONFIG_DIR": str(tmp_path), "YOLO_OFFLINE": "1"}
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
    )
    assert done.stdout == "{}\n"
    assert "Settings" in done.stderr and "epoch 1/4" in done.stderr


def test_background_enrolment_is_listed_under_the_child_process(
    tmp_path, capsys, monkeypatch
) -> None:
    import subprocess

    from scorekeeper import training
    from scorekeeper.training.jobs import running_jobs

    started: list[list[str]] = []

    class Child:
        pid = 4_194_000 + 321  # above the default pid_max: a child that has already gone

    def popen(command, **_options):
        started.append(command)
        return Child()

    monkeypatch.setattr(training, "require_training_extra", lambda: None)
    monkeypatch.setattr(subprocess, "Popen", popen)
    source = _face_pack(tmp_path / "deck")
    assert (
        main(
            ["enrol", "--source", str(source), "--name", "cafe", "--background", "--minutes", "3"]
            + ["--precision", "bf16"]
        )
        == 0
    )
    assert "in the background" in capsys.readouterr().out
    [command] = started
    assert command[:3] == ["nice", "-n", "10"] and "--minutes" in command and "3.0" in command
    assert command[command.index("--precision") + 1] == "bf16"
    [job] = running_jobs()
    # The job belongs to the child, not to the command that started it: once the child is gone it
    # shows as stopped instead of running forever.
    assert job["pid"] == Child.pid and job["stage"] == "stopped during starting"


def test_enrolment_judges_and_calibrates_on_a_dealt_game_as_well_as_still_scenes(
    tmp_path, monkeypatch
) -> None:
    from scorekeeper.training import adapt as adaptation

    taught = {}

    def fake_adaptation(job, teaching, **_):
        taught["teaching"] = teaching
        return SimpleNamespace(minutes={})

    monkeypatch.setattr(adaptation, "run_adaptation", fake_adaptation)
    plan = adaptation.AdaptPlan(
        deck=_face_pack(tmp_path / "deck"),
        name="cafe",
        base=tmp_path / "base",
        scenes=10,
        heldback=10,
        heldback_deal_every=40,
        photos=2,
    )
    adaptation.adapt(plan, log=lambda _: None)

    teaching = taught["teaching"]
    assert teaching.judged_on == "held-back scenes and a rendered deal of the deck"
    dealt = [image for image in teaching.judged if "heldback-deals" in str(image.path)]
    assert len(dealt) >= 4 and len(teaching.judged) == 10 + len(dealt)
    # The deal's frames show the game's cards, labelled where their indices show.
    shown = {int(label) for image in dealt for label in image.classes}
    assert len(shown) >= 10 and max(shown) < len(DECK)
    # Thresholds are chosen on one half and the models judged on the other: both see the game.
    for half in adaptation.split_judged(teaching.judged):
        assert any("heldback-deals" in str(image.path) for image in half)
    # Phone photos of the deck's hands, fanned on the table, choose the photo threshold: 2560 px
    # wide, several cards showing only their index, none of them judged or taught.
    assert len(teaching.photos) == 2
    for photo in teaching.photos:
        assert read_image(photo.path).shape[1] == 2560
        assert len(photo.cards()) >= 6
        heights = photo.boxes[:, 3] - photo.boxes[:, 1]
        assert 20 <= float(np.median(heights)) <= 70
    judged_or_taught = {image.path for image in teaching.judged}
    assert not judged_or_taught & {photo.path for photo in teaching.photos}
