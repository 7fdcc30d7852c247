"""Which card each play was: the deal's reads decided together, under the rules.

Frames alone cannot fix a reader that misreads one deck *systematically* (its clubs read as the
same-rank spades in most sightings): more frames repeat the same mistake. The deal can: each of
the 40 cards is played exactly once, a seat that showed out of a suit cannot play it later
(unless it revoked), and the turned trunfo is the dealer's. So the identities of the plays are
chosen jointly:

- every play (and the turned card while the dealer still holds it) is a *row* with its evidence:
  for each card the reads named, the sum over sightings of ``log(p / FLOOR)``, where ``p`` is that
  card's probability in the sighting (best or runner-up) and ``FLOOR`` stands for every card a
  sighting did not name; a card no sighting named scores 0;
- the rows take distinct cards with the most evidence in all (an assignment problem, solved
  exactly by :func:`scipy.optimize.linear_sum_assignment`): two plays both read mostly as 5♠
  cannot both be 5♠, and the one whose reads also named 5♣ more is the 5♣;
- the deal that assignment makes is replayed through the rules engine, and each renúncia it
  proves costs :data:`RENUNCIA_COST`; a few swaps among the cards the reads named are tried
  while they lower the total. A renúncia the reads support more than that stays, and the engine
  flags it: the prior breaks near-ties, it never outweighs clear reads;
- a play given a card none of its reads named is *unexplained*: the caller flags it instead of
  forcing it.

Pure: no frames, no clocks, only cards, evidence and the rules.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

from scorekeeper.errors import IllegalPlayError
from scorekeeper.rules import DECK, Card, Deal, Rules
from scorekeeper.rules.cards import Suit

FLOOR = 0.01
"""The probability given to every card a sighting did not name. Lower makes a runner-up named
once weigh more against a card never named; higher makes the decoding lean on best reads only."""

RENUNCIA_COST = 4.0
"""Evidence (in nats, about one clear sighting) a renúncia costs an assignment. Raising it lets
follow-suit outweigh more reads (and risks explaining a true renúncia away); lowering it leaves
more near-ties to the reads alone."""

SEARCH_ROUNDS = 8
"""Rounds of improving swaps tried after the assignment (each keeps the best swap found)."""

Evidence = Mapping[Card, float]
"""For each card the reads named, the evidence for it (>= 0); cards left out score 0."""

EXPLAINED_SHARE = 0.25
"""A card explains a play's reads when its evidence is at least this share of the best card's:
the true card of a deck misread systematically keeps well over half; a card named only by a
stray slip or ghost keeps far less."""

_INDEX = {card: i for i, card in enumerate(DECK)}


def explains(row: Evidence, card: Card) -> bool:
    """Whether ``card`` is a fair reading of evidence ``row`` (an empty row takes any card)."""
    best = max(row.values(), default=0.0)
    return best <= 0.0 or row.get(card, 0.0) >= EXPLAINED_SHARE * best


def sighting_evidence(options: Iterable[tuple[Card, float]]) -> dict[Card, float]:
    """One sighting's evidence: ``log(p / FLOOR)`` for each card it names (best or runner-up)."""
    out: dict[Card, float] = {}
    for card, p in options:
        if p > FLOOR:
            out[card] = max(out.get(card, 0.0), math.log(p / FLOOR))
    return out


def add_evidence(total: dict[Card, float], more: Evidence) -> None:
    for card, value in more.items():
        total[card] = total.get(card, 0.0) + value


SIGHTINGS_COUNTED = 8
"""A card's reads weigh as this many sightings at most: the mean evidence of its sightings,
times their number up to this. A reader's mistakes about one card repeat frame after frame (the
same light, the same ink), so a card that lay in view for a minute is no surer than one seen for
a second; summing every sighting would let the longer-seen card take the name both were given.
Raising it trusts long looks more against the reader's random slips; lowering it weighs every
card's reads alike however long they were seen."""


