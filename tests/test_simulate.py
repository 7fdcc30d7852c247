"""Simulated deal videos: determinism, truth that replays, revokes, events and detections agree."""

from __future__ import annotations

import json

import pytest

from scorekeeper.rules import Card, Deal, replay_record
from scorekeeper.synth.plan import SimulationError
from scorekeeper.synth.simulate import simulate, simulate_detections


@pytest.fixture(scope="module")
def stream():
    """Two deals of ground-truth detections, shared: the slowest thing these tests make."""
    return simulate_detections(21, deals=2)


def _events(truth: dict, kind: str) -> list[dict]:
    return [e for e in truth["events"] if e["type"] == kind]


def test_a_seed_reproduces_the_same_truth() -> None:
    first = json.dumps(simulate(5, 2).truth, sort_keys=True)
    assert json.dumps(simulate(5, 2).truth, sort_keys=True) == first
    assert json.dumps(simulate(6, 2).truth, sort_keys=True) != first


def test_the_camera_options_do_not_change_the_plays_or_the_motion() -> None:
    full, still = simulate(8, 1), simulate(8, 1, camera="none")
    assert full.truth["events"] == still.truth["events"]
    assert full.truth["record"] == still.truth["record"]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_truth_replays_to_the_score_it_claims(seed: int) -> None:
    truth = simulate(seed, 3).truth
    result = replay_record(json.loads(json.dumps(truth["record"])))
    assert result["score"] == truth["score"]
    for claimed, replayed in zip(truth["deals"], result["deals"], strict=True):
        assert replayed["complete"]
        assert replayed["points"] == claimed["points"]
        assert [t["winner"] for t in replayed["tricks"]] == [t["winner"] for t in claimed["tricks"]]
        assert replayed["revokes"] == []
    gathered = _events(truth, "trick_gathered")
    assert [e["winner"] for e in gathered] == [
        t["winner"] for deal in truth["deals"] for t in deal["tricks"]
    ]


@pytest.mark.parametrize("seed", [3, 4, 5, 6])
def test_a_revoke_is_injected_and_the_engine_proves_it(seed: int) -> None:
    truth = simulate(seed, 1, revoke=True).truth
    revokes = replay_record(truth["record"])["deals"][0]["revokes"]
    assert len(revokes) == 1
    revoke = revokes[0]
    assert truth["deals"][0]["revokes"][0]["seat"] == revoke["seat"]
    # The revoking player did hold the suit led: he plays it in a later vaza.
    later = [
        card
        for trick in truth["deals"][0]["tricks"][revoke["trick"] :]
        for seat, card in zip(trick["seats"], trick["cards"])
        if seat == revoke["seat"]
    ]
    assert any(Card.parse(card).suit.value == revoke["led"] for card in later)


def test_every_deal_tells_its_story_in_order() -> None:
    truth = simulate(9, 2).truth
    frames = [e["frame"] for e in truth["events"]]
    assert frames == sorted(frames) and frames[-1] < truth["frames"]
    for number, deal in enumerate(truth["deals"], start=1):
        events = [e for e in truth["events"] if e["deal"] == number]
        kinds = [e["type"] for e in events]
        assert kinds[0] == "deal_started" and kinds[-1] == "deal_ended"
        assert kinds[1:-1] == (["card_played"] * 4 + ["trick_gathered"]) * 10
        plays = [e for e in events if e["type"] == "card_played"]
        assert [(e["seat"], e["card"]) for e in plays] == [
            (seat, card) for t in deal["tricks"] for seat, card in zip(t["seats"], t["cards"])
        ]
        assert events[0]["dealer"] == deal["dealer"] and events[0]["turned"] == deal["turned"]
        turned = [e for e in plays if e["card"] == deal["turned"]]
        assert turned[0]["seat"] == deal["dealer"] and turned[0]["from_turned"]


def test_seats_sit_counter_clockwise_from_the_bottom_by_default() -> None:
    geometry = simulate(1, 1).truth["geometry"]
    assert geometry["seat_sides"] == ["bottom", "right", "top", "left"]
    assert geometry["direction"] == "counterclockwise"
    clockwise = simulate(1, 1, clockwise=True, seat0="left").truth["geometry"]
    assert clockwise["seat_sides"] == ["left", "top", "right", "bottom"]


def test_bad_options_are_one_line_errors() -> None:
    for options in ({"deals": 0}, {"seat0": "middle"}, {"fps": 0}, {"camera": "fisheye"}):
        with pytest.raises(SimulationError) as caught:
            simulate(1, **options)
        assert "\n" not in str(caught.value)


def _center(box: tuple[float, float, float, float]) -> tuple[float, float]:
    return (box[0] + box[2]) / 2, (box[1] + box[3]) / 2


def _inside(point: tuple[float, float], box: list[float], margin: float = 0) -> bool:
    return (
        box[0] - margin <= point[0] <= box[2] + margin
        and box[1] - margin <= point[1] <= box[3] + margin
    )


def test_the_detection_stream_covers_every_frame(stream) -> None:
    frames, truth = stream
    assert len(frames) == truth["frames"]
    assert [f.frame_index for f in frames] == list(range(truth["frames"]))
    assert all((f.width, f.height) == (1280, 720) for f in frames)
    for f in frames:
        for d in f.cards:
            x1, y1, x2, y2 = d.box
            assert 0 <= x1 < x2 <= 1280 and 0 <= y1 < y2 <= 720
            assert d.corners in (1, 2)


