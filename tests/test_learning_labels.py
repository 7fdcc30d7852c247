"""A finished deal becomes a labelled recording: its corner indices are named by the final record,
a card the table corrected relabels its crops, only card regions are kept, and the cap holds."""

from __future__ import annotations

import json
import random
from pathlib import Path

import cv2
import numpy as np

from scorekeeper.learning.keep import hold_cap, keep_deal, kept_deals
from scorekeeper.learning.labels import IndexSighting, SampledFrame, name_sightings, spots_of_deal
from scorekeeper.learning.recording import _Noted, label_deal
from scorekeeper.learning.tiles import MASK_GREY, Tile
from scorekeeper.rules.cards import Card
from scorekeeper.rules.random_deal import random_legal_deal
from scorekeeper.tracking.events import CardPlayed, DealStarted, TrickGathered
from scorekeeper.vision.reader_config import CLASSIFIER_CLASSES, NOT_A_CARD

NOT_A_CARD_ID = CLASSIFIER_CLASSES.index(NOT_A_CARD)
SPOTS = [(300.0, 200.0), (420.0, 200.0), (300.0, 320.0), (420.0, 320.0)]
"""Where the four cards of a vaza lie (index centres, frame pixels)."""
INDEX = 24.0


def _plays() -> list[str]:
    _turned, plays, _hands = random_legal_deal(random.Random(5))
    return [card.notation for card in plays]


def _box(x: float, y: float) -> tuple[float, float, float, float]:
    return (x - INDEX / 2, y - INDEX / 2, x + INDEX / 2, y + INDEX / 2)


def _first_trick(plays: list[str], *, read: list[str]) -> tuple[list[SampledFrame], list[object]]:
    """Frames 0-40 of a deal's first vaza: card k lands at frame 10 k, the vaza goes at 45.
    ``read`` is what the tracker read each card as; the classifier misreads spot 0 at frame 20."""
    frames = []
    for frame in range(0, 45, 5):
        sightings, cards = [], {}
        for k, (x, y) in enumerate(SPOTS):
            if frame < 10 * k:
                continue
            label = Card.parse(read[k]).index
            if k == 0 and frame == 20:
                label = NOT_A_CARD_ID  # a misread the record puts right
            sightings.append(IndexSighting(box=_box(x, y), label=label, prob=0.9))
            if label != NOT_A_CARD_ID:
                cards[Card.parse(read[k])] = _box(x, y)
        sightings.append(IndexSighting(box=_box(600, 40), label=3, prob=0.8))  # a card in a hand
        frames.append(SampledFrame(frame=frame, sightings=sightings, cards=cards))
    events: list[object] = [
        DealStarted(frame=0, deal=1, dealer=0, turned=Card.parse(plays[0]), confidence=0.9)
    ]
    events += [
        CardPlayed(frame=10 * k, deal=1, trick=1, seat=k, card=Card.parse(read[k]), confidence=0.9)
        for k in range(4)
    ]
    events.append(
        TrickGathered(
            frame=45,
            deal=1,
            trick=1,
            winner=0,
            cards=tuple(Card.parse(c) for c in plays[:4]),
            points=0,
        )
    )
    return frames, events


def test_a_deals_indices_are_named_by_its_final_record_even_where_misread() -> None:
    plays = _plays()
    frames, events = _first_trick(plays, read=plays[:4])
    spots = spots_of_deal(frames, events, plays)  # type: ignore[arg-type]
    assert sorted(s.card.notation for s in spots) == sorted(plays[:4])
    misread = next(f for f in frames if f.frame == 20)
    names = name_sightings(misread, spots)
    # The three cards down by frame 20 are named, the not_a_card read of card 0 included; the card
    # in a player's hand lies in no spot and stays unnamed.
    assert [n.notation if n else None for n in names] == [*plays[:3], None]


