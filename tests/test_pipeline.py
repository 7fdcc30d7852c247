"""The whole pipeline, source to store, on the shipped demo clip.

The card reader is swapped for the clip's own ground-truth detections here (``ClipReader``), so
these tests check capture, tracking, recording and restarts whatever the shipped model's accuracy;
the reader itself is measured in the vision tests and by ``benchmarks/``.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from scorekeeper.cli import main
from scorekeeper.errors import SourceError
from scorekeeper.pipeline.capture import ResilientCapture, SourceSpec
from scorekeeper.pipeline.session import TableSession
from scorekeeper.rules import Rules, replay_record
from scorekeeper.store import DealStarted, Store
from scorekeeper.synth.simulate import demo_clip, detections_for_truth
from scorekeeper.tracking import TableGeometry
from scorekeeper.vision.detections import FrameDetections
from scorekeeper.web import create_app


@pytest.fixture(scope="module")
def clip():
    truth = json.loads(demo_clip()[1].read_text(encoding="utf-8"))
    return truth, detections_for_truth(truth)


class ClipReader:
    """Reads the clip frame number stamped in the frame, and returns that frame's true cards."""

    def __init__(self, frames: list[FrameDetections]):
        self.frames = frames

    def read(self, frame_bgr, frame_index=0):
        clip_frame = int(frame_bgr[0, 0, 0]) * 256 + int(frame_bgr[0, 0, 1])
        truth = self.frames[clip_frame]
        return FrameDetections(frame_index, truth.cards, truth.width, truth.height)


class ClipCamera:
    """A camera showing the clip (as stamped frame numbers) that can be unplugged for a while."""

    def __init__(self, total: int, unplugged: range = range(0)):
        self.total = total
        self.position = 0
        self.unplugged = unplugged
        self.opened = True
        self.on_end = lambda: None

    def isOpened(self):
        return self.opened

    def read(self):
        if self.position >= self.total:
            self.on_end()  # a live camera never ends by itself: the test stops the session
            return False, None
        if self.position in self.unplugged:
            return False, None
        image = np.zeros((2, 2, 3), np.uint8)
        image[0, 0, 0], image[0, 0, 1] = divmod(self.position, 256)
        self.position += 1
        return True, image

    def get(self, prop):
        import cv2

        return {
            cv2.CAP_PROP_FPS: 10.0,
            cv2.CAP_PROP_FRAME_WIDTH: 1280,
            cv2.CAP_PROP_FRAME_HEIGHT: 720,
        }.get(prop, 0.0)

    def release(self):
        pass


def session_for(clip, tmp_path, **extra):
    truth, frames = clip
    session = TableSession(
        source="0",
        database=str(tmp_path / "match.db"),
        table_id="mesa",
        reader_factory=lambda: ClipReader(frames),
        rules=Rules.from_json(truth["record"]["rules"]),
        geometry=TableGeometry.from_json(truth["geometry"]),
        warn=lambda line: None,
        **extra,
    )
    return session


def run_with_camera(session, store, camera_factory, *, sleep=lambda s: None, clock=None):
    from unittest import mock

    from scorekeeper.pipeline import session as session_module
    from scorekeeper.pipeline.capture import ResilientCapture

    def opener(_spec):
        camera = camera_factory()
        camera.on_end = session.stop
        return camera

    def capture(spec, on_status):
        return ResilientCapture(
            spec,
            opener=opener,
            on_status=on_status,
            sleep=sleep,
            clock=clock or (lambda: 0.0),
            stall_reads=3,
        )

    with mock.patch.object(session_module, "ResilientCapture", capture):
        return session.run(store)


def test_the_demo_clip_ends_with_its_true_score(clip, tmp_path):
    truth, frames = clip
    session = session_for(clip, tmp_path)
    store = session.open_store()
    run_with_camera(session, store, lambda: ClipCamera(len(frames)))
    result = replay_record(store.record("mesa"))
    assert store.record("mesa")["deals"] == [
        {"dealer": d["dealer"], "trump": d["trump"], "plays": d["plays"]}
        for d in truth["record"]["deals"]
    ]
    assert result["score"] == truth["score"]


def test_a_camera_dropped_mid_deal_and_back_loses_nothing(clip, tmp_path):
    truth, frames = clip
    # Unplugged for 1.5 s in the middle of the deal; the capture reopens it with backoff.
    middle = next(
        e["frame"] for e in truth["events"] if e["type"] == "card_played" and e["trick"] == 5
    )
    plugged_back: list[ClipCamera] = []

    def camera():
        if plugged_back:
            plugged_back[0].unplugged = range(0)
            return plugged_back[0]
        cam = ClipCamera(len(frames), unplugged=range(middle + 3, middle + 18))
        plugged_back.append(cam)
        return cam

    now = [0.0]

    def sleep(seconds):
        now[0] += seconds

    statuses = []
    session = session_for(clip, tmp_path)
    session.status.set_listener(lambda: statuses.append(session.status.snapshot()["camera"]))
    store = session.open_store()
    run_with_camera(session, store, camera, sleep=sleep, clock=lambda: now[0])
    assert "lost" in statuses and statuses[-1] in {"live", "ended"}
    assert replay_record(store.record("mesa"))["score"] == truth["score"]


