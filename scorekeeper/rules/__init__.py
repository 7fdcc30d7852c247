"""The Sueca rules engine: pure Python, no I/O, imports nothing from vision, web or storage."""

from scorekeeper.rules.cards import DECK, RANKS, SUITS, Card, Rank, Suit, card_from_index

__all__ = ["DECK", "RANKS", "SUITS", "Card", "Rank", "Suit", "card_from_index"]
