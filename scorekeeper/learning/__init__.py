"""Learning from play: a table's accepted deals, kept as labelled card tiles, teach its reader.

- :mod:`.labels`: a deal's corner indices named by its final record (pure);
- :mod:`.tiles`: the card-region tile around the named indices (no whole frame is kept);
- :mod:`.keep`: the kept deals per deck, capped on disk, and forgetting them;
- :mod:`.recording`: the listener beside ``scorekeeper run`` that notes frames and keeps deals;
- :mod:`.learn`: ``scorekeeper learn``, the fine-tune on them (the one
  :mod:`scorekeeper.training.adapt` path enrolment uses) and the comparison on held-out deals.
"""