def test_a_restart_mid_deal_continues_the_same_match(clip, tmp_path):
    truth, frames = clip
    half = next(
        e["frame"] for e in truth["events"] if e["type"] == "card_played" and e["trick"] == 6
    )
    session = session_for(clip, tmp_path)
    store = session.open_store()
    run_with_camera(session, store, lambda: ClipCamera(half))  # the process dies at frame `half`
    first_run = store.record("mesa")["deals"][0]["plays"]
    assert 16 <= len(first_run) < 40

    class ResumedCamera(ClipCamera):
        def __init__(self):
            super().__init__(len(frames))
            self.position = half

    again = session_for(clip, tmp_path)
    store = Store.open(tmp_path / "match.db")
    run_with_camera(again, store, ResumedCamera)
    assert store.record("mesa")["deals"][0]["plays"] == truth["record"]["deals"][0]["plays"]
    assert replay_record(store.record("mesa"))["score"] == truth["score"]


def test_a_doubt_open_when_the_pipeline_stops_is_on_the_page_after_a_restart(clip, tmp_path):
    truth, frames = clip
    plays = [e for e in truth["events"] if e["type"] == "card_played"]
    # The reader catches the 8th card in one frame only: vaza 2 is gathered a card short, and the
    # cards after it seem to come from the wrong side until the tracker places the missing one.
    faint = plays[7]["card"]
    first = next(i for i, f in enumerate(frames) if any(c.card.notation == faint for c in f.cards))
    blurred = [
        FrameDetections(
            f.frame_index,
            tuple(c for c in f.cards if c.card.notation != faint or i == first),
            f.width,
            f.height,
        )
        for i, f in enumerate(frames)
    ]
    session = session_for((truth, blurred), tmp_path)
    store = session.open_store()
    run_with_camera(session, store, lambda: ClipCamera(plays[10]["frame"] + 10))  # stops mid-deal
    doubts = store.state("mesa")["doubts"]
    assert doubts and doubts[0]["trick"] == 2 and doubts[0]["reason"] == "seat"

    page = create_app(
        {"TESTING": True, "DATABASE": str(tmp_path / "match.db"), "PIN": "1"}
    ).test_client()
    assert page.get("/api/state").get_json()["doubts"] == doubts


def test_a_source_that_fails_to_open_is_one_line_and_status_2(tmp_path, capsys):
    status = main(
        [
            "run",
            "--source",
            str(tmp_path / "missing.mp4"),
            "--db",
            str(tmp_path / "m.db"),
            "--port",
            "0",
            "--no-qr",
            "--host",
            "127.0.0.1",
        ]
    )
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1
    assert "no such video file" in err


def test_a_corrupt_model_is_one_line_and_status_2(tmp_path, capsys):
    folder = tmp_path / "broken-model"
    folder.mkdir()
    (folder / "reader.json").write_text("{not json")
    status = main(
        ["demo", "--headless", "--fast", "--model", str(folder), "--db", str(tmp_path / "m.db")]
    )
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1 and "reader.json" in err


def test_rules_option_reads_presets_and_pairs():
    from scorekeeper.commands.options import parse_rules
    from scorekeeper.errors import RulesError

    assert parse_rules("brazil") == Rules.preset("brazil")
    assert parse_rules("tie=carry,target=7") == Rules.from_json({"tie": "carry", "target": 7})
    with pytest.raises(RulesError, match="unknown preset 'carry': choose tournament, vila_flor"):
        parse_rules("carry")


def test_spec_of_a_missing_file_is_refused_before_anything_runs(tmp_path):
    with pytest.raises(SourceError):
        ResilientCapture(SourceSpec(str(tmp_path / "x.mp4"))).open()


def test_a_deal_started_on_the_page_is_followed_when_the_camera_cannot_read_the_trunfo(
    clip, tmp_path
):
    truth, frames = clip
    deal = truth["record"]["deals"][0]
    turned = deal["trump"]
    played_at = next(
        e["frame"] for e in truth["events"] if e["type"] == "card_played" and e["card"] == turned
    )
    # The turned card is never read while it lies by the dealer (face down, under a hand).
    hidden = [
        FrameDetections(
            f.frame_index,
            tuple(d for d in f.cards if f.frame_index >= played_at or d.card.notation != turned),
            f.width,
            f.height,
        )
        for f in frames
    ]
    second_card = [e["frame"] for e in truth["events"] if e["type"] == "card_played"][1]
    session = session_for((truth, hidden), tmp_path)
    store = session.open_store()

    class TableWithPhone(ClipCamera):
        def read(self):
            if self.position == second_card + 20:  # two cards lie in the middle by now
                store.append("mesa", DealStarted(dealer=deal["dealer"], turned=turned))
            return super().read()

    asked: list[str] = []
    session.status.set_listener(lambda: asked.append(session.status.snapshot()["trunfo"]))
    run_with_camera(session, store, lambda: TableWithPhone(len(frames)))
    assert store.record("mesa")["deals"] == [
        {"dealer": deal["dealer"], "trump": turned, "plays": deal["plays"]}
    ]
    assert "unread" in asked, "the page asked the table to start the deal"
    assert session.status.snapshot()["trunfo"] == ""
    assert replay_record(store.record("mesa"))["score"] == truth["score"]


def test_without_a_readable_trunfo_or_the_page_no_deal_is_recorded(clip, tmp_path):
    truth, frames = clip
    turned = truth["record"]["deals"][0]["trump"]
    blind = [
        FrameDetections(
            f.frame_index, tuple(d for d in f.cards if d.card.notation != turned), f.width, f.height
        )
        for f in frames
    ]
    session = session_for((truth, blind), tmp_path)
    store = session.open_store()
    run_with_camera(session, store, lambda: ClipCamera(len(frames)))
    assert store.record("mesa")["deals"] == []
