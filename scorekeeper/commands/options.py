"""The options several commands share, defined once so every command spells them the same way:
``--source``, ``--rules``, ``--seat0``, ``--clockwise`` and ``--precision``."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from scorekeeper.errors import RulesError, SourceError
from scorekeeper.rules import PRESETS, Rules
from scorekeeper.tracking.geometry import Side
from scorekeeper.training.precision import PRECISIONS

CAMERA_SOURCE_HELP = "camera index (0), video file, or stream URL"

_OLD_SOURCE = "positional_source"


def add_source_option(
    parser: argparse.ArgumentParser,
    *,
    help: str = CAMERA_SOURCE_HELP,
    metavar: str = "SOURCE",
    positional_alias: bool = False,
) -> None:
    """``--source``; with ``positional_alias`` the older ``COMMAND SOURCE`` spelling still works
    for one release, with a warning (see :func:`source_of`)."""
    if not positional_alias:
        parser.add_argument("--source", required=True, metavar=metavar, help=help)
        return
    parser.add_argument("--source", metavar=metavar, help=help + " (required)")
    parser.add_argument(
        _OLD_SOURCE, nargs="?", metavar="SOURCE", help="deprecated spelling of --source SOURCE"
    )


def source_of(args: argparse.Namespace) -> str:
    """The source a command was given: ``--source``, or the deprecated positional (with a line
    on stderr saying what to type instead)."""
    given, old = args.source, getattr(args, _OLD_SOURCE, None)
    if given is not None and old is not None:
        raise SourceError(f"two sources ({given!r} and {old!r}): give one, as --source SOURCE")
    if old is not None:
        print(
            f"scorekeeper {args.command}: warning: `{args.command} SOURCE` is deprecated and "
            f"goes in the next release: write `{args.command} --source {old}`",
            file=sys.stderr,
        )
        return str(old)
    if given is None:
        raise SourceError(
            f"no source: give --source SOURCE (`scorekeeper {args.command} --help` "
            "says what it may be)"
        )
    return str(given)


RULES_HELP = (
    f"a preset ({', '.join(PRESETS)}), key=value pairs (tie=carry,target=7,melar=true), "
    "or a preset then pairs (brazil,target=7)"
)


def add_rules_option(parser: argparse.ArgumentParser | Any, *, what: str) -> None:
    """``--rules`` for ``what`` the rules are used for; read with :func:`parse_rules`."""
    parser.add_argument("--rules", metavar="RULES", help=f"{what}: {RULES_HELP}")


def parse_rules(text: str) -> Rules:
    """``brazil``, ``tie=carry,target=7`` or ``brazil,target=7`` as :class:`Rules`; a one-line
    :class:`RulesError` naming ``--rules`` otherwise. Pairs change the default rules, or the
    preset they follow."""
    items = [item.strip() for item in text.split(",") if item.strip()]
    base = Rules()
    if items and "=" not in items[0]:
        try:
            base = Rules.preset(items.pop(0))
        except RulesError as error:
            raise RulesError(f"--rules {text!r}: {error}") from None
    changes: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep:
            raise RulesError(
                f"--rules {text!r}: {item!r} is not key=value (only the first item "
                f"may be a preset: {', '.join(PRESETS)})"
            )
        changes[key.strip()] = _rule_value(value.strip())
    if not changes:
        return base
    try:
        return Rules.from_json({**base.to_json(), **changes})
    except RulesError as error:
        raise RulesError(f"--rules {text!r}: {error}") from None


def _rule_value(text: str) -> Any:
    """``7`` -> 7, ``true`` / ``false`` -> a switch, anything else stays text for the rules to
    check."""
    if text.isdigit():
        return int(text)
    return {"true": True, "false": False}.get(text.lower(), text)


SIDES: tuple[str, ...] = tuple(side.value for side in Side)


def add_seat_options(parser: argparse.ArgumentParser | Any, *, default: Side | None = None) -> None:
    """``--seat0 SIDE`` and ``--clockwise``: where Jogador 1 sits and which way play goes round."""
    shown = (default or Side.BOTTOM).value
    parser.add_argument(
        "--seat0",
        choices=SIDES,
        default=default.value if default else None,
        help=f"the side of the image Jogador 1 (Nós) sits by (default {shown})",
    )
    parser.add_argument(
        "--clockwise",
        action="store_true",
        help="seats follow clockwise seen from above (Brazil); default counter-clockwise",
    )


def add_precision_option(parser: argparse.ArgumentParser) -> None:
    """``--precision`` of the commands that fine-tune the reader (``enrol``, ``learn``)."""
    parser.add_argument(
        "--precision",
        default="fp32",
        choices=list(PRECISIONS),
        help=(
            "what training steps compute in: fp32 (default), bf16 (faster on a CPU with "
            "bfloat16 units), auto (bf16 where trial steps show it faster)"
        ),
    )
