"""The tracker against short scripted detection sequences: one test per way a camera misleads.

A :class:`Scene` is a pixel-free script of what the card reader reports frame by frame; the helpers
stage plays the way a table looks from above (a card slides in from its player's side and lies in
the middle until the trick is gathered), and each test adds one kind of trouble on top.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import pytest

from scorekeeper.rules import Card, Deal, Rules, random_legal_deal
from scorekeeper.tracking import (
    CardPlayed,
    DealEnded,
    DealStarted,
    Event,
    PlayCorrected,
    RevokeFlagged,
    TableGeometry,
    Thresholds,
    Tracker,
    TrickGathered,
    Uncertain,
)
from scorekeeper.vision.detections import CardDetection, FrameDetections

W, H, FPS = 1280, 720, 10.0
GEOMETRY = TableGeometry.default(W, H)
"""Play area (460, 180)-(820, 540): a 360 px square in the middle."""

Point = tuple[float, float]
HAND: dict[int, Point] = {0: (640, 660), 1: (1180, 360), 2: (640, 60), 3: (100, 360)}
"""Where each seat's cards come from: by its side of the image, outside the play area."""
LAND: dict[int, Point] = {0: (640, 430), 1: (710, 360), 2: (640, 290), 3: (570, 360)}
"""Where each seat's card lies in the middle: a little toward its player."""
TURNED: dict[int, Point] = {0: (780, 610), 1: (1060, 470), 2: (500, 110), 3: (220, 250)}


def c(text: str) -> Card:
    return Card.parse(text)


def detection(card: Card, at: Point, confidence: float = 0.95, size: float = 26) -> CardDetection:
    x, y = at
    return CardDetection(
        card, confidence, (x - size / 2, y - size * 0.7, x + size / 2, y + size * 0.7)
    )


def between(a: Point, b: Point, t: float) -> Point:
    return (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t)


@dataclass
class Truth:
    plays: list[tuple[int, int, Card]] = field(default_factory=list)
    """(landing frame, seat, card) in playing order."""
    gathered: list[tuple[int, int]] = field(default_factory=list)
    """(first frame without the trick, winner)."""


class Scene:
    """What the reader sees, frame by frame; later calls override earlier ones."""

    def __init__(self) -> None:
        self.seen: dict[int, dict[Card, CardDetection]] = defaultdict(dict)
        self.end = 0

    def show(
        self,
        card: Card,
        frames: Iterable[int],
        at: Point | Callable[[int], Point],
        confidence: float = 0.95,
    ) -> None:
        for f in frames:
            point = at(f) if callable(at) else at
            self.seen[f][card] = detection(card, point, confidence)
            self.end = max(self.end, f + 1)

    def seen_box(
        self,
        card: Card,
        frames: Iterable[int],
        box: tuple[float, float, float, float],
        confidence: float = 0.8,
    ) -> None:
        """The reader's box for ``card`` in these frames (one corner index, or the whole card)."""
        for f in frames:
            self.seen[f][card] = CardDetection(card, confidence, box)
            self.end = max(self.end, f + 1)

    def hide(self, card: Card, frames: Iterable[int]) -> None:
        for f in frames:
            self.seen[f].pop(card, None)

    def hide_all(
        self, frames: Iterable[int], near: Point | None = None, radius: float = 1e9
    ) -> None:
        """A hand over ``near``: every card within ``radius`` of it is hidden."""
        for f in frames:
            for card, d in list(self.seen[f].items()):
                if (
                    near is None
                    or (d.center[0] - near[0]) ** 2 + (d.center[1] - near[1]) ** 2 <= radius**2
                ):
                    del self.seen[f][card]

    def frames(
        self, *, drop: Iterable[int] = (), until: int | None = None
    ) -> list[FrameDetections]:
        dropped = set(drop)
        last = self.end + 30 if until is None else until
        return [
            FrameDetections(f, tuple(self.seen[f].values()), W, H)
            for f in range(last)
            if f not in dropped
        ]


def stage_deal(
    scene: Scene,
    *,
    dealer: int,
    turned: Card,
    plays: Sequence[Card],
    start: int = 0,
    gap: int = 8,
    linger: int = 10,
    rules: Rules | None = None,
) -> Truth:
    """A clean deal: the turned card by the dealer, then each card slides in to the middle."""
    truth = Truth()
    deal = Deal.start(dealer=dealer, turned=turned, rules=rules)
    f = start + 10
    turned_until = start + 10**6
    on_table: list[tuple[Card, int]] = []
    for card in plays:
        seat = deal.to_play
        assert seat is not None
        origin = TURNED[seat] if card == turned else HAND[seat]
        if card == turned:
            turned_until = f
        scene.show(card, [f], between(origin, LAND[seat], 0.2))
        scene.show(card, [f + 1], between(origin, LAND[seat], 0.7))
        truth.plays.append((f + 2, seat, card))
        on_table.append((card, f + 2))
        deal = deal.play(card)
        if len(on_table) == 4:
            gone = f + 2 + linger
            for played, landed in on_table:
                seat_of = truth.plays[[p[2] for p in truth.plays].index(played)][1]
                scene.show(played, range(landed, gone), LAND[seat_of])
            winner = deal.tricks[-1].winner(deal.trump)
            assert winner is not None
            truth.gathered.append((gone, winner))
            on_table = []
            f = gone + 5
        else:
            f += gap
    scene.show(turned, range(start, min(turned_until, scene.end or turned_until)), TURNED[dealer])
    for played, landed in on_table:
        seat_of = truth.plays[[p[2] for p in truth.plays].index(played)][1]
        scene.show(played, range(landed, f + 20), LAND[seat_of])
    return truth


