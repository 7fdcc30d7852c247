"""`scorekeeper replay` scores the records of tests/data/variants under the variants the seeds
name."""

import json
from pathlib import Path

import pytest

from scorekeeper.cli import main

DATA = Path(__file__).parent / "data" / "variants"


def replay(capsys, name, *args):
    status = main(["replay", str(DATA / f"{name}.json"), *args])
    out, err = capsys.readouterr()
    return status, out, err


def test_an_azores_record_replays_with_its_10s_and_cut_trunfo(capsys):
    """Seed 001: "In the Azores, Sueca is normally played using the 10 as the manilha (second
    highest card) rather than the 7. Instead of turning up one of the dealer's cards, the remaining
    packet of 12 cards (the rejected 9's, 8's and 7's) are cut to determine the trump suit." """
    status, out, err = replay(capsys, "azores", "--json")
    assert status == 0 and err == ""
    result = json.loads(out)
    assert [deal["turned"][0] for deal in result["deals"]] == ["7", "9"], (
        "cut from the rejected cards"
    )
    assert all(deal["complete"] and sum(deal["points"].values()) == 120 for deal in result["deals"])
    played = {
        card for deal in result["deals"] for trick in deal["tricks"] for card in trick["cards"]
    }
    assert {card[0] for card in played} == set("ATKJQ65432")
    status, _, err = replay(capsys, "azores", "--rules", "tournament")
    assert status == 2 and "unknown card 'TH'" in err and "the Azores deck plays the 10" in err


def test_a_melar_record_throws_in_a_deal_and_the_same_dealer_deals_again(capsys):
    """Seed 001: "The cards are thrown in, there is no score, and the cards are shuffled, cut and
    dealt again by the same dealer." The record plays Brazil's tie rule too: "If there is a tie ...
    the next hand is worth an extra game." """
    status, out, _ = replay(capsys, "brazil_melar", "--json")
    result = json.loads(out)
    assert status == 0 and [deal["outcome"] for deal in result["deals"]] == [
        "tie",
        "thrown_in",
        "points",
    ]
    assert [deal["dealer"] for deal in result["deals"]] == [0, 1, 1]
    assert result["score"] == {"nos": 0, "eles": 3} and result["next_dealer"] == 2
    status, out, _ = replay(capsys, "brazil_melar")
    assert "Deal 2 — dealer Jogador 2 (Eles), trunfo 4D (thrown in: melar)" in out
    assert "no score: Jogador 2 (Eles) deals again" in out and "Eles +3 riscos" in out
    status, _, err = replay(capsys, "brazil_melar", "--rules", "tournament")
    assert status == 2 and "deal 2, thrown in (melar): melar is not played under these rules" in err
    assert replay(capsys, "brazil_melar", "--rules", "brazil")[0] == 0


def test_a_renuncia_that_costs_two_games(capsys):
    """Seed 001: "Some play that the penalty for a revoke (failing to follow suit when able to do
    so) is that the offending team loses two games." """
    status, out, _ = replay(capsys, "renuncia_two_games", "--json")
    assert status == 0 and json.loads(out)["score"] == {"nos": 2, "eles": 0}
    status, out, _ = replay(capsys, "renuncia_two_games", "--json", "--rules", "renuncia_riscos=4")
    assert json.loads(out)["score"] == {"nos": 4, "eles": 0} and json.loads(out)["winner"] == "nos"


def test_a_renuncia_claimed_only_at_the_end_of_the_deal(capsys):
    """Seed 003: "Selon les règlements, on arrête le jeu aussitôt pour vérifier les plis, ou l'on
    n'accepte l'accusation qu'à la fin de la donne." The record's deal stops at the renúncia."""
    status, out, _ = replay(capsys, "renuncia_two_games", "--json", "--rules", "vila_flor")
    deal = json.loads(out)["deals"][0]
    assert status == 0 and deal["outcome"] == "in_progress" and len(deal["revokes"]) == 1


@pytest.mark.parametrize(
    "rules, message",
    [
        ("deck=madeira", "rule deck='madeira' is unknown"),
        ("melar=perhaps", "melar='perhaps' is a switch"),
        ("azores,melar", "'melar' is not key=value"),
    ],
)
def test_bad_rules_exit_2_with_one_line(capsys, rules, message):
    status, out, err = replay(capsys, "azores", "--rules", rules)
    assert status == 2 and out == "" and err.count("\n") == 1 and message in err, err


def test_the_camera_refuses_the_azores_deck_it_cannot_read():
    """The card reader knows the 40 cards of the standard deck; an Azores game is kept on the
    page."""
    from scorekeeper.errors import RulesError
    from scorekeeper.rules import PRESETS
    from scorekeeper.tracking import TableGeometry, Tracker

    with pytest.raises(
        RulesError, match="deck=azores: the card reader knows only the standard deck"
    ):
        Tracker(TableGeometry.default(1280, 720), PRESETS["azores"])
    assert Tracker(TableGeometry.default(1280, 720), PRESETS["brazil"]).rules.melar


def test_run_rules_reads_switches_as_true_or_false():
    from scorekeeper.commands.options import parse_rules
    from scorekeeper.rules import Rules

    assert parse_rules("melar=true,jogo_abaixo=false,renuncia_riscos=2") == Rules(
        melar=True, renuncia_riscos=2
    )
