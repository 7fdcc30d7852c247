"""Asking a person, in the terminal, about the cards the reader is unsure of.

For each doubtful sighting the terminal shows where it was seen (and, when given, where its face
was written to look at) and the reader's best guesses; the person presses Enter to accept the
first guess, types a card (``7h``) to rename it, or ``skip`` to leave it out. A typo gets one line
saying what is wrong and the same question again. ``ask`` and ``say`` are injectable, so tests
(and a page) drive the same code.
"""

from __future__ import annotations

from collections.abc import Callable

from scorekeeper.enrol.collection import Collection, Sighting
from scorekeeper.errors import InvalidCardError
from scorekeeper.rules.cards import Card

SKIP_WORDS = frozenset({"skip", "s", "saltar", "-"})

PROMPT = "Enter = aceitar, ou escreva a carta (ex. 7h), ou 'skip': "


def confirm_in_terminal(
    collection: Collection,
    *,
    accept_guesses: bool = False,
    ask: Callable[[str], str] = input,
    say: Callable[[str], None] = print,
    show: Callable[[Sighting], str | None] | None = None,
) -> dict[str, int]:
    """Settle every doubtful sighting; returns how many were accepted, renamed and skipped.

    ``accept_guesses`` settles them all on the reader's best guess without asking. ``show`` may
    return a path (or any hint) where the person can see the face. End of input (Ctrl-D) stops
    asking and leaves the rest on the reader's guesses, unconfirmed.
    """
    counts = {"accepted": 0, "renamed": 0, "skipped": 0}
    if accept_guesses:
        counts["accepted"] = collection.accept_guesses()
        return counts
    doubtful = collection.doubtful()
    for number, sighting in enumerate(doubtful, start=1):
        hint = show(sighting) if show is not None else None
        where = f" — {hint}" if hint else ""
        say(
            f"[{number}/{len(doubtful)}] card {sighting.id} ({sighting.origin}){where}: "
            f"leio {sighting.reading.describe()}"
        )
        while True:
            try:
                answer = ask(PROMPT).strip()
            except EOFError:
                say("input ended: the other cards keep the reader's guesses")
                return counts
            if not answer:
                collection.accept(sighting.id)
                counts["accepted"] += 1
                break
            if answer.lower() in SKIP_WORDS:
                collection.rename(sighting.id, None)
                counts["skipped"] += 1
                break
            try:
                card = Card.parse(answer)
            except InvalidCardError as error:
                say(str(error))
                continue
            collection.rename(sighting.id, card)
            counts["renamed" if card != sighting.reading.card else "accepted"] += 1
            break
    return counts
