"""What the tracker tells the rest of the program: frozen game events, each with its frame index.

``frame`` is the frame where the thing happened as the camera saw it (a card's first steady sighting
in the play area, the first frame the gathered trick was gone), not the frame at which the tracker
became sure: the two differ by the tracker's delay. ``deal`` counts deals from 1 within one stream.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import ClassVar

from scorekeeper.rules.cards import Card
from scorekeeper.rules.seats import seat_label

Json = dict[str, object]


def _plain(value: object) -> object:
    """A field's JSON: a card by its notation, a confidence to three places."""
    if isinstance(value, Card):
        return value.notation
    if isinstance(value, float):
        return round(value, 3)
    if isinstance(value, tuple):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return dict(value)
    return value


class _Event:
    """Every event's JSON is its ``type`` and then its fields, in the order they are declared."""

    __slots__ = ()
    type: ClassVar[str]

    def to_json(self) -> Json:
        return {"type": self.type} | {
            field.name: _plain(getattr(self, field.name))
            for field in fields(self)  # type: ignore[arg-type]
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class DealStarted(_Event):
    """The turned card was seen by the dealer's side: it gives the trump and the dealer. Or,
    ``from_page``, the table started the deal on the page and the tracker took it up
    (:meth:`~scorekeeper.tracking.Tracker.take_up`): the log holds it already."""

    type: ClassVar[str] = "deal_started"
    frame: int
    deal: int
    dealer: int
    turned: Card
    confidence: float
    from_page: bool = False

    def to_json(self) -> Json:
        json = _Event.to_json(self)
        if not self.from_page:  # a deal the camera saw start reads as it always has
            del json["from_page"]
        return json


@dataclass(frozen=True, slots=True, kw_only=True)
class CardPlayed(_Event):
    """A card lay steadily in the play area; ``seat`` comes from the order of play."""

    type: ClassVar[str] = "card_played"
    frame: int
    deal: int
    trick: int
    seat: int
    card: Card
    confidence: float
    side_seat: int | None = None
    """The seat on the side the card came from, when that could be seen."""


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayCorrected(_Event):
    """Play number ``play`` of the deal (from 1) was really ``card``, by ``seat``: a card of the
    trick was missed and found later, so the cards read after it move one seat on."""

    type: ClassVar[str] = "play_corrected"
    frame: int
    deal: int
    trick: int
    play: int
    seat: int
    card: Card
    confidence: float


@dataclass(frozen=True, slots=True, kw_only=True)
class DealCorrected(_Event):
    """The turned card was really ``turned`` (so the trunfo is its suit): the reads of the deal,
    decided together, showed the first reading of it was the same rank of another suit."""

    type: ClassVar[str] = "deal_corrected"
    frame: int
    deal: int
    dealer: int
    turned: Card


@dataclass(frozen=True, slots=True, kw_only=True)
class TrickGathered(_Event):
    """Four cards were played and the play area emptied; the winner comes from the rules."""

    type: ClassVar[str] = "trick_gathered"
    frame: int
    deal: int
    trick: int
    winner: int
    cards: tuple[Card, ...]
    points: int


@dataclass(frozen=True, slots=True, kw_only=True)
class DealEnded(_Event):
    """The tenth trick was gathered (or the stream ended): the deal's card points per team."""

    type: ClassVar[str] = "deal_ended"
    frame: int
    deal: int
    points: dict[str, int]
    complete: bool = True


@dataclass(frozen=True, slots=True, kw_only=True)
class RevokeFlagged(_Event):
    """A renúncia the rules engine proved; ``suspected`` when it rests on a low-confidence read."""

    type: ClassVar[str] = "revoke"
    frame: int
    deal: int
    trick: int
    seat: int
    card: Card
    led: str
    proof: str
    suspected: bool
    confidence: float
    """The lowest confidence among the reads the proof rests on."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Uncertain(_Event):
    """Something the tracker could not settle from what it saw; never a silent guess."""

    type: ClassVar[str] = "uncertain"
    frame: int
    deal: int
    reason: str
    """A short stable key: ``seat``, ``weak_read``, ``trick_vanished``, ``already_played``,
    ``illegal_read``, ``several_turned``, ``play_before_turned``, ``late_turned``, ``missing_card``,
    ``deduced``, ``stream_ended``, ``unexplained_read``, ``suit_swap``."""
    detail: str
    card: Card | None = None
    seat: int | None = None
    confidence: float | None = None
    play: int | None = None
    """The play number in the deal (from 1) when the doubt is about one play."""
    options: tuple[Card, ...] = ()
    """The cards it may be, likeliest first (empty when the doubt is not about which card it
    is)."""


Event = (
    DealStarted
    | DealCorrected
    | CardPlayed
    | PlayCorrected
    | TrickGathered
    | DealEnded
    | RevokeFlagged
    | Uncertain
)


def describe(event: Event) -> str:
    """One line for people, in the table's words (vaza, trunfo, renúncia)."""
    at = f"frame {event.frame:>6}  "
    if isinstance(event, DealStarted):
        how = "started on the page: " if event.from_page else ""
        return (
            f"{at}deal {event.deal}: {how}dealer {seat_label(event.dealer)} turns {event.turned} "
            f"(trunfo {event.turned.suit.portuguese})"
        )
    if isinstance(event, DealCorrected):
        return (
            f"{at}deal {event.deal} corrected: the turned card was {event.turned} "
            f"(trunfo {event.turned.suit.portuguese})"
        )
    if isinstance(event, CardPlayed):
        side = (
            ""
            if event.side_seat in (None, event.seat)
            else f", came from {seat_label(event.side_seat)}'s side"
        )
        return (
            f"{at}  vaza {event.trick}: {seat_label(event.seat)} plays {event.card} "
            f"(confidence {event.confidence:.2f}{side})"
        )
    if isinstance(event, PlayCorrected):
        return (
            f"{at}  vaza {event.trick}, play {event.play} corrected: {seat_label(event.seat)} "
            f"played {event.card} (confidence {event.confidence:.2f})"
        )
    if isinstance(event, TrickGathered):
        return (
            f"{at}  vaza {event.trick} to {seat_label(event.winner)}: "
            f"{' '.join(c.notation for c in event.cards)}, {event.points} points"
        )
    if isinstance(event, DealEnded):
        how = "" if event.complete else " (incomplete)"
        return (
            f"{at}deal {event.deal} ended{how}: Nós {event.points.get('nos', 0)} - "
            f"Eles {event.points.get('eles', 0)} points"
        )
    if isinstance(event, RevokeFlagged):
        kind = (
            f"suspected renúncia (read confidence {event.confidence:.2f})"
            if event.suspected
            else "renúncia"
        )
        return f"{at}  {kind}: {seat_label(event.seat)}, vaza {event.trick}: {event.proof}"
    return f"{at}  uncertain ({event.reason}): {event.detail}"