@dataclass(slots=True)
class Reads:
    """The evidence of some sightings, summed, and how many there were."""

    total: dict[Card, float]
    sightings: int

    @classmethod
    def empty(cls) -> Reads:
        return cls({}, 0)

    def add(self, sighting: Evidence) -> None:
        add_evidence(self.total, sighting)
        self.sightings += 1

    def weighed(self) -> dict[Card, float]:
        """The evidence to decide with: the mean per sighting times at most
        :data:`SIGHTINGS_COUNTED` sightings."""
        if self.sightings == 0:
            return {}
        scale = min(self.sightings, SIGHTINGS_COUNTED) / self.sightings
        return {card: value * scale for card, value in self.total.items()}


@dataclass(frozen=True, slots=True)
class Decoded:
    turned: Card
    cards: tuple[Card, ...]
    """The card of each play, in playing order."""
    unexplained: tuple[int, ...]
    """Plays (indices into ``cards``) given a card none of their reads named."""
    deal: Deal
    cost: float
    doubts: tuple[tuple[int, tuple[Card, ...]], ...] = ()
    """Plays whose card another fair reading nearly explains as well (the renúncias it makes or
    mends counted): the play and its options, the chosen card first."""


DOUBT_MARGIN = 2 * RENUNCIA_COST
"""A play is a doubt when giving it another card its reads name (swapped with the play holding
that card) costs less than this more: the deal is near a tie there, which the table settles."""


def decode_plays(
    *,
    dealer: int,
    turned: Reads,
    plays: Sequence[Reads],
    rules: Rules | None = None,
    decided: Sequence[Card] | None = None,
    decided_turned: Card | None = None,
    doubts: bool = False,
    deck_swaps: bool = True,
    firm: bool = False,
) -> Decoded | None:
    """The likeliest cards of a deal's plays and turned card, whichever play the turned card
    was: still in the dealer's hand, or each play whose reads name a card the turned card's
    reads name (the rules refuse it from another seat than the dealer's, and which seat played
    what depends on the trunfo it gives). ``decided`` (with ``decided_turned``): the cards
    chosen before, for the plays they cover (one more play, if any, takes its best free read);
    ``doubts``: also list the near ties (:data:`DOUBT_MARGIN`); ``deck_swaps``: decide again
    once the deal shows a deck misread systematically (:func:`deck_swapped_reads`); ``firm``: the
    deal is over, search wider (slower) for the likeliest deal."""
    weighed = turned.weighed()
    named = {card for card in weighed if explains(weighed, card)}
    tries: list[int | None] = [None]
    for i, row in enumerate(plays):
        evidence = row.weighed()
        if any(explains(evidence, card) for card in named & evidence.keys()):
            tries.append(i)
    found = [
        decode_deal(
            dealer=dealer,
            turned=turned,
            plays=plays,
            turned_play=t,
            rules=rules,
            wide=firm,
            start=_start(plays, decided, decided_turned, t),
        )
        for t in tries
    ]
    decoded = [d for d in found if d is not None]
    if not decoded:
        return None
    best = min(decoded, key=lambda d: d.cost)
    # What the deck's misread is, and which plays it explains, are learnt together: each
    # decision sharpens the picture of the misread suit's reads.
    # Once the deal is over, the turned card is weighed as one of the deck's cards too, misread
    # like the rest of its suit (while it goes on, the misread is learnt from too few plays to
    # move the trunfo, which reseats every play).
    given = [*plays, turned] if firm else [*plays]
    for _ in range(SWAP_ROUNDS if deck_swaps else 0):
        relabelled = deck_swapped_reads(given, [*best.cards, best.turned][: len(given)])
        if relabelled is None:
            break
        if not firm:
            relabelled.append(turned)
        again = decode_plays(
            dealer=dealer,
            turned=relabelled[-1],
            plays=relabelled[:-1],
            rules=rules,
            decided=decided,
            decided_turned=decided_turned,
            deck_swaps=False,
            firm=firm,
        )
        if again is None or (again.cards, again.turned) == (best.cards, best.turned):
            break
        best, plays, turned = again, relabelled[:-1], relabelled[-1]
    if not doubts:
        return best
    turned_play = best.cards.index(best.turned) if best.turned in best.cards else None
    return _with_doubts(
        best, dealer=dealer, turned=turned, plays=plays, rules=rules, turned_play=turned_play
    )