def test_a_card_the_table_corrected_relabels_its_crops(tmp_path: Path) -> None:
    plays = _plays()
    read = list(plays[:4])
    # The tracker read the third card as another card; the table corrected it on the page, so the
    # final record holds plays[2] where the tracker said read[2].
    read[2] = next(text for text in plays[4:] if text not in read)
    frames, events = _first_trick(plays, read=read)
    image = np.full((480, 720, 3), 200, np.uint8)
    noted = []
    for sample in frames:
        ok, encoded = cv2.imencode(".jpg", image)
        assert ok
        noted.append(_Noted(sample, encoded.tobytes(), (0, 0), (720, 480)))
    tiles, corrected = label_deal(noted, events, plays)  # type: ignore[arg-type]
    assert corrected == [3]
    named = {card.notation for tile in tiles for card, _ in tile.boxes}
    assert named == set(plays[:4]) and read[2] not in named
    # The kept deal says so, and its label rows carry the corrected card's class.
    folder = keep_deal(
        "sueca-reader", tiles, table="mesa", plays=plays, turned=plays[0], corrected=corrected
    )
    assert folder is not None
    record = json.loads((folder / "deal.json").read_text())
    assert record["corrected"] == [3]
    classes = {
        int(row.split()[0])
        for stem in record["tiles"]
        for row in (folder / "tiles" / f"{stem}.txt").read_text().splitlines()
    }
    assert Card.parse(plays[2]).index in classes and Card.parse(read[2]).index not in classes


def test_a_tile_is_the_card_region_only_and_masks_what_the_record_did_not_name() -> None:
    plays = _plays()
    frames, events = _first_trick(plays, read=plays[:4])
    stray = _box(360, 260)  # an index between the four cards that no spot holds
    frames[-1].sightings.append(IndexSighting(box=stray, label=7, prob=0.6))
    image = np.full((480, 720, 3), 30, np.uint8)
    ok, encoded = cv2.imencode(".png", image)
    assert ok
    noted = [_Noted(f, encoded.tobytes(), (0, 0), (720, 480)) for f in frames]
    tiles, _ = label_deal(noted, events, plays)  # type: ignore[arg-type]
    last = tiles[-1]
    height, width = last.image.shape[:2]
    assert width * height < 720 * 480 / 4  # around the four cards, not the frame
    x, y = last.origin
    assert y > 40 + INDEX  # the card in a hand, by the frame's edge, is left out
    assert sorted(c.notation for c, _ in last.boxes) == sorted(plays[:4])
    sx, sy = int(360 - x), int(260 - y)
    assert (last.image[sy, sx] == MASK_GREY).all()
    assert (last.image[int(200 - y), int(300 - x)] == 30).all()  # a named index is kept as seen
    early = next(t for t in tiles if t.frame == 0)
    # At frame 0 only the first card lies there: it alone is named.
    assert [c.notation for c, _ in early.boxes] == [plays[0]]


def _tiny_tiles(n: int = 3, size: int = 64) -> list[Tile]:
    rng = np.random.default_rng(n)
    return [
        Tile(
            frame=i,
            image=rng.integers(0, 255, (size, size, 3), dtype=np.uint8),
            origin=(10, 10),
            frame_size=(640, 480),
            boxes=((Card.parse("AH"), (5.0, 5.0, 20.0, 25.0)),),
        )
        for i in range(n)
    ]


def test_the_cap_holds_by_deals_and_by_megabytes(monkeypatch) -> None:
    from scorekeeper.learning import keep

    monkeypatch.setattr(keep, "MAX_DEALS", 3)
    plays = _plays()
    for stamp in range(5):
        keep_deal(
            "cafe",
            _tiny_tiles(),
            table="mesa",
            plays=plays,
            turned=plays[0],
            corrected=[],
            recorded=f"2026120{stamp}T000000",
        )
    kept = kept_deals("cafe")
    assert [d.record["recorded"] for d in kept] == [
        "20261202T000000",
        "20261203T000000",
        "20261204T000000",
    ]
    one_deal = kept[-1].size_bytes
    dropped = hold_cap("cafe", max_megabytes=1.5 * one_deal / 1e6)
    assert len(dropped) == 2 and [d.record["recorded"] for d in kept_deals("cafe")] == [
        "20261204T000000"
    ]
    assert sum(d.size_bytes for d in kept_deals("cafe")) <= 1.5 * one_deal


def test_a_deal_keeps_at_most_its_share_of_tiles(monkeypatch) -> None:
    from scorekeeper.learning import keep

    monkeypatch.setattr(keep, "MAX_TILES_PER_DEAL", 4)
    plays = _plays()
    folder = keep_deal(
        "cafe", _tiny_tiles(10, size=16), table="mesa", plays=plays, turned=plays[0], corrected=[]
    )
    assert folder is not None and len(list((folder / "tiles").glob("*.jpg"))) == 4
