"""The tracker's state of the deal under way: the engine's deal, the trick on the table, and what
the tracker keeps about each play (its run, its evidence, when it was gathered)."""

from __future__ import annotations

from dataclasses import dataclass, field

from scorekeeper.rules import Card, Deal
from scorekeeper.rules.trick import TRICK_SIZE
from scorekeeper.tracking.decoding import Reads
from scorekeeper.tracking.events import Uncertain
from scorekeeper.tracking.geometry import Point
from scorekeeper.tracking.missing import Gap
from scorekeeper.tracking.runs import Played, Run

CARDS_PER_TRICK = TRICK_SIZE


@dataclass(slots=True, eq=False)
class Hole:
    """A vaza was gathered with a card (or two) no frame showed. Who played each card after it
    depends on where that card went, so the cards that land from then on are held, in landing
    order, until the rest of the deal shows which cards were never read
    (``scorekeeper.tracking.missing``)."""

    trick: int
    """The first vaza gathered a card short."""
    before: Deal
    """The deal before that vaza."""
    told: list[Card]
    """The deal's plays as the events told them when the hole was found (to correct them)."""
    held: list[Played]
    """Every card read from that vaza on, in landing order."""
    gaps: list[Gap]
    gathered: list[int]
    """For each vaza from the first gap's on, the first frame without it."""
    short_from: int | None = None
    """Where (in ``held``) a held vaza that vanished a card short begins: the next card read was
    taken as its last, which the next landing may disprove."""
    misnamed: dict[int, Run] = field(default_factory=dict)
    """For a gap (by its index in ``gaps``) whose card lay in its vaza read under the name of a
    card played before: that run, the reads of the card that fills the gap."""

    @property
    def cards_accounted(self) -> int:
        """Cards played this deal, the ones never read included."""
        return len(self.before.played) + len(self.held) + len(self.gaps)


@dataclass(slots=True)
class DealState:
    number: int
    deal: Deal
    trick: list[Played] = field(default_factory=list)
    confidence: dict[Card, float] = field(default_factory=dict)
    revokes_seen: int = 0
    cleared_at: int = -1
    """Last frame the previous trick's cards were seen: the next lead lands after it."""
    turned_spot: Point | None = None
    """Where the turned card lay by the dealer: seeing it there, even across the play area's
    edge, is not a play."""
    gathered_at: dict[Card, int] = field(default_factory=dict)
    gathered_labels: dict[Card, int] = field(default_factory=dict)
    """For each card name the reader gave a gathered play, when it was gathered: a later run of
    that name is a misread or, when the deal's decoding renamed that play, another card."""
    runs: dict[Card, Run | None] = field(default_factory=dict)
    """The run each play of the deal was made from."""
    evidence: dict[int, Reads] = field(default_factory=dict)
    """The reads' evidence for each play's card, by ``id`` of its run, kept when its vaza is
    gathered (the runs around it are forgotten later)."""
    turned_reads: Reads = field(default_factory=Reads.empty)
    turned_labels: frozenset[Card] = frozenset()
    """The names the reader gave the turned card where it lay."""
    trick_start: Deal | None = None
    """The deal as it stood before the trick on the table: a card of the trick found late is
    put back in its place by replaying the trick from here. None after a resume."""
    vanished_short: int | None = None
    """The vaza that vanished a card or two short with nothing seen to complete it, so the next
    cards read were taken as its last: the landings after them may show that they began the next
    vaza."""
    vanished_read: int = CARDS_PER_TRICK - 1
    """How many of that vaza's cards were read before it vanished."""
    hole: Hole | None = None

    def taken(self) -> frozenset[Card]:
        """The cards played this deal, those held behind a hole included."""
        if self.hole is None:
            return self.deal.played
        return self.deal.played | {p.card for p in self.hole.held}

    def doubt_about(
        self, run: Run, card: Card, seat: int, *, reason: str, detail: str
    ) -> Uncertain:
        """A doubt about the play ``run`` became, dated and weighed by that run."""
        return Uncertain(
            frame=run.start_frame,
            deal=self.number,
            reason=reason,
            card=card,
            seat=seat,
            confidence=run.confidence,
            detail=detail,
        )