def run(
    frames: Iterable[FrameDetections], tracker: Tracker | None = None, *, finish: bool = True
) -> list[Event]:
    tracker = tracker or Tracker(GEOMETRY, fps=FPS)
    events: list[Event] = []
    for frame in frames:
        events += tracker.update(frame)
    if finish:
        events += tracker.finish()
    return events


def plays_of(events: Iterable[Event]) -> list[tuple[int, Card]]:
    return [(e.seat, e.card) for e in events if isinstance(e, CardPlayed)]


def uncertain(events: Iterable[Event], reason: str | None = None) -> list[Uncertain]:
    return [
        e for e in events if isinstance(e, Uncertain) and (reason is None or e.reason == reason)
    ]


TRICK_1 = [c("2S"), c("KS"), c("AS"), c("5S")]
"""Dealer 3 turns AH (trump hearts): seat 0 leads; AS (seat 2) wins."""


def one_trick_scene(**kwargs: object) -> tuple[Scene, Truth]:
    scene = Scene()
    truth = stage_deal(scene, dealer=3, turned=c("AH"), plays=TRICK_1, **kwargs)  # type: ignore[arg-type]
    return scene, truth


# -- clean runs ----------------------------------------------------------------------------


def test_clean_trick_gives_the_deal_the_plays_and_the_gather() -> None:
    scene, truth = one_trick_scene()
    events = run(scene.frames())
    assert isinstance(events[0], DealStarted)
    assert (events[0].dealer, events[0].turned) == (3, c("AH"))
    assert plays_of(events) == [(seat, card) for _, seat, card in truth.plays]
    gathered = [e for e in events if isinstance(e, TrickGathered)]
    assert [(g.winner, g.points) for g in gathered] == [(2, 15)]
    assert uncertain(events, "seat") == [] and uncertain(events, "weak_read") == []


def test_card_played_frame_is_the_landing_and_comes_a_fraction_of_a_second_later() -> None:
    scene, truth = one_trick_scene()
    tracker = Tracker(GEOMETRY, fps=FPS)
    emitted: dict[Card, int] = {}
    for frame in scene.frames():
        for e in tracker.update(frame):
            if isinstance(e, CardPlayed):
                emitted[e.card] = frame.frame_index
                assert abs(e.frame - truth.plays[[p[2] for p in truth.plays].index(e.card)][0]) <= 1
    for landed, _, card in truth.plays:
        assert 0 < emitted[card] - landed <= 0.5 * FPS


def test_whole_random_deal_replays_to_the_engines_tricks() -> None:
    rules = Rules()
    turned, plays, _ = random_legal_deal(random.Random(7), dealer=1, rules=rules)
    scene = Scene()
    truth = stage_deal(scene, dealer=1, turned=turned, plays=plays)
    tracker = Tracker(GEOMETRY, rules, fps=FPS)
    events = run(scene.frames(), tracker)
    assert plays_of(events) == [(seat, card) for _, seat, card in truth.plays]
    assert [e.winner for e in events if isinstance(e, TrickGathered)] == [
        w for _, w in truth.gathered
    ]
    ended = [e for e in events if isinstance(e, DealEnded)]
    assert len(ended) == 1 and ended[0].complete
    assert sum(ended[0].points.values()) == 120
    assert uncertain(events) == []


# -- one test per failure mode ---------------------------------------------------------------


def test_one_frame_ghost_in_the_play_area_is_not_a_play() -> None:
    scene, truth = one_trick_scene()
    scene.show(c("7D"), [truth.plays[1][0] + 3], (600, 330))
    events = run(scene.frames())
    assert c("7D") not in [card for _, card in plays_of(events)]
    assert len(plays_of(events)) == 4


def test_dropped_frames_and_a_hand_over_the_pile_lose_and_duplicate_nothing() -> None:
    scene, truth = one_trick_scene()
    # A hand covers the whole pile for 5 frames right after the third card lands.
    third = truth.plays[2][0]
    scene.hide_all(range(third + 1, third + 6), near=(640, 360), radius=150)
    rng = random.Random(3)
    drop = [f for f in range(scene.end) if rng.random() < 0.3]
    events = run(scene.frames(drop=drop))
    assert plays_of(events) == [(seat, card) for _, seat, card in truth.plays]
    assert len([e for e in events if isinstance(e, TrickGathered)]) == 1


