import pytest

from scorekeeper.errors import IllegalPlayError
from scorekeeper.rules import Card, Deal, PerTeam, Rules, Suit, Team, Trick
from tests.rules_builders import cards


def trick(leader: int, text: str) -> Trick:
    return Trick(leader=leader, cards=tuple(cards(text)))


def test_highest_card_of_suit_led_wins_without_trumps():
    assert trick(0, "KS AS 7S 2S").winner(Suit.COPAS) == 1


def test_seven_beats_king_and_jack_beats_queen():
    assert trick(0, "KS 7S QS 2S").winner(Suit.COPAS) == 1
    assert trick(0, "QD JD 6D 5D").winner(Suit.COPAS) == 1


def test_any_trump_beats_the_suit_led():
    # Seed 003's example: trunfo ouros, ace of copas led, the 2 of ouros takes the vaza.
    assert trick(0, "AH 2D 7H KH").winner(Suit.OUROS) == 1


def test_highest_trump_wins_when_several_cut():
    assert trick(2, "AH 2D 3D KH").winner(Suit.OUROS) == 0  # leader 2, 3D is the third card: seat 0


def test_a_third_suit_never_wins():
    assert trick(0, "2H AS AC 3H").winner(Suit.OUROS) == 3


def test_first_lead_after_dealer_by_default_and_cutter_as_variant():
    assert Deal.start(dealer=3, turned=Card.parse("AH")).to_play == 0
    assert Deal.start(dealer=0, turned=Card.parse("AH")).to_play == 1
    cutter = Rules.from_json({"first_lead": "cutter"})
    assert Deal.start(dealer=0, turned=Card.parse("AH"), rules=cutter).to_play == 3


def test_winner_leads_next_trick():
    deal = Deal.start(dealer=3, turned=Card.parse("2C")).play_all(cards("2S AS 3S 4S"))
    assert deal.leader == 1 and deal.to_play == 1
    assert deal.points == PerTeam(nos=0, eles=11) and deal.points[Team.ELES] == 11


def test_no_obligation_to_trump_or_overtrump():
    deal = Deal.start(dealer=3, turned=Card.parse("2C"))
    hand = cards("3C AD 5H")
    deal = deal.play(Card.parse("AS"))
    assert set(deal.legal_plays(hand)) == set(hand)  # void in espadas: any card


def test_must_follow_suit_when_able():
    deal = Deal.start(dealer=3, turned=Card.parse("2C")).play(Card.parse("AS"))
    assert deal.legal_plays(cards("3S AD 5H 7S")) == tuple(cards("3S 7S"))


def test_card_played_twice_is_refused():
    deal = Deal.start(dealer=3, turned=Card.parse("2C")).play(Card.parse("AS"))
    with pytest.raises(IllegalPlayError, match="already played in vaza 1"):
        deal.play(Card.parse("AS"))


def test_turned_card_belongs_to_the_dealer():
    deal = Deal.start(dealer=3, turned=Card.parse("2C"))
    with pytest.raises(IllegalPlayError, match="belongs to the dealer \\(Jogador 4 \\(Eles\\)\\)"):
        deal.play(Card.parse("2C"))
    dealer_plays_it = deal.play_all(cards("AS KS QS 2C"))
    assert not dealer_plays_it.turned_in_hand
    assert dealer_plays_it.tricks[0].winner(Suit.PAUS) == 3


def test_no_play_after_ten_tricks():
    from tests.rules_builders import CAPOTE_PLAYS

    deal = Deal.start(dealer=3, turned=Card.parse("2H")).play_all(cards(CAPOTE_PLAYS))
    assert deal.is_complete and deal.to_play is None
    with pytest.raises(IllegalPlayError, match="deal is over"):
        deal.check_play(Card.parse("AH"))


def test_play_returns_a_new_state_and_leaves_the_old_one():
    start = Deal.start(dealer=3, turned=Card.parse("2C"))
    after = start.play(Card.parse("AS"))
    assert start.current_trick.cards == () and after.current_trick.cards == (Card.parse("AS"),)
