"""Deals the table starts on the page while the camera waits for a turned card it cannot read."""

from __future__ import annotations

from pathlib import Path

from scorekeeper.pipeline.page_deals import PageDeals
from scorekeeper.rules import Card
from scorekeeper.store import CardPlayed, DealStarted, DealThrownIn, Store
from scorekeeper.tracking import DealStarted as TrackerDealStarted
from scorekeeper.tracking import TableGeometry, Tracker
from scorekeeper.vision.detections import FrameDetections


def waiting_tracker() -> Tracker:
    tracker = Tracker(TableGeometry.default(1280, 720), fps=10)
    tracker.update(FrameDetections(0))
    return tracker


def test_a_deal_begun_on_the_page_is_handed_to_a_waiting_tracker_once(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "m.db")
    tracker = waiting_tracker()
    page = PageDeals(store, "mesa")
    assert page.events(tracker) == []
    store.append("mesa", DealStarted(dealer=1, turned="7C"), CardPlayed("2C"))
    events = page.events(tracker)
    assert [
        (e.dealer, e.turned, e.from_page) for e in events if isinstance(e, TrackerDealStarted)
    ] == [(1, Card.parse("7C"), True)]
    assert len(events) == 1
    assert tracker.deal is not None and tracker.deal.plays == (Card.parse("2C"),)
    store.append("mesa", CardPlayed("3C"))  # the next play changes the log, not the deal
    assert page.events(tracker) == []


def test_a_thrown_in_deal_is_not_taken_up_and_the_deal_dealt_again_is(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "m.db")
    tracker = waiting_tracker()
    page = PageDeals(store, "mesa")
    page.events(tracker)
    store.append("mesa", DealStarted(dealer=0, turned="AH"), DealThrownIn(reason="manual"))
    assert page.events(tracker) == [] and tracker.deal is None
    store.append("mesa", DealStarted(dealer=0, turned="2H"))
    assert [type(e) for e in page.events(tracker)] == [TrackerDealStarted]
    store.append("mesa", CardPlayed("AS"))
    assert page.events(tracker) == []