def test_a_played_card_rests_in_the_play_area_until_its_trick_is_gathered(stream) -> None:
    frames, truth = stream
    area = truth["geometry"]["play_area"]
    gathered = {(e["deal"], e["trick"]): e["frame"] for e in _events(truth, "trick_gathered")}
    fps = truth["fps"]
    for play in _events(truth, "card_played"):
        card = play["card"]
        end = gathered[(play["deal"], play["trick"])]
        seen = [
            f.frame_index
            for f in frames[play["frame"] : end]
            for d in f.cards
            if d.card.notation == card and _inside(_center(d.box), area, margin=10)
        ]
        # Seen steadily right after landing; later cards and hands may hide its indices after.
        first_second = [frame for frame in seen if frame < play["frame"] + fps]
        assert len(first_second) >= 0.6 * fps, (card, play["frame"], first_second)
        assert len(seen) >= 0.25 * (end - play["frame"]), (card, len(seen), end - play["frame"])
        # After the gather it never shows again in that deal.
        deal_end = next(
            e["frame"] for e in _events(truth, "deal_ended") if e["deal"] == play["deal"]
        )
        assert not any(d.card.notation == card for f in frames[end:deal_end] for d in f.cards)


def test_a_card_shows_only_from_its_slide_in_except_the_turned_card(stream) -> None:
    frames, truth = stream
    fps = truth["fps"]
    starts = {e["deal"]: e["frame"] for e in _events(truth, "deal_started")}
    for play in _events(truth, "card_played"):
        if play["from_turned"]:
            continue
        first = next(
            f.frame_index
            for f in frames[starts[play["deal"]] :]
            if any(d.card.notation == play["card"] for d in f.cards)
        )
        assert play["frame"] - 2 * fps <= first <= play["frame"]


def test_the_turned_card_lies_by_the_dealer_until_he_plays_it(stream) -> None:
    frames, truth = stream
    spots = truth["geometry"]["turned_card_spots"]
    plays = _events(truth, "card_played")
    for start in _events(truth, "deal_started"):
        played = next(e for e in plays if e["deal"] == start["deal"] and e["from_turned"])
        spot = spots[str(start["dealer"])]
        near = 0
        span = range(start["frame"], played["frame"] - 10)
        for index in span:
            for d in frames[index].cards:
                if d.card.notation == start["turned"]:
                    assert _inside(_center(d.box), spot, margin=40)
                    near += 1
        assert near >= 0.8 * len(span)


def test_played_cards_arrive_from_their_player_side(stream) -> None:
    frames, truth = stream
    cx, cy = truth["geometry"]["table_center"]
    outward = {"bottom": (0, 1), "right": (1, 0), "top": (0, -1), "left": (-1, 0)}
    for play in _events(truth, "card_played")[:40]:
        if play["from_turned"]:
            continue
        first = next(
            d
            for f in frames[play["frame"] - 30 :]
            for d in f.cards
            if d.card.notation == play["card"]
        )
        x, y = _center(first.box)
        ox, oy = outward[play["side"]]
        assert (x - cx) * ox + (y - cy) * oy > 0


def test_hands_and_later_cards_hide_cards_for_a_while(stream) -> None:
    frames, truth = stream
    # Some frame must list fewer of the cards on the table than are there: occlusion happens.
    on_table = 0
    hidden = 0
    plays = _events(truth, "card_played")
    gathered = {(e["deal"], e["trick"]): e["frame"] for e in _events(truth, "trick_gathered")}
    for play in plays:
        for f in frames[play["frame"] : gathered[(play["deal"], play["trick"])]]:
            on_table += 1
            hidden += all(d.card.notation != play["card"] for d in f.cards)
    assert 0 < hidden < 0.4 * on_table


def test_four_deals_make_a_stream_of_thousands_of_frames() -> None:
    _, truth = simulate_detections(99, deals=4)
    assert truth["frames"] > 4 * 1000
    assert len(_events(truth, "card_played")) == 4 * 40


def test_box_mode_card_boxes_the_visible_card() -> None:
    frames, truth = simulate_detections(3, deals=1, box="card")
    play = _events(truth, "card_played")[0]
    detection = next(d for d in frames[play["frame"] + 2].cards if d.card.notation == play["card"])
    width = detection.box[2] - detection.box[0]
    assert width > 0.6 * truth["geometry"]["card_width_px"]
    with pytest.raises(SimulationError):
        simulate_detections(3, deals=1, box="corner")


def test_the_engine_agrees_with_the_tricks_the_truth_lists() -> None:
    truth = simulate(12, 1).truth
    deal_truth = truth["deals"][0]
    deal = Deal.start(dealer=deal_truth["dealer"], turned=Card.parse(deal_truth["turned"]))
    for trick in deal_truth["tricks"]:
        for seat, card in zip(trick["seats"], trick["cards"]):
            assert deal.to_play == seat
            deal = deal.play(Card.parse(card))
    assert deal.points.to_json() == deal_truth["points"]
