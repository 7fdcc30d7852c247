"""The project's errors, split by cause.

Every error is a ``ValueError`` so callers that only care about "bad input" can catch one thing;
messages quote the offending input and say what to do, and fit on one line.
"""


class ScorekeeperError(ValueError):
    """Base of every error the project raises on purpose."""


class InvalidCardError(ScorekeeperError):
    """A card notation that is not one of the 40 Sueca cards."""


class IllegalPlayError(ScorekeeperError):
    """A play the rules do not allow in the current state."""


class RecordError(ScorekeeperError):
    """A match record (JSON) that cannot be read or replayed."""


class RulesError(ScorekeeperError):
    """An unknown rule name or value."""


class ModelError(ScorekeeperError):
    """Missing, corrupt or incompatible model weights."""


class SourceError(ScorekeeperError):
    """A camera, video file or stream that cannot be opened or read."""
