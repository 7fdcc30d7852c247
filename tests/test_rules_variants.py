"""The variants the seeds name, each a switch of the tournament rules, tested from the seeds' own
words.

Seed 001 is pagat.com's Sueca page (English), seed 003 the French rules page of the tournament rule.
"""

from __future__ import annotations

import random

import pytest

from scorekeeper.errors import IllegalPlayError, InvalidCardError, RecordError, RulesError
from scorekeeper.rules import (
    AZORES_DECK,
    DECK,
    PRESETS,
    Card,
    Deal,
    DeckRule,
    RenunciaClaim,
    Rules,
    SheetStyle,
    Suit,
    Team,
    ThrowInReason,
    Trick,
    parse_record,
    random_legal_deal,
    replay_match,
    replay_record,
    score_sheet,
)
from tests.rules_builders import (
    CAPOTE_PLAYS,
    cards,
    deal_json,
    deal_with_nos_points,
    deal_with_revoke,
    record,
)
from tests.test_rules_renuncia import VOID_THEN_PROVEN


def thrown_in(dealer: int, reason: str, plays: str = "", turned: str = "2C") -> dict:
    return dict(deal_json(dealer, turned, plays), thrown_in=reason)


# -- seed 001: the renúncia costs two games -----------------------------------------------------


def test_a_renuncia_can_cost_two_games_instead_of_four():
    """Seed 001: "Some play that the penalty for a revoke (failing to follow suit when able to do
    so) is that the offending team loses two games." """
    two = replay_record(record(deal_json(3, "2C", VOID_THEN_PROVEN), renuncia_riscos=2))
    four = replay_record(record(deal_json(3, "2C", VOID_THEN_PROVEN)))
    assert two["deals"][0]["outcome"] == "renuncia"
    assert two["score"] == {"nos": 2, "eles": 0} and two["winner"] is None
    assert four["score"] == {"nos": 4, "eles": 0} and four["winner"] == "nos"


@pytest.mark.parametrize("riscos", [0, -2, True, "2"])
def test_a_renuncia_penalty_must_be_a_positive_number_of_riscos(riscos):
    with pytest.raises(RulesError, match="renuncia_riscos"):
        Rules.from_json({"renuncia_riscos": riscos})


# -- seed 001: melar ----------------------------------------------------------------------------


def test_melar_throws_the_deal_in_without_score_and_the_same_dealer_deals_again():
    """Seed 001: "if the first player (the one who cut the cards) has less than 10 points in hand
    before the first lead, he can "spoil" (melar) the deal. The cards are thrown in, there is no
    score, and the cards are shuffled, cut and dealt again by the same dealer." """
    spoiled = replay_record(record(thrown_in(0, "melar"), melar=True))
    assert (
        spoiled["deals"][0]["outcome"] == "thrown_in"
        and spoiled["deals"][0]["thrown_in"] == "melar"
    )
    assert spoiled["score"] == {"nos": 0, "eles": 0} and spoiled["deals"][0]["riscos"] == {
        "nos": 0,
        "eles": 0,
    }
    assert spoiled["next_dealer"] == 0, "dealt again by the same dealer"
    played = replay_record(record(deal_with_nos_points(91), melar=True))
    assert played["next_dealer"] == 1, "otherwise the deal passes on"
    both = replay_record(record(thrown_in(0, "melar"), deal_with_nos_points(91), melar=True))
    assert both["score"] == {"nos": 2, "eles": 0}, "only the deal played again scores"


def test_melar_is_called_before_the_first_lead():
    """Seed 001: "... has less than 10 points in hand before the first lead, he can "spoil" (melar)
    the deal." """
    with pytest.raises(
        RecordError, match="deal 1, thrown in .melar.: melar is called before the first lead"
    ):
        replay_record(record(thrown_in(0, "melar", "AS"), melar=True))


def test_melar_is_a_variant_off_in_the_tournament_rules_and_on_in_brazil():
    """Seed 001: "Some players, at least in Brazil, play that if the first player ... has less than
    10 points in hand before the first lead, he can "spoil" (melar) the deal." """
    with pytest.raises(RecordError, match="melar is not played under these rules"):
        replay_record(record(thrown_in(0, "melar")))
    assert PRESETS["brazil"].melar and not PRESETS["tournament"].melar


