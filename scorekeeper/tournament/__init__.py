"""A tournament of many tables: each table local-first, one PostgreSQL the organiser watches.

- :mod:`~scorekeeper.tournament.pusher`: a table's background pusher of its SQLite log.
- :mod:`~scorekeeper.tournament.db`: the server's store (PostgreSQL, migrations in ``migrations/``).
- :mod:`~scorekeeper.tournament.live`: LISTEN/NOTIFY fan-out to the organiser's pages.
- :mod:`~scorekeeper.tournament.standings`: standings and pairings, pure.
- :mod:`~scorekeeper.tournament.app`: the Flask app (``scorekeeper tournament serve``).
- :mod:`~scorekeeper.tournament.export`: results as CSV.
- :mod:`~scorekeeper.tournament.cluster`: a throw-away PostgreSQL cluster for tests and benchmarks.
"""