TWIN_SUIT = {
    Suit.PAUS: Suit.ESPADAS,
    Suit.ESPADAS: Suit.PAUS,
    Suit.COPAS: Suit.OUROS,
    Suit.OUROS: Suit.COPAS,
}
"""Each suit's partner of the same colour: the suit a reader mistakes it for."""

SWAP_EXAMPLES = 2
"""Plays of one suit whose reads name their twin (the same rank, the other suit of its colour)
nearly as much as the card itself, which show that the deck's cards of that suit are misread."""

SWAP_GAP = 0.2
"""How much nearer a misread suit's cards come to their twins than the twin suit's come to
theirs (as a share of the better-read card's evidence) for the deal to show a systematic
misread: a card read right names its twin far less (the runner-up of a sure read)."""

SWAP_REACH = 0.75
"""How far (from the twin suit's plays towards the misread suit's) a play's reads must name its
twin to be taken for the misread suit."""

SWAP_ROUNDS = 3
"""Times the deck's misread is learnt again from the deal decided with it."""

SWAP_MARGIN = 1.0
"""Evidence (nats) a play that reads like the deck's misread cards gets for the misread suit's
card over its best read: enough to decide a lone play, little against the rest of the deal."""


def _twin_pair(row: Evidence) -> tuple[Card, Card, float] | None:
    """The best and second card of ``row`` when they are twins, and how near the second comes."""
    top = sorted(row.items(), key=lambda item: -item[1])[:2]
    if len(top) < 2 or top[0][1] <= 0.0:
        return None
    (best, high), (second, low) = top
    if second.rank != best.rank or TWIN_SUIT[best.suit] is not second.suit:
        return None
    return best, second, low / high


def deck_swapped_reads(plays: Sequence[Reads], cards: Sequence[Card]) -> list[Reads] | None:
    """The plays' reads with the deck's systematic misread taken into account, or None when the
    deal shows none.

    A systematic misread is a property of the deck, not of a frame: a reader that mistakes the
    deck's clubs for spades names both for each club (one or the other first), while a spade
    read right names its club far less. Once the plays decided as clubs show that (against the
    plays decided as spades), every play named both ways that near is taken for the club, unless
    the rest of the deal decides otherwise (each card is played once)."""
    pairs = [_twin_pair(r.weighed()) for r in plays]
    nearness: dict[Suit, list[float]] = {}
    for pair, card in zip(pairs, cards, strict=False):
        if pair is not None and card in pair[:2]:
            nearness.setdefault(card.suit, []).append(pair[2])
    mean = {suit: sum(values) / len(values) for suit, values in nearness.items()}
    # Taken for the misread suit: a play nearer its twin than three quarters of the way from
    # the twin suit's plays to the misread suit's (a card read right may lie under a misread
    # one for a while, and its reads then name both).
    misread = {
        suit: mean[TWIN_SUIT[suit]] + SWAP_REACH * (mean[suit] - mean[TWIN_SUIT[suit]])
        for suit, values in nearness.items()
        if len(values) >= SWAP_EXAMPLES
        and TWIN_SUIT[suit] in mean
        and mean[suit] >= mean[TWIN_SUIT[suit]] + SWAP_GAP
    }
    if not misread:
        return None
    out: list[Reads] = []
    changed = False
    for reads, pair in zip(plays, pairs, strict=True):
        if pair is not None:
            best, second, near = pair
            truer = best if best.suit in misread else second if second.suit in misread else None
            if truer is not None and near >= misread[truer.suit]:
                weighed = reads.weighed()
                scale = weighed[best] / reads.total[best]
                total = dict(reads.total)
                total[truer] = (weighed[best] + SWAP_MARGIN) / scale
                out.append(Reads(total, reads.sightings))
                changed = changed or truer == second
                continue
        out.append(reads)
    return out if changed else None


