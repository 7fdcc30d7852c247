"""Sueca table scorekeeper: cards seen by a webcam, scored by the rules, shown on phones."""

__version__ = "0.1.0"
