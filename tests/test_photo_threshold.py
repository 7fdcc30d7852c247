"""The photo threshold an adapted model carries: chosen on photos of its deck read as photos, the
most recall at the floor, and never outliving the classifier it was chosen for."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from scorekeeper.training import thresholds
from scorekeeper.training.thresholds import choose_photo_card_prob
from scorekeeper.vision import evaluate
from scorekeeper.vision.reader import CardReader
from tests.shipped_model import shipped_model_with


def _model(tmp_path: Path, card_prob: float) -> Path:
    return shipped_model_with(tmp_path, "thresholds", "card_prob", card_prob)


def _labelled_scenes(
    folder: Path, *, images: int, width: int = 960
) -> list[evaluate.LabelledImage]:
    import cv2
    import numpy as np

    from scorekeeper.synth.faces import FaceStyle, ProceduralPack
    from scorekeeper.synth.scene import SceneConfig, compose_scene

    pack = ProceduralPack(FaceStyle.random(np.random.default_rng(3)))
    config = SceneConfig(index_px=(20.0, 40.0), tilt=(0.0, 10.0), face_up=(6, 8))
    scenes = []
    for seed in range(images):
        scene = compose_scene(
            np.random.default_rng(seed),
            pack=pack,
            distractor_pack=pack,
            width=width,
            height=width * 9 // 16,
            output_scale=1.0,
            config=config,
        )
        path = folder / f"scene-{seed}.jpg"
        cv2.imwrite(str(path), scene.image)
        scenes.append(
            evaluate.LabelledImage(
                path=path,
                boxes=np.array([label.box for label in scene.labels], np.float32).reshape(-1, 4),
                classes=np.array([label.class_id for label in scene.labels]),
            )
        )
    return scenes


def _photos_read_as(
    monkeypatch: pytest.MonkeyPatch,
    precision_by_card_prob: dict[float, float],
    *,
    right: int = 800,
) -> list[float]:
    """Every photo reading names ``right`` cards right, and wrong ones for the precision listed
    for its card_prob (recall rises as the probability falls); the card_probs read, in order."""
    read: list[float] = []

    def read_at(model_dir: Path, photos: Any, searched: Any, card_prob: float) -> dict[str, Any]:
        assert searched == {"photo": "its boxes"}, "every reading shares the one search"
        read.append(card_prob)
        precision = precision_by_card_prob[card_prob]
        return {
            "images": 40,
            "card_precision": precision,
            "card_recall": round(1.5 - card_prob, 3),
            "tp": right,
            "fp": round(right * (1 / precision - 1)),
            "fn": 100,
        }

    monkeypatch.setattr(thresholds, "search_photos", lambda model, photos: {"photo": "its boxes"})
    monkeypatch.setattr(thresholds, "read_photos_at", read_at)
    return read


def test_photos_read_from_one_search_name_the_cards_a_whole_reading_does(tmp_path: Path) -> None:
    model = _model(tmp_path, card_prob=0.9)
    photos = _labelled_scenes(tmp_path, images=3, width=2560)
    searched = thresholds.search_photos(model, photos)
    for card_prob in (0.9, 0.5):
        whole = evaluate.measure_cards(
            CardReader(model, photo=True, card_prob=card_prob), evaluate.labelled_truth(photos)
        )
        shared = thresholds.read_photos_at(model, photos, searched, card_prob)
        figures = thresholds.PHOTO_ROW_FIGURES
        assert {k: shared[k] for k in figures} == {k: whole[k] for k in figures}
        assert shared["tp"] > 0


def test_photos_take_the_lowest_probability_still_at_the_floor_and_no_lower_one_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = _model(tmp_path, card_prob=0.9)
    read = _photos_read_as(
        monkeypatch, {0.9: 0.995, 0.85: 0.992, 0.8: 0.988, 0.75: 0.984, 0.7: 0.974, 0.65: 0.96}
    )
    choice = choose_photo_card_prob(
        model, ["photo"], on="test photos", min_precision=0.97, confidence=0.95
    )
    assert choice["photo_card_prob"] == 0.75
    # 0.7 falls under the floor: nothing lower is read (each reading costs every photo again).
    assert read == [0.9, 0.85, 0.8, 0.75, 0.7]
    assert [row["card_prob"] for row in choice["rows"]] == read
    reader = CardReader(model)
    assert reader.config.photo_card_prob == 0.75 and reader.config.card_prob == 0.9
    assert json.loads((model / "reader.json").read_text())["photo_threshold_choice"] == choice


def test_on_few_cards_a_photo_threshold_must_pass_the_floor_by_more_than_chance(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = _model(tmp_path, card_prob=0.9)
    # 0.984 on 80 cards is one or two false ones: over 0.97 by luck as likely as not.
    _photos_read_as(monkeypatch, {0.9: 0.991, 0.85: 0.988, 0.8: 0.984}, right=80)
    choose_photo_card_prob(model, ["photo"], on="test photos", min_precision=0.97, confidence=0.95)
    assert CardReader(model).config.photo_card_prob is None


def test_where_no_lower_probability_keeps_the_floor_photos_are_read_at_the_models_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = _model(tmp_path, card_prob=0.8)
    _photos_read_as(monkeypatch, {0.8: 0.99, 0.75: 0.97})
    choose_photo_card_prob(model, ["photo"], on="test photos", min_precision=0.97, confidence=0.95)
    assert CardReader(model).config.photo_card_prob is None
    # Not even the model's own reaches the floor: still no photo threshold above it.
    _photos_read_as(monkeypatch, {0.8: 0.95})
    choice = choose_photo_card_prob(
        model, ["photo"], on="test photos", min_precision=0.97, confidence=0.95
    )
    assert choice["photo_card_prob"] == 0.8
    assert CardReader(model).config.photo_card_prob is None


def test_choosing_thresholds_for_a_new_classifier_drops_the_old_photo_threshold(
    tmp_path: Path,
) -> None:
    from scorekeeper.training.thresholds import choose_on

    model = _model(tmp_path, card_prob=0.9)
    path = model / "reader.json"
    config = json.loads(path.read_text())
    config["thresholds"]["photo_card_prob"] = 0.6
    config["photo_threshold_choice"] = {"photo_card_prob": 0.6}
    path.write_text(json.dumps(config))
    choose_on(model, _labelled_scenes(tmp_path, images=3), on="test scenes")
    config = json.loads(path.read_text())
    assert "photo_card_prob" not in config["thresholds"]
    assert "photo_threshold_choice" not in config
    assert CardReader(model).config.photo_card_prob is None
