"""The Sueca rules engine: pure Python, no I/O, imports nothing from vision, web or storage.

>>> result = replay_match({"deals": [{"dealer": 0, "trump": "2C", "plays": []}]})
>>> result.deals[0].table.to_play
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
    MAX_PLAYS,
    DealRecord,
    MatchRecord,
    match_result,
    next_dealer,
    parse_record,
    record_from_deals,
    replay,
    replay_match,
    replay_record,
)
from scorekeeper.rules.results import DealResult, MatchResult, RevokeResult, TableCards, TrickResult
from scorekeeper.rules.scoring import (
    DealOutcome,
    Ending,
    MatchScore,
    deal_outcome,
    riscos_for_points,
)
from scorekeeper.rules.seats import SEATS, PerTeam, Team, next_seat, seat_label, team_of
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
    "MAX_PLAYS",
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
    "DealResult",
    "Deck",
    "DeckRule",
    "Ending",
    "FirstLead",
    "MatchRecord",
    "MatchResult",
    "MatchScore",
    "PerTeam",
    "Phase",
    "Rank",
    "RenunciaClaim",
    "RenunciaRule",
    "Revoke",
    "RevokeResult",
    "Rules",
    "SheetStyle",
    "Suit",
    "TableCards",
    "Team",
    "ThrowInReason",
    "TieRule",
    "Trick",
    "TrickResult",
    "card_from_index",
    "deal_hands",
    "deal_outcome",
    "match_result",
    "next_dealer",
    "next_seat",
    "parse_record",
    "random_legal_deal",
    "record_from_deals",
    "replay",
    "replay_match",
    "replay_record",
    "riscos_for_points",
    "score_sheet",
    "seat_label",
    "team_of",
]