def _start(
    plays: Sequence[Reads],
    decided: Sequence[Card] | None,
    decided_turned: Card | None,
    turned_play: int | None,
) -> list[Card] | None:
    if decided is None or decided_turned is None:
        return None
    cards = list(decided)
    if len(cards) < len(plays):
        weighed = plays[len(cards)].weighed()
        free = [
            c
            for c, _ in sorted(weighed.items(), key=lambda item: -item[1])
            if c not in cards and c != decided_turned
        ]
        if not free:
            return None
        cards.append(free[0])
    if turned_play is None:
        return None if decided_turned in cards else [*cards, decided_turned]
    return cards


def _with_doubts(
    best: Decoded,
    *,
    dealer: int,
    turned: Reads,
    plays: Sequence[Reads],
    rules: Rules | None,
    turned_play: int | None,
) -> Decoded:
    searchers: dict[int | None, _Search] = {}

    def searcher_for(play: int | None) -> _Search:
        if play not in searchers:
            reads, turned_row = _rows(turned, plays, play)
            searchers[play] = _Search(
                dealer=dealer,
                rules=rules,
                rows=[r.weighed() for r in reads],
                turned_row=turned_row,
                played=len(plays),
                renuncia_cost=RENUNCIA_COST,
            )
        return searchers[play]

    searcher = searcher_for(turned_play)
    cards = list(best.cards) if turned_play is not None else [*best.cards, best.turned]
    base = searcher.evaluate(cards)
    if base is None:
        return best
    options: dict[int, list[Card]] = {i: list(given) for i, given in best.doubts}
    for i in range(len(plays)):
        if any(i == j for j, _ in best.doubts):
            continue
        for trial in searcher.swaps(cards, i):
            reading = _cheapest_reading(trial, best.turned, turned_play, plays, searcher_for)
            if reading is None or reading[0] - base[0] >= DOUBT_MARGIN:
                continue
            # Each play the near tie changes is asked: answering only some of them could
            # leave a deal the rules refuse (two plays of one card, the turned card off the
            # dealer's seat).
            for r, other in enumerate(reading[1][: len(plays)]):
                if other != cards[r]:
                    options.setdefault(r, [cards[r]]).append(other)
    found = [(i, tuple(dict.fromkeys(options[i]))[:5]) for i in sorted(options)]
    return Decoded(
        turned=best.turned,
        cards=best.cards,
        unexplained=best.unexplained,
        deal=best.deal,
        cost=best.cost,
        doubts=tuple((i, o) for i, o in found if len(o) > 1),
    )


def _cheapest_reading(
    trial: list[Card],
    turned_card: Card,
    turned_play: int | None,
    plays: Sequence[Reads],
    searcher_for: Callable[[int | None], _Search],
) -> tuple[float, list[Card]] | None:
    """The cheapest deal the rules accept for the plays' cards of ``trial``, and its cards:
    read as it stands (a trial that changes the turned play's card changes the trunfo), with
    the same turned card at the play now holding it, or, when the rules refuse it (its swap
    seats the turned card's play off the dealer's seat), with the turned card swapped to another
    play whose reads name it. The turned card's reads go with its play (one card, weighed
    once)."""
    readings = [(trial, turned_play)]
    if turned_play is None or trial[turned_play] == turned_card:
        judged = searcher_for(turned_play).evaluate(trial)
        if judged is not None:
            return judged[0], trial  # the rules accept it with its trunfo where it was
    if turned_play is not None:
        if trial[turned_play] != turned_card:
            readings.append((trial, trial.index(turned_card)))
        else:
            for j, reads in enumerate(plays):
                if j != turned_play and turned_card in reads.total:
                    moved = list(trial)
                    moved[turned_play], moved[j] = trial[j], trial[turned_play]
                    readings.append((moved, j))
    found: tuple[float, list[Card]] | None = None
    for cards, play in readings:
        judged = searcher_for(play).evaluate(cards)
        if judged is not None and (found is None or judged[0] < found[0]):
            found = (judged[0], cards)
    return found


