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
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import linear_sum_assignment

from scorekeeper.errors import IllegalPlayError
from scorekeeper.rules import DECK, Card, Deal, Rules

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

_INDEX = {card: i for i, card in enumerate(DECK)}
_UNSEEN = 1e-9


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


@dataclass(frozen=True, slots=True)
class Decoded:
    turned: Card
    cards: tuple[Card, ...]
    """The card of each play, in playing order."""
    unexplained: tuple[int, ...]
    """Plays (indices into ``cards``) given a card none of their reads named."""
    deal: Deal
    cost: float


def decode_deal(*, dealer: int, turned: Evidence, plays: Sequence[Evidence],
                turned_play: int | None, rules: Rules | None = None,
                renuncia_cost: float = RENUNCIA_COST) -> Decoded | None:
    """The likeliest cards for the turned card and each play of a deal (``plays`` in order).

    ``turned_play``: the play that was the turned card itself (the dealer playing it), whose
    reads are evidence for the turned card too; None while the dealer still holds it. A play with
    no evidence at all (a card never read, placed by the rules) takes what is left, unflagged.
    None when no assignment the rules accept exists.
    """
    rows: list[dict[Card, float]] = [dict(e) for e in plays]
    if turned_play is not None:
        add_evidence(rows[turned_play], turned)
        turned_row = turned_play
    else:
        rows.append(dict(turned))
        turned_row = len(rows) - 1
    if len(rows) > len(DECK):
        return None
    score = np.zeros((len(rows), len(DECK)))
    for r, evidence in enumerate(rows):
        for card, value in evidence.items():
            score[r, _INDEX[card]] = value
    chosen_rows, chosen_cols = linear_sum_assignment(score, maximize=True)
    assignment = [DECK[c] for _, c in sorted(zip(chosen_rows, chosen_cols, strict=True))]
    searcher = _Search(dealer=dealer, rules=rules, rows=rows, turned_row=turned_row,
                       played=len(plays), renuncia_cost=renuncia_cost)
    best = searcher.improve(assignment)
    if best is None:
        return None
    cards, deal, cost = best
    unexplained = tuple(i for i in range(len(plays))
                        if rows[i] and rows[i].get(cards[i], 0.0) <= _UNSEEN)
    return Decoded(turned=cards[turned_row], cards=tuple(cards[:len(plays)]),
                   unexplained=unexplained, deal=deal, cost=cost)


@dataclass(slots=True)
class _Search:
    dealer: int
    rules: Rules | None
    rows: list[dict[Card, float]]
    turned_row: int
    played: int
    renuncia_cost: float

    def evaluate(self, cards: list[Card]) -> tuple[float, Deal] | None:
        try:
            deal = Deal.start(dealer=self.dealer, turned=cards[self.turned_row], rules=self.rules)
            deal = deal.play_all(cards[:self.played])
        except IllegalPlayError:
            return None
        evidence = sum(row.get(card, 0.0) for row, card in zip(self.rows, cards, strict=True))
        return self.renuncia_cost * len(deal.revokes) - evidence, deal

    def improve(self, cards: list[Card]) -> tuple[list[Card], Deal, float] | None:
        judged = self.evaluate(cards)
        if judged is None:
            # The best reads break a rule outright (the turned trunfo from another seat): start
            # from the reads put in an order the rules accept, by trying the swaps below.
            cost, deal = math.inf, None
        else:
            cost, deal = judged
        for _ in range(SEARCH_ROUNDS):
            move = self._best_move(cards, deal, cost)
            if move is None:
                break
            cards, cost, deal = move
        return (cards, deal, cost) if deal is not None else None

    def _best_move(self, cards: list[Card], deal: Deal | None,
                   cost: float) -> tuple[list[Card], float, Deal] | None:
        holder = {card: r for r, card in enumerate(cards)}
        involved = self._involved(cards, deal)
        best: tuple[list[Card], float, Deal] | None = None
        for r in involved:
            for card in self.rows[r]:
                if card == cards[r]:
                    continue
                trial = list(cards)
                other = holder.get(card)
                trial[r] = card
                if other is not None:
                    trial[other] = cards[r]
                judged = self.evaluate(trial)
                if judged is not None and judged[0] < (best[1] if best else cost) - 1e-9:
                    best = (trial, judged[0], judged[1])
        return best

    def _involved(self, cards: list[Card], deal: Deal | None) -> list[int]:
        """Rows worth changing: every row when the rules refuse the deal, else the plays a
        renúncia rests on (the card led, the revoking card, the proving card) and the turned card."""
        if deal is None:
            return list(range(len(cards)))
        if not deal.revokes:
            return []
        position = {card: i for i, card in enumerate(cards[:self.played])}
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
