"""What happens in a simulated match, decided before anything moves: deals, plays, winners.

The rules engine decides every winner and point, so the ground truth can never disagree with
``scorekeeper replay``; the simulator only chooses plays (legal, or one injected renúncia).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from scorekeeper.errors import ScorekeeperError
from scorekeeper.rules import Card, Deal, Rules, Trick, deal_hands, next_seat, random_legal_deal

MAX_REVOKE_TRIES = 200


class SimulationError(ScorekeeperError):
    """Simulator options that cannot produce a video (bad counts, sizes, seats)."""


@dataclass(frozen=True, slots=True)
class PlannedTrick:
    number: int
    """1-based, as the engine counts vazas."""
    leader: int
    seats: tuple[int, ...]
    cards: tuple[Card, ...]
    winner: int
    points: int


@dataclass(frozen=True, slots=True)
class DealPlan:
    dealer: int
    turned: Card
    tricks: tuple[PlannedTrick, ...]
    points: dict[str, int]
    revokes: tuple[dict[str, object], ...]

    @property
    def plays(self) -> list[Card]:
        return [card for trick in self.tricks for card in trick.cards]

    def record_json(self) -> dict[str, object]:
        return {
            "dealer": self.dealer,
            "trump": self.turned.notation,
            "plays": [card.notation for card in self.plays],
        }


def plan_deal(rng: random.Random, *, dealer: int, rules: Rules, revoke: bool = False) -> DealPlan:
    """One whole deal; with ``revoke``, one player fails to follow suit while holding it."""
    if revoke:
        turned, plays = _revoking_plays(rng, dealer=dealer, rules=rules)
    else:
        turned, plays, _ = random_legal_deal(rng, dealer=dealer, rules=rules)
    deal = Deal.start(dealer=dealer, turned=turned, rules=rules)
    for card in plays:
        deal = deal.play(card)
    tricks = tuple(
        PlannedTrick(
            number=number,
            leader=trick.leader,
            seats=trick.seats(),
            cards=trick.cards,
            winner=_winner(trick, deal),
            points=trick.points,
        )
        for number, trick in enumerate(deal.tricks, start=1)
    )
    return DealPlan(
        dealer=dealer,
        turned=turned,
        tricks=tricks,
        points=deal.points.to_json(),
        revokes=tuple(dict(r.to_json()) for r in deal.revokes),
    )


def plan_match(
    rng: random.Random, *, deals: int, rules: Rules, revoke: bool = False
) -> list[DealPlan]:
    """``deals`` deals, the dealer passing to the next seat each time; a revoke in the first."""
    if deals < 1:
        raise SimulationError(f"--deals {deals} is not a count of deals: give 1 or more")
    first = rng.randrange(4)
    return [
        plan_deal(rng, dealer=next_seat(first, k), rules=rules, revoke=revoke and k == 0)
        for k in range(deals)
    ]


def _winner(trick: Trick, deal: Deal) -> int:
    winner = trick.winner(deal.trump)
    assert winner is not None
    return winner


def _revoking_plays(rng: random.Random, *, dealer: int, rules: Rules) -> tuple[Card, list[Card]]:
    """Random plays where one non-leader, holding the suit led, plays another suit instead.

    He must play his remaining cards of that suit later (every card is played), which is the
    engine's proof of the renúncia.
    """
    for _ in range(MAX_REVOKE_TRIES):
        turned, hands = deal_hands(rng, dealer=dealer)
        target = rng.randint(1, 7)
        deal = Deal.start(dealer=dealer, turned=turned, rules=rules)
        plays: list[Card] = []
        revoked = False
        while not deal.is_complete:
            seat = deal.to_play
            assert seat is not None
            hand = hands[seat]
            legal = deal.legal_plays(hand)
            led = deal.current_trick.led
            others = [card for card in hand if led is not None and card.suit is not led]
            if (
                not revoked
                and deal.trick_number >= target
                and led is not None
                and others
                and len(legal) < len(hand)
            ):
                card = rng.choice(others)
                revoked = True
            else:
                card = rng.choice(legal)
            hand.remove(card)
            plays.append(card)
            deal = deal.play(card)
        if revoked and deal.revokes:
            return turned, plays
    raise SimulationError("could not inject a renúncia into a random deal; try another --seed")
