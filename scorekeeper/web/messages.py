"""What went wrong, as a code the page words in its own language.

The API's ``error`` line is English (for scripts and logs); the page shows the table a sentence in
Portuguese (or the reader's language) looked up by ``code`` in ``i18n.json`` (``err_<code>``), with
``args`` filled in. Codes are found by the HTTP status and by the shape of the engine's or the
store's message; anything not listed is ``other`` and the page shows its generic sentence.

>>> classify(400, "4S was already played in vaza 3: each card is played once")
('already_played', {'card': '4S', 'trick': '3'})
>>> classify(401, "wrong or missing table PIN: send it in the X-Scorekeeper-Pin header")
('pin', {})
"""

from __future__ import annotations

import re

BY_STATUS = {401: "pin", 409: "stale", 413: "too_large", 429: "locked"}

PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (code, re.compile(pattern))
    for code, pattern in (
        ("writes_off", r"writes are off"),
        ("already_played", r"(?P<card>[A2-7KJQ][HSDC]) was already played in vaza (?P<trick>\d+)"),
        ("turned_card", r"(?P<card>[A2-7KJQ][HSDC]) is the turned trunfo"),
        ("deal_over", r"(?P<card>[A2-7KJQ][HSDC]) comes after the tenth vaza"),
        ("match_won", r"the match was already won"),
        ("deal_unfinished", r"deal (?P<deal>\d+) has only (?P<plays>\d+) plays"),
        (
            "no_play",
            r"correction of play (?P<play>\d+) of deal \d+: that deal has (?P<plays>\d+) plays",
        ),
        ("no_deal", r"no deal (yet|started yet)"),
        ("no_renuncia", r"no renúncia by .* to decide on"),
        ("nothing_to_undo", r"nothing to undo"),
        ("unknown_card", r"unknown card"),
        ("name_long", r"^name .* characters long: use at most (?P<most>\d+)"),
        ("name_bad", r"^name .*(control character|is not text)"),
    )
)


def classify(status: int, message: str) -> tuple[str, dict[str, str]]:
    """The page's code for an error reply and the values its sentence quotes."""
    if status in BY_STATUS:
        return BY_STATUS[status], {}
    for code, pattern in PATTERNS:
        found = pattern.search(message)
        if found:
            return code, found.groupdict()
    return "other", {}
