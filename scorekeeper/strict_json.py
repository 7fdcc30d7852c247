"""JSON from outside (a phone's request body, a record file) read with limits, so no input can
make the reader raise anything but one :class:`~scorekeeper.errors.ScorekeeperError` line.

``json.loads`` alone lets through what breaks later: nesting past the recursion limit
(``RecursionError``), integers past Python's 4,300-digit limit (``ValueError``), ``NaN``, and lone
surrogates (``"\\ud800"``) that no UTF-8 writer can store.

>>> loads('{"cards": ["7H"]}', what="the body")
{'cards': ['7H']}
>>> loads('[[[[1]]]]', what="the body", limits=JsonLimits(depth=3))
Traceback (most recent call last):
...
scorekeeper.errors.ScorekeeperError: the body is nested deeper than 3 levels
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from scorekeeper.errors import ScorekeeperError


@dataclass(frozen=True)
class JsonLimits:
    depth: int = 16
    """Arrays and objects inside one another (a match record needs 4)."""
    values: int = 20_000
    """Values in all (a whole match record of 15 deals is about 700)."""
    string: int = 1_000
    """Characters in one string or key."""
    digits: int = 18
    """Digits in one number."""


class _Refused(Exception):
    pass


def _number(limits: JsonLimits, kind: type) -> Any:
    def parse(text: str) -> Any:
        if len(text) > limits.digits + 8:  # room for a sign, a point and an exponent
            raise _Refused(
                f"has a number of {len(text)} characters (at most {limits.digits} digits)"
            )
        value = kind(text)
        if kind is float and value in (float("inf"), float("-inf")):
            raise _Refused(f"has a number too large ({text})")
        return value

    return parse


def _constant(text: str) -> Any:
    raise _Refused(f"has {text}, which is not a JSON number")


def loads(
    text: str | bytes,
    *,
    what: str,
    limits: JsonLimits | None = None,
    error: type[ScorekeeperError] = ScorekeeperError,
) -> Any:
    """Parse ``text`` or raise ``error`` with one line that starts with ``what``."""
    limits = limits or JsonLimits()
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise error(f"{what} is not UTF-8 text (byte {exc.start})") from None
    try:
        data = json.loads(
            text,
            parse_int=_number(limits, int),
            parse_float=_number(limits, float),
            parse_constant=_constant,
        )
    except _Refused as exc:
        raise error(f"{what} {exc}") from None
    except json.JSONDecodeError as exc:
        raise error(
            f"{what} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None
    except RecursionError:
        raise error(f"{what} is nested deeper than {limits.depth} levels") from None
    _check(data, what, limits, error)
    return data


def _check(data: Any, what: str, limits: JsonLimits, error: type[ScorekeeperError]) -> None:
    count = 0
    pending: list[tuple[Any, int]] = [(data, 0)]
    while pending:
        value, depth = pending.pop()
        count += 1
        if count > limits.values:
            raise error(f"{what} has more than {limits.values} values")
        if isinstance(value, str):
            _check_string(value, what, limits, error)
        elif isinstance(value, list | dict):
            if depth >= limits.depth:
                raise error(f"{what} is nested deeper than {limits.depth} levels")
            if isinstance(value, dict):
                for key in value:
                    _check_string(key, what, limits, error)
                children: Iterable[Any] = value.values()
            else:
                children = value
            pending.extend((child, depth + 1) for child in children)


def _check_string(text: str, what: str, limits: JsonLimits, error: type[ScorekeeperError]) -> None:
    if len(text) > limits.string:
        raise error(f"{what} has a string of {len(text)} characters (at most {limits.string})")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise error(f"{what} has a lone surrogate ({text[exc.start]!r}): send UTF-8 text") from None
