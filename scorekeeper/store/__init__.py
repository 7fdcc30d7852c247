"""The table's memory: an append-only event log in SQLite, replayed through the rules engine.

Nothing is ever updated or deleted: a correction, an undo, a renúncia decision is one more event,
so a crash or a restart loses nothing and every change can be undone. The state is a fold of the log
into a match record, replayed by :func:`scorekeeper.rules.replay_match`; a write whose log would no
longer replay (an unknown card, a card played twice, a deal after the match was won) is refused and
nothing is written. Several tables (a tournament) share one file, each with its own id and its own
sequence.

The API the tracker and the web app use::

    from scorekeeper.store import Store, DealStarted, CardPlayed, CardCorrected

    store = Store.open("match.db")                 # None: the default file, in the user's data
    store.append("mesa", DealStarted(dealer=3, turned="AH"))
    store.append("mesa", CardPlayed("2S", frame=1200), CardPlayed("3S"))   # atomic, validated
    store.append("mesa", CardCorrected(deal=1, play=2, card="4S"))
    store.append("mesa", SeatNamed(seat=0, name="Ana"))      # shown instead of "Jogador 1"
    store.append("mesa", DealStarted(dealer=0, turned="7C"), next_match=True)  # after a win
    store.undo("mesa")                             # cancels the latest event still in effect
    store.events("mesa")     # [StoredEvent(table_id, seq, at, event), ...] the whole log
    store.record("mesa")     # {"rules": {...}, "deals": [{"dealer", "trump", "plays"}]}
    store.table_state("mesa")  # TableState: the engine's MatchResult, renúncias with the table's
                             # decisions, open doubts, names, the matches before ("history")
    store.state("mesa")      # its JSON, as GET /api/state serves it: "score", "current" deal, ...
    store.subscribe(lambda table, seq: ...)        # told after each append through this object

Errors are :class:`StoreError` (or the engine's :class:`~scorekeeper.errors.RecordError` and
:class:`~scorekeeper.errors.InvalidCardError`), all ``ValueError`` s with a one-line message;
:class:`ConflictError` when ``expect=`` (the last sequence number the writer saw) is out of date.
"""

from scorekeeper.paths import default_db_path
from scorekeeper.store.events import (
    DOUBT_REASONS,
    EVENT_TYPES,
    CardCorrected,
    CardPlayed,
    ConflictError,
    DealCorrected,
    DealStarted,
    DealThrownIn,
    DoubtRaised,
    DoubtSettled,
    Event,
    MatchStarted,
    RecordReplaced,
    RenunciaConfirmed,
    RenunciaDismissed,
    RulesChanged,
    SeatNamed,
    StoredEvent,
    StoreError,
    TrickGathered,
    Undone,
    event_from_json,
    event_to_json,
)
from scorekeeper.store.fold import Folded, Match, fold, in_effect
from scorekeeper.store.sqlite import (
    DEFAULT_TABLE,
    SCHEMA_VERSION,
    Store,
    check_table_id,
)
from scorekeeper.store.state import TableState, build_state

__all__ = [
    "DEFAULT_TABLE",
    "DOUBT_REASONS",
    "EVENT_TYPES",
    "SCHEMA_VERSION",
    "CardCorrected",
    "CardPlayed",
    "ConflictError",
    "DealCorrected",
    "DealStarted",
    "DealThrownIn",
    "DoubtRaised",
    "DoubtSettled",
    "Event",
    "Folded",
    "Match",
    "MatchStarted",
    "RecordReplaced",
    "RenunciaConfirmed",
    "RenunciaDismissed",
    "RulesChanged",
    "SeatNamed",
    "Store",
    "StoreError",
    "StoredEvent",
    "TableState",
    "TrickGathered",
    "Undone",
    "build_state",
    "check_table_id",
    "default_db_path",
    "event_from_json",
    "event_to_json",
    "fold",
    "in_effect",
]
