"""Builders for rules tests: hand-made deals and random deals with a known shape."""

from __future__ import annotations

import random

from scorekeeper.rules import Card, Deal, Rules, deal_hands, random_legal_deal


def cards(text: str) -> list[Card]:
    return [Card.parse(token) for token in text.split()]


def record(*deals: dict, **rules: object) -> dict:
    return {"rules": dict(rules), "deals": list(deals)}


def deal_json(dealer: int, turned: Card | str, plays: list[Card] | list[str] | str) -> dict:
    if isinstance(plays, str):
        plays = cards(plays)
    return {"dealer": dealer, "trump": str(turned), "plays": [str(c) for c in plays]}


# Dealer 3 turns 2H; seat 0 holds nine trumps and leads them, so Nós take every vaza.
CAPOTE_PLAYS = (
    "AH AD AC 2H  7H 7D 7C 7S  KH KD KC KS  JH JD JC JS  QH QD QC QS "
    "6H 6D 6C 6S  5H 5D 5C 5S  4H 4D 4C 4S  3H 3D 3C 3S  AS 2D 2C 2S"
)
# Same, but seat 0 keeps 2S for last and seat 3 takes that vaza with 3S: 120 points, nine vazas.
ALL_POINTS_ONE_TRICK_LOST_PLAYS = (
    "AH AD AC 2H  7H 7D 7C AS  KH KD KC 7S  JH JD JC KS  QH QD QC JS "
    "6H 6D 6C QS  5H 5D 5C 6S  4H 4D 4C 5S  3H 3D 3C 4S  2S 2D 2C 3S"
)


def legal_deal(seed: int, *, dealer: int = 0, rules: Rules | None = None) -> dict:
    turned, plays, _ = random_legal_deal(random.Random(seed), dealer=dealer, rules=rules)
    return deal_json(dealer, turned, plays)


_FOUND_BY_POINTS: dict[int, int] = {}
_NEXT_SEED = [0]
SEARCH_LIMIT = 4000


def deal_with_nos_points(points: int) -> dict:
    """A complete legal deal (dealer 0) in which Nós take exactly ``points``.

    Random legal deals are scanned seed by seed (and remembered) until one fits, so each test
    states the score it needs instead of a hand-made deal.
    """
    while points not in _FOUND_BY_POINTS and _NEXT_SEED[0] < SEARCH_LIMIT:
        seed = _NEXT_SEED[0]
        _NEXT_SEED[0] += 1
        turned, plays, _ = random_legal_deal(random.Random(seed), dealer=0)
        nos = Deal.start(dealer=0, turned=turned).play_all(plays).points.nos
        _FOUND_BY_POINTS.setdefault(nos, seed)
    if points not in _FOUND_BY_POINTS:
        raise LookupError(f"no random deal with Nós on {points} points among {SEARCH_LIMIT} seeds")
    return legal_deal(_FOUND_BY_POINTS[points], dealer=0)


def deal_with_revoke(seed: int, *, dealer: int = 0) -> tuple[dict, dict]:
    """A complete deal where one player, once, discards while holding the suit led.

    Returns the deal JSON and what the revoke should be reported as (seat, trick, card, led).
    """
    rng = random.Random(seed)
    turned, hands = deal_hands(rng, dealer=dealer)
    deal = Deal.start(dealer=dealer, turned=turned)
    plays: list[Card] = []
    expected: dict | None = None
    while not deal.is_complete:
        seat = deal.to_play
        assert seat is not None
        hand = hands[seat]
        led = deal.current_trick.led
        offsuit = [c for c in hand if led is not None and c.suit is not led and c != turned]
        following = [c for c in hand if led is not None and c.suit is led]
        if led is not None and expected is None and following and offsuit and rng.random() < 0.3:
            card = rng.choice(offsuit)
            expected = {
                "seat": seat,
                "trick": deal.trick_number,
                "card": str(card),
                "led": led.value,
            }
        else:
            card = rng.choice(deal.legal_plays(hand))
        hand.remove(card)
        plays.append(card)
        deal = deal.play(card)
    if expected is None:
        raise LookupError(f"seed {seed} gave no chance to revoke")
    return deal_json(dealer, turned, plays), expected
