"""``scorekeeper dataset``: YOLO layout, DECK class order, crops, one seed gives the same files."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from scorekeeper.cli import main
from scorekeeper.rules.cards import DECK
from scorekeeper.synth.contact_sheet import read_names
from scorekeeper.synth.dataset import CROP_CLASSES, BuildOptions, build_dataset
from tests.images import read_image

TINY = ["--imgsz", "128", "--render-scale", "1.5", "--workers", "1", "--quiet"]


def _digest(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def _build(out: Path, *extra: str) -> int:
    return main(["dataset", "build", "--out", str(out), "--images", "10", *TINY, *extra])


def test_build_writes_yolo_layout_with_classes_in_deck_order(tmp_path: Path) -> None:
    assert _build(tmp_path / "ds", "--crops", "--seed", "4") == 0
    root = tmp_path / "ds"
    assert read_names(root) == [card.notation for card in DECK]
    assert "nc: 40" in (root / "data.yaml").read_text()
    assert len(list((root / "images" / "train").glob("*.jpg"))) == 9
    assert len(list((root / "images" / "val").glob("*.jpg"))) == 1
    lines = [line for f in (root / "labels").rglob("*.txt") for line in f.read_text().splitlines()]
    assert lines, "ten scenes without a single visible index"
    for line in lines:
        cls, *xywh = line.split()
        assert 0 <= int(cls) < 40
        assert all(0 <= float(v) <= 1 for v in xywh)
    image = read_image(next((root / "images" / "train").glob("*.jpg")))
    assert image.shape[1] == 128
    # Crops: 41 class folders named by notation, 48x64 pictures in those that have any.
    assert CROP_CLASSES[:40] == tuple(card.notation for card in DECK)
    assert {p.name for p in (root / "crops" / "train").iterdir()} == set(CROP_CLASSES)
    crops = list((root / "crops").rglob("*.jpg"))
    assert crops and read_image(crops[0]).shape == (64, 48, 3)


def test_single_class_variant_labels_every_index_as_class_zero(tmp_path: Path) -> None:
    assert _build(tmp_path / "one", "--single-class", "--seed", "4") == 0
    assert read_names(tmp_path / "one") == ["index"]
    classes = {
        line.split()[0]
        for f in (tmp_path / "one" / "labels").rglob("*.txt")
        for line in f.read_text().splitlines()
    }
    assert classes == {"0"}


def test_same_seed_same_files_other_seed_other_files(tmp_path: Path) -> None:
    for name, seed in (("a", "7"), ("b", "7"), ("c", "8")):
        assert _build(tmp_path / name, "--crops", "--seed", seed) == 0
    a, b, c = (_digest(tmp_path / n) for n in "abc")
    assert a == b
    assert a != c


@pytest.mark.slow
def test_output_does_not_depend_on_the_number_of_workers(tmp_path: Path) -> None:
    for name, workers in (("one", 1), ("two", 2)):
        options = BuildOptions(
            out=tmp_path / name,
            images=6,
            imgsz=96,
            render_scale=1.5,
            seed=3,
            crops=True,
            workers=workers,
        )
        build_dataset(options, progress=False)
    assert _digest(tmp_path / "one") == _digest(tmp_path / "two")


def test_bad_faces_folder_is_one_line_and_exit_status_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "deck").mkdir()
    (tmp_path / "deck" / "Ah.png").write_bytes(b"")
    assert _build(tmp_path / "ds", "--faces", str(tmp_path / "deck")) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "lacks 39 of the 40 faces" in err and "7h.png" in err


def test_refuses_to_mix_into_an_existing_data_set(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _build(tmp_path / "ds") == 0
    assert _build(tmp_path / "ds") == 2
    assert "--overwrite" in capsys.readouterr().err
    assert _build(tmp_path / "ds", "--overwrite") == 0


def test_contact_sheet_command_draws_a_picture(tmp_path: Path) -> None:
    assert _build(tmp_path / "ds", "--crops") == 0
    sheet = tmp_path / "sheet.png"
    assert (
        main(
            ["dataset", "contact-sheet", str(tmp_path / "ds"), "--out", str(sheet), "--count", "4"]
        )
        == 0
    )
    assert cv2.imread(str(sheet)) is not None
    assert (
        main(["dataset", "contact-sheet", str(tmp_path / "ds"), "--out", str(sheet), "--crops"])
        == 0
    )


def test_faces_and_table_photos_from_folders_are_used(tmp_path: Path) -> None:
    from scorekeeper.synth.faces import FaceStyle, ProceduralPack, pack_file_name

    deck = tmp_path / "my_deck"
    deck.mkdir()
    pack = ProceduralPack(FaceStyle.random(np.random.default_rng(1)))
    for card in DECK:
        face = pack.face(card)
        small = cv2.resize(
            np.dstack([face.image, face.mask]), (100, 140), interpolation=cv2.INTER_AREA
        )
        cv2.imwrite(str(deck / f"{pack_file_name(card)}.png"), small)
    tables = tmp_path / "tables"
    tables.mkdir()
    cv2.imwrite(str(tables / "oak.jpg"), np.full((60, 80, 3), (30, 80, 140), np.uint8))
    assert (
        _build(
            tmp_path / "ds",
            "--faces",
            str(deck),
            "--procedural-share",
            "0",
            "--tables",
            str(tables),
        )
        == 0
    )
    manifest = json.loads((tmp_path / "ds" / "manifest.json").read_text())
    assert manifest["faces"] == ["my_deck"]
    assert manifest["counts"]["boxes"] > 0


def test_a_phone_camera_renders_the_same_scenes_as_stills_that_keep_the_indices_edges(
    tmp_path: Path,
) -> None:
    from scorekeeper.synth.effects import CAMERAS, apply_effects

    labels = {}
    for camera in ("webcam", "phone"):
        out = tmp_path / camera
        assert _build(out, "--camera", camera, "--seed", "4") == 0
        labels[camera] = {p.name: p.read_text() for p in (out / "labels").rglob("*.txt")}
        manifest = json.loads((out / "manifest.json").read_text())
        assert manifest["effects"]["motion_blur_probability"] == (camera == "webcam") * 0.15
    # The camera changes the pictures, never what lies on the table.
    assert labels["webcam"] == labels["phone"]

    # Printed ranks on a card-white ground: how much of their edges each camera's frames keep.
    page = np.full((720, 1280, 3), 235, np.uint8)
    for i in range(40):
        origin = (30 + (i % 8) * 150, 40 + (i // 8) * 140)
        ink = (20, 20, 180) if i % 2 else (20, 20, 20)
        cv2.putText(page, "A7KQJ", origin, cv2.FONT_HERSHEY_SIMPLEX, 1.2, ink, 2)

    def edges(image: np.ndarray) -> np.ndarray:
        gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float32)
        return cv2.Laplacian(gray, cv2.CV_32F).ravel()

    printed = edges(page)

    def edges_kept(camera: str, seed: int) -> float:
        frame = apply_effects(page, np.random.default_rng(seed), CAMERAS[camera])
        return float(np.corrcoef(printed, edges(frame))[0, 1])

    kept = {camera: np.median([edges_kept(camera, s) for s in range(40)]) for camera in CAMERAS}
    assert kept["phone"] >= 0.9
    assert kept["phone"] >= kept["webcam"] + 0.1
