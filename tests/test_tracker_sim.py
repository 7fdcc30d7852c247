"""Whole simulated deals end to end: the simulator's per-frame detections through the tracker."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from scorekeeper.cli import main
from scorekeeper.rules import Rules, replay_record
from scorekeeper.synth.simulate import demo_clip, simulate_detections
from scorekeeper.tracking import CardPlayed, DealStarted, TableGeometry, Tracker, TrickGathered
from scorekeeper.tracking.evaluate import compare
from scorekeeper.tracking.noise import Noise, degrade
from scorekeeper.tracking.offline import track_stream

SEED = 31
"""A tuning seed (benchmarks/tracker_eval.py measures on seeds from 5000 on)."""


def tracker_for(truth: dict[str, Any]) -> Tracker:
    return Tracker(
        TableGeometry.from_json(truth["geometry"]),
        Rules.from_json(truth["record"]["rules"]),
        fps=float(truth["fps"]),
    )


def test_a_whole_simulated_deal_is_rebuilt_exactly() -> None:
    frames, truth = simulate_detections(SEED, 1)
    tracked = track_stream(frames, tracker_for(truth))
    assert tracked.record["deals"] == truth["record"]["deals"]
    assert tracked.result()["score"] == replay_record(truth["record"])["score"]
    want = [(e["seat"], e["card"]) for e in truth["events"] if e["type"] == "card_played"]
    got = [(e.seat, e.card.notation) for e in tracked.events if isinstance(e, CardPlayed)]
    assert got == want
    winners = [e["winner"] for e in truth["events"] if e["type"] == "trick_gathered"]
    assert [e.winner for e in tracked.events if isinstance(e, TrickGathered)] == winners
    started = next(e for e in tracked.events if isinstance(e, DealStarted))
    dealt = next(e for e in truth["events"] if e["type"] == "deal_started")
    assert (started.dealer, started.turned.notation) == (dealt["dealer"], dealt["turned"])
    # Every play is announced within half a second of the card landing (the simulator's card
    # eases to a stop, so the tracker may call it still a frame or two before it quite is).
    fps = float(truth["fps"])
    landed = {e["card"]: e["frame"] for e in truth["events"] if e["type"] == "card_played"}
    for i, e in enumerate(tracked.events):
        if isinstance(e, CardPlayed):
            assert -0.2 * fps <= tracked.emitted_at[i] - landed[e.card.notation] <= 0.5 * fps


def test_the_truth_speaks_the_trackers_events() -> None:
    """The simulator's ground truth is the tracker's own events: a perfect run of the tracker says
    the same, field for field, but for when it saw each thing and how sure it was."""
    frames, truth = simulate_detections(SEED, 2)
    tracked = track_stream(frames, tracker_for(truth))
    measured = {"frame", "confidence", "side_seat"}
    said = [{k: v for k, v in e.to_json().items() if k not in measured} for e in tracked.events]
    staged = [{k: e[k] for k in d} for e, d in zip(truth["events"], said)]
    assert [d["type"] for d in said] == [e["type"] for e in truth["events"]]
    assert said == staged
    assert {e["deal"] for e in truth["events"]} == {1, 2}


@pytest.mark.parametrize("seed", [SEED, SEED + 1])
def test_degraded_detections_still_give_every_trick(seed: int) -> None:
    frames, truth = simulate_detections(seed, 1, fps=10)
    noisy = list(degrade(frames, Noise(), random.Random(seed)))
    assert len(noisy) < 0.8 * len(frames)  # the noise did drop frames
    comparison = compare(truth["record"], track_stream(noisy, tracker_for(truth)).record)
    assert comparison.tricks_right == comparison.tricks == 10


def test_two_deals_in_one_stream() -> None:
    frames, truth = simulate_detections(SEED + 2, 2, fps=10)
    tracked = track_stream(frames, tracker_for(truth))
    assert compare(truth["record"], tracked.record).deals_right == 2


def test_track_from_truth_on_the_shipped_demo_clip(capsys: pytest.CaptureFixture[str]) -> None:
    _, clip = demo_clip()
    assert (
        main(
            [
                "track",
                "--source",
                str(clip),
                "--from-truth",
                "--noise",
                "--json",
                "--ground-truth",
                str(clip),
            ]
        )
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert out["ground_truth"]["tricks_right"] == out["ground_truth"]["tricks"] == 10
    assert out["record"]["deals"] == json.loads(Path(clip).read_text())["record"]["deals"]


@pytest.mark.parametrize(
    ("seed", "place"),
    [
        (34, 13),
        (34, 37),
        # The dealer plays the turned trunfo third in this last vaza: with the card before it
        # unread, the trunfo first lands where the order of play gives it to another seat.
        (SEED, 37),
    ],
)
def test_a_card_never_read_goes_back_to_its_seat_by_how_the_cards_lie(
    seed: int, place: int
) -> None:
    # Only what a webcam shows sharp: a card in flight is a streak, so no side it came from is
    # seen, and this card is not read in any frame at all.
    from scorekeeper.rules import Card
    from scorekeeper.synth.simulate import simulate
    from scorekeeper.synth.truth import detection_stream
    from scorekeeper.tracking.noise import never_read

    simulation = simulate(seed)
    truth = simulation.truth
    unread = truth["record"]["deals"][0]["plays"][place]
    frames = never_read(detection_stream(simulation.timeline, sharp_only=True), Card.parse(unread))
    tracked = track_stream(frames, tracker_for(truth))
    assert tracked.record["deals"] == truth["record"]["deals"]
    assert any(
        getattr(e, "reason", None) in {"missing_card", "deduced"} and unread in str(e)
        for e in tracked.events
    ), "the card never read is told as placed, not as seen"