def test_card_sliding_in_counts_once_when_it_stops_and_keeps_its_side() -> None:
    scene, truth = one_trick_scene()
    landed, seat, card = truth.plays[1]  # seat 1, from the right
    # Slow slide: seen every frame from the right edge of the image until it lands.
    scene.show(
        card, range(landed - 8, landed), lambda f: between(HAND[1], LAND[1], (f - landed + 9) / 9)
    )
    events = run(scene.frames())
    assert plays_of(events).count((seat, card)) == 1
    played = next(e for e in events if isinstance(e, CardPlayed) and e.card == card)
    assert played.side_seat == 1
    assert played.frame >= landed - 2


def test_card_partly_hidden_under_the_next_is_played_before_it() -> None:
    scene, truth = one_trick_scene()
    landed, seat, card = truth.plays[2]  # AS: seen on landing, then the next card covers it
    next_landed = truth.plays[3][0]
    scene.hide(card, range(landed + 2, scene.end))
    scene.hide(card, [landed - 2, landed - 1])  # caught only once it lay there
    scene.show(card, [next_landed + 4], LAND[seat], confidence=0.5)  # one corner peeks out later
    events = run(scene.frames())
    assert plays_of(events) == [(s, k) for _, s, k in truth.plays]
    weak = uncertain(events, "weak_read")
    assert [w.card for w in weak] == [card]


def test_card_read_once_on_landing_and_again_only_after_the_next_goes_back_in_its_place() -> None:
    scene, truth = one_trick_scene()
    landed, seat, card = truth.plays[1]  # KS, seat 1
    next_landed = truth.plays[2][0]
    # Read the frame it lands, then not again until the next card (AS) has settled and been
    # played: the tracker hears of AS first.
    scene.hide(card, [landed - 2, landed - 1, *range(landed + 1, next_landed + 5)])
    events = run(scene.frames())
    assert plays_of(events)[:2] == [(0, c("2S")), (1, c("AS"))]
    corrected = [e for e in events if isinstance(e, PlayCorrected)]
    assert [(e.play, e.seat, e.card) for e in corrected] == [(2, seat, card)]
    tracker = Tracker(GEOMETRY, fps=FPS)
    run(scene.frames(), tracker)
    assert list(tracker.deals[0].plays) == [k for _, _, k in truth.plays]
    assert [t.winner(tracker.deals[0].trump) for t in tracker.deals[0].tricks] == [2]


def test_a_card_first_read_just_after_the_next_lands_goes_where_the_sides_say() -> None:
    scene, truth = one_trick_scene()
    landed, seat, card = truth.plays[1]  # KS, seat 1
    next_landed = truth.plays[2][0]  # AS, seat 2, seen sliding in from seat 2's side
    # KS is not read at all (nor seen coming in) until a frame after AS came to rest: by the
    # order read, AS would be seat 1's card and KS seat 2's.
    scene.hide(card, range(landed - 2, next_landed + 1))
    events = run(scene.frames())
    assert [(e.play, e.seat, e.card) for e in events if isinstance(e, PlayCorrected)] == [
        (2, seat, card)
    ]
    tracker = Tracker(GEOMETRY, fps=FPS)
    run(scene.frames(), tracker)
    assert list(tracker.deals[0].plays) == [k for _, _, k in truth.plays]


def test_cards_read_in_the_order_they_landed_keep_it_whatever_the_sides_say() -> None:
    # Two seconds apart, AS is read coming from seat 3's side (a player reaching across): the
    # order of play, not the side, gives it seat 2, and the doubt is told.
    scene, truth = one_trick_scene(gap=20)
    landed, seat, card = truth.plays[2]  # AS, seat 2
    scene.show(card, [landed - 2], between(HAND[3], LAND[seat], 0.2))
    scene.show(card, [landed - 1], between(HAND[3], LAND[seat], 0.7))
    events = run(scene.frames())
    assert plays_of(events) == [(s, k) for _, s, k in truth.plays]
    assert [e.card for e in uncertain(events, "seat")] == [card]


def test_a_ghost_long_before_where_a_card_lands_does_not_move_it_up_the_vaza() -> None:
    scene, truth = one_trick_scene()
    first, _, _ = truth.plays[0]
    _, seat, card = truth.plays[3]  # 5S, the vaza's last card
    scene.show(card, [first + 1], LAND[seat], confidence=0.5)  # a one-frame ghost, seconds before
    events = run(scene.frames())
    assert plays_of(events) == [(s, k) for _, s, k in truth.plays]
    assert not [e for e in events if isinstance(e, PlayCorrected)]


