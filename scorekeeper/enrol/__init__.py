"""Enrolling a café's own deck: photos or a camera in, a face pack of its 40 cards out.

The steps, one module each, in the order ``scorekeeper enrol`` runs them:

- :mod:`~scorekeeper.enrol.outline` finds the cards lying on the table and warps each one flat;
- :mod:`~scorekeeper.enrol.identify` names a flat face with the current card reader;
- :mod:`~scorekeeper.enrol.collection` gathers faces over many photos or frames, one per card;
- :mod:`~scorekeeper.enrol.confirm` (terminal) and :mod:`~scorekeeper.enrol.page` (phone) let a
  person confirm or fix the doubtful names;
- :mod:`~scorekeeper.enrol.pack` writes the face pack (``Ah.png`` ... ``2c.png``) under the user's
  data folder, where :class:`scorekeeper.synth.faces.FacePack` reads it;
- :mod:`~scorekeeper.enrol.capture` ties them together for the command (:func:`capture_deck`).
"""

from scorekeeper.errors import ScorekeeperError


class EnrolError(ScorekeeperError):
    """A deck that cannot be enrolled as asked: a bad deck name, missing cards, nothing readable."""