def _rows(
    turned: Reads, plays: Sequence[Reads], turned_play: int | None
) -> tuple[list[Reads], int]:
    """One row of evidence per play, the turned card's reads added to the play that was it (or
    a row of their own while it is in the dealer's hand)."""
    reads = list(plays)
    if turned_play is not None:
        merged = Reads({**reads[turned_play].total}, reads[turned_play].sightings)
        for card, value in turned.total.items():
            merged.total[card] = merged.total.get(card, 0.0) + value
        merged.sightings += turned.sightings
        reads[turned_play] = merged
        return reads, turned_play
    return [*reads, turned], len(reads)


def decode_deal(
    *,
    dealer: int,
    turned: Reads,
    plays: Sequence[Reads],
    turned_play: int | None,
    rules: Rules | None = None,
    start: Sequence[Card] | None = None,
    renuncia_cost: float = RENUNCIA_COST,
    wide: bool = False,
) -> Decoded | None:
    """The likeliest cards for the turned card and each play of a deal (``plays`` in order).

    ``turned_play``: the play that was the turned card itself (the dealer playing it), whose
    reads are the turned card's too (one card, weighed once); None while the dealer still holds
    it. A play with no evidence at all (a card never read, placed by the rules) takes what is
    left, unflagged. ``start``: the plays' cards decided before (with the turned card's, when it
    is still in hand, last), also searched from: an assignment of the best reads the rules
    refuse can be far from one they accept. None when no assignment the rules accept is found.
    """
    reads, turned_row = _rows(turned, plays, turned_play)
    rows = [r.weighed() for r in reads]
    if len(rows) > len(DECK):
        return None
    from scipy.optimize import linear_sum_assignment  # imported here: it takes seconds to load

    score = np.zeros((len(rows), len(DECK)))
    for r, evidence in enumerate(rows):
        for card, value in evidence.items():
            score[r, _INDEX[card]] = value

    def assign(forced: Card | None = None) -> list[Card]:
        costs = score
        if forced is not None:
            costs = score.copy()
            costs[turned_row, :] = -1e6
            costs[:, _INDEX[forced]] = -1e6
            costs[turned_row, _INDEX[forced]] = 0.0
        chosen_rows, chosen_cols = linear_sum_assignment(costs, maximize=True)
        return [DECK[c] for _, c in sorted(zip(chosen_rows, chosen_cols, strict=True))]

    searcher = _Search(
        dealer=dealer,
        rules=rules,
        rows=rows,
        turned_row=turned_row,
        played=len(plays),
        renuncia_cost=renuncia_cost,
        wide=wide,
    )
    by_reads = assign()
    found = [searcher.improve(by_reads)]
    if found[0] is None or wide:
        # The best reads make a deal the rules refuse (the turned card's trunfo seats its play
        # elsewhere than the dealer), or the deal is over and the search goes wide: the best
        # assignment for each card the turned card may be (a trunfo read as its twin reseats
        # every play, which no swap of two plays reaches).
        found += [
            searcher.improve(assign(card), keep_turned=True) for card in searcher.fair[turned_row]
        ]
    if start is not None and len(start) == len(rows) and len(set(start)) == len(start):
        found.append(searcher.improve(list(start)))
    results = [f for f in found if f is not None]
    if not results:
        return None
    cards, deal, cost = min(results, key=lambda f: f[2])
    unexplained = tuple(i for i in range(len(plays)) if not explains(rows[i], cards[i]))
    return Decoded(
        turned=cards[turned_row],
        cards=tuple(cards[: len(plays)]),
        unexplained=unexplained,
        deal=deal,
        cost=cost,
        doubts=_prior_doubts(searcher, by_reads, cards),
    )


