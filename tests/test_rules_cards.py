import pytest

from scorekeeper.errors import InvalidCardError
from scorekeeper.rules import DECK, Card, Rank, Suit, card_from_index


def test_deck_has_40_distinct_cards_worth_120_points():
    assert len(DECK) == len(set(DECK)) == 40
    assert sum(card.points for card in DECK) == 120


def test_points_per_rank():
    assert [Card.parse(f"{r}H").points for r in "A7KJQ65432"] == [11, 10, 4, 3, 2, 0, 0, 0, 0, 0]


def test_rank_order_high_to_low():
    strengths = [Rank(r).strength for r in "A7KJQ65432"]
    assert strengths == sorted(strengths, reverse=True)


def test_class_order_is_suit_major_hearts_spades_diamonds_clubs():
    assert [str(card_from_index(i)) for i in (0, 1, 9, 10, 20, 30, 39)] == [
        "AH",
        "7H",
        "2H",
        "AS",
        "AD",
        "AC",
        "2C",
    ]
    assert all(card.index == i for i, card in enumerate(DECK))


@pytest.mark.parametrize("text", ["7h", "7H", " 7H ", "7h\n"])
def test_parse_is_case_insensitive(text):
    assert Card.parse(text) == Card(Rank.SEVEN, Suit.COPAS)


@pytest.mark.parametrize("card", DECK)
def test_notation_round_trips(card):
    assert Card.parse(str(card)) == card
    assert eval(repr(card)) == card


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("8H", "8, 9 and 10"),
        ("10S", "rank"),
        ("AX", "suit 'X'"),
        ("", "unknown card"),
        ("KHH", "unknown card"),
    ],
)
def test_bad_cards_name_the_problem(text, fragment):
    with pytest.raises(InvalidCardError, match=fragment):
        Card.parse(text)


def test_card_from_index_out_of_range():
    with pytest.raises(InvalidCardError, match="0 to 39"):
        card_from_index(40)
