"""``scorekeeper replay FILE [--json]``: score a match record."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from scorekeeper.commands.options import add_rules_option, parse_rules
from scorekeeper.errors import RecordError
from scorekeeper.rules import Ending, MatchResult, Team, seat_label
from scorekeeper.strict_json import JsonLimits, loads

RECORD_LIMITS = JsonLimits(values=200_000, string=10_000)
"""A record file may hold a whole simulated clip (its events and geometry), far more than a body."""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "replay",
        help="score a match record (JSON) with the rules engine",
        description="Replay a match record through the rules engine and print the result.",
    )
    parser.add_argument(
        "file",
        help="match record JSON file (or a simulated clip's clip.json), or - for standard input",
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    add_rules_option(parser, what="score under these rules instead of the record's")
    parser.set_defaults(handler=run)


def read_record_file(name: str) -> Any:
    """Parse the JSON of ``name`` (``-`` is standard input) or raise a one-line RecordError."""
    try:
        if name == "-":
            stdin = getattr(sys.stdin, "buffer", sys.stdin)  # bytes, so bad UTF-8 is our one line
            text = stdin.read()
        else:
            text = Path(name).read_bytes()
    except FileNotFoundError:
        raise RecordError(
            f"no such file {name!r}: give the path of a match record, or - for stdin"
        ) from None
    except OSError as error:
        raise RecordError(f"cannot read {name!r}: {error.strerror or error}") from None
    return loads(text, what=repr(name), limits=RECORD_LIMITS, error=RecordError)


def run(args: argparse.Namespace) -> int:
    from scorekeeper.rules import replay_match

    data = read_record_file(args.file)
    if isinstance(data, dict) and "record" in data and "events" in data:
        data = data["record"]  # a simulated clip's ground truth (clip.json) carries its record
    if args.rules:
        if not isinstance(data, dict):
            raise RecordError('a match record must be a JSON object with a "deals" list')
        data = dict(data, rules=parse_rules(args.rules).to_json())
    result = replay_match(data)
    if args.json:
        print(json.dumps(result.to_json(), ensure_ascii=False))
    else:
        print(format_result(result))
    return 0


def format_result(result: MatchResult) -> str:
    """A summary for people: one block per deal, then the match score."""
    lines = []
    for deal in result.deals:
        points = deal.points
        if deal.thrown_in is not None:
            state = f"thrown in: {deal.thrown_in.value}"
        elif deal.complete:
            state = "complete"
        else:
            state = f"in progress, vaza {len(deal.tricks) + 1}"
        lines.append(
            f"Deal {deal.number} — dealer {seat_label(deal.dealer)}, "
            f"trunfo {deal.turned} ({state}): "
            f"Nós {points.nos} – Eles {points.eles} points"
        )
        for found in deal.revokes:
            revoke = found.revoke
            lines.append(
                f"  renúncia: {seat_label(revoke.seat)} played {revoke.card} "
                f"on {revoke.led.value} in vaza {revoke.trick} — {revoke.proof}"
            )
        riscos = deal.riscos
        if deal.ending is Ending.TIE:
            lines.append("  60–60: nobody scores")
        elif deal.ending is Ending.THROWN_IN:
            lines.append(f"  no score: {seat_label(deal.dealer)} deals again")
        elif riscos.nos or riscos.eles:
            team = Team.NOS if riscos.nos else Team.ELES
            gained = riscos[team]
            word = "risco" if gained == 1 else "riscos"
            lines.append(f"  {team.label} +{gained} {word} ({deal.ending.value})")
    score = result.score
    lines.append(f"Score: Nós {score.nos} – Eles {score.eles} riscos")
    if result.winner is not None:
        lines.append(f"Match won by {result.winner.label}")
    return "\n".join(lines)
