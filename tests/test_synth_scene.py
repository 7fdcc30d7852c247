"""Scenes: boxes land on the indices of cards with known poses; hidden indices get no box."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from scorekeeper.rules.cards import Card
from scorekeeper.synth.faces import FaceStyle, ProceduralPack
from scorekeeper.synth.scene import CardPose, SceneConfig, compose_scene, render_cards
from scorekeeper.synth.webcam import Camera, apply_homography

W, H = 640, 480


@pytest.fixture(scope="module")
def pack() -> ProceduralPack:
    style = replace(FaceStyle.random(np.random.default_rng(21)), four_indices=False)
    return ProceduralPack(style)


def _pose(
    angle: float, scale: float, centre: tuple[float, float], size: tuple[int, int]
) -> np.ndarray:
    """Face pixels to frame pixels: shrink, turn about the card centre, move."""
    c, s = np.cos(np.radians(angle)) * scale, np.sin(np.radians(angle)) * scale
    to_centre = np.array([[1, 0, -size[0] / 2], [0, 1, -size[1] / 2], [0, 0, 1]], float)
    turn = np.array([[c, -s, centre[0]], [s, c, centre[1]], [0, 0, 1]], float)
    return turn @ to_centre


def _projected_box(pose: np.ndarray, box: tuple[int, int, int, int]) -> tuple[float, ...]:
    x1, y1, x2, y2 = box
    pts = apply_homography(pose, np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], float))
    return (*pts.min(axis=0), *pts.max(axis=0))


def _iou(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter)


def _table() -> np.ndarray:
    return np.full((H, W, 3), (40, 90, 30), np.uint8)


@pytest.mark.parametrize("angle", [0.0, 30.0, 90.0, 200.0])
def test_boxes_land_on_the_indices_of_a_card_with_a_known_pose(
    pack: ProceduralPack, angle: float
) -> None:
    face = pack.face("7H")
    pose = _pose(angle, 0.6, (W / 2, H / 2), face.size)
    scene = render_cards(_table(), [CardPose(face, pose)])
    assert sorted(label.class_id for label in scene.labels) == [Card.parse("7H").index] * 2
    expected = [_projected_box(pose, b) for b in face.index_boxes]
    for label in scene.labels:
        assert max(_iou(label.box, e) for e in expected) > 0.8
        assert label.label == "7H" and label.visible > 0.95


def test_index_under_another_card_gets_no_box(pack: ProceduralPack) -> None:
    below, above = pack.face("AS"), pack.face("KD")
    pose_below = _pose(0, 0.6, (W / 2, H / 2), below.size)
    tl_box = _projected_box(pose_below, below.index_boxes[0])
    # The card on top is centred on the first card's top-left index.
    cx, cy = (tl_box[0] + tl_box[2]) / 2, (tl_box[1] + tl_box[3]) / 2
    pose_above = _pose(10, 0.6, (cx - 60, cy - 60), above.size)
    scene = render_cards(_table(), [CardPose(below, pose_below), CardPose(above, pose_above)])
    as_boxes = [lb.box for lb in scene.labels if lb.label == "AS"]
    assert len(as_boxes) == 1
    assert _iou(as_boxes[0], _projected_box(pose_below, below.index_boxes[1])) > 0.8
    assert "KD" in [lb.label for lb in scene.labels]


def test_index_under_a_hand_gets_no_box_and_a_half_hidden_one_neither(pack: ProceduralPack) -> None:
    face = pack.face("QC")
    pose = _pose(0, 0.6, (W / 2, H / 2), face.size)
    tl = _projected_box(pose, face.index_boxes[0])
    br = _projected_box(pose, face.index_boxes[1])
    hand = np.array(
        [
            [tl[0] - 20, tl[1] - 20],
            [tl[2] + 20, tl[1] - 20],
            [tl[2] + 20, tl[3] + 20],
            [tl[0] - 20, tl[3] + 20],
        ]
    )
    # Cover only the rank half of the other index: the pip alone cannot be read.
    mid = (br[1] + br[3]) / 2
    sleeve = np.array(
        [[br[0] - 5, mid], [br[2] + 5, mid], [br[2] + 5, br[3] + 5], [br[0] - 5, br[3] + 5]]
    )
    scene = render_cards(_table(), [CardPose(face, pose)], occluders=[hand, sleeve])
    assert scene.labels == []


def test_distractors_and_backs_are_not_labelled(pack: ProceduralPack) -> None:
    cards = [
        CardPose(pack.face("9H"), _pose(0, 0.4, (150, 200), pack.face("9H").size), "distractor"),
        CardPose(pack.back(), _pose(0, 0.4, (450, 200), pack.back().size), "back"),
    ]
    scene = render_cards(_table(), cards)
    assert scene.labels == []
    assert any(kind == "distractor" for kind, _ in scene.negatives)


def test_random_scenes_label_each_card_at_most_twice_and_only_inside_the_frame(
    pack: ProceduralPack,
) -> None:
    distractors = ProceduralPack(FaceStyle.random(np.random.default_rng(2)))
    for seed in range(6):
        scene = compose_scene(
            np.random.default_rng(seed),
            pack=pack,
            distractor_pack=distractors,
            width=320,
            height=180,
            output_scale=1.0,
            config=replace(SceneConfig(), index_px=(8.0, 30.0)),
        )
        assert scene.image.shape == (180, 320, 3)
        counts: dict[int, int] = {}
        for label in scene.labels:
            x1, y1, x2, y2 = label.box
            assert 0 <= x1 < x2 <= 320 and 0 <= y1 < y2 <= 180
            counts[label.class_id] = counts.get(label.class_id, 0) + 1
        assert all(n <= 2 for n in counts.values())


def test_camera_centre_index_height_matches_the_request() -> None:
    cam = Camera.for_index_height(width=1280, height=720, hfov=70, tilt=0, index_mm=20, index_px=40)
    top, bottom = apply_homography(cam.homography(), np.array([[0, -10], [0, 10]], float))
    assert abs(abs(bottom[1] - top[1]) - 40) < 0.5
    assert np.allclose(apply_homography(cam.homography(), np.array([[0.0, 0.0]])), [[640, 360]])


def test_boxes_follow_the_perspective_of_a_tilted_camera(pack: ProceduralPack) -> None:
    from scorekeeper.synth.webcam import card_to_table

    cam = Camera.for_index_height(width=W, height=H, hfov=70, tilt=40, index_mm=15, index_px=40)
    face = pack.face("5S")
    pose = cam.homography() @ card_to_table(
        face.size[0], face.size[1], card_mm=88, angle=25, centre=(0.0, 0.0)
    )
    scene = render_cards(_table(), [CardPose(face, pose)])
    expected = [_projected_box(pose, b) for b in face.index_boxes]
    assert len(scene.labels) == 2
    for label in scene.labels:
        assert max(_iou(label.box, e) for e in expected) > 0.8


def test_scene_settings_reject_impossible_ranges() -> None:
    from scorekeeper.synth import SynthError

    with pytest.raises(SynthError, match="face_up"):
        SceneConfig.from_json({"face_up": [0, 3]})
    with pytest.raises(SynthError, match="unknown scene setting"):
        SceneConfig.from_json({"cards": 3})
    assert SceneConfig.from_json({"tilt": [10, 20]}).tilt == (10, 20)


def test_a_fanned_hand_labels_the_index_in_each_cards_strip_and_nothing_it_covers(
    pack: ProceduralPack,
) -> None:
    fans_only = replace(
        SceneConfig(),
        fan_probability=1.0,
        fans=(1, 1),
        fan_cards=(6, 6),
        index_px=(18.0, 24.0),
        tilt=(0.0, 0.0),
        face_down_stacks=(0, 0),
        loose_backs=(0, 0),
        distractor_probability=0.0,
        hand_probability=0.0,
    )
    labelled = per_card_most = 0
    for seed in range(8):
        scene = compose_scene(
            np.random.default_rng(seed),
            pack=pack,
            distractor_pack=pack,
            width=W,
            height=H,
            output_scale=1.0,
            config=fans_only,
        )
        owner = scene.owner
        assert owner is not None
        cards = sorted({label.label for label in scene.labels})
        labelled += len(cards)
        # Each card but the top one shows only a strip: under a third of the area the top one shows.
        areas = np.bincount(owner[owner > 0].ravel())
        shown = areas[areas > 0]
        assert (shown[:-1] < shown[-1] / 3).sum() >= len(shown) - 2
        counts = [sum(lb.label == c for lb in scene.labels) for c in cards]
        per_card_most = max(per_card_most, sorted(counts)[-2] if len(counts) > 1 else 0)
    assert labelled >= 8 * 6 * 0.75
    assert per_card_most == 1


def test_scene_settings_reject_a_fan_of_one_card() -> None:
    from scorekeeper.synth import SynthError

    with pytest.raises(SynthError, match="fan_cards"):
        SceneConfig.from_json({"fan_cards": [1, 5]})
    with pytest.raises(SynthError, match="fan_probability"):
        SceneConfig.from_json({"fan_probability": 1.5})
