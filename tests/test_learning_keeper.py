"""The play keeper beside the pipeline: a deal is kept once the table has gone on (or the session
ends) and only if its record is complete with no doubt left open; what the table corrected on the
page in the meantime is what names the crops."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np

from scorekeeper.learning.keep import kept_deals
from scorekeeper.learning.recording import PlayKeeper
from scorekeeper.pipeline.recorder import StoreRecorder
from scorekeeper.rules import Deal
from scorekeeper.rules.cards import Card
from scorekeeper.rules.random_deal import random_legal_deal
from scorekeeper.store import CardCorrected, Store
from scorekeeper.tracking import events as game
from scorekeeper.tracking.geometry import TableGeometry
from scorekeeper.vision.detections import CardDetection, FrameDetections
from scorekeeper.vision.reader_config import CLASSIFIER_CLASSES

WIDTH, HEIGHT = 720, 480
SPOTS = [(300.0, 200.0), (420.0, 200.0), (300.0, 300.0), (420.0, 300.0)]


class _Reading:
    """What the reader's ``read_indices`` gives per corner: a box and class probabilities."""

    def __init__(self, box: tuple[float, float, float, float], card: Card) -> None:
        self.box = box
        self.probs = np.zeros(len(CLASSIFIER_CLASSES), np.float32)
        self.probs[card.index] = 0.9

    @property
    def label(self) -> int:
        return int(np.argmax(self.probs))


def _box(x: float, y: float) -> tuple[float, float, float, float]:
    return (x - 12, y - 12, x + 12, y + 12)


def _play_deal(
    keeper: PlayKeeper,
    recorder: StoreRecorder,
    seed: int,
    *,
    deal: int,
    start: int,
    doubt: bool = False,
    seen_ending: bool = True,
) -> int:
    """A whole deal, card k of each vaza landing at ``SPOTS[k]``, through the recorder and the
    keeper as the pipeline sends them; returns the next free frame."""
    turned, plays, _hands = random_legal_deal(random.Random(seed), dealer=0)
    frame = start
    image = np.full((HEIGHT, WIDTH, 3), 160, np.uint8)

    def tell(*events: game.Event) -> None:
        recorder.record(events)
        for event in events:
            keeper.on_event(event)

    tell(game.DealStarted(frame=frame, deal=deal, dealer=0, turned=turned, confidence=0.9))
    state = Deal.start(dealer=0, turned=turned)
    for trick in range(10):
        cards = plays[4 * trick : 4 * trick + 4]
        for k, card in enumerate(cards):
            frame += 2
            seat = state.to_play
            assert seat is not None
            state = state.play(card)
            tell(
                game.CardPlayed(
                    frame=frame, deal=deal, trick=trick + 1, seat=seat, card=card, confidence=0.9
                )
            )
            for _ in range(2):
                frame += 1
                lying = [(c, _box(*SPOTS[j])) for j, c in enumerate(cards[: k + 1])]
                detections = FrameDetections(
                    frame_index=frame,
                    width=WIDTH,
                    height=HEIGHT,
                    cards=tuple(CardDetection(card=c, confidence=0.9, box=b) for c, b in lying),
                )
                keeper.note(frame, image, [_Reading(b, c) for c, b in lying], detections)
        if doubt and trick == 2:
            tell(
                game.Uncertain(
                    frame=frame,
                    deal=deal,
                    reason="weak_read",
                    detail="faint",
                    card=cards[0],
                    play=9,
                    options=(cards[0],),
                )
            )
        frame += 3
        tell(
            game.TrickGathered(
                frame=frame, deal=deal, trick=trick + 1, winner=0, cards=tuple(cards), points=0
            )
        )
    if seen_ending:
        tell(game.DealEnded(frame=frame, deal=deal, points={"nos": 60, "eles": 60}))
    return frame + 10


def _session(tmp_path: Path) -> tuple[Store, StoreRecorder, PlayKeeper]:
    store = Store.open(tmp_path / "m.db")
    recorder = StoreRecorder(store, "mesa", warn=lambda line: None)
    keeper = PlayKeeper(deck="cafe", table_id="mesa", log=lambda line: None)
    reader = object()
    assert (
        keeper.watch(reader, store=store, geometry=TableGeometry.default(WIDTH, HEIGHT), fps=2.0)
        is reader
    )
    return store, recorder, keeper


