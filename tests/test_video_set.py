"""Deal-video frames as training data: per-index labels, the data set on disk, hard negatives."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from scorekeeper.rules import DECK
from scorekeeper.synth.plan import SimulationError
from scorekeeper.synth.simulate import simulate
from scorekeeper.synth.truth import detection_stream, index_boxes
from scorekeeper.synth.video_set import VideoSetOptions, build_video_set
from scorekeeper.training.face_crops import NOT_A_CARD_CLASS
from scorekeeper.training.negatives import mine_negatives
from scorekeeper.vision.evaluate import read_yolo_labels
from tests.images import read_image


@pytest.fixture(scope="module")
def timeline():
    return simulate(31, camera="mild").timeline


def test_each_index_box_lies_inside_its_cards_reading(timeline) -> None:
    readings = detection_stream(timeline)
    indices = index_boxes(timeline)
    two_corner_frames = 0
    for frame, boxes in zip(readings, indices):
        by_card = {det.card: det for det in frame.cards}
        assert {card for card, _ in boxes} <= set(by_card)
        for card, (x1, y1, x2, y2) in boxes:
            bx1, by1, bx2, by2 = by_card[card].box
            assert bx1 - 0.01 <= x1 < x2 <= bx2 + 0.01 and by1 - 0.01 <= y1 < y2 <= by2 + 0.01
        for card, det in by_card.items():
            count = sum(1 for c, _ in boxes if c == card)
            assert count <= det.corners
            two_corner_frames += count == 2
    assert two_corner_frames > 100, "a card on the table shows both corners most of the time"


def test_an_index_box_is_the_size_of_a_printed_index(timeline) -> None:
    heights = [y2 - y1 for boxes in index_boxes(timeline) for _, (_, y1, _, y2) in boxes]
    assert 10 < float(np.median(heights)) < 60


def test_the_video_set_writes_frames_and_labels_of_the_deal(tmp_path: Path) -> None:
    summary = build_video_set(VideoSetOptions(out=tmp_path, seeds=(9101,), every=120))
    images = sorted((tmp_path / "frames" / "images" / "train").glob("*.jpg"))
    small = sorted((tmp_path / "detector" / "images" / "train").glob("*.jpg"))
    assert summary["frames"] == len(images) == len(small) > 3

    assert read_image(images[0]).shape == (720, 1280, 3)
    assert read_image(small[0]).shape == (360, 640, 3)
    played = {
        card.notation
        for deal in simulate(9101).plans
        for trick in deal.tricks
        for card in trick.cards
    }
    labelled = set()
    for label in (tmp_path / "frames" / "labels" / "train").glob("*.txt"):
        for row in label.read_text().split("\n"):
            if row:
                labelled.add(DECK[int(row.split()[0])].notation)
    assert labelled and labelled <= played


def test_the_video_set_refuses_the_benchmarks_seeds(tmp_path: Path) -> None:
    with pytest.raises(SimulationError, match="tracker benchmark"):
        build_video_set(VideoSetOptions(out=tmp_path, seeds=(7105,)))


def test_hard_negatives_are_the_boxes_away_from_every_index(tmp_path: Path) -> None:
    import cv2

    (tmp_path / "images" / "train").mkdir(parents=True)
    (tmp_path / "labels" / "train").mkdir(parents=True)
    cv2.imwrite(str(tmp_path / "images" / "train" / "a.jpg"), np.full((200, 400, 3), 90, np.uint8))
    (tmp_path / "labels" / "train" / "a.txt").write_text("3 0.25 0.5 0.05 0.1\n")
    _, truth = read_yolo_labels(tmp_path / "labels" / "train" / "a.txt", 400, 200)
    on_index = truth[0] + np.array([1, 1, 1, 1])
    far_away = np.array([300.0, 20.0, 320.0, 45.0])

    def detect(frame):
        return np.stack([on_index, far_away]), np.array([0.9, 0.3])

    crops, labels = mine_negatives(tmp_path, detect)
    assert crops.shape == (1, 96, 96, 3)
    assert labels.tolist() == [NOT_A_CARD_CLASS]


@pytest.mark.parametrize(
    "seeds, message", [("7100-7101", "tracker benchmark"), ("abc", "FIRST-LAST")]
)
def test_the_video_command_refuses_bad_seeds_in_one_line(
    tmp_path: Path, capsys, seeds: str, message: str
) -> None:
    from scorekeeper.cli import main

    with pytest.raises(SystemExit) as stopped:
        main(["dataset", "video", "--out", str(tmp_path), "--seeds", seeds])
    assert message in str(stopped.value) and "\n" not in str(stopped.value)
    assert not list(tmp_path.rglob("*.jpg"))


def test_the_recipe_adds_hard_negatives_only_with_a_detector_to_mine_with(tmp_path: Path) -> None:
    from scorekeeper.paths import shipped_models_dir
    from scorekeeper.training.recipe import Recipe, _with_negatives
    from scorekeeper.vision.registry import DEFAULT_MODEL

    build_video_set(VideoSetOptions(out=tmp_path / "video", seeds=(9102,), every=40))
    faces = (np.zeros((2, 96, 96, 3), np.uint8), np.array([0, 5]))
    bare = Recipe(
        data=tmp_path, runs=tmp_path, model_dir=tmp_path / "none", video=tmp_path / "video"
    )
    assert _with_negatives(faces, bare) is faces
    shipped = Recipe(
        data=tmp_path,
        runs=tmp_path,
        model_dir=shipped_models_dir() / DEFAULT_MODEL,
        video=tmp_path / "video",
    )
    mined = _with_negatives(faces, shipped, log=lambda line: None)
    assert mined is not None
    crops, labels = mined
    assert labels[:2].tolist() == [0, 5] and len(crops) == len(labels)
    assert set(labels[2:].tolist()) <= {NOT_A_CARD_CLASS}


def test_the_detector_trains_on_a_sample_of_video_tiles_beside_the_scenes(tmp_path: Path) -> None:
    from scorekeeper.training.tiles import sample_tiles, write_mixed_yaml, write_tiles

    build_video_set(VideoSetOptions(out=tmp_path / "video", seeds=(9101,), every=120))
    written = write_tiles(tmp_path / "video" / "detector", tmp_path / "tiles", tile=320, seed=0)
    chosen = sample_tiles(tmp_path / "tiles", 3, seed=0)
    assert written > 3 and len(chosen) == len(set(chosen)) == 3
    assert chosen == sample_tiles(tmp_path / "tiles", 3, seed=0)
    assert len(sample_tiles(tmp_path / "tiles", 10_000)) == written
    scenes = tmp_path / "scenes"
    yaml = write_mixed_yaml(scenes, tmp_path / "tiles", tmp_path / "mixed.yaml", extra=chosen)
    text = yaml.read_text()
    listing = tmp_path / "mixed.extra.txt"
    assert (
        f"  - {listing.resolve()}\n" in text
        and f"  - {(scenes / 'images' / 'train').resolve()}" in text
    )
    assert listing.read_text().split() == [str(p.resolve()) for p in chosen]
    for image in chosen:  # ultralytics finds each tile's labels beside it
        assert (image.parent.parent / "labels" / (image.stem + ".txt")).is_file()


def _pack_printing(regions: tuple[tuple[float, float, float, float], ...]):
    """A face pack (no pixels needed) whose every face prints its indices at ``regions``."""
    from scorekeeper.synth.faces import FacePack, FaceStyle

    width, height = 400, 560
    boxes = tuple(
        (round(x1 * width), round(y1 * height), round(x2 * width), round(y2 * height))
        for x1, y1, x2, y2 in regions
    )
    return FacePack(
        Path("deck"),
        files={},
        boxes={card.notation: boxes for card in DECK},
        sizes={card.notation: (width, height) for card in DECK},
        back_style=FaceStyle.random(np.random.default_rng(0)),
    )


def test_a_deck_printing_tall_indices_gets_tall_labels(timeline) -> None:
    """Labels follow where the deck prints its indices, not where procedural faces do."""
    from scorekeeper.synth.truth import face_regions

    nominal = index_boxes(timeline)
    tall = index_boxes(
        timeline, face_regions(_pack_printing(((0.05, 0.04, 0.19, 0.42), (0.81, 0.58, 0.95, 0.96))))
    )

    def median_height(frames) -> float:
        heights = [max(x2 - x1, y2 - y1) for boxes in frames for _, (x1, y1, x2, y2) in boxes]
        return float(np.median(heights))

    assert 1.6 < median_height(tall) / median_height(nominal) < 2.4
    four = index_boxes(
        timeline,
        face_regions(
            _pack_printing(
                (
                    (0.05, 0.04, 0.19, 0.23),
                    (0.81, 0.77, 0.95, 0.96),
                    (0.81, 0.04, 0.95, 0.23),
                    (0.05, 0.77, 0.19, 0.96),
                )
            )
        ),
    )
    per_card = [
        sum(1 for c, _ in boxes if c == card) for boxes in four for card in {c for c, _ in boxes}
    ]
    assert max(per_card) == 4, "a four-index deck labels all four corners of a card in view"


def test_the_video_set_deals_a_face_pack_and_boxes_its_printed_indices(tmp_path: Path) -> None:
    import cv2

    from scorekeeper.synth.faces import FaceStyle, ProceduralPack, pack_file_name

    style = ProceduralPack(FaceStyle.random(np.random.default_rng(5)))
    faces = tmp_path / "pack"
    faces.mkdir()
    for card in DECK:
        image = style.face(card).image.copy()
        image[image.min(axis=2) > 200] = (60, 190, 60)  # green paper: these faces, not others
        cv2.imwrite(str(faces / f"{pack_file_name(card)}.png"), image)
    build_video_set(VideoSetOptions(out=tmp_path / "video", seeds=(9103,), every=150, faces=faces))
    frames = tmp_path / "video" / "frames"
    inked = boxes = green = 0
    for image_path in sorted((frames / "images" / "train").glob("*.jpg")):
        colour = read_image(image_path).astype(int)
        green += int(((colour[..., 1] - colour[..., [0, 2]].max(axis=2)) > 60).sum())
        image = cv2.cvtColor(colour.astype(np.uint8), cv2.COLOR_BGR2GRAY)
        height, width = image.shape
        _, xyxy = read_yolo_labels(
            frames / "labels" / "train" / f"{image_path.stem}.txt", width, height
        )
        for x1, y1, x2, y2 in xyxy.astype(int):
            boxes += 1
            inked += int(image[y1:y2, x1:x2].std() > 25)  # a printed index, not bare card
    assert green > 10_000, "the cards dealt are the pack's green ones"
    assert boxes > 20 and inked / boxes > 0.8


def test_the_video_command_names_a_bad_face_pack_in_one_line(tmp_path: Path) -> None:
    from scorekeeper.cli import main

    (tmp_path / "pack").mkdir()
    with pytest.raises(SystemExit) as stopped:
        main(
            [
                "dataset",
                "video",
                "--out",
                str(tmp_path / "out"),
                "--seeds",
                "9104-9104",
                "--faces",
                str(tmp_path / "pack"),
            ]
        )
    assert "lacks 40 of the 40 faces" in str(stopped.value) and "\n" not in str(stopped.value)


def test_a_card_the_camera_smears_is_left_out_of_the_sharp_truth(timeline) -> None:
    """The sharp truth drops exactly the sightings the renderer draws as a motion streak."""
    import random

    from scorekeeper.synth.render import Renderer

    every = detection_stream(timeline)
    sharp = detection_stream(timeline, sharp_only=True)
    renderer = Renderer(timeline, np.random.default_rng(0))
    listed = dropped = 0
    checked = {"smeared": 0, "sharp": 0}
    for frame in random.Random(3).sample(range(timeline.frames), 400):
        cards = {det.card for det in every[frame].cards}
        kept = {det.card for det in sharp[frame].cards}
        assert kept <= cards
        listed, dropped = listed + len(cards), dropped + len(cards - kept)
        scene = timeline.scene(frame)
        for item in scene.items:
            if item.card in cards and item.face_up:
                blurred = renderer.motion_streak(item, scene) is not None
                assert blurred == (item.card not in kept), (frame, item.card)
                checked["smeared" if blurred else "sharp"] += 1
    assert 0.02 < dropped / listed < 0.25, "cards in flight are a small share of a deal's sightings"
    assert checked["smeared"] > 10 and checked["sharp"] > 100


def test_reads_are_scored_against_the_cards_in_view_frame_by_frame(timeline) -> None:
    from dataclasses import replace

    from scorekeeper.synth.truth import GLIMPSED, score_reads

    every = detection_stream(timeline)
    sharp = detection_stream(timeline, sharp_only=True)
    sightings = sum(len(frame.cards) for frame in every)
    smeared = sightings - sum(len(frame.cards) for frame in sharp)

    # A reader that names every sharp card and nothing else misses exactly the smeared ones.
    score = score_reads(sharp, timeline)
    assert score.named_right == score.sharp_named == sightings - smeared
    assert score.missed == smeared > 0 and score.named_wrong == score.sharp_missed == 0

    # One card dropped from a frame is a miss of that card; a card named where none lies is wrong.
    glimpsed = detection_stream(timeline, readable_share=GLIMPSED)
    frame = next(f for f in every if len(f.cards) >= 2)
    dropped, kept = frame.cards[0], frame.cards[1:]
    shown = {d.card for d in glimpsed[frame.frame_index].cards}
    stray = next(card for card in DECK if card not in shown)
    misread = replace(frame, cards=(*kept, replace(dropped, card=stray)))
    reads = [misread if f.frame_index == frame.frame_index else f for f in every]
    score = score_reads(reads, timeline)
    assert (score.named_right, score.named_wrong, score.missed) == (sightings - 1, 1, 1)
    assert score.missed_cards == {dropped.card.notation: 1}
    assert score.misread_cards == {stray.notation: 1}


def test_a_deck_printing_tall_indices_is_scored_where_it_prints_them(timeline) -> None:
    """A tall index half under another card cannot be read: scored with the deck's own index
    boxes, a reader naming every readable tall index misses nothing, while the procedural
    boxes would charge it with misses for cards whose upper half of the index alone shows."""
    from scorekeeper.synth.truth import face_regions, score_reads

    tall = face_regions(_pack_printing(((0.05, 0.04, 0.19, 0.42), (0.81, 0.58, 0.95, 0.96))))
    reads_tall_indices = detection_stream(timeline, regions_of=tall)

    score = score_reads(reads_tall_indices, timeline, tall)
    assert score.missed == score.named_wrong == 0 and score.named_right > 0

    nominal = score_reads(reads_tall_indices, timeline)
    assert nominal.missed > 0, "some cards show the top of their index and not all of it"
    assert nominal.named_right + nominal.missed > score.named_right


def test_a_card_named_with_part_of_its_index_showing_is_no_false_card(timeline) -> None:
    """Under another card, an index with a third of it showing is not counted in view, so a reader
    is not asked to name it; one that does names a card lying there, not a made-up one."""
    from dataclasses import replace

    from scorekeeper.synth.truth import GLIMPSED, score_reads

    every = detection_stream(timeline)
    glimpsed = detection_stream(timeline, readable_share=GLIMPSED)
    partly = [
        (frame, detection)
        for frame, seen in zip(every, glimpsed)
        for detection in seen.cards
        if detection.card not in {d.card for d in frame.cards}
    ]
    assert partly, "cards slide under one another during a deal"
    frame, detection = partly[0]
    reads = [
        replace(f, cards=(*f.cards, detection)) if f.frame_index == frame.frame_index else f
        for f in every
    ]
    score = score_reads(reads, timeline)
    assert (score.named_partly_shown, score.named_wrong, score.missed) == (1, 0, 0)
    assert score.precision == score.recall == 1.0