def test_a_deal_thrown_in_leaves_a_tie_waiting_for_the_next_deal_played():
    """Seed 001: "If there is a tie ... no one scores, but the next hand is worth an extra game",
    and a deal thrown in has "no score": the hand played after it is the next hand."""
    result = replay_record(
        {
            "rules": PRESETS["brazil"].to_json(),
            "deals": [deal_with_nos_points(60), thrown_in(1, "melar"), deal_with_nos_points(91)],
        }
    )
    assert [deal["outcome"] for deal in result["deals"]] == ["tie", "thrown_in", "points"]
    assert result["score"] == {"nos": 3, "eles": 0}


# -- seed 003: jogo abaixo, and a deal thrown in by hand ------------------------------------------


def test_jogo_abaixo_asks_for_a_redeal_only_where_the_table_plays_it():
    """Seed 003: "Le jogo abaixo (« jeu à terre ») : à certaines tables, un joueur à la main très
    faible, souvent moins de 10 points et aucun atout, peut demander qu'on redistribue. Aucun
    règlement de tournoi ne le prévoit." """
    with pytest.raises(RecordError, match="jogo_abaixo is not played under these rules"):
        replay_record(record(thrown_in(2, "jogo_abaixo")))
    result = replay_record(record(thrown_in(2, "jogo_abaixo"), jogo_abaixo=True))
    assert result["deals"][0]["outcome"] == "thrown_in" and result["score"] == {"nos": 0, "eles": 0}
    assert result["next_dealer"] == 2
    assert not any(rules.jogo_abaixo for rules in PRESETS.values()), "no regulation allows it"


def test_a_table_may_throw_in_any_unfinished_deal_by_hand_but_not_a_scored_one():
    midway = replay_record(record(thrown_in(1, "manual", "AS 2S 3S")))
    assert midway["deals"][0]["outcome"] == "thrown_in" and midway["next_dealer"] == 1
    with pytest.raises(RecordError, match="the deal is complete and scored"):
        replay_record(record(dict(deal_with_nos_points(91), thrown_in="manual")))
    with pytest.raises(
        RecordError,
        match="thrown_in 'misdeal' is not a reason: use 'melar', 'jogo_abaixo', 'manual'",
    ):
        parse_record(record(thrown_in(0, "misdeal")))


def test_no_card_is_played_in_a_deal_thrown_in():
    deal = Deal.start(dealer=0, turned=Card.parse("2C")).throw_in(ThrowInReason.MANUAL)
    with pytest.raises(
        IllegalPlayError,
        match=r"thrown in \(manual\): the same dealer \(Jogador 1 \(Nós\)\) deals again",
    ):
        deal.play(Card.parse("AS"))
    assert deal.to_play is None and not deal.is_complete


# -- seed 003: the renúncia claimed at once or at the end of the deal ------------------------------


def test_a_renuncia_claimed_at_once_stops_the_deal_where_it_is_proven():
    """Seed 003: "Si elle est découverte, l'équipe adverse gagne la donne et marque 4 riscos ...
    Selon les règlements, on arrête le jeu aussitôt pour vérifier les plis, ou l'on n'accepte
    l'accusation qu'à la fin de la donne." """
    result = replay_record(
        record(deal_json(3, "2C", VOID_THEN_PROVEN), deal_with_nos_points(91), target=10)
    )
    first = result["deals"][0]
    assert first["complete"] is False and first["outcome"] == "renuncia"
    assert first["riscos"] == {"nos": 4, "eles": 0}
    assert result["score"] == {"nos": 6, "eles": 0}, "the next deal started at once and counts"


