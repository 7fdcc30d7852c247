"""The Sueca rules engine: pure Python, no I/O, imports nothing from vision, web or storage.

>>> result = replay_record({"deals": [{"dealer": 0, "trump": "2C", "plays": []}]})
>>> result["deals"][0]["table"]["to_play"]
1
"""

from scorekeeper.rules.cards import DECK, RANKS, SUITS, Card, Rank, Suit, card_from_index
from scorekeeper.rules.deal import Deal, Phase, Revoke
from scorekeeper.rules.random_deal import deal_hands, random_legal_deal
from scorekeeper.rules.record import (
    DealRecord,
    MatchRecord,
    parse_record,
    record_from_deals,
    replay,
    replay_record,
)
from scorekeeper.rules.scoring import DealOutcome, MatchScore, deal_outcome, riscos_for_points
from scorekeeper.rules.seats import SEATS, Team, next_seat, team_of
from scorekeeper.rules.trick import Trick
from scorekeeper.rules.variants import (
    PRESETS,
    CapoteRule,
    FirstLead,
    RenunciaRule,
    Rules,
    TieRule,
)

__all__ = [
    "DECK",
    "PRESETS",
    "RANKS",
    "SEATS",
    "SUITS",
    "CapoteRule",
    "Card",
    "Deal",
    "DealOutcome",
    "DealRecord",
    "FirstLead",
    "MatchRecord",
    "MatchScore",
    "Phase",
    "Rank",
    "RenunciaRule",
    "Revoke",
    "Rules",
    "Suit",
    "Team",
    "TieRule",
    "Trick",
    "card_from_index",
    "deal_hands",
    "deal_outcome",
    "next_seat",
    "parse_record",
    "random_legal_deal",
    "record_from_deals",
    "replay",
    "replay_record",
    "riscos_for_points",
    "team_of",
]
