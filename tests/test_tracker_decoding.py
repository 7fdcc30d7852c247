"""The deal's plays decided together: each card once, the rules as a prior, a true renúncia kept
or brought back by answering the doubts truthfully (property tests over random legal deals read
by a deck misread systematically)."""

from __future__ import annotations

import random

from hypothesis import example, given, settings
from hypothesis import strategies as st

from scorekeeper.errors import IllegalPlayError
from scorekeeper.rules import DECK, Card, Deal, Rules, random_legal_deal
from scorekeeper.rules.cards import Suit
from scorekeeper.rules.random_deal import deal_hands
from scorekeeper.tracking.decoding import Reads, decode_plays, sighting_evidence

TWIN = {
    Suit.PAUS: Suit.ESPADAS,
    Suit.ESPADAS: Suit.PAUS,
    Suit.COPAS: Suit.OUROS,
    Suit.OUROS: Suit.COPAS,
}


def twin(card: Card) -> Card:
    return Card(card.rank, TWIN[card.suit])


def reads_of(card: Card, rng: random.Random, *, swapped: bool, sightings: int = 16) -> Reads:
    """Sightings of ``card`` as the benchmark's reader gives them: best read and runner-up
    (the twin), and for a card of the misread deck, the twin as best read in 80-90% of them."""
    wrong = round(rng.uniform(0.8, 0.9) * sightings) if swapped else 0
    reads = Reads.empty()
    for k in range(sightings):
        confidence, share = rng.uniform(0.3, 0.8), rng.uniform(0.1, 0.6)
        best, runner = (twin(card), card) if k < wrong else (card, twin(card))
        reads.add(sighting_evidence([(best, confidence), (runner, confidence * share)]))
    return reads


def revoking_deal(rng: random.Random, dealer: int) -> tuple[Card, list[Card]]:
    """A deal where one seat fails to follow suit while holding it, and later shows it."""
    for _ in range(200):
        turned, hands = deal_hands(rng, dealer=dealer)
        deal, plays, revoked = Deal.start(dealer=dealer, turned=turned), [], False
        while not deal.is_complete:
            seat = deal.to_play
            assert seat is not None
            legal = deal.legal_plays(hands[seat])
            off = [c for c in hands[seat] if c not in legal and c != turned]
            card = (
                rng.choice(off) if off and not revoked and rng.random() < 0.5 else rng.choice(legal)
            )
            revoked = revoked or card in off
            hands[seat].remove(card)
            plays.append(card)
            deal = deal.play(card)
        if deal.revokes:
            return turned, plays
    raise AssertionError("no renúncia could be made")


def decode_truth(
    turned: Card, plays: list[Card], *, dealer: int, swapped: set[Card], rng: random.Random
):
    evidence = [reads_of(card, rng, swapped=card in swapped) for card in plays]
    turned_reads = reads_of(turned, rng, swapped=turned in swapped, sightings=40)
    return decode_plays(dealer=dealer, turned=turned_reads, plays=evidence, doubts=True, firm=True)


def test_two_plays_read_as_one_card_are_told_apart_by_their_runners_up() -> None:
    # 5C of a deck whose clubs read as spades, and the true 5S, both read mostly "5S".
    rng = random.Random(3)
    turned, plays, _ = random_legal_deal(rng, dealer=1)
    swapped = {c for c in DECK if c.suit is Suit.PAUS}
    decoded = decode_truth(turned, plays, dealer=1, swapped=swapped, rng=rng)
    assert decoded is not None
    assert decoded.turned == turned and list(decoded.cards) == plays


def test_a_read_no_card_left_explains_is_unexplained_not_forced() -> None:
    # A reader that names only its best card (an old stream): a play read again later as a card
    # played before cannot be that card, and its reads name no other.
    rng = random.Random(5)
    turned, plays, _ = random_legal_deal(rng, dealer=0)

    def best_only(card: Card, sightings: int, confidence: float) -> Reads:
        reads = Reads.empty()
        for _ in range(sightings):
            reads.add(sighting_evidence([(card, confidence)]))
        return reads

    evidence = [best_only(card, 8, 0.9) for card in plays[:6]]
    decoded = decode_plays(
        dealer=0, turned=best_only(turned, 8, 0.9), plays=[*evidence, best_only(plays[2], 3, 0.6)]
    )
    assert decoded is not None
    assert list(decoded.cards[:6]) == plays[:6] and decoded.unexplained == (6,)