def test_a_renuncia_claimed_at_the_end_of_the_deal_waits_for_the_tenth_vaza():
    """Seed 003: "Si elle est découverte, l'équipe adverse gagne la donne et marque 4 riscos ...
    Selon les règlements, on arrête le jeu aussitôt pour vérifier les plis, ou l'on n'accepte
    l'accusation qu'à la fin de la donne." """
    rules = {"renuncia_claim": "end_of_deal", "target": 10}
    waiting = replay_record(record(deal_json(3, "2C", VOID_THEN_PROVEN), **rules))
    assert waiting["deals"][0]["outcome"] == "in_progress" and waiting["score"] == {
        "nos": 0,
        "eles": 0,
    }
    assert len(waiting["deals"][0]["revokes"]) == 1, "the page still sees the renúncia"
    with pytest.raises(RecordError, match="deal 1 has only 9 plays"):
        replay_record(
            record(deal_json(3, "2C", VOID_THEN_PROVEN), deal_with_nos_points(91), **rules)
        )
    deal, revoke = deal_with_revoke(3)
    ended = replay_record(record(deal, **rules))
    offended = "eles" if revoke["seat"] % 2 == 0 else "nos"
    assert ended["deals"][0]["outcome"] == "renuncia" and ended["score"][offended] == 4


def test_the_vila_flor_regulation_claims_the_renuncia_at_the_end_of_the_deal():
    """Seed 003: "Regulamento do Torneio de Sueca Vila F'Liz Natal, Município de Vila Flor (2024)
    ... renonce réclamée en fin de donne." """
    assert PRESETS["vila_flor"].renuncia_claim is RenunciaClaim.END_OF_DEAL
    assert PRESETS["tournament"].renuncia_claim is RenunciaClaim.AT_ONCE


# -- seed 003: longer matches ------------------------------------------------------------------


@pytest.mark.parametrize("target, capotes", [(7, 2), (10, 3)])
def test_tournament_matches_to_seven_or_ten_riscos(target, capotes):
    """Seed 003: "En tournoi, les parties sont souvent plus longues, en 7 ou 10 riscos." """
    capote = deal_json(3, "2H", CAPOTE_PLAYS)
    short = replay_record(record(*[capote] * (capotes - 1), target=target))
    assert short["score"]["nos"] == 4 * (capotes - 1) < target and short["winner"] is None
    won = replay_record(record(*[capote] * capotes, target=target))
    assert won["winner"] == "nos" and won["score"]["nos"] == 4 * capotes


# -- seed 001: the Azores deck ------------------------------------------------------------------


def test_the_azores_deck_plays_the_10_as_manilha_and_rejects_the_9s_8s_and_7s():
    """Seed 001: "In the Azores, Sueca is normally played using the 10 as the manilha (second
    highest card) rather than the 7. Instead of turning up one of the dealer's cards, the remaining
    packet of 12 cards (the rejected 9's, 8's and 7's) are cut to determine the trump suit." """
    ranks = [card.rank.value for card in AZORES_DECK.cards[:10]]
    assert ranks == ["A", "T", "K", "J", "Q", "6", "5", "4", "3", "2"]
    assert (
        len(set(AZORES_DECK.cards)) == 40 and sum(card.points for card in AZORES_DECK.cards) == 120
    )
    assert sorted({card.rank.value for card in AZORES_DECK.cut_cards}) == ["7", "8", "9"]
    assert len(AZORES_DECK.cut_cards) == 12
    assert not set(AZORES_DECK.cards) & set(AZORES_DECK.cut_cards)


def test_the_azores_10_is_second_highest_and_worth_what_the_7_is_worth():
    """Seed 001: "In the Azores, Sueca is normally played using the 10 as the manilha (second
    highest card) rather than the 7. Instead of turning up one of the dealer's cards, the remaining
    packet of 12 cards (the rejected 9's, 8's and 7's) are cut to determine the trump suit." """
    trick = Trick(
        leader=0, cards=tuple(Card.parse(c, deck=AZORES_DECK) for c in ["KS", "10S", "2S"])
    )
    assert trick.winner(Suit.PAUS) == 1, "the 10 beats the king"
    trick = trick.with_card(Card.parse("AS"))
    assert trick.winner(Suit.PAUS) == 3 and trick.points == 4 + 10 + 11, "the ace beats the 10"


def test_the_standard_deck_is_untouched():
    """The camera's 40 classes stay the standard deck; a 10 has no class id."""
    assert len(DECK) == 40 and {card.rank.value for card in DECK} == set("A7KJQ65432")
    assert DECK == Rules().deck.deck.cards
    ten = Card.parse("TH", deck=AZORES_DECK)
    with pytest.raises(InvalidCardError, match="no class id"):
        assert ten.index
    with pytest.raises(InvalidCardError, match="8, 9 and 10 are not in the Sueca deck"):
        Card.parse("10H")


