"""The shipped demo clip: readable by OpenCV, the frames its truth claims, truth the code still
makes."""

from __future__ import annotations

import json

import numpy as np
import pytest

from scorekeeper.rules import replay_record
from scorekeeper.synth.plan import SimulationError
from scorekeeper.synth.simulate import demo_clip, simulate

cv2 = pytest.importorskip("cv2")


@pytest.fixture(scope="module")
def demo():
    video, truth_file = demo_clip()
    assert video.is_file() and truth_file.is_file()
    return video, json.loads(truth_file.read_text(encoding="utf-8"))


def test_the_demo_is_small_and_says_what_it_shows(demo) -> None:
    video, truth = demo
    assert video.stat().st_size < 6_000_000
    assert truth["video"] == video.name and truth["codec"] == "mp4v"
    assert len(truth["record"]["deals"]) == 1 and len(truth["record"]["deals"][0]["plays"]) == 40


def test_opencv_reads_the_frames_the_truth_claims(demo) -> None:
    video, truth = demo
    capture = cv2.VideoCapture(str(video))
    try:
        assert capture.isOpened()
        assert int(capture.get(cv2.CAP_PROP_FRAME_COUNT)) == truth["frames"]
        assert capture.get(cv2.CAP_PROP_FPS) == pytest.approx(truth["fps"])
        ok, first = capture.read()
        assert ok and first.shape == (truth["height"], truth["width"], 3)
        # Mid-trick, the play area shows white cards on the felt; before the deal it is empty.
        x1, y1, x2, y2 = (int(v) for v in truth["geometry"]["play_area"])
        gathered = next(e for e in truth["events"] if e["type"] == "trick_gathered")
        capture.set(cv2.CAP_PROP_POS_FRAMES, gathered["frame"] - 4)
        ok, full = capture.read()
        assert ok
        assert full[y1:y2, x1:x2].mean() > first[y1:y2, x1:x2].mean() + 10
    finally:
        capture.release()


def test_the_code_still_makes_the_demo_truth(demo) -> None:
    _, truth = demo
    options = dict(truth["options"])
    options["size"] = tuple(options["size"])
    again = json.loads(json.dumps(simulate(truth["seed"], **options).truth))
    for key in ("record", "events", "geometry", "deals", "score", "frames"):
        assert again[key] == truth[key], key


def test_the_demo_detections_rebuild_from_its_truth(demo) -> None:
    from scorekeeper.synth.simulate import detections_for_truth

    _, truth = demo
    frames = detections_for_truth(truth)
    assert len(frames) == truth["frames"]
    stale = dict(truth, events=truth["events"][:-1])
    with pytest.raises(SimulationError):
        detections_for_truth(stale)


def test_the_demo_truth_replays_to_its_score(demo) -> None:
    _, truth = demo
    result = replay_record(truth["record"])
    assert result["score"] == truth["score"]
    assert result["deals"][0]["points"] == truth["deals"][0]["points"]


def test_a_few_frames_render_and_read_back(tmp_path) -> None:
    from scorekeeper.synth.simulate import write_clip

    simulation = simulate(4, 1, size=(640, 360))
    figures = write_clip(tmp_path / "clip.mp4", simulation, limit=5)
    assert figures["frames"] == 5
    capture = cv2.VideoCapture(str(tmp_path / "clip.mp4"))
    frames = []
    while True:
        ok, frame = capture.read()
        if not ok:
            break
        frames.append(frame)
    capture.release()
    assert len(frames) == 5 and frames[0].shape == (360, 640, 3)
    assert np.std(frames[0]) > 3  # a table top, not a blank frame
    truth = json.loads((tmp_path / "clip.json").read_text(encoding="utf-8"))
    assert truth["frames"] == simulation.timeline.frames and truth["video"] == "clip.mp4"


def test_the_pixels_show_cards_where_the_detections_say() -> None:
    from scorekeeper.synth.render import Renderer
    from scorekeeper.synth.truth import detection_stream

    simulation = simulate(6, 1, camera="none")
    timeline = simulation.timeline
    plays = [e for e in simulation.truth["events"] if e["type"] == "card_played"]
    frame = plays[3]["frame"] + 3  # four cards down, hands gone or going
    detections = detection_stream(timeline)[frame]
    image = Renderer(timeline, np.random.default_rng(0)).render(timeline.scene(frame))
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    assert detections.cards
    for detection in detections.cards:
        x1, y1, x2, y2 = (int(v) for v in detection.box)
        patch = gray[y1:y2, x1:x2]
        # A printed index: white paper and dark (or red) ink inside its box.
        assert patch.max() > 180 and patch.min() < 120, detection


def test_random_access_and_the_frame_sweep_agree() -> None:
    timeline = simulate(2, 1).timeline
    swept = {scene.frame: scene for scene in timeline.scenes()}
    for frame in (0, 57, 301, timeline.frames - 1):
        assert timeline.scene(frame).items == swept[frame].items
        assert (timeline.scene(frame).camera == swept[frame].camera).all()