@settings(max_examples=100, deadline=None)
# True renúncias once explained away unasked: twin swaps that reseat the deal move the turned
# card's play off the dealer's seat, so no single swap is a deal the rules accept (the near tie
# was not asked; in the third, the likelier deal was not found).
@example(seed=262144, dealer=0, colour="H", share=0.875, revoke=True)
@example(seed=267530, dealer=3, colour="H", share=0.9715, revoke=True)
@example(seed=419530, dealer=0, colour="C", share=0.8898, revoke=True)
@given(
    seed=st.integers(0, 10**6),
    dealer=st.integers(0, 3),
    colour=st.sampled_from("CH"),
    share=st.floats(0.0, 1.0),
    revoke=st.booleans(),
)
def test_decoding_never_makes_an_impossible_deal_nor_hides_a_true_renuncia(
    seed: int, dealer: int, colour: str, share: float, revoke: bool
) -> None:
    rng = random.Random(seed)
    if revoke:
        turned, plays = revoking_deal(rng, dealer)
    else:
        turned, plays, _ = random_legal_deal(rng, dealer=dealer, rules=Rules())
    source = Suit.PAUS if colour == "C" else Suit.COPAS
    swapped = {c for c in DECK if c.suit is source and rng.random() < share}
    decoded = decode_truth(turned, plays, dealer=dealer, swapped=swapped, rng=rng)
    assert decoded is not None
    # Possible: each card once, the turned card the dealer's, the engine accepting every play.
    assert sorted(decoded.cards, key=DECK.index) == list(DECK)
    replayed = Deal.start(dealer=dealer, turned=decoded.turned).play_all(decoded.cards)
    assert replayed.is_complete
    dealer_plays = [
        c for t in replayed.tricks for c, s in zip(t.cards, t.seats(), strict=True) if s == dealer
    ]
    assert decoded.turned in dealer_plays
    # A true renúncia stays, or the table, answering the doubts with the cards really played,
    # gets it back. The one way it is lost unasked: the trunfo taken for its twin (the same
    # rank in the other suit of its colour), which reseats every play after the first vaza it
    # decides; the page shows the trunfo, and the table corrects it by hand.
    assert decoded.turned in (turned, twin(turned))
    truth = Deal.start(dealer=dealer, turned=turned).play_all(plays)
    kept = {(r.trick, r.seat) for r in replayed.revokes}
    answered = revokes_after_truthful_answers(decoded, plays, dealer, turned)
    for revoked in truth.revokes:
        at = (revoked.trick, revoked.seat)
        assert at in kept or at in answered or decoded.turned == twin(turned), (
            f"the renúncia of vaza {revoked.trick} was explained away unasked"
        )


def revokes_after_truthful_answers(
    decoded, plays: list[Card], dealer: int, turned: Card
) -> set[tuple[int, int]]:
    """The renúncias the deal shows once the table answers every doubt whose options hold the
    card really played with that card; the trunfo is the card lying turned on the table."""
    answered = list(decoded.cards)
    for play, options in decoded.doubts:
        if plays[play] in options:
            answered[play] = plays[play]
    try:
        deal = Deal.start(dealer=dealer, turned=turned).play_all(answered)
    except IllegalPlayError:
        return set()
    return {(r.trick, r.seat) for r in deal.revokes}


def test_a_trunfo_read_as_its_twin_is_not_traded_for_it_at_the_cost_of_renuncias() -> None:
    # A deck whose hearts read as diamonds, the turned 3H among them: taking the trunfo for 3D
    # reseats the deal so that three players seem to revoke and the true renúncia (vaza 1)
    # vanishes; the deal with 3H explains the reads better once the rules are counted.
    rng = random.Random(1414)
    turned, plays = revoking_deal(rng, 3)
    swapped = {c for c in DECK if c.suit is Suit.COPAS and rng.random() < 0.6803}
    assert turned in swapped
    decoded = decode_truth(turned, plays, dealer=3, swapped=swapped, rng=rng)
    assert decoded is not None
    truth = Deal.start(dealer=3, turned=turned).play_all(plays)
    replayed = Deal.start(dealer=3, turned=decoded.turned).play_all(decoded.cards)
    assert decoded.turned == turned
    assert [(r.trick, r.seat) for r in replayed.revokes] == [
        (r.trick, r.seat) for r in truth.revokes
    ]


def webcam_reads(card: Card, rng: random.Random, *, swapped: bool, sightings: int = 12) -> Reads:
    """Sightings of ``card`` as a webcam reader misreading one suit gives them: a card read right
    names its twin far less than itself; a misread card is named as its twin in 80-90% of them,
    the classifier unsure between the two."""
    wrong = round(rng.uniform(0.8, 0.9) * sightings) if swapped else 0
    reads = Reads.empty()
    for k in range(sightings):
        confidence = rng.uniform(0.3, 0.8)
        if k < wrong:
            options = [(twin(card), confidence), (card, confidence * rng.uniform(0.3, 0.9))]
        else:
            options = [(card, confidence), (twin(card), confidence * rng.uniform(0.02, 0.3))]
        reads.add(sighting_evidence(options))
    return reads


def lone_club_deal(rng: random.Random) -> tuple[Card, list[Card], int]:
    """A deal and a club in it whose spade is still in a hand, after two clubs whose spades were
    played before them."""
    for _ in range(200):
        turned, plays, _ = random_legal_deal(rng, dealer=0)
        clubs = [i for i, card in enumerate(plays) if card.suit is Suit.PAUS and card != turned]
        paired = [i for i in clubs if twin(plays[i]) in plays[:i] and twin(plays[i]) != turned]
        lone = [
            i
            for i in clubs
            if twin(plays[i]) not in plays[: i + 1]
            and twin(plays[i]) != turned
            and len([j for j in paired if j < i]) >= 2
        ]
        if lone:
            return turned, plays, lone[0]
    raise AssertionError("no such deal")


def test_a_lone_card_of_a_suit_the_deal_shows_misread_is_decided_as_that_suit() -> None:
    # Clubs read as spades: clubs whose spades were played too show the misread; a club whose
    # spade is still in a hand reads mostly as that spade, and is decided as the club.
    swapped = {c for c in DECK if c.suit is Suit.PAUS}
    taken_for_spade = 0
    for seed in range(12):
        rng = random.Random(seed)
        turned, plays, lone = lone_club_deal(rng)
        evidence = [webcam_reads(card, rng, swapped=card in swapped) for card in plays[: lone + 1]]
        turned_reads = webcam_reads(turned, rng, swapped=turned in swapped, sightings=40)
        decoded = decode_plays(dealer=0, turned=turned_reads, plays=evidence)
        assert decoded is not None and decoded.cards[lone] == plays[lone]
        # Each card once and the rules alone mostly leave the lone club its best read.
        alone = decode_plays(dealer=0, turned=turned_reads, plays=evidence, deck_swaps=False)
        assert alone is not None
        taken_for_spade += alone.cards[lone] == twin(plays[lone])
    assert taken_for_spade >= 6
