"""The Sueca rules engine: pure Python, no I/O, imports nothing from vision, web or storage.

>>> result = replay_record({"deals": [{"dealer": 0, "trump": "2C", "plays": []}]})
>>> result["deals"][0]["table"]["to_play"]
1
"""

from scorekeeper.rules.cards import (
    AZORES_DECK,
    DECK,
    PACK,
    PLAYABLE,
    RANKS,
    STANDARD_DECK,
    SUITS,
    Card,
    Deck,
    Rank,
    Suit,
    card_from_index,
)
from scorekeeper.rules.deal import Deal, Phase, Revoke, ThrowInReason
from scorekeeper.rules.random_deal import deal_hands, random_legal_deal
from scorekeeper.rules.record import (
    DealRecord,
    MatchRecord,
    next_dealer,
    parse_record,
    record_from_deals,
    replay,
    replay_record,
)
from scorekeeper.rules.scoring import DealOutcome, MatchScore, deal_outcome, riscos_for_points
from scorekeeper.rules.seats import SEATS, Team, next_seat, seat_label, team_of
from scorekeeper.rules.sheet import CROSS_ARMS, score_sheet
from scorekeeper.rules.trick import Trick
from scorekeeper.rules.variants import (
    PRESETS,
    CapoteRule,
    DeckRule,
    FirstLead,
    RenunciaClaim,
    RenunciaRule,
    Rules,
    SheetStyle,
    TieRule,
)

__all__ = [
    "AZORES_DECK",
    "CROSS_ARMS",
    "DECK",
    "PACK",
    "PLAYABLE",
    "PRESETS",
    "RANKS",
    "SEATS",
    "STANDARD_DECK",
    "SUITS",
    "CapoteRule",
    "Card",
    "Deal",
    "DealOutcome",
    "DealRecord",
    "Deck",
    "DeckRule",
    "FirstLead",
    "MatchRecord",
    "MatchScore",
    "Phase",
    "Rank",
    "RenunciaClaim",
    "RenunciaRule",
    "Revoke",
    "Rules",
    "SheetStyle",
    "Suit",
    "Team",
    "ThrowInReason",
    "TieRule",
    "Trick",
    "card_from_index",
    "deal_hands",
    "deal_outcome",
    "next_dealer",
    "next_seat",
    "parse_record",
    "random_legal_deal",
    "record_from_deals",
    "replay",
    "replay_record",
    "riscos_for_points",
    "score_sheet",
    "seat_label",
    "team_of",
]