def test_an_azores_match_cuts_the_trunfo_from_the_rejected_cards():
    """Seed 001: "In the Azores, Sueca is normally played using the 10 as the manilha (second
    highest card) rather than the 7. Instead of turning up one of the dealer's cards, the remaining
    packet of 12 cards (the rejected 9's, 8's and 7's) are cut to determine the trump suit." """
    # Dealer 3 cuts 8C from the rejected packet: paus is trunfo. Seat 0 leads KS, seat 1 takes it
    # with the 10, seat 2 follows, seat 3 cuts with 2C: trunfo wins.
    result = replay_record(record(deal_json(3, "8C", ["KS", "10S", "2S", "2C"]), deck="azores"))
    deal = result["deals"][0]
    assert deal["trump"] == "C" and deal["turned"] == "8C"
    assert deal["tricks"][0]["winner"] == 3 and deal["tricks"][0]["points"] == 14
    assert result["rules"]["deck"] == "azores"


@pytest.mark.parametrize(
    "turned, plays, message",
    [
        ("AC", "", "trunfo card AC is not one of the rejected cards .9, 8, 7."),
        ("9C", "7S", r"deal 1, play 1 \(7S\): 7S is not in the azores deck"),
        ("9C", "9S", r"deal 1, play 1 \(9S\): 9S is not in the azores deck"),
    ],
)
def test_an_azores_match_refuses_the_rejected_cards_in_play_and_a_dealt_card_as_trunfo(
    turned, plays, message
):
    with pytest.raises(RecordError, match=message):
        replay_record(record(deal_json(3, turned, plays.split()), deck="azores"))


def test_a_standard_match_refuses_a_10():
    with pytest.raises(
        RecordError, match="deal 1, play 1: unknown card '10S': rank '10' .*the Azores deck plays"
    ):
        replay_record(record(deal_json(3, "2C", ["10S"])))


def test_nobody_holds_the_azores_trunfo_card_so_the_dealer_may_discard_on_trunfo():
    """In the standard deck the dealer who discards on trunfo while holding the turned card revokes;
    in the Azores "instead of turning up one of the dealer's cards" the packet is cut."""
    standard = replay_record(record(deal_json(3, "2C", "KC 3C 4C AH")))
    azores = replay_record(record(deal_json(3, "8C", "KC 3C 4C AH"), deck="azores"))
    assert len(standard["deals"][0]["revokes"]) == 1 and azores["deals"][0]["revokes"] == []


@pytest.mark.parametrize("seed", range(12))
def test_random_azores_deals_play_the_40_azores_cards_for_120_points(seed):
    rules = Rules(deck=DeckRule.AZORES)
    turned, plays, hands = random_legal_deal(random.Random(seed), dealer=seed % 4, rules=rules)
    assert turned in AZORES_DECK.cut_cards and set(plays) == set(AZORES_DECK.cards)
    assert all(turned not in hand for hand in hands.values())
    result = replay_record(record(deal_json(seed % 4, turned, plays), deck="azores"))
    deal = result["deals"][0]
    assert deal["complete"] and sum(deal["points"].values()) == 120


def test_the_azores_preset():
    """Seed 001: "In the Azores, Sueca is normally played using the 10 as the manilha (second
    highest card) rather than the 7. Instead of turning up one of the dealer's cards, the remaining
    packet of 12 cards (the rejected 9's, 8's and 7's) are cut to determine the trump suit." """
    assert PRESETS["azores"] == Rules(deck=DeckRule.AZORES)
    assert PRESETS["azores"].with_changes(deck=DeckRule.STANDARD) == Rules()


# -- seed 001 and 003: the score sheet ------------------------------------------------------------


def test_the_cafe_sheet_has_a_stroke_per_risco_in_two_columns():
    """Seed 003: "Au café, on note sur un papier à deux colonnes, Nós et Eles (« Nous » et « Eux »),
    un trait ou une croix par risco." """
    result = replay_match(record(deal_with_nos_points(91), deal_with_nos_points(29)))
    sheet = score_sheet(result)
    assert sheet["style"] == "tracos"
    assert sheet["tracos"] == {"nos": [1, 1], "eles": [2, 2]}