def test_two_cards_the_reader_gives_one_name_are_two_plays() -> None:
    # A deck whose clubs read as spades: 5C lands next to 5S and is read "5S" too; in a frame
    # where both are read, the reader names the weaker read by its runner-up, 5C.
    plays = [c("5S"), c("5C"), c("2S"), c("3S")]
    scene = Scene()
    truth = stage_deal(scene, dealer=3, turned=c("AH"), plays=plays)
    landed, _, card = truth.plays[1]
    gone = truth.gathered[0][0]
    x, y = 780, 250  # where 5C lies, well away from 5S
    box = (x - 13, y - 18, x + 13, y + 18)
    for f in range(landed, gone):
        scene.hide(card, [f])
        if f % 2:
            scene.hide(c("5S"), [f])  # the real 5S not read this frame: 5C takes the name
            scene.seen[f][c("5S")] = CardDetection(c("5S"), 0.6, box, alternatives=((card, 0.45),))
        else:
            scene.seen[f][card] = CardDetection(card, 0.4, box, alternatives=((c("5S"), 0.6),))
    events = run(scene.frames())
    assert plays_of(events) == [(s, k) for _, s, k in truth.plays]


def test_wrong_read_for_two_frames_is_not_a_play_and_the_right_card_still_is() -> None:
    scene, truth = one_trick_scene()
    landed, seat, card = truth.plays[0]
    for f in (landed + 1, landed + 2):
        scene.hide(card, [f])
        scene.show(c("2C"), [f], LAND[seat], confidence=0.6)
    events = run(scene.frames())
    assert plays_of(events) == [(s, k) for _, s, k in truth.plays]


def test_misread_coming_back_now_and_then_at_one_spot_is_not_a_play() -> None:
    scene, truth = one_trick_scene(linger=30)
    landed, seat, card = truth.plays[0]
    for f in range(landed + 2, landed + 40, 6):
        scene.hide(card, [f])
        scene.show(c("2C"), [f], LAND[seat], confidence=0.5)
    events = run(scene.frames())
    assert c("2C") not in [k for _, k in plays_of(events)]


@pytest.mark.parametrize("confidence", [0.1, 0.2])
def test_faint_misread_lying_at_one_spot_all_along_is_not_a_play(confidence: float) -> None:
    # The reader names a half-hidden corner faintly and wrongly, frame after frame, at one spot.
    scene, truth = one_trick_scene(linger=30)
    first = truth.plays[0][0]
    scene.show(c("2C"), range(first, truth.gathered[0][0]), (560, 450), confidence=confidence)
    tracker = Tracker(
        GEOMETRY, fps=FPS, thresholds=Thresholds(min_confidence=0.15, play_confidence=0.25)
    )
    events = run(scene.frames(), tracker)
    assert plays_of(events) == [(s, k) for _, s, k in truth.plays]


TRICK_2 = [c("3D"), c("4D"), c("5D"), c("6D")]
"""After TRICK_1, seat 2 (AS) leads."""


def test_card_missed_in_the_middle_of_a_trick_is_put_back_and_the_others_move_one_seat_on() -> None:
    scene = Scene()
    truth = stage_deal(scene, dealer=3, turned=c("AH"), plays=TRICK_1 + TRICK_2)
    landed, seat, card = truth.plays[1]  # KS, seat 1: only read faintly, twice, as it landed
    scene.hide(card, range(scene.end))
    scene.show(card, [landed, landed + 4], LAND[seat], confidence=0.3)
    tracker = Tracker(GEOMETRY, fps=FPS)
    events = run(scene.frames(), tracker)
    corrections = [(e.play, e.seat, e.card) for e in events if isinstance(e, PlayCorrected)]
    assert corrections == [(2, 1, c("KS")), (3, 2, c("AS"))]
    assert [w.card for w in uncertain(events, "weak_read")] == [c("KS")]
    assert uncertain(events, "trick_vanished") == []
    deal = tracker.deals[0]
    assert [list(t.cards) for t in deal.tricks] == [TRICK_1, TRICK_2]
    assert [w for _, w in truth.gathered] == [t.winner(deal.trump) for t in deal.tricks]


def test_faint_glimpses_under_a_gathered_cards_name_give_way_to_the_vazas_real_last_card() -> None:
    # Before 6D lands, a few faint reads named KS (gathered in vaza 1; their runner-up 7D) flicker
    # beside vaza 2: taken as its fourth card, 7D filled the vaza, and the 6D read steadily there
    # after it had no place left.
    scene = Scene()
    truth = stage_deal(scene, dealer=3, turned=c("AH"), plays=TRICK_1 + TRICK_2)
    landed = truth.plays[7][0]
    for f in (landed - 9, landed - 7, landed - 5):
        scene.seen[f][c("KS")] = CardDetection(
            c("KS"), 0.3, (670, 285, 700, 305), alternatives=((c("7D"), 0.25),)
        )
    tracker = Tracker(GEOMETRY, fps=FPS)
    events = run(scene.frames(), tracker)
    deal = tracker.deals[0]
    assert [list(t.cards) for t in deal.tricks] == [TRICK_1, TRICK_2]
    assert told_plays(events) == TRICK_1 + TRICK_2
    assert [w.card for w in uncertain(events, "weak_read")] == [c("6D")]