def test_a_deal_is_kept_once_the_next_begins_and_its_last_one_when_the_session_ends(
    tmp_path: Path,
) -> None:
    _store, recorder, keeper = _session(tmp_path)
    frame = _play_deal(keeper, recorder, 1, deal=1, start=0)
    assert kept_deals("cafe") == []  # the table may still correct it on the page
    _play_deal(keeper, recorder, 2, deal=2, start=frame)
    assert len(kept_deals("cafe")) == 1
    assert keeper.close() == 2
    first, second = kept_deals("cafe")
    assert len(first.record["plays"]) == 40 and first.record["corrected"] == []
    assert len(first.tiles) > 30 and len(second.tiles) > 30


def test_a_correction_made_on_the_page_before_the_next_deal_names_the_crops(tmp_path: Path) -> None:
    store, recorder, keeper = _session(tmp_path)
    frame = _play_deal(keeper, recorder, 3, deal=1, start=0)
    plays = store.record("mesa")["deals"][0]["plays"]
    # The camera read the first and the fifth play the wrong way round (vazas 1 and 2); the table
    # swaps them on the page before the next deal.
    store.append(
        "mesa",
        CardCorrected(deal=1, play=1, card=plays[4]),
        CardCorrected(deal=1, play=5, card=plays[0]),
    )
    _play_deal(keeper, recorder, 4, deal=2, start=frame)
    [deal] = kept_deals("cafe")
    assert deal.record["corrected"] == [1, 5]
    first_tile = min(deal.tiles)  # vaza 1, only its first card down: read as plays[0]
    rows = (deal.folder / "tiles" / f"{first_tile}.txt").read_text().splitlines()
    assert [int(row.split()[0]) for row in rows] == [Card.parse(plays[4]).index]


def test_a_deal_with_a_doubt_still_open_is_not_kept(tmp_path: Path) -> None:
    store, recorder, keeper = _session(tmp_path)
    _play_deal(keeper, recorder, 5, deal=1, start=0, doubt=True)
    assert store.folded("mesa").current.doubts  # the doubt reached the page
    assert keeper.close() == 0 and kept_deals("cafe") == []


def test_a_deal_the_tracker_did_not_see_end_is_kept_when_its_record_is_complete(
    tmp_path: Path,
) -> None:
    _store, recorder, keeper = _session(tmp_path)
    frame = _play_deal(keeper, recorder, 6, deal=1, start=0, seen_ending=False)
    _play_deal(keeper, recorder, 7, deal=2, start=frame, seen_ending=False)
    assert len(kept_deals("cafe")) == 1  # the first, once the second began
    assert keeper.close() == 2


class _ReaderReadingOwnWay:
    """A reader whose own reading (card view, corners read together) names a card that its
    corner indices alone would not: the keeper must not read in its place."""

    def __init__(self) -> None:
        self.asked_conf: list[float | None] = []

    def read(self, frame_bgr: np.ndarray, frame_index: int = 0) -> FrameDetections:
        card = CardDetection(card=Card.parse("7H"), confidence=0.97, box=_box(*SPOTS[0]))
        return FrameDetections(frame_index=frame_index, cards=(card,), width=WIDTH, height=HEIGHT)

    def read_and_note(
        self, frame_bgr: np.ndarray, frame_index: int, *, note_conf: float
    ) -> tuple[FrameDetections, list[_Reading]]:
        self.asked_conf.append(note_conf)
        indices = [
            _Reading(_box(*SPOTS[0]), Card.parse("7H")),
            _Reading(_box(*SPOTS[1]), Card.parse("AS")),
        ]
        return self.read(frame_bgr, frame_index), indices


def test_the_keeper_reads_every_frame_as_the_reader_does_and_notes_fainter_indices(
    tmp_path: Path,
) -> None:
    from scorekeeper.learning.recording import NOTED_INDEX_CONF
    from scorekeeper.training.thresholds import INDEX_CONFS

    store = Store.open(tmp_path / "m.db")
    keeper = PlayKeeper(deck="cafe", table_id="mesa", log=lambda line: None)
    reader = _ReaderReadingOwnWay()
    noting = keeper.watch(
        reader, store=store, geometry=TableGeometry.default(WIDTH, HEIGHT), fps=10.0
    )
    image = np.full((HEIGHT, WIDTH, 3), 160, np.uint8)
    for frame in range(20):
        assert noting.read(image, frame) == reader.read(image, frame)
    # Sampled twice a second at 10 fps, each noted down to the lowest threshold learning can pick.
    assert reader.asked_conf == [NOTED_INDEX_CONF] * 4
    assert NOTED_INDEX_CONF == min(INDEX_CONFS)