def test_the_northern_sheet_puts_dots_at_the_ends_of_the_arms_of_a_cross():
    """Seed 001: "The score in games is often kept by marking dots at the ends of the arms of a
    cross ... In the example our team (Nós) has two games towards the rubber and their team (Eles)
    has three. This is the most usual system, at least in Northern Portugal" """
    deals = [deal_with_nos_points(91), deal_with_nos_points(29), deal_with_nos_points(59)]
    result = replay_match({"rules": PRESETS["norte"].to_json(), "deals": deals})
    sheet = score_sheet(result)
    assert sheet["style"] == "cruz" and (result.score.nos, result.score.eles) == (2, 3)
    assert [(dot["arm"], dot["deal"]) for dot in sheet["cruz"]["nos"]] == [("top", 1), ("right", 1)]
    assert [(dot["arm"], dot["deal"]) for dot in sheet["cruz"]["eles"]] == [
        ("top", 2),
        ("right", 2),
        ("bottom", 3),
    ]
    assert sheet["pente"] is None
    assert PRESETS["norte"] == Rules(sheet=SheetStyle.CRUZ)


def test_a_match_won_four_to_none_is_a_pente_and_scores_the_same():
    """Seed 001: "If a team wins a rubber by four games to none this is sometimes called a comb
    (pente), indicated by drawing a loop round the four dots representing the won games" """
    capote = replay_match(record(deal_json(3, "2H", CAPOTE_PLAYS), sheet="cruz"))
    sheet = score_sheet(capote)
    assert sheet["pente"] == "nos" and [dot["arm"] for dot in sheet["cruz"]["nos"]] == [
        "top",
        "right",
        "bottom",
        "left",
    ]
    assert capote.winner is Team.NOS, "only a name and a loop"
    assert capote.score.to_json() == {"nos": 4, "eles": 0}
    four_one = replay_match(
        record(deal_with_nos_points(59), deal_with_nos_points(91), deal_with_nos_points(91))
    )
    assert four_one.winner is Team.NOS and score_sheet(four_one)["pente"] is None


def test_games_past_the_fourth_start_a_new_ring_of_dots():
    capotes = replay_match(record(*[deal_json(3, "2H", CAPOTE_PLAYS)] * 2, target=7))
    rings = [(dot["arm"], dot["ring"]) for dot in score_sheet(capotes)["cruz"]["nos"]]
    assert rings[3:6] == [("left", 0), ("top", 1), ("right", 1)] and len(rings) == 8


# -- records: every variant round-trips -----------------------------------------------------------


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_preset_round_trips_through_json_and_repr(name):
    rules = PRESETS[name]
    assert Rules.from_json(rules.to_json()) == rules
    assert eval(repr(rules)) == rules


def test_a_record_with_thrown_in_deals_and_azores_cards_round_trips():
    data = record(
        thrown_in(0, "melar", turned="9H"),
        deal_json(0, "7D", ["KS", "10S", "2S", "AS"]),
        deck="azores",
        melar=True,
        renuncia_riscos=2,
        renuncia_claim="end_of_deal",
        sheet="cruz",
    )
    parsed = parse_record(data)
    again = parse_record(parsed.to_json())
    assert again == parsed and again.to_json() == parsed.to_json()
    assert parsed.to_json()["deals"][0]["thrown_in"] == "melar"
    assert parsed.to_json()["deals"][1]["plays"] == ["KS", "TS", "2S", "AS"], "a 10 is written T"
    assert "thrown_in" not in parsed.to_json()["deals"][1]


def test_unknown_variant_values_are_refused_with_the_choices():
    with pytest.raises(
        RulesError, match="rule deck='madeira' is unknown: choose 'standard', 'azores'"
    ):
        Rules.from_json({"deck": "madeira"})
    with pytest.raises(RulesError, match="rule melar='yes' is a switch: use true or false"):
        Rules.from_json({"melar": "yes"})


def test_cards_parse_in_the_notation_of_their_deck():
    assert Card.parse("10h", deck=AZORES_DECK) == Card.parse("TH", deck=AZORES_DECK)
    assert cards("AS 7H") == [Card.parse("AS"), Card.parse("7H")]
    ten = Card.parse("TD", deck=AZORES_DECK)
    assert eval(repr(ten)) == ten and str(ten) == "TD"