def test_a_faint_read_taken_as_a_vazas_last_card_gives_way_to_the_card_read_surely_there() -> None:
    # Just before 6D lands, a half-covered corner beside the vaza is read as 7C, a card still in
    # a hand, four times and faintly: taken as the vaza's fourth card, it would leave the 6D read
    # steadily there no place, and 7C could not be played again when it really comes.
    scene = Scene()
    truth = stage_deal(scene, dealer=3, turned=c("AH"), plays=TRICK_1 + TRICK_2)
    landed = truth.plays[7][0]
    glimpses = (landed - 5, landed - 4, landed - 3, landed - 1)
    scene.seen_box(c("7C"), glimpses, (670, 285, 700, 305), confidence=0.3)
    tracker = Tracker(GEOMETRY, fps=FPS)
    events = run(scene.frames(), tracker)
    deal = tracker.deals[0]
    assert [list(t.cards) for t in deal.tricks] == [TRICK_1, TRICK_2]
    assert told_plays(events) == TRICK_1 + TRICK_2
    assert c("7C") not in deal.played
    assert [w.card for w in uncertain(events, "weak_read")] == [c("6D")]


@pytest.mark.parametrize("hidden", [1, 3])
def test_card_of_the_last_trick_never_read_well_is_the_one_card_left(hidden: int) -> None:
    rules = Rules()
    turned, plays, _ = random_legal_deal(random.Random(11), dealer=0, rules=rules)
    scene = Scene()
    truth = stage_deal(scene, dealer=0, turned=turned, plays=plays)
    landed, seat, card = truth.plays[36 + hidden]
    scene.hide(card, range(scene.end))
    if hidden == 1:  # read faintly twice as it landed: put back in its place
        scene.show(card, [landed, landed + 4], LAND[seat], confidence=0.3)
    tracker = Tracker(GEOMETRY, rules, fps=FPS)
    events = run(scene.frames(), tracker)
    deal = tracker.deals[0]
    assert deal.is_complete
    assert [c for t in deal.tricks for c in t.cards] == list(plays)
    assert uncertain(events, "stream_ended") == []
    flagged = uncertain(events, "deduced" if hidden == 3 else "weak_read")
    assert [(u.card, u.seat) for u in flagged] == [(card, seat)]


def told_plays(events: Iterable[Event]) -> list[Card]:
    """The deal's plays as the event log keeps them: plays appended, corrections in place."""
    told: list[Card] = []
    for e in events:
        if isinstance(e, CardPlayed):
            told.append(e.card)
        elif isinstance(e, PlayCorrected):
            told[e.play - 1] = e.card
    return told


