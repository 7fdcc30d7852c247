"""A table's session with ``--tournament``: the demo clip through the pipeline, pushed as it is
played."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from scorekeeper.commands.run import start_pusher
from scorekeeper.synth.simulate import demo_clip, detections_for_truth
from tests.test_pipeline import ClipCamera, run_with_camera, session_for
from tests.tournament.helpers import ORGANISER, Served


def test_the_demo_clip_played_at_a_table_arrives_whole_at_the_tournament(
    tmp_path: Path, served: Served
) -> None:
    client = served.app.test_client()
    key = client.post("/api/tables", json={"table": "mesa"}, headers=ORGANISER).get_json()["key"]
    truth = json.loads(demo_clip()[1].read_text(encoding="utf-8"))
    frames = detections_for_truth(truth)
    session = session_for((truth, frames), tmp_path)
    store = session.open_store()
    pusher = start_pusher(
        argparse.Namespace(tournament=served.url + "/", table_key=key), store, "mesa"
    )
    try:
        run_with_camera(session, store, lambda: ClipCamera(len(frames)))
        assert pusher.wait_caught_up(20)
    finally:
        pusher.stop()
    here = store.state("mesa")
    there = client.get("/api/tables/mesa").get_json()
    assert there["seq"] == here["seq"] and there["score"] == here["score"] == truth["score"]
    assert client.get("/api/tables/mesa/matches/1/record").get_json() == store.record("mesa")