def _prior_doubts(
    searcher: _Search, by_reads: list[Card], cards: list[Card]
) -> tuple[tuple[int, tuple[Card, ...]], ...]:
    """Where the rules' prior took a renúncia away that the reads alone made: each play changed
    from the reads' best assignment is a doubt (the decision first), so the table sees it."""
    judged = searcher.evaluate(by_reads)
    if judged is None:
        return ()
    final = searcher.evaluate(cards)
    made = {(r.trick, r.seat) for r in judged[1].revokes}
    kept = {(r.trick, r.seat) for r in final[1].revokes} if final else set()
    if made <= kept:
        return ()
    return tuple(
        (i, (cards[i], by_reads[i])) for i in range(searcher.played) if cards[i] != by_reads[i]
    )


@dataclass(slots=True)
class _Search:
    dealer: int
    rules: Rules | None
    rows: list[dict[Card, float]]
    turned_row: int
    played: int
    renuncia_cost: float
    wide: bool = False
    """Also try swaps at every play with two fair readings while a renúncia stands, not only at
    the plays it rests on (a swap that changes who won an earlier vaza reseats every play after
    it): slower, for the firm decision at the deal's end."""
    best: list[float] = field(default_factory=list)
    fair: list[list[Card]] = field(default_factory=list)
    """For each row, the cards that explain its reads: the only ones worth trying there."""
    seen: dict[tuple[Card, ...], tuple[float, Deal] | None] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.best = [max(row.values(), default=0.0) for row in self.rows]
        self.fair = [[card for card in row if explains(row, card)] for row in self.rows]

    def evaluate(self, cards: list[Card]) -> tuple[float, Deal] | None:
        key = tuple(cards)
        if key not in self.seen:
            self.seen[key] = self._evaluate(cards)
        return self.seen[key]

    def _evaluate(self, cards: list[Card]) -> tuple[float, Deal] | None:
        try:
            deal = Deal.start(dealer=self.dealer, turned=cards[self.turned_row], rules=self.rules)
            deal = deal.play_all(cards[: self.played])
        except IllegalPlayError:
            return None
        # What each row loses against its own best reading: so a hypothesis with the turned card
        # still in hand (one row more) is judged like one where the dealer played it.
        regret = sum(
            best - row.get(card, 0.0)
            for row, best, card in zip(self.rows, self.best, cards, strict=True)
        )
        return self.renuncia_cost * len(deal.revokes) + regret, deal

    def improve(
        self, cards: list[Card], *, keep_turned: bool = False
    ) -> tuple[list[Card], Deal, float] | None:
        """Swaps among the cards the reads named while they lower the cost; None when the rules
        refuse the starting deal. ``keep_turned``: a deal the rules refuse is mended elsewhere
        than at the turned card (the hypothesis being tried is that turned card)."""
        judged = self.evaluate(cards)
        if judged is None:
            # The best reads break a rule outright (the turned trunfo from another seat, when
            # the trunfo it gives seats that play elsewhere): the swaps of the turned card with
            # the plays holding the other cards its reads named may mend it.
            mended = self._mend(cards, keep_turned=keep_turned)
            if mended is None:
                return None
            cost, deal, cards = mended
        else:
            cost, deal = judged
        for _ in range(SEARCH_ROUNDS):
            move = self._best_move(cards, deal, cost)
            if move is None and self.wide:
                move = self._best_chain(cards, deal, cost)
            if move is None:
                break
            cards, cost, deal = move
        return cards, deal, cost

    def _best_chain(
        self, cards: list[Card], deal: Deal, cost: float
    ) -> tuple[list[Card], float, Deal] | None:
        """The best of two or three swaps made together, where no single swap helps: a swap
        that changes who won a vaza can seat the turned card's play off the dealer's seat, a
        deal the rules refuse until the other swaps seat it back. Only chains whose reads alone
        cost less than the renúncias they could remove are replayed."""
        budget = self.renuncia_cost * len(deal.revokes)
        if budget <= 0.0:
            return None
        swaps: list[tuple[dict[int, Card], float]] = []
        for r in self._involved(cards, deal):
            for change in self._changes(cards, r):
                if any(other < r and cards[r] in self.fair[other] for other in change):
                    continue  # the same swap, seen from the other row
                swaps.append((change, self._regret_change(cards, change)))
        best: tuple[list[Card], float, Deal] | None = None
        for size in (2, 3):
            for chain in combinations(swaps, size):
                if sum(delta for _, delta in chain) >= budget:
                    continue
                rows = [row for change, _ in chain for row in change]
                if len(set(rows)) < len(rows):
                    continue
                trial = _changed(cards, *(change for change, _ in chain))
                judged = self.evaluate(trial)
                if judged is not None and judged[0] < (best[1] if best else cost) - 1e-9:
                    best = (trial, judged[0], judged[1])
            if best is not None:
                return best
        return None

    def _regret_change(self, cards: list[Card], change: Mapping[int, Card]) -> float:
        """How much more the rows of ``change`` lose against their best reading once changed."""
        return sum(
            self.rows[r].get(cards[r], 0.0) - self.rows[r].get(c, 0.0) for r, c in change.items()
        )

    def _mend(
        self, cards: list[Card], *, keep_turned: bool = False
    ) -> tuple[float, Deal, list[Card]] | None:
        """The cheapest deal the rules accept one swap away: of the turned card first, else of
        any play (a swap elsewhere changes who won a vaza, so who plays the turned card)."""
        groups = ([self.turned_row], range(len(cards)))
        for rows in groups[1:] if keep_turned else groups:
            best: tuple[float, Deal, list[Card]] | None = None
            for r in rows:
                for trial in self.swaps(cards, r):
                    if keep_turned and trial[self.turned_row] != cards[self.turned_row]:
                        continue
                    judged = self.evaluate(trial)
                    if judged is not None and (best is None or judged[0] < best[0]):
                        best = (judged[0], judged[1], trial)
            if best is not None:
                return best
        return None

    def swaps(self, cards: list[Card], row: int) -> Iterable[list[Card]]:
        """``cards`` with ``row`` given each other card that explains its reads (swapped with
        the row holding it)."""
        for change in self._changes(cards, row):
            yield _changed(cards, change)

    def _changes(self, cards: list[Card], row: int) -> Iterable[dict[int, Card]]:
        """The rows a swap of :meth:`swaps` changes, and their new cards."""
        holder = {card: r for r, card in enumerate(cards)}
        for card in self.fair[row]:
            if card == cards[row]:
                continue
            other = holder.get(card)
            yield {row: card} if other is None else {row: card, other: cards[row]}

    def _best_move(
        self, cards: list[Card], deal: Deal, cost: float
    ) -> tuple[list[Card], float, Deal] | None:
        best: tuple[list[Card], float, Deal] | None = None
        for r in self._involved(cards, deal):
            for trial in self.swaps(cards, r):
                judged = self.evaluate(trial)
                if judged is not None and judged[0] < (best[1] if best else cost) - 1e-9:
                    best = (trial, judged[0], judged[1])
        return best

    def _involved(self, cards: list[Card], deal: Deal) -> list[int]:
        """Rows worth changing: the plays a renúncia rests on (the card led, the revoking card,
        the proving card) and the turned card."""
        if not deal.revokes:
            return []
        if self.wide:
            return [r for r, fair in enumerate(self.fair) if len(fair) > 1 or r == self.turned_row]
        position = {card: i for i, card in enumerate(cards[: self.played])}
        rows: set[int] = {self.turned_row}
        tricks = (*deal.tricks, deal.current_trick)
        for revoke in deal.revokes:
            rows.add(position[revoke.card])
            led = tricks[revoke.trick - 1].cards[0]
            rows.add(position[led])
            proof_trick = tricks[revoke.proven_in_trick - 1]
            seat_cards = dict(zip(proof_trick.seats(), proof_trick.cards, strict=False))
            if revoke.seat in seat_cards:
                rows.add(position[seat_cards[revoke.seat]])
        return sorted(rows)


def _changed(cards: list[Card], *changes: Mapping[int, Card]) -> list[Card]:
    """``cards`` with each change's rows given their new cards."""
    trial = list(cards)
    for change in changes:
        for row, card in change.items():
            trial[row] = card
    return trial
