"""The tracker's repairs: a vaza gathered or vanished a card short gets its missing card back
(put back where it landed, deduced as the card left, or placed by the rules once the deal shows
which card was never read, see :mod:`scorekeeper.tracking.missing`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from scorekeeper.errors import IllegalPlayError
from scorekeeper.rules import DECK, Card, Deal, seat_label
from scorekeeper.rules.deal import TRICKS_PER_DEAL
from scorekeeper.tracking.deal_state import CARDS_PER_TRICK, DealState, Hole
from scorekeeper.tracking.decoding import Reads, explains
from scorekeeper.tracking.events import (
    CardPlayed,
    Event,
    PlayCorrected,
    TrickGathered,
    Uncertain,
)
from scorekeeper.tracking.missing import (
    Gap,
    SeatClues,
    place_in_vaza,
    place_missing_cards,
    seated_plays,
    swap_misnamed,
)
from scorekeeper.tracking.play_identities import OTHER_CORNER_SHARE
from scorekeeper.tracking.rooms import TrackerRooms
from scorekeeper.tracking.runs import Played, Run
from scorekeeper.vision.boxes import iou, nested_share

RESTING_BOXES = 6
"""How many later boxes of a run a sighting is compared with to tell whether the card lay there
already (the whole card or either corner index) or was still sliding in."""


GLIMPSES = 2
"""A vaza's last play made from fewer than this many times ``min_sightings`` reads gives way to a
card read this many times more often, and more surely, beside its vaza."""

NEAR_LANDING_SECONDS = 0.5
"""Cards that came to rest (were first read where they lay) closer together than this are not
ordered by when they landed: a card read too faintly to name as it lands is first named when the
reader gets a clearer look, often just as the next card lands beside it. Where the rules and the
sightings' clues to the seats (the side a card came from, the way it lies) fit another order
better, the vaza takes that one. On a rendered deal a model enrolled on ``nicu-ornamental`` first
named 4C (seat 2) 19 frames after it landed, a frame after AS (seat 3) was named, and the tracker
played them the other way round: AS lay across the table, as seat 3 lays its cards, 4C along
it."""

EARLIER_SHARE = 0.8
"""How much of an earlier glimpse's box must lie where a card lies for it to be that card landing
(a glimpse is often one corner index of a card still settling); another card's misread there
never is."""


class Repairs(TrackerRooms):
    """Cards the reader missed, put back (the repairs room of :class:`Tracker`)."""

    def _salvage(self, state: DealState, ready: list[Run], frame: int) -> list[Event]:
        """A card lands after an unfinished trick vanished from view: a trick is only gathered
        whole, so cards glimpsed there since the last trick are its missing ones (the most read
        first, however faintly), put back where they landed as weak reads; with none (or, of two
        missing, one), the new card may follow a long occlusion, or close a trick whose last
        cards were never seen, and that is flagged."""
        last_seen = self._trick_last_seen(state)
        fresh = [r for r in ready if r.start_frame > last_seen]
        if frame - last_seen < self._clear or not fresh:
            return []
        seen: dict[Card, list[Run]] = {}
        # Any card read there since the last trick was gathered, even one read before the cards
        # played after it: a missed card may be anywhere in the trick.
        for run in self._runs():
            if (
                state.cleared_at < run.start_frame <= last_seen
                and run.card not in state.deal.played
                # A run played already under another name (the deal's decoding renamed it).
                and all(r is not run for r in state.runs.values())
                and not run.refused
                and not self._turned_at_rest(state, run)
                and not self._misread(run)
            ):
                seen.setdefault(run.card, []).append(run)
        groups = list(seen.values())
        if self.decode:
            groups = self._same_spot_groups(groups)
        glimpsed = [
            runs
            for runs in groups
            if sum(r.seen for r in runs) >= self.thresholds.weak_sightings
            and self._allowed(state, runs[0].card)
        ]
        missing = CARDS_PER_TRICK - len(state.trick)
        events: list[Event] = []
        # A trick is only gathered whole, so its missing cards were played: the cards read there
        # most (by summed confidence) are the best evidence left, however faint each read was.
        # Of two missing, one may have been glimpsed and the other never read.
        if glimpsed and (len(glimpsed) >= missing or missing == 2):
            chosen = sorted(glimpsed, key=lambda runs: -sum(r.confidence_sum for r in runs))
            found = sorted((runs[0] for runs in chosen[:missing]), key=lambda r: r.start_frame)
            events += self._put_back(state, found, frame)
            if len(state.trick) == CARDS_PER_TRICK:
                return events
            missing, glimpsed = CARDS_PER_TRICK - len(state.trick), []
        if missing <= 2 and not glimpsed:
            state.vanished_short = len(state.deal.tricks) + 1
            state.vanished_read = len(state.trick)
        turned = self._turned_refused(state, last_seen)
        if missing in (2, 3) and turned is not None and not glimpsed:
            # The dealer's trunfo lay there but the order of play gave it to another seat:
            # a card (or two) before it was never read.
            read = sorted(
                [*state.trick, Played(turned.card, -1, turned)],
                key=lambda p: p.run.start_frame if p.run else -1,
            )
            return events + self._open_hole(state, frame, read, [])
        return events + self._flag_once(
            frame,
            "trick_vanished",
            card=fresh[0].card,
            seat=state.deal.to_play,
            detail=f"the play area looked empty for {(frame - last_seen) / self.fps:.1f} s "
            f"after {len(state.trick)} cards of vaza {len(state.deal.tricks) + 1}; "
            f"{fresh[0].card} is taken as the next card of it",
            confidence=fresh[0].confidence,
        )

    def _same_spot_groups(self, groups: list[list[Run]]) -> list[list[Run]]:
        """Glimpses of one card under two names (a deck misread systematically) are one card:
        runs of different names at one box, or one inside the other (a corner index and the
        whole card) whose reads name a card in common, are joined, the most read name first."""
        merged: list[list[Run]] = []
        for runs in sorted(groups, key=lambda rs: -sum(r.seen for r in rs)):
            home = next((m for m in merged if self._one_card(runs, m)), None)
            if home is None:
                merged.append(list(runs))
            else:
                home.extend(runs)
        return merged

    def _one_card(self, runs: list[Run], others: list[Run]) -> bool:
        same_spot = self.thresholds.same_spot
        if any(
            iou(a, b) >= same_spot
            for mine in runs
            for other in others
            for a in mine.boxes
            for b in other.boxes
        ):
            return True
        if not any(
            nested_share(a, b) >= OTHER_CORNER_SHARE and iou(a, b) > 0.0
            for mine in runs
            for other in others
            for a in mine.boxes
            for b in other.boxes
        ):
            return False
        mine_reads, their_reads = Reads.empty(), Reads.empty()
        for run in runs:
            for sighting in run.sightings:
                mine_reads.add(sighting)
        for run in others:
            for sighting in run.sightings:
                their_reads.add(sighting)
        mine, theirs = mine_reads.weighed(), their_reads.weighed()
        return any(
            explains(mine, card) and explains(theirs, card) for card in mine.keys() & theirs.keys()
        )

    def _complete_last_trick(
        self, state: DealState, frame: int, *, stream_ended: bool = False
    ) -> list[Event]:
        """The last vaza vanished (or the stream ended) one card short: every other card of the
        deck has been played, so the missing one is the card left, and it is put back where it
        was glimpsed landing, or where the rules and the sightings fit it when it was never read
        (flagged either way), or where a card read as one played before lay
        (:meth:`_read_as_played`). The dealer's trunfo refused there for another seat is one of
        the vaza's cards too: a card before it was never read."""
        if len(state.deal.tricks) != TRICKS_PER_DEAL - 1 or (
            not stream_ended and frame - self._trick_last_seen(state) < self._clear
        ):
            return []
        left = [card for card in DECK if card not in state.deal.played]
        if len(state.trick) == CARDS_PER_TRICK - 2 and len(left) == 2:
            turned = self._turned_refused(state, self._trick_last_seen(state))
            unread = [card for card in left if turned is None or card != turned.card]
            track = self._tracks.get(unread[0]) if len(unread) == 1 else None
            if (
                turned is None
                or len(unread) != 1
                or (track is not None and any(r.start_frame > state.cleared_at for r in track.runs))
            ):
                return []
            misnamed = self._read_as_played(state) if self.decode else None
            if misnamed is not None:
                named = {turned: turned.card, misnamed: unread[0]}
                found = self._reorder(state, [turned, misnamed], frame, named=named)
                if found is not None:
                    return found
            read = sorted(
                [*state.trick, Played(turned.card, -1, turned)],
                key=lambda p: p.run.start_frame if p.run else -1,
            )
            return self._deduce_last_card(state, unread[0], frame, read=read)
        if len(state.trick) != CARDS_PER_TRICK - 1:
            return []
        if len(left) != 1 or not self._allowed(state, left[0]):
            return []
        card = left[0]
        track = self._tracks.get(card)
        runs = [r for r in track.runs if r.start_frame > state.cleared_at] if track else []
        if runs:
            return self._put_back(state, [min(runs, key=lambda r: r.start_frame)], frame)
        misnamed = self._read_as_played(state) if self.decode else None
        if misnamed is not None:
            place = self._landed_before(state, misnamed)
            found = self._reorder(
                state,
                [misnamed],
                frame,
                insert=(len(state.trick) if place is None else place, card),
            )
            if found is not None:
                return found
        return self._deduce_last_card(state, card, frame)

    def _read_as_played(self, state: DealState, *, until: int | None = None) -> Run | None:
        """A card that lay in the vaza on the table (begun before ``until``) read steadily under
        the name of a card played before (refused as already played), when the vaza lacks a card
        never read: the two are the deck's look-alikes, one read as the other in an earlier vaza
        too. It is played as the card missing, its reads its evidence, and the deal's decoding
        gives each of the two plays the name its reads fit best."""
        misnamed = [
            r
            for r in self._runs()
            if r.refused
            and r.start_frame > state.cleared_at
            and (until is None or r.start_frame < until)
            and r.card in state.deal.played
            and r.seen >= GLIMPSES * self.thresholds.min_sightings
            and not self._is_a_play(state, r)
            and not self._same_spot_as_play(state, r)
            and not self._names_the_trick(state, r)
        ]
        return max(misnamed, key=lambda r: r.confidence_sum, default=None)

    def _deduce_last_card(
        self, state: DealState, card: Card, frame: int, *, read: list[Played] | None = None
    ) -> list[Event]:
        """``card``, never read, is the last vaza's missing one: it goes where the rules and what
        the sightings say of the seats fit best among the vaza's ``read`` cards (in landing
        order; default: the ones played), and the plays read after it move one seat on (each
        told as corrected)."""
        read = list(state.trick) if read is None else read
        runs_of = {p.card: p.run for p in read}
        deal = None
        if state.trick_start is not None:
            deal = place_in_vaza(
                state.trick_start,
                [p.card for p in read],
                card,
                self._seat_clues(state, runs_of),
            )
        if deal is None:
            if len(read) != len(state.trick):
                return []
            deal = state.deal.play(card)
        vaza = deal.tricks[-1]
        confidence = {
            played: run.confidence if run is not None else 0.0 for played, run in runs_of.items()
        }
        events = self._retell(
            state,
            deal,
            first=len(deal.played) - CARDS_PER_TRICK,
            told=state.deal.plays,
            runs=runs_of,
            confidence={**confidence, card: 0.0},
            frame=frame,
        )
        seat = vaza.seats()[vaza.cards.index(card)]
        events.append(
            Uncertain(
                frame=frame,
                deal=state.number,
                reason="deduced",
                card=card,
                seat=seat,
                detail=f"{card} was never read; it is the one card left, so {seat_label(seat)} "
                f"played it in the last vaza, as its card {vaza.cards.index(card) + 1}",
            )
        )
        state.deal = deal
        state.trick = [
            Played(c, s, runs_of.get(c)) for c, s in zip(vaza.cards, vaza.seats(), strict=True)
        ]
        state.confidence[card] = 0.0
        for played, run in runs_of.items():
            if run is not None:
                state.runs[played] = run
                state.confidence.setdefault(played, run.confidence)
        return events + self._new_revokes(state, frame, vaza.cards[-1])

    def _landed_at(self, state: DealState, run: Run) -> int:
        """When the card of ``run`` came to rest: its first sighting inside where it lay later in
        this run (a card sliding in is seen at other spots first; its box is the whole card or
        either corner index), or an earlier glimpse of its name there since the last vaza was
        gathered and shortly before (a card read too seldom at first starts its run again),
        unless that glimpse names a card on the table too (a slip of the reader on that card) or
        is another card misread; a glimpse long before is a ghost."""
        boxes = run.boxes
        first = next(
            (
                frame
                for i, (frame, box) in enumerate(zip(run.frames, boxes, strict=True))
                if any(
                    nested_share(box, later) >= OTHER_CORNER_SHARE
                    for later in boxes[i + 1 : i + 1 + RESTING_BOXES]
                )
            ),
            run.last_frame,
        )
        beside = run.beside
        if (
            beside is not None
            and beside.start_frame > state.cleared_at
            and not self._is_a_play(state, beside)
            and not self._read_apart(run)
            and not self._misread(beside)
        ):
            # The card of its name it was read apart from, never at once: the same card, which
            # landed there and was then moved (or had a corner index covered).
            first = min(first, self._landed_at(state, beside))
        track = self._tracks.get(run.card)
        # Latest first, so that glimpses shortly before one another lead back to the landing.
        for other in sorted(track.runs if track is not None else (), key=lambda r: -r.start_frame):
            if (
                other is not run
                and state.cleared_at < other.start_frame < first
                and other.last_frame >= first - self._forget
                and any(
                    nested_share(box, lying) >= EARLIER_SHARE
                    for box in other.boxes
                    for lying in boxes[-4 * RESTING_BOXES :]
                )
                and not self._misread(other)
                and not self._names_the_trick(state, other)
            ):
                first = other.start_frame
        return first

    def _landed_before(self, state: DealState, run: Run, card: Card | None = None) -> int | None:
        """Where in the vaza on the table the card of ``run`` goes when it came to rest before
        cards played already (by more than a frame: read too seldom to settle first); None: last.
        With ``card`` (what ``run`` is played as), when it came to rest within
        :data:`NEAR_LANDING_SECONDS` of the last cards played, also where among them the rules
        and what the sightings say of the seats fit best, on a tie last (the order read)."""
        mine = self._landed_at(state, run)
        landings = [
            None if played.run is None else self._landed_at(state, played.run)
            for played in state.trick
        ]
        for position, landed in enumerate(landings):
            if landed is not None and landed > mine + 1:
                return position
        if card is None or state.trick_start is None or None in landings:
            return None
        first = len(landings)
        while first > 0 and mine - (landings[first - 1] or 0) <= NEAR_LANDING_SECONDS * self.fps:
            first -= 1
        if first == len(landings):
            return None
        read = [p.card for p in state.trick]
        runs_of = {p.card: p.run for p in state.trick} | {card: run}
        deal = place_in_vaza(
            state.trick_start,
            read,
            card,
            self._seat_clues(state, runs_of),
            places=range(first, len(read) + 1),
        )
        if deal is None:
            return None
        place = list(deal.plays[len(state.trick_start.plays) :]).index(card)
        return None if place == len(read) else place

    def _put_back(self, state: DealState, found: list[Run], frame: int) -> list[Event]:
        """Cards of the trick found late, as weak reads: where they landed among the cards
        played (``_reorder``), or after them when that cannot be."""
        reordered = self._reorder(state, found, frame)
        if reordered is not None:
            return reordered
        events: list[Event] = []
        for run in found:
            events += self._play(state, run, frame, weak=True)
        return events

    def _reorder(
        self,
        state: DealState,
        found: list[Run],
        frame: int,
        *,
        insert: tuple[int, Card] | None = None,
        named: Mapping[Run, Card] | None = None,
    ) -> list[Event] | None:
        """Put cards of the trick found late back where they landed, among the cards already
        played: the cards read after a missed one move one seat on. Returns the events (a
        ``play_corrected`` for each play that changed, ``card_played`` for the ones added), or
        None when the cards found all landed after the trick's last card or the rules refuse
        the new order (then they are simply added at the end). ``insert``: the one run found
        goes at this place of the vaza as this card (it was read well, only later than a card
        that landed after it: no weak read to flag). ``named``: the runs found go where they
        landed as these cards (read well, but refused: no weak read to flag either)."""
        if state.trick_start is None or any(p.run is None for p in state.trick):
            return None
        order = [(p.run, p.card) for p in state.trick if p.run is not None]
        if insert is not None:
            order.insert(insert[0], (found[0], insert[1]))
        elif named is not None:
            order = sorted(
                order + [(r, named[r]) for r in found], key=lambda pair: pair[0].start_frame
            )
        else:
            last_landed = max(p.run.start_frame for p in state.trick if p.run is not None)
            if all(r.start_frame > last_landed for r in found):
                return None
            order = sorted(
                order + [(r, r.card) for r in found], key=lambda pair: pair[0].start_frame
            )
        deal = state.trick_start
        seats: list[int] = []
        try:
            for _, card in order:
                seat = deal.to_play
                if seat is None:
                    return None
                seats.append(seat)
                deal = deal.play(card)
        except IllegalPlayError:
            return None
        before = len(state.trick_start.played)
        trick_number = len(state.trick_start.tricks) + 1
        old = [p.card for p in state.trick]
        events: list[Event] = []
        for position, ((run, card), seat) in enumerate(zip(order, seats, strict=True)):
            if run in found:
                state.confidence[card] = run.confidence
            if run in found and insert is None and named is None:
                events.append(
                    state.doubt_about(
                        run,
                        card,
                        seat,
                        reason="weak_read",
                        detail=f"{card} was seen only "
                        f"{self._sightings_since(card, state.cleared_at)} times, faintly; "
                        f"vaza {trick_number} vanished without it, so it is put back "
                        f"as its card {position + 1}",
                    )
                )
            if position < len(old):
                if old[position] != card:
                    events.append(
                        PlayCorrected(
                            frame=run.start_frame,
                            deal=state.number,
                            trick=trick_number,
                            play=before + position + 1,
                            seat=seat,
                            card=card,
                            confidence=run.confidence,
                        )
                    )
            else:
                events.append(
                    CardPlayed(
                        frame=run.start_frame,
                        deal=state.number,
                        trick=trick_number,
                        seat=seat,
                        card=card,
                        confidence=run.confidence,
                    )
                )
        state.deal = deal
        state.trick = [
            Played(card, seat, run) for (run, card), seat in zip(order, seats, strict=True)
        ]
        for run, card in order:
            state.runs[card] = run
        return events + self._new_revokes(state, frame, order[-1][1])

    def _displace_glimpse(self, state: DealState, ready: list[Run], frame: int) -> list[Event]:
        """A card settles beside a full vaza whose last play was a few glimpses, read less surely
        than it: no card lands on a full vaza, so the glimpses were a misread (a half-covered
        corner of a card of the vaza, or a card gathered before seen again) and the card read far
        more is the vaza's last card. The vaza is told again with it (``play_corrected``); the
        glimpses' card is free again."""
        last = state.trick[-1]
        glimpses = last.run
        if glimpses is None or glimpses.seen >= GLIMPSES * self.thresholds.min_sightings:
            return []
        taken = state.taken()
        # Begun while every other card of the vaza was still read: not the next vaza's lead.
        lying = min(self._last_seen(p.label) for p in state.trick[:-1])
        rivals = [
            r
            for r in ready
            if glimpses.start_frame < r.start_frame < lying
            and r.card not in taken
            and not r.refused
            and r.seen >= GLIMPSES * glimpses.seen
            and r.confidence > glimpses.confidence
            and not self._same_spot_as_play(state, r)
            and not self._names_the_trick(state, r)
        ]
        if not rivals or state.trick_start is None:
            return []
        card = max(rivals, key=lambda r: r.confidence_sum)
        kept = state.trick[:-1]
        start = state.trick_start
        try:
            deal = start.play_all([p.card for p in kept]).play(card.card)
        except IllegalPlayError:
            return []
        seat = last.seat
        glimpses.refused = True
        state.runs.pop(last.card, None)
        state.confidence.pop(last.card, None)
        state.deal = deal
        state.trick = [*kept, Played(card.card, seat, card)]
        state.runs[card.card] = card
        state.confidence[card.card] = card.confidence
        trick_number = len(start.tricks) + 1
        return [
            state.doubt_about(
                card,
                card.card,
                seat,
                reason="weak_read",
                detail=f"{last.card} was taken from {glimpses.seen} faint reads named "
                f"{glimpses.card}; {card.card}, read {card.seen} times beside vaza "
                f"{trick_number}, is its last card instead",
            ),
            PlayCorrected(
                frame=card.start_frame,
                deal=state.number,
                trick=trick_number,
                play=len(deal.played),
                seat=seat,
                card=card.card,
                confidence=card.confidence,
            ),
            *self._new_revokes(state, frame, card.card),
        ]

    def _gathered_short(self, state: DealState, ready: list[Run]) -> int | None:
        """How many of the full vaza's cards were read before it vanished short, when the cards
        read next and taken as its last still lay there as another landed while its other
        cards were gone: they began the next vaza, and the vaza before was gathered with cards no
        frame showed. None when nothing shows that."""
        if any(p.run is None for p in state.trick) or state.trick_start is None:
            return None
        read = CARDS_PER_TRICK - 1
        if state.hole is None:
            if state.vanished_short != len(state.deal.tricks):
                return None
            read = state.vanished_read
        elif state.hole.short_from != len(state.hole.held) - CARDS_PER_TRICK:
            return None
        taken, others = state.trick[read:], state.trick[:read]
        landed = [p.run.start_frame for p in taken if p.run is not None]
        if max(self._last_seen(p.label) for p in others) >= landed[0]:
            return None  # they came back: a hand had hidden them
        still_there = max(self._last_seen(p.label) for p in taken)
        if any(landed[-1] < r.start_frame <= still_there for r in ready):
            return read
        return None

    def _turned_refused(self, state: DealState, last_seen: int) -> Run | None:
        """The turned trunfo, refused in this vaza because another seat was to play."""
        track = self._tracks.get(state.deal.turned)
        if track is None or state.deal.turned in state.deal.played or state.trick_start is None:
            return None
        return next(
            (
                r
                for r in track.runs
                if r.refused
                and state.cleared_at < r.start_frame <= last_seen
                and not self._turned_at_rest(state, r)
            ),
            None,
        )

    def _open_hole(
        self, state: DealState, frame: int, read: list[Played], landed: list[Run]
    ) -> list[Event]:
        """The vaza on the table was gathered with ``read`` (in landing order) and a card no frame
        showed; ``landed``: cards that have landed since, which begin the next."""
        gone = max(self._last_seen(p.label) for p in read)
        if state.hole is None:
            before = state.trick_start
            assert before is not None
            told = list(state.deal.plays)
            state.hole = Hole(before.trick_number, before, told, [], [], [])
            state.deal = before  # until the gaps are filled, the plays since are only held
        hole = state.hole
        held_before = [p for p in hole.held if p not in read and p.run not in landed]
        hole.held = [*held_before, *read]
        misnamed = (
            self._read_as_played(state, until=gone)
            if len(read) == CARDS_PER_TRICK - 1 and self.decode
            else None
        )
        if misnamed is not None:
            landed_at = self._landed_at(state, misnamed)
            place = sum(
                p.run is not None and self._landed_at(state, p.run) <= landed_at for p in read
            )
            hole.misnamed[len(hole.gaps)] = misnamed
            hole.gaps.append(Gap(len(held_before), len(read), landed=place))
        else:
            hole.gaps += [Gap(len(held_before), len(read))] * (CARDS_PER_TRICK - len(read))
        hole.gathered.append(gone + 1)
        hole.short_from = None
        number = hole.trick + len(hole.gathered) - 1
        for played in read:
            self._mark_gathered(state, played, frame)
        # Cards landed since then were taken for this vaza's seats; the rules may have refused
        # one for the seat it seemed to be (the turned trunfo): seats are unknown until the gaps
        # are filled, so they are all held again, in landing order.
        since: dict[Card, Run] = {}
        for run in sorted(self._runs(), key=lambda r: r.start_frame):
            if (
                run.start_frame > gone
                and run.card not in state.taken()
                and run.card not in since
                and (run in landed or (run.refused and not self._turned_at_rest(state, run)))
            ):
                run.refused = False
                since[run.card] = run
        state.cleared_at = gone
        state.trick = []
        for run in since.values():
            held = Played(run.card, -1, run)
            hole.held.append(held)
            state.trick.append(held)
        began = f"{', '.join(str(c) for c in since)} began vaza {number + 1}. " if since else ""
        # The doubt is on the play told as the vaza's last (the card that began the next one,
        # or the last read): filling the hole corrects that play, which settles it.
        doubted = next(
            (i for i, card in enumerate(hole.told) if landed and state.runs.get(card) is landed[0]),
            None,
        )
        if doubted is None:
            doubted = next((i for i, card in enumerate(hole.told) if card == read[-1].card), None)
        card = hole.told[doubted] if doubted is not None else None
        return [
            Uncertain(
                frame=frame,
                deal=state.number,
                reason="missing_card",
                card=card,
                play=doubted + 1 if doubted is not None else None,
                options=(card,) if card else (),
                detail=f"vaza {number} was gathered with {len(read)} cards read: {began}The plays "
                "from here are told as if none was missing until the rest of the deal shows which "
                "card was never read and where it went",
            )
        ]

    def _reopen_hole(self, state: DealState, doubted: int) -> None:
        """After a restart: play ``doubted`` (from 1) was told as the last card of its vaza, but
        that vaza was gathered with a card never read and ``doubted`` began the next one. Hold
        the plays from that vaza on again (the three read there, then the vazas as they lay on
        the table, one card later than told), as :meth:`_open_hole` did before the stop."""
        told = list(state.deal.plays)
        last = doubted - 1
        first = last - last % CARDS_PER_TRICK
        if last != first + CARDS_PER_TRICK - 1 or last >= len(told):
            return  # not the last play told of a vaza: nothing to hold again
        before = Deal.start(
            dealer=state.deal.dealer, turned=state.deal.turned, rules=self.rules
        ).play_all(told[:first])
        held = [Played(card, -1, None) for card in told[first:]]
        read = CARDS_PER_TRICK - 1
        # The vazas gathered since, the gap's included; their frames are the stream's before
        # this one began.
        gathered = 1 + (len(held) - read) // CARDS_PER_TRICK
        state.hole = Hole(before.trick_number, before, told, held, [Gap(0, read)], [0] * gathered)
        state.deal = before
        lying = (len(held) - read) % CARDS_PER_TRICK
        state.trick = held[len(held) - lying :]
        state.trick_start = None

    def _tell_held(self, state: DealState, card: Card, run: Run) -> list[Event]:
        """A card held behind a hole is told at once, seated as if no card were missing (the
        page and the store hear of each play within a second, and a restart keeps it); filling
        the hole corrects what that got wrong."""
        hole = state.hole
        assert hole is not None
        try:
            told = hole.before.play_all(hole.told[len(hole.before.played) :])
            seat = told.to_play
            if seat is None:
                return []
            told.check_play(card)
        except IllegalPlayError:
            return []  # told when the hole is filled
        hole.told.append(card)
        return [
            CardPlayed(
                frame=run.start_frame,
                deal=state.number,
                trick=len(told.tricks) + 1,
                seat=seat,
                card=card,
                confidence=run.confidence,
            )
        ]

    def _gather_held(self, state: DealState, frame: int) -> list[Event]:
        hole = state.hole
        assert hole is not None
        last_seen = self._trick_last_seen(state)
        for played in state.trick:
            self._mark_gathered(state, played, frame)
        state.trick = []
        state.cleared_at = last_seen
        hole.gathered.append(last_seen + 1)
        if hole.cards_accounted == len(DECK):
            return self._fill_hole(state, frame)
        return []

    def _held_trick_vanished(self, state: DealState, ready: list[Run], frame: int) -> list[Event]:
        """A held vaza vanished a card short. The deal's last: the card it lacks is placed with
        the ones never read. Another, once the next card lands: that card is taken as its last,
        until it proves to have begun the next vaza (``_gathered_short``)."""
        hole = state.hole
        assert hole is not None
        last_seen = self._trick_last_seen(state)
        if len(state.trick) != CARDS_PER_TRICK - 1 or frame - last_seen < self._clear:
            return []
        if hole.cards_accounted == len(DECK) - 1:
            return self._fill_hole(state, frame)
        if any(r.start_frame > last_seen for r in ready):
            hole.short_from = len(hole.held) - len(state.trick)
        return []

    def _retell(
        self,
        state: DealState,
        deal: Deal,
        *,
        first: int,
        told: Sequence[Card],
        runs: Mapping[Card, Run | None],
        confidence: Mapping[Card, float],
        frame: int,
    ) -> list[Event]:
        """The events that bring what was ``told`` (the deal's plays in order) to ``deal``, from
        its play ``first`` on: a ``play_corrected`` for each told play whose card changed (its
        seat may have too), a ``card_played`` for each play beyond them."""
        events: list[Event] = []
        for index, (trick_no, card, seat) in enumerate(seated_plays(deal)[first:], start=first):
            run = runs.get(card)
            at = run.start_frame if run else frame
            if index < len(told):
                if told[index] != card:
                    events.append(
                        PlayCorrected(
                            frame=at,
                            deal=state.number,
                            trick=trick_no,
                            play=index + 1,
                            seat=seat,
                            card=card,
                            confidence=confidence[card],
                        )
                    )
            else:
                events.append(
                    CardPlayed(
                        frame=at,
                        deal=state.number,
                        trick=trick_no,
                        seat=seat,
                        card=card,
                        confidence=confidence[card],
                    )
                )
        return events

    def _seat_clues(self, state: DealState, runs: dict[Card, Run | None]) -> SeatClues:
        """What the sightings say of the seats of the deal's plays so far and of ``runs``."""
        played = {card: run for card, run in state.runs.items() if run is not None}
        played.update({card: run for card, run in runs.items() if run is not None})
        return self._clues_of(played)

    def _clues_of(self, played: Mapping[Card, Run]) -> SeatClues:
        """What the sightings say of the seats of the cards ``played`` were read as."""
        return SeatClues(
            came_from={
                card: self.geometry.seat_at(run.approach)
                for card, run in played.items()
                if run.approach is not None
            },
            upright={card: run.upright for card, run in played.items() if run.upright is not None},
            vertical_seats=self.geometry.seats_along(True),
        )

    def _fill_hole(self, state: DealState, frame: int) -> list[Event]:
        """Put the cards never read where the rules fit them best, replay the held cards with
        them, and tell what changed: the plays told before are corrected, the held ones played."""
        hole = state.hole
        assert hole is not None
        state.hole = None
        held = [p.card for p in hole.held]
        seen = hole.before.played | set(held)
        missing = [card for card in DECK if card not in seen]
        runs = {p.card: p.run for p in hole.held}
        clues = self._seat_clues(state, runs)
        placement = place_missing_cards(hole.before, held, hole.gaps, missing, clues)
        if placement is not None:
            for gap, (card, _) in enumerate(placement.places):
                if gap in hole.misnamed:
                    runs[card] = hole.misnamed[gap]
        elif hole.misnamed:
            swapped = self._swap_misnamed(state, hole, held, missing, runs)
            if swapped is not None:
                deal, detail = swapped
                return self._tell_filled(state, hole, deal, runs, frame, detail=detail)
            # Where the card read under another name landed, the rules refuse the card never
            # read, and the other way round too: the rules place it alone.
            free = [Gap(gap.start, gap.read) for gap in hole.gaps]
            placement = place_missing_cards(hole.before, held, free, missing, clues)
        if placement is not None:
            deal = placement.deal
            order = list(placement.cards)
            detail = (
                "; ".join(
                    f"{card} was never read: it goes in vaza "
                    f"{hole.trick + order.index(card) // 4} as its card {place + 1}"
                    for card, place in placement.places
                )
                + " (where the rules fit best)"
            )
        else:
            deal = hole.before
            for card in held:
                if deal.can_play(card):
                    deal = deal.play(card)
            unplaced = ", ".join(str(card) for card in missing)
            detail = (
                f"the cards never read ({unplaced}) cannot be placed by the rules: the held "
                "plays follow as they landed"
            )
        return self._tell_filled(state, hole, deal, runs, frame, detail=detail)

    def _swap_misnamed(
        self,
        state: DealState,
        hole: Hole,
        held: list[Card],
        missing: list[Card],
        runs: dict[Card, Run | None],
    ) -> tuple[Deal, str] | None:
        """The deal where the play named after the card read where the hole's one gap landed was
        the card never read (:func:`swap_misnamed`), with the runs given their cards' new names."""
        if len(hole.gaps) != 1 or len(missing) != 1 or 0 not in hole.misnamed:
            return None
        run = hole.misnamed[0]
        (never_read,) = missing
        clues = self._seat_clues(state, runs)
        deal = swap_misnamed(hole.before, held, hole.gaps[0], run.card, never_read, clues)
        if deal is None:
            return None
        index = deal.plays.index(never_read)
        state.runs[never_read] = state.runs.pop(run.card, None)
        state.confidence[never_read] = state.confidence.pop(run.card, 0.0)
        if run.card in state.gathered_at:
            state.gathered_at[never_read] = state.gathered_at.pop(run.card)
        runs[run.card] = run
        runs[never_read] = state.runs[never_read]
        number = index // CARDS_PER_TRICK + 1
        detail = (
            f"{never_read} was never read: it was play {index + 1} (vaza {number}), read as "
            f"{run.card}, which lay where vaza {hole.trick} lacked a card (the rules fit no "
            "card never read there)"
        )
        return deal, detail

    def _tell_filled(
        self,
        state: DealState,
        hole: Hole,
        deal: Deal,
        runs: dict[Card, Run | None],
        frame: int,
        *,
        detail: str,
    ) -> list[Event]:
        """Tell the plays of ``deal``, the hole filled, that differ from what was told, and carry
        on from it."""
        hole_start = len(hole.before.played)
        first = next(
            (i for i, (was, card) in enumerate(zip(hole.told, deal.plays)) if was != card),
            hole_start,
        )
        first = min(first, hole_start)
        events: list[Event] = [
            Uncertain(frame=frame, deal=state.number, reason="missing_card", detail=detail)
        ]
        plays = seated_plays(deal)
        confidence = {}
        for _, card, _ in plays[first:]:
            run = runs.get(card)
            confidence[card] = state.confidence.setdefault(card, run.confidence if run else 0.0)
        events += self._retell(
            state,
            deal,
            first=first,
            told=hole.told,
            runs=runs,
            confidence=confidence,
            frame=frame,
        )
        for trick_no in range(hole.trick, len(deal.tricks) + 1):
            trick = deal.tricks[trick_no - 1]
            winner = trick.winner(deal.trump)
            assert winner is not None
            later = trick_no - hole.trick
            gone = hole.gathered[later] if later < len(hole.gathered) else frame
            events.append(
                TrickGathered(
                    frame=gone,
                    deal=state.number,
                    trick=trick_no,
                    winner=winner,
                    cards=trick.cards,
                    points=trick.points,
                )
            )
        state.deal = deal
        start = Deal.start(dealer=deal.dealer, turned=deal.turned, rules=deal.rules)
        revoked_before = len(start.play_all(deal.plays[:first]).revokes)
        state.revokes_seen = min(state.revokes_seen, revoked_before)
        events += self._new_revokes(state, frame, plays[-1][1])
        current = deal.current_trick
        state.trick = [
            Played(card, seat, runs.get(card))
            for card, seat in zip(current.cards, current.seats(), strict=True)
        ]
        state.trick_start = start.play_all(deal.plays[: len(plays) - len(current.cards)])
        state.vanished_short = None
        for card, run in runs.items():
            if card in deal.played:
                state.runs[card] = run
        if deal.is_complete:
            events += self._final_decoding(state, frame)
            events.append(self._end_deal(state, frame))
        return events
