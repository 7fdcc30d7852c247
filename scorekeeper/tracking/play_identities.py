"""Which card each play was, decided with the rest of the deal: the tracker's side of
:mod:`scorekeeper.tracking.decoding` (the evidence of each play gathered from its runs, the
decisions applied to the deal and told as corrections)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from scorekeeper.rules import Card, Deal, seat_label
from scorekeeper.tracking.deal_state import CARDS_PER_TRICK, DealState
from scorekeeper.tracking.decoding import Decoded, Reads, decode_plays, explains
from scorekeeper.tracking.events import (
    DealCorrected,
    Event,
    PlayCorrected,
    Uncertain,
)
from scorekeeper.tracking.missing import fittest, seated_plays
from scorekeeper.tracking.rooms import TrackerRooms
from scorekeeper.tracking.runs import Played, Run
from scorekeeper.vision.boxes import iou, nested_share

KNOWN_PLAY = 1000.0
"""The evidence given a play known without reads of its own: no reads can outweigh it."""

OTHER_CORNER_SHARE = 0.9
"""How much of a play's box a new run's box must hold to be that card seen at another corner."""


class PlayIdentities(TrackerRooms):
    """The deal's plays decided together (the decoding room of :class:`Tracker`)."""

    def _may_be_played(self, state: DealState, run: Run, played: frozenset[Card]) -> bool:
        """Not a card already played. Decoding, a read of a card played in a vaza gathered
        since may be another card (the two may have been read the same): the deal decides."""
        if not self.decode:
            return run.card not in played
        # The deal's decoding may have renamed the play a run was played as, freeing its name.
        if self._is_a_play(state, run) or self._other_corner(state, run) is not None:
            return False
        beside = run.beside
        if (
            beside is not None
            and any(p.run is beside for p in state.trick)
            and not self._read_apart(run)
        ):
            # Read apart from a card of its name on the table, never both at once: that card,
            # moved (or one corner index covered).
            return False
        if run.card not in played:
            return True
        if self._read_apart(run) and not self._same_spot_as_play(state, run):
            # Another card read under the name of a card on the table, at another spot.
            return True
        on_table = {p.label for p in state.trick} | {p.card for p in state.trick}
        if self._other_corner(state, run) is not None:
            return False
        gathered = [
            at
            for at in (state.gathered_labels.get(run.card), state.gathered_at.get(run.card))
            if at is not None
        ]
        return (
            bool(gathered)
            and run.start_frame > max(gathered)
            and run.card not in on_table
            and all(r is not run for r in state.runs.values())
        )

    @staticmethod
    def _is_a_play(state: DealState, run: Run) -> bool:
        """``run`` was played this deal, under its name or another."""
        return any(p.run is run for p in state.trick) or any(r is run for r in state.runs.values())

    def _same_spot_as_play(self, state: DealState, run: Run) -> bool:
        """Some box of ``run`` is the very box of a play on the table: the same card."""
        same_spot = self.thresholds.same_spot
        return any(
            iou(mine, theirs) >= same_spot
            for played in state.trick
            if played.run is not None and played.run is not run
            for mine in run.boxes
            for theirs in played.run.boxes
        )

    def _held_name(self, state: DealState, run: Run) -> Card | None:
        """The card a run held behind a hole is taken for: its name, or when that card is taken
        already, the likeliest other card its reads name that is still free (None: no card)."""
        taken = state.taken()
        if run.card not in taken:
            return run.card
        weighed = self._spot_evidence(state, run).weighed()
        free = [
            c
            for c, _ in sorted(weighed.items(), key=lambda item: -item[1])
            if c not in taken and c != state.deal.turned and explains(weighed, c)
        ]
        if not free:
            run.refused = True
            return None
        return free[0]

    def _mark_gathered(self, state: DealState, played: Played, frame: int) -> None:
        state.gathered_at[played.card] = frame
        state.gathered_labels[played.label] = frame
        if played.run is not None and self.decode:
            state.evidence[id(played.run)] = self._spot_evidence(state, played.run)

    def _remember_turned(self, state: DealState) -> None:
        """The reads of the turned card where it lies, every name it was given counted."""
        spot = state.turned_spot
        if spot is None:
            return
        reads = Reads.empty()
        labels: set[Card] = set()
        for track in self._tracks.values():
            run = track.outside
            if (
                run is not None
                and run.seen >= self.thresholds.min_sightings
                and math.dist(run.at, spot) <= self._still
            ):
                for sighting in run.sightings:
                    reads.add(sighting)
                labels.add(run.card)
        # Its runs by the side grow while it lies there; one broken off starts again smaller.
        if reads.sightings > state.turned_reads.sightings:
            state.turned_reads = reads
        state.turned_labels = state.turned_labels | labels

    def _spot_evidence(self, state: DealState, run: Run) -> Reads:
        """What the reads say the card of ``run`` is: its own sightings, those at its box under
        other names while it lay there (its misreads), and those of its other corner under
        another name, runners-up included."""
        total = run.reads()
        on_table = next((p for p in state.trick if p.run is run), None)
        for other in self._runs() if on_table is not None else ():
            if other is not run and self._other_corner(state, other) is on_table:
                for sighting in other.sightings:
                    total.add(sighting)
        # Only while it lay there: the next card put on the same spot is not its misread.
        lo, hi = run.start_frame, run.last_frame
        plays = {id(r) for r in state.runs.values() if r is not None}
        for other in self._runs():
            if (
                other is run
                or id(other) in plays
                or other.last_frame < lo
                or other.start_frame > hi
            ):
                continue
            for frame, box, sighting in zip(
                other.frames, other.boxes, other.sightings, strict=True
            ):
                if not lo <= frame <= hi:
                    continue
                _, boxes = run.between(frame - self._forget, frame + self._forget)
                if any(iou(box, mine) >= self.thresholds.same_spot for mine in boxes):
                    total.add(sighting)
        return total

    def _other_corner(self, state: DealState, run: Run) -> Played | None:
        """The play on the table whose card ``run`` is, seen at its other corner (or both): its
        box holds the play's, and its reads name a card the play's reads name. A deck misread
        systematically gives one card two names, so the name alone does not tell."""
        for played in state.trick:
            if played.run is None or played.run is run or played.run.card == run.card:
                continue
            if run.start_frame < played.run.start_frame or not any(
                nested_share(a, b) >= OTHER_CORNER_SHARE
                for a in run.boxes[:3]
                for b in played.run.boxes[-6:]
            ):
                continue
            mine = run.reads().weighed()
            theirs = played.run.reads().weighed()
            if any(explains(mine, c) and explains(theirs, c) for c in mine.keys() & theirs.keys()):
                return played
        return None

    def _names_the_trick(self, state: DealState, run: Run) -> bool:
        """The reads of ``run`` fairly name a card the reads of a play on the table name (or its
        name is the reader's name for one): it may be that card, seen again."""
        mine = run.reads().weighed()
        for played in state.trick:
            if played.label == run.card or played.card == run.card:
                return True
            if played.run is None:
                continue
            theirs = played.run.reads().weighed()
            if any(explains(mine, c) and explains(theirs, c) for c in mine.keys() & theirs.keys()):
                return True
        return False

    def _play_evidence(self, state: DealState, card: Card) -> Reads:
        run = state.runs.get(card)
        if run is None:
            # Known without a run of its own (on the table when tracking resumed, or placed by
            # the rules as a card never read): the decoding keeps it.
            return Reads({card: KNOWN_PLAY}, 1)
        cached = state.evidence.get(id(run))
        return cached if cached is not None else self._spot_evidence(state, run)

    def _decode(
        self, state: DealState, extra: Run | None, *, doubts: bool = False
    ) -> Decoded | None:
        """The deal's plays (and ``extra``, about to be played) decided together."""
        deal = state.deal
        self._remember_turned(state)
        rows = [self._play_evidence(state, card) for card in deal.plays]
        if extra is not None:
            rows.append(self._spot_evidence(state, extra))
        # Without reads of the turned card (tracking resumed mid-deal), the deal's is kept.
        turned = (
            state.turned_reads
            if state.turned_reads.sightings
            else Reads({deal.turned: KNOWN_PLAY}, 1)
        )
        return decode_plays(
            dealer=deal.dealer,
            turned=turned,
            plays=rows,
            rules=self.rules,
            decided=deal.plays,
            decided_turned=deal.turned,
            doubts=doubts,
            firm=doubts,
        )

    def _decide(
        self, state: DealState, run: Run, frame: int
    ) -> tuple[list[Event], Card | None] | None:
        """The card ``run`` is, decided with the deal's other plays, and the corrections that
        decision makes to earlier plays; card None when no card fits its reads (flagged, not
        played). None when the rules accept no assignment (the read is taken as it is)."""
        decoded = self._decode(state, run)
        if decoded is None:
            return None
        plays = list(state.deal.plays)
        new = len(plays)
        evidence = [self._play_evidence(state, card).weighed() for card in plays]
        before = {i for i, card in enumerate(plays) if not explains(evidence[i], card)}
        if new in decoded.unexplained or set(decoded.unexplained) - before - {new}:
            turned = state.turned_reads.weighed()
            if explains(turned, run.card) and state.deal.turned_in_hand:
                # Read as the turned card, which the order of play gives another seat: the rules
                # refuse it as they always did, and a card never read before it is looked for.
                return None
            run.refused = True
            options = tuple(
                c
                for c, _ in sorted(
                    self._spot_evidence(state, run).total.items(), key=lambda item: -item[1]
                )[:3]
            )
            if options == (run.card,) and run.card in state.deal.played:
                # Its reads name only a card gathered before: a misread of another card.
                return self._flag_once(
                    frame,
                    "already_played",
                    card=run.card,
                    confidence=run.confidence,
                    detail=f"{run.card} lies in the play area but was already played this deal: "
                    "a misread of another card, not counted",
                ), None
            return self._flag_once(
                frame,
                "unexplained_read",
                card=run.card,
                confidence=run.confidence,
                detail=f"{run.card} lies in the play area but no card left in the deal fits its "
                f"reads ({', '.join(str(c) for c in options)}): not counted",
                options=options,
                play=new + 1,
            ), None
        events = self._adopt(state, decoded.turned, list(decoded.cards[:new]), frame)
        return events, decoded.cards[new]

    def _adopt(
        self,
        state: DealState,
        turned: Card,
        cards: list[Card],
        frame: int,
        *,
        names: Sequence[Card] | None = None,
    ) -> list[Event]:
        """Make the deal's plays ``cards`` (and its turned card ``turned``), telling each change.
        ``names``: the card each play is, in its order (default: ``cards``, the plays keep their
        places); ``cards`` may then move a play within its vaza."""
        old = list(state.deal.plays)
        if turned == state.deal.turned and cards == old:
            return []
        deal = Deal.start(dealer=state.deal.dealer, turned=turned, rules=self.rules).play_all(cards)
        events: list[Event] = []
        if turned != state.deal.turned:
            events.append(
                DealCorrected(frame=frame, deal=state.number, dealer=deal.dealer, turned=turned)
            )
        renamed = dict(zip(old, cards if names is None else names, strict=True))
        state.runs = {renamed.get(c, c): r for c, r in state.runs.items()}
        state.confidence = {renamed.get(c, c): v for c, v in state.confidence.items()}
        state.gathered_at = {renamed.get(c, c): v for c, v in state.gathered_at.items()}
        plays = seated_plays(deal)
        for index, (was, card) in enumerate(zip(old, cards, strict=True)):
            if was != card:
                run = state.runs.get(card)
                trick_no, _, seat = plays[index]
                events.append(
                    PlayCorrected(
                        frame=run.start_frame if run else frame,
                        deal=state.number,
                        trick=trick_no,
                        play=index + 1,
                        seat=seat,
                        card=card,
                        confidence=state.confidence.get(card, 0.0),
                    )
                )
        current = deal.current_trick
        state.trick = [
            Played(card, seat, state.runs.get(card))
            for card, seat in zip(current.cards, current.seats(), strict=True)
        ]
        state.trick_start = Deal.start(
            dealer=deal.dealer, turned=turned, rules=self.rules
        ).play_all(cards[: len(cards) - len(current.cards)])
        state.deal = deal
        state.revokes_seen = min(state.revokes_seen, len(deal.revokes))
        return events + (self._new_revokes(state, frame, cards[-1]) if cards else [])

    def _seat_unexplained(
        self, state: DealState, turned: Card, cards: list[Card], index: int
    ) -> list[Card]:
        """``cards`` with the unexplained play ``index`` moved within its vaza to where the rules
        and the other plays' seat clues fit it best (on a tie, the latest place), as a card never
        read is placed: none of its reads named its card, so they are another card's (often a
        corner under it misread before it landed) and when they began says little of its place."""
        runs = {
            card: run
            for position, (was, card) in enumerate(zip(state.deal.plays, cards, strict=True))
            if position != index and (run := state.runs.get(was)) is not None
        }
        clues = self._clues_of(runs)
        start = Deal.start(dealer=state.deal.dealer, turned=turned, rules=self.rules)
        first = index - index % CARDS_PER_TRICK
        rest = [*cards[:index], *cards[index + 1 :]]
        places = range(first, min(first + CARDS_PER_TRICK, len(cards)))
        deal = fittest(start, ([*rest[:at], cards[index], *rest[at:]] for at in places), clues)
        return list(deal.plays) if deal is not None else cards

    def _final_decoding(self, state: DealState, frame: int) -> list[Event]:
        """The deal is over: its plays decided together once more, firmly; a play whose reads
        no card fits is flagged."""
        if not self.decode:
            return []
        decoded = self._decode(state, None, doubts=True)
        if decoded is None:
            return []
        cards = list(decoded.cards)
        for index in decoded.unexplained:
            cards = self._seat_unexplained(state, decoded.turned, cards, index)
        events = self._adopt(state, decoded.turned, cards, frame, names=decoded.cards)
        plays = seated_plays(state.deal)
        for decided, options in decoded.doubts:
            index = cards.index(decoded.cards[decided])
            trick_no, card, seat = plays[index]
            events.append(
                Uncertain(
                    frame=frame,
                    deal=state.number,
                    reason="suit_swap",
                    card=card,
                    seat=seat,
                    play=index + 1,
                    options=options,
                    detail=f"vaza {trick_no}: {' or '.join(str(c) for c in options)}? The reads of "
                    f"play {index + 1} ({seat_label(seat)}) fit {card} best, by little once the "
                    "rest of the deal is weighed",
                )
            )
        for decided in decoded.unexplained:
            index = cards.index(decoded.cards[decided])
            trick_no, card, seat = plays[index]
            evidence = self._play_evidence(state, card).total
            options = tuple(c for c, _ in sorted(evidence.items(), key=lambda item: -item[1])[:3])
            events.append(
                Uncertain(
                    frame=frame,
                    deal=state.number,
                    reason="unexplained_read",
                    card=card,
                    seat=seat,
                    play=index + 1,
                    options=(card, *(c for c in options if c != card))[:5],
                    detail=f"play {index + 1} (vaza {trick_no}, {seat_label(seat)}) was read as "
                    f"{', '.join(str(c) for c in options)}, but each of those was played "
                    f"elsewhere: it is taken as {card}, the card left",
                )
            )
        return events