@pytest.mark.parametrize(("seed", "hidden"), [(11, 9), (12, 20), (13, 34)])
def test_card_never_read_in_a_vaza_is_placed_once_the_deal_shows_which_it_was(
    seed: int, hidden: int
) -> None:
    rules = Rules()
    turned, plays, _ = random_legal_deal(random.Random(seed), dealer=2, rules=rules)
    scene = Scene()
    truth = stage_deal(scene, dealer=2, turned=turned, plays=plays)
    card = truth.plays[hidden][2]
    assert card != turned  # the turned card is seen by the dealer before it is played
    scene.hide(card, range(scene.end))
    tracker = Tracker(GEOMETRY, rules, fps=FPS)
    events = run(scene.frames(), tracker)
    deal = tracker.deals[0]
    assert deal.is_complete
    assert [c for t in deal.tricks for c in t.cards] == list(plays)
    assert told_plays(events) == list(plays)
    placed = uncertain(events, "missing_card")[-1]
    assert str(card) in placed.detail and f"vaza {hidden // 4 + 1}" in placed.detail
    assert [e.winner for e in events if isinstance(e, TrickGathered)][-10 + hidden // 4 :] == [
        w for _, w in truth.gathered
    ][hidden // 4 :]


def hide_in_vaza(seed: int, vaza: int, places: Sequence[int]) -> tuple[Scene, list[Card], Truth]:
    """A whole deal (dealer 2) whose vaza ``vaza`` (from 0) has the cards at ``places`` never
    read in any frame."""
    turned, plays, _ = random_legal_deal(random.Random(seed), dealer=2, rules=Rules())
    scene = Scene()
    truth = stage_deal(scene, dealer=2, turned=turned, plays=plays)
    for place in places:
        card = truth.plays[4 * vaza + place][2]
        assert card != turned  # the turned card is seen by the dealer before it is played
        scene.hide(card, range(scene.end))
    return scene, list(plays), truth


@pytest.mark.parametrize(
    ("seed", "vaza", "places"),
    # The third: the dealer's turned trunfo is the first card read in that vaza.
    [(20, 1, (0, 1)), (21, 7, (2, 3)), (29, 1, (0, 1))],
)
def test_two_cards_never_read_in_one_vaza_are_placed_once_the_deal_shows_which_they_were(
    seed: int, vaza: int, places: tuple[int, int]
) -> None:
    scene, plays, truth = hide_in_vaza(seed, vaza, places)
    tracker = Tracker(GEOMETRY, Rules(), fps=FPS)
    events = run(scene.frames(), tracker)
    deal = tracker.deals[0]
    assert [c for t in deal.tricks for c in t.cards] == plays
    assert told_plays(events) == plays
    placed = uncertain(events, "missing_card")[-1]
    for place in places:
        assert f"{truth.plays[4 * vaza + place][2]} was never read" in placed.detail
    assert f"vaza {vaza + 1} " in placed.detail


@pytest.mark.parametrize(("seed", "glimpsed"), [(20, 0), (20, 1), (25, 1)])
def test_of_two_cards_missing_from_a_vaza_the_one_glimpsed_goes_back_and_the_other_is_placed(
    seed: int, glimpsed: int
) -> None:
    scene, plays, truth = hide_in_vaza(seed, 1, (1, 2))
    landed, seat, card = truth.plays[4 + 1 + glimpsed]
    scene.show(card, [landed, landed + 4], LAND[seat], confidence=0.3)  # read faintly twice
    tracker = Tracker(GEOMETRY, Rules(), fps=FPS)
    events = run(scene.frames(), tracker)
    assert [c for t in tracker.deals[0].tricks for c in t.cards] == plays
    assert told_plays(events) == plays
    assert card in [w.card for w in uncertain(events, "weak_read")]
    never = truth.plays[4 + 2 - glimpsed][2]
    assert f"{never} was never read" in uncertain(events, "missing_card")[-1].detail


@pytest.mark.parametrize("seed", [22, 24, 30])
def test_with_two_cards_of_a_vaza_never_read_every_card_read_keeps_its_seat(seed: int) -> None:
    # Which of the two unread cards came first the rules cannot always tell; nothing else moves.
    scene, plays, truth = hide_in_vaza(seed, 4, (0, 1))
    tracker = Tracker(GEOMETRY, Rules(), fps=FPS)
    run(scene.frames(), tracker)
    deal = tracker.deals[0]
    assert deal.is_complete
    hidden = {truth.plays[16][2], truth.plays[17][2]}
    rebuilt = [c for t in deal.tricks for c in t.cards]
    assert [c for c in rebuilt if c not in hidden] == [c for c in plays if c not in hidden]
    seats = {
        card: seat
        for trick in deal.tricks
        for card, seat in zip(trick.cards, trick.seats(), strict=True)
    }
    assert {card: seat for _, seat, card in truth.plays if card not in hidden} == {
        card: seat for card, seat in seats.items() if card not in hidden
    }
    # From the vaza after the two cards on, every vaza goes to the team that won it.
    assert [t.winner(deal.trump) for t in deal.tricks][5:] == [w for _, w in truth.gathered][5:]


def test_spurious_cards_outside_the_play_area_are_not_plays() -> None:
    scene, truth = one_trick_scene()
    scene.show(c("QC"), range(15, 60), (1000, 650))  # a player's fanned hand the camera can read
    scene.show(c("3D"), [22], (300, 100))
    events = run(scene.frames())
    assert plays_of(events) == [(s, k) for _, s, k in truth.plays]


def test_turned_card_by_the_dealer_is_not_a_play_until_he_plays_it() -> None:
    scene = Scene()
    # Dealer 1 turns 5S: seat 2 leads; the dealer plays the turned card fourth.
    plays = [c("2S"), c("KS"), c("AS"), c("5S")]
    truth = stage_deal(scene, dealer=1, turned=c("5S"), plays=plays)
    tracker = Tracker(GEOMETRY, fps=FPS)
    events: list[Event] = []
    for frame in scene.frames():
        new = tracker.update(frame)
        if frame.frame_index < truth.plays[3][0] - 2:
            assert c("5S") not in [k for _, k in plays_of(new)]
        events += new
    started = [e for e in events if isinstance(e, DealStarted)]
    assert [(e.dealer, e.turned) for e in started] == [(1, c("5S"))]
    assert plays_of(events) == [(2, c("2S")), (3, c("KS")), (0, c("AS")), (1, c("5S"))]


def test_turned_card_lying_across_the_play_areas_edge_is_not_a_play() -> None:
    scene = Scene()
    plays = [c("2S"), c("KS"), c("AS"), c("5S")]
    truth = stage_deal(scene, dealer=1, turned=c("5S"), plays=plays)
    # Its box centre flickers either side of the play area's right edge (x = 820) as the reader
    # reads one corner index or both.
    scene.show(c("5S"), range(truth.plays[3][0] - 2), lambda f: (815, 470) if f % 2 else (835, 470))
    events = run(scene.frames())
    assert plays_of(events) == [(2, c("2S")), (3, c("KS")), (0, c("AS")), (1, c("5S"))]
    assert uncertain(events) == uncertain(events, "stream_ended")


def test_card_from_the_wrong_side_is_flagged_not_silently_reseated() -> None:
    scene, truth = one_trick_scene()
    landed, _, card = truth.plays[1]  # seat 1's turn, but the card comes from the left
    scene.show(card, [landed - 2], between(HAND[3], LAND[1], 0.2))
    scene.show(card, [landed - 1], between(HAND[3], LAND[1], 0.6))
    events = run(scene.frames())
    assert plays_of(events)[1] == (1, card)
    flagged = uncertain(events, "seat")
    assert [(u.card, u.seat) for u in flagged] == [(card, 1)]
    assert "left" in flagged[0].detail


def test_trick_closes_only_when_the_play_area_empties() -> None:
    scene, truth = one_trick_scene(linger=40)
    tracker = Tracker(GEOMETRY, fps=FPS)
    gathered_at = None
    for frame in scene.frames():
        for e in tracker.update(frame):
            if isinstance(e, TrickGathered):
                gathered_at = frame.frame_index
                assert e.frame == truth.gathered[0][0]
    gone = truth.gathered[0][0]
    assert gathered_at is not None and gone < gathered_at <= gone + 1 * FPS


def test_next_lead_after_a_quick_gather_starts_a_new_trick() -> None:
    scene = Scene()
    plays = TRICK_1 + [c("3S"), c("4S"), c("6S"), c("7S")]
    truth = stage_deal(scene, dealer=3, turned=c("AH"), plays=plays, linger=6)
    events = run(scene.frames())
    assert plays_of(events) == [(s, k) for _, s, k in truth.plays]
    assert [e.trick for e in events if isinstance(e, CardPlayed)] == [1] * 4 + [2] * 4


def test_a_gathered_card_seen_again_is_flagged_and_not_replayed() -> None:
    scene = Scene()
    truth = stage_deal(scene, dealer=3, turned=c("AH"), plays=TRICK_1 + [c("3S")])
    later = truth.plays[4][0] + 2
    scene.show(c("KS"), range(later, later + 8), (520, 250))  # a misread of another card, steady
    events = run(scene.frames())
    assert [k for _, k in plays_of(events)].count(c("KS")) == 1
    assert [u.card for u in uncertain(events, "already_played")] == [c("KS")]


def test_the_turned_card_read_in_another_seats_turn_is_refused_and_flagged() -> None:
    scene, truth = one_trick_scene()
    scene.show(c("AH"), range(truth.plays[1][0] + 3, truth.plays[1][0] + 8), (520, 250))
    events = run(scene.frames())
    assert c("AH") not in [k for _, k in plays_of(events)]
    assert [u.card for u in uncertain(events, "illegal_read")] == [c("AH")]


def test_card_in_the_middle_before_any_turned_card_is_flagged() -> None:
    scene = Scene()
    scene.show(c("2S"), range(10), LAND[0])
    events = run(scene.frames())
    assert [u.reason for u in uncertain(events)] == ["play_before_turned"]
    assert plays_of(events) == []


def test_cards_played_before_the_turned_card_could_be_read_count_once_it_is() -> None:
    scene = Scene()
    plays = TRICK_1 + [c("3S"), c("4S")]
    truth = stage_deal(scene, dealer=3, turned=c("AH"), plays=plays)
    # The reader misses the turned card until the third card of the first vaza lies there.
    scene.hide(c("AH"), range(truth.plays[2][0] + 4))
    events = run(scene.frames())
    assert plays_of(events) == [(s, k) for _, s, k in truth.plays]
    late = uncertain(events, "late_turned")
    assert [(u.card, u.seat) for u in late] == [(c("AH"), 3)]
    assert {u.card for u in uncertain(events, "play_before_turned")} == {c("2S"), c("KS")}


def test_a_deal_started_on_the_page_counts_the_cards_already_played_without_a_turned_card() -> None:
    scene = Scene()
    plays = TRICK_1 + [c("3S"), c("4S")]
    truth = stage_deal(scene, dealer=3, turned=c("AH"), plays=plays)
    scene.hide(c("AH"), range(scene.end + 30))  # the turned card is never read
    frames = scene.frames()
    taken_at = truth.plays[1][0] + 10  # two cards lie in the middle when the table starts it
    tracker = Tracker(GEOMETRY, fps=FPS)
    events = run(frames[:taken_at], tracker, finish=False)
    assert plays_of(events) == []
    events += tracker.take_up(Deal.start(dealer=3, turned=c("AH")))
    events += run(frames[taken_at:], tracker)
    started = [e for e in events if isinstance(e, DealStarted)]
    assert [(e.dealer, e.turned, e.from_page) for e in started] == [(3, c("AH"), True)]
    assert plays_of(events) == [(s, k) for _, s, k in truth.plays]


def test_a_deal_from_the_page_with_plays_entered_there_goes_on_from_them() -> None:
    scene, truth = one_trick_scene()
    scene.hide(c("AH"), range(scene.end + 30))
    frames = scene.frames()
    tracker = Tracker(GEOMETRY, fps=FPS)
    entered = Deal.start(dealer=3, turned=c("AH")).play_all(TRICK_1[:3])
    before_fourth = truth.plays[3][0] - 5
    run(frames[:before_fourth], tracker, finish=False)
    tracker.take_up(entered)
    events = run(frames[before_fourth:], tracker)
    assert plays_of(events) == [(truth.plays[3][1], TRICK_1[3])]
    assert [e.winner for e in events if isinstance(e, TrickGathered)] == [2]


def test_a_deal_is_taken_up_from_the_page_only_while_no_deal_is_under_way() -> None:
    scene, _ = one_trick_scene()
    tracker = Tracker(GEOMETRY, fps=FPS)
    run(scene.frames(until=40), tracker, finish=False)
    assert tracker.deal is not None
    with pytest.raises(ValueError, match="under way"):
        tracker.take_up(Deal.start(dealer=0, turned=c("7C")))
    assert tracker.deal.turned == c("AH")


def test_a_card_dropped_half_over_the_previous_one_is_a_play_not_a_misread_of_it() -> None:
    scene, truth = one_trick_scene()
    landed, _, card = truth.plays[3]  # 5S lands on AS, whose box is read both corners at once
    covered = truth.plays[2][2]
    # AS's two-corner box, then only its far corner once 5S lies over the rest; 5S's box
    # overlaps where AS's big box was by about a half (intersection over union 0.52).
    scene.show(covered, range(truth.plays[2][0], landed), (560, 330))
    scene.seen_box(covered, range(truth.plays[2][0], landed), (520, 280, 640, 400))
    scene.seen_box(covered, range(landed, scene.end), (600, 280, 640, 300))
    scene.seen_box(card, range(landed, landed + 8), (545, 300, 665, 410))
    events = run(scene.frames())
    assert plays_of(events) == [(s, k) for _, s, k in truth.plays]


# -- renúncia --------------------------------------------------------------------------------

REVOKE_PLAYS = [
    c("2S"),
    c("KD"),
    c("AS"),
    c("5S"),  # seat 1 plays a diamond on spades...
    c("3S"),
    c("4S"),
    c("6S"),
    c("7S"),
]  # ...then a spade: proven (seat 2 led trick 2)


def test_proven_renuncia_is_flagged_with_its_evidence() -> None:
    scene = Scene()
    stage_deal(scene, dealer=3, turned=c("AH"), plays=REVOKE_PLAYS)
    events = run(scene.frames())
    revokes = [e for e in events if isinstance(e, RevokeFlagged)]
    assert len(revokes) == 1
    r = revokes[0]
    assert (r.seat, r.card, r.trick, r.suspected) == (1, c("KD"), 1, False)
    assert "KD" in r.proof


def test_renuncia_resting_on_a_doubtful_read_is_only_suspected() -> None:
    scene = Scene()
    truth = stage_deal(scene, dealer=3, turned=c("AH"), plays=REVOKE_PLAYS)
    landed = truth.plays[1][0]
    scene.show(c("KD"), range(landed - 2, landed + 12), LAND[1], confidence=0.41)
    events = run(scene.frames())
    r = next(e for e in events if isinstance(e, RevokeFlagged))
    assert r.suspected and r.confidence == pytest.approx(0.41, abs=0.01)


# -- the tracker's contract --------------------------------------------------------------------


def test_frames_out_of_order_are_refused() -> None:
    tracker = Tracker(GEOMETRY, fps=FPS)
    tracker.update(FrameDetections(5))
    with pytest.raises(ValueError, match="frame 5 came after frame 5"):
        tracker.update(FrameDetections(5))


def test_update_does_not_touch_its_input_and_reset_starts_over() -> None:
    scene, _ = one_trick_scene()
    frames = scene.frames()
    snapshot = list(frames)
    tracker = Tracker(GEOMETRY, fps=FPS)
    first = run(frames, tracker, finish=False)
    assert frames == snapshot
    tracker.reset()
    assert run(frames, tracker, finish=False) == first


def test_resumed_tracker_carries_on_the_deal_with_the_cards_already_on_the_table() -> None:
    plays = TRICK_1 + [c("3S"), c("4S"), c("6S"), c("7S")]
    scene = Scene()
    truth = stage_deal(scene, dealer=3, turned=c("AH"), plays=plays)
    restart = truth.plays[4][0] + 4  # the process died with 3S lying on the table
    deal = Deal.start(dealer=3, turned=c("AH")).play_all(plays[:5])
    tracker = Tracker(GEOMETRY, fps=FPS)
    tracker.resume(deal)
    events = run((f for f in scene.frames() if f.frame_index >= restart), tracker)
    assert plays_of(events) == [(seat, card) for _, seat, card in truth.plays[5:]]
    gathered = [e for e in events if isinstance(e, TrickGathered)]
    winner = truth.gathered[1][1]
    assert [(g.trick, g.cards, g.winner) for g in gathered] == [(2, tuple(plays[4:]), winner)]
    assert uncertain(events, "already_played") == [] and uncertain(events, "illegal_read") == []


def test_stream_ending_mid_deal_says_so() -> None:
    scene, _ = one_trick_scene()
    events = run(scene.frames())
    assert uncertain(events, "stream_ended")
    ended = [e for e in events if isinstance(e, DealEnded)]
    assert len(ended) == 1 and not ended[0].complete
