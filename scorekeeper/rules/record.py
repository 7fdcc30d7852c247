"""Match records: the JSON a table's match is written in, read strictly and replayed.

A record is ``{"rules": {...}, "deals": [{"dealer": 3, "trump": "AH", "plays": ["2S", ...]}]}``:
``trump`` is the turned card (in the Azores deck, the rejected card cut to show the trunfo),
``plays`` the cards in playing order (fewer than 40 while the deal is in progress), and
``"thrown_in": "melar"`` (or ``jogo_abaixo``, ``manual``) marks a deal thrown in: no score, the
same dealer deals again.
:func:`replay_match` turns it into a typed :class:`~scorekeeper.rules.results.MatchResult`;
:func:`replay_record` into its JSON, what ``scorekeeper replay --json`` prints. Every problem is a
:class:`RecordError` naming the deal, the play and what to fix.

>>> result = replay_record({"deals": [{"dealer": 3, "trump": "AH", "plays": ["2S", "3S"]}]})
>>> result["deals"][0]["table"], result["score"], result["winner"]
({'leader': 0, 'cards': ['2S', '3S'], 'to_play': 2}, {'nos': 0, 'eles': 0}, None)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from scorekeeper.errors import RecordError, ScorekeeperError
from scorekeeper.rules.cards import Card, Deck
from scorekeeper.rules.deal import TRICKS_PER_DEAL, Deal, ThrowInReason
from scorekeeper.rules.results import DealResult, MatchResult, RevokeResult, TableCards, TrickResult
from scorekeeper.rules.scoring import MatchScore, deal_outcome
from scorekeeper.rules.seats import SEATS, next_seat
from scorekeeper.rules.trick import TRICK_SIZE
from scorekeeper.rules.variants import Rules

MAX_PLAYS = TRICKS_PER_DEAL * TRICK_SIZE


@dataclass(frozen=True, slots=True)
class DealRecord:
    dealer: int
    turned: Card
    plays: tuple[Card, ...]
    dismissed: frozenset[tuple[int, int]] = frozenset()
    """(vaza, seat) of renúncias the table looked at and rejected: reported, never penalised."""
    thrown_in: ThrowInReason | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "dealer": self.dealer,
            "trump": self.turned.notation,
            "plays": [card.notation for card in self.plays],
        }
        if self.dismissed:
            data["dismissed"] = [{"trick": t, "seat": s} for t, s in sorted(self.dismissed)]
        if self.thrown_in is not None:
            data["thrown_in"] = self.thrown_in.value
        return data


@dataclass(frozen=True, slots=True)
class MatchRecord:
    rules: Rules
    deals: tuple[DealRecord, ...]

    def to_json(self) -> dict[str, Any]:
        return {"rules": self.rules.to_json(), "deals": [deal.to_json() for deal in self.deals]}


@dataclass(frozen=True, slots=True)
class DealReplay:
    """One deal replayed, with the match score once it was settled."""

    number: int
    deal: Deal
    bonus: int
    score_after: MatchScore
    dismissed: frozenset[tuple[int, int]] = frozenset()


def parse_record(data: Any) -> MatchRecord:
    """Validate the shape of a record (cards, seats, types); the plays are checked by replaying."""
    if not isinstance(data, Mapping):
        raise RecordError('a match record must be a JSON object with a "deals" list')
    unknown = sorted(set(data) - {"rules", "deals"})
    if unknown:
        raise RecordError(
            f'unknown key {unknown[0]!r} in the record: only "rules" and "deals" are read'
        )
    try:
        rules = Rules.from_json(data.get("rules"))
    except ScorekeeperError as error:
        raise RecordError(f"rules: {error}") from None
    deals_data = data.get("deals", [])
    if not isinstance(deals_data, list):
        raise RecordError(
            '"deals" must be a list of deals like {"dealer": 0, "trump": "AH", "plays": []}'
        )
    deck = rules.deck.deck
    deals = tuple(
        _parse_deal(number, item, deck) for number, item in enumerate(deals_data, start=1)
    )
    return MatchRecord(rules=rules, deals=deals)


_DEAL_KEYS = ("dealer", "trump", "plays", "dismissed", "thrown_in")


def _parse_deal(number: int, item: Any, deck: Deck) -> DealRecord:
    where = f"deal {number}"
    if not isinstance(item, Mapping):
        raise RecordError(
            f'{where}: must be an object like {{"dealer": 0, "trump": "AH", "plays": []}}'
        )
    unknown = sorted(set(item) - set(_DEAL_KEYS))
    if unknown:
        raise RecordError(
            f"{where}: unknown key {unknown[0]!r}: a deal has {', '.join(_DEAL_KEYS)}"
        )
    dealer = item.get("dealer")
    if isinstance(dealer, bool) or dealer not in SEATS:
        raise RecordError(f"{where}: dealer {dealer!r} is not a seat: use 0, 1, 2 or 3")
    if "trump" not in item:
        raise RecordError(f'{where}: the turned card "trump" is missing, e.g. "trump": "AH"')
    turned = _parse_card(item["trump"], f"{where}, turned card", deck)
    plays_data = item.get("plays", [])
    if not isinstance(plays_data, list):
        raise RecordError(f'{where}: "plays" must be a list of cards like ["2S", "3S"]')
    if len(plays_data) > MAX_PLAYS:
        raise RecordError(f"{where}: {len(plays_data)} plays, but a deal has at most {MAX_PLAYS}")
    plays = tuple(
        _parse_card(text, f"{where}, play {index}", deck)
        for index, text in enumerate(plays_data, start=1)
    )
    dismissed = _parse_dismissed(item.get("dismissed", []), where)
    thrown_in = _parse_thrown_in(item.get("thrown_in"), where)
    return DealRecord(
        dealer=int(dealer), turned=turned, plays=plays, dismissed=dismissed, thrown_in=thrown_in
    )


def _parse_thrown_in(data: Any, where: str) -> ThrowInReason | None:
    if data is None:
        return None
    try:
        return ThrowInReason(data)
    except ValueError:
        choices = ", ".join(repr(reason.value) for reason in ThrowInReason)
        raise RecordError(f"{where}: thrown_in {data!r} is not a reason: use {choices}") from None


def _parse_dismissed(data: Any, where: str) -> frozenset[tuple[int, int]]:
    example = '"dismissed": [{"trick": 2, "seat": 1}]'
    if not isinstance(data, list):
        raise RecordError(f'{where}: "dismissed" must be a list like {example}')
    found = set()
    for entry in data:
        if isinstance(entry, Mapping) and set(entry) - {"trick", "seat"}:
            unknown = min(map(str, set(entry) - {"trick", "seat"}))
            raise RecordError(
                f"{where}: dismissed renúncia has unknown key {unknown!r}: "
                f"it has trick and seat, like {example}"
            )
        trick = entry.get("trick") if isinstance(entry, Mapping) else None
        seat = entry.get("seat") if isinstance(entry, Mapping) else None
        if (
            isinstance(trick, bool)
            or not isinstance(trick, int)
            or not 1 <= trick <= TRICKS_PER_DEAL
            or isinstance(seat, bool)
            or seat not in SEATS
        ):
            raise RecordError(
                f"{where}: dismissed renúncia {entry!r} must name a vaza 1-10 and a seat 0-3, "
                f"like {example}"
            )
        found.add((trick, int(seat)))
    return frozenset(found)


def _parse_card(text: Any, where: str, deck: Deck) -> Card:
    try:
        return Card.parse(text, deck=deck)
    except ScorekeeperError as error:
        raise RecordError(f"{where}: {error}") from None


def replay(record: MatchRecord) -> tuple[DealReplay, ...]:
    """Play every deal through the engine; :class:`RecordError` at the first impossible play."""
    score = MatchScore(target=record.rules.target)
    replays: list[DealReplay] = []
    for number, deal_record in enumerate(record.deals, start=1):
        if score.winner is not None:
            raise RecordError(
                f"deal {number}: the match was already won by {score.winner.label} "
                f"({score.nos}-{score.eles}): start a new match"
            )
        if replays and not _settled(replays[-1]):
            previous = replays[-1]
            raise RecordError(
                f"deal {number}: deal {previous.number} has only {previous.deal.play_count} plays "
                "and no renúncia ended it: only the last deal may be in progress"
            )
        try:
            deal = Deal.start(
                dealer=deal_record.dealer, turned=deal_record.turned, rules=record.rules
            )
        except ScorekeeperError as error:
            raise RecordError(f"deal {number}: {error}") from None
        for index, card in enumerate(deal_record.plays, start=1):
            try:
                deal = deal.play(card)
            except ScorekeeperError as error:
                raise RecordError(f"deal {number}, play {index} ({card}): {error}") from None
        if deal_record.thrown_in is not None:
            try:
                deal = deal.throw_in(deal_record.thrown_in)
            except ScorekeeperError as error:
                raise RecordError(
                    f"deal {number}, thrown in ({deal_record.thrown_in.value}): {error}"
                ) from None
        bonus = score.bonus_for_next(record.rules)
        score = score.after(deal_outcome(deal, dismissed=deal_record.dismissed), record.rules)
        replays.append(
            DealReplay(
                number=number,
                deal=deal,
                bonus=bonus,
                score_after=score,
                dismissed=deal_record.dismissed,
            )
        )
    return tuple(replays)


def _settled(item: DealReplay) -> bool:
    return deal_outcome(item.deal, dismissed=item.dismissed).decided


def replay_record(data: Any) -> dict[str, Any]:
    """Validate and replay a record given as parsed JSON; return what ``replay --json`` prints."""
    return replay_match(data).to_json()


def replay_match(data: Any) -> MatchResult:
    """Validate and replay a record given as parsed JSON (or a :class:`MatchRecord`)."""
    return match_result(data if isinstance(data, MatchRecord) else parse_record(data))


def match_result(record: MatchRecord) -> MatchResult:
    """The result of replaying ``record`` (raises :class:`RecordError` like :func:`replay`)."""
    replays = replay(record)
    final = replays[-1].score_after if replays else MatchScore(target=record.rules.target)
    return MatchResult(
        rules=record.rules,
        deals=tuple(deal_result(item) for item in replays),
        score=final,
        next_dealer=next_dealer(replays),
    )


def next_dealer(replays: Sequence[DealReplay]) -> int:
    """Who deals next: the seat after the last dealer, or the same dealer after a deal thrown in."""
    if not replays:
        return 0
    last = replays[-1].deal
    return last.dealer if last.thrown_in is not None else next_seat(last.dealer)


def deal_result(item: DealReplay) -> DealResult:
    deal = item.deal
    outcome = deal_outcome(deal, dismissed=item.dismissed)
    tricks = []
    for trick in deal.tricks:
        winner = trick.winner(deal.trump)
        assert winner is not None  # a gathered vaza has its four cards
        tricks.append(
            TrickResult(leader=trick.leader, cards=trick.cards, winner=winner, points=trick.points)
        )
    return DealResult(
        number=item.number,
        dealer=deal.dealer,
        turned=deal.turned,
        trump=deal.trump,
        tricks=tuple(tricks),
        table=TableCards(
            leader=deal.current_trick.leader, cards=deal.current_trick.cards, to_play=deal.to_play
        ),
        points=deal.points,
        complete=deal.is_complete,
        thrown_in=deal.thrown_in,
        riscos=outcome.riscos_with(item.bonus if outcome.decided and not outcome.tie else 0),
        ending=outcome.ending,
        bonus=item.bonus,
        revokes=tuple(
            RevokeResult(revoke=revoke, dismissed=(revoke.trick, revoke.seat) in item.dismissed)
            for revoke in deal.revokes
        ),
    )


def record_from_deals(deals: Sequence[Deal], rules: Rules) -> MatchRecord:
    """The record of deals played through the engine (the tracker's way back to JSON)."""
    return MatchRecord(
        rules=rules,
        deals=tuple(
            DealRecord(
                dealer=deal.dealer,
                turned=deal.turned,
                plays=deal.plays,
                thrown_in=deal.thrown_in,
            )
            for deal in deals
        ),
    )
