"""Synthetic café-table scenes: card faces, table tops, scenes, effects, data sets.

``faces`` and ``tables`` are the stable building blocks (also used by ``scorekeeper simulate``);
``scene``, ``effects``, ``dataset`` and ``contact_sheet`` make the training data of the card reader.
"""

from scorekeeper.errors import ScorekeeperError


class SynthError(ScorekeeperError):
    """Bad input to the scene generator: a face pack or table folder, a configuration value."""
