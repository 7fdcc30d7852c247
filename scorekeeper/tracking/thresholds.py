"""The tracker's tuning knobs, in seconds and shares so that they hold at any frame rate and image
size."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class Thresholds:
    """The tracker's tuning knobs, each a trade-off between missing something and inventing it."""

    min_confidence: float = 0.0
    """Reads below this confidence are no evidence at all. The reader keeps faint reads so a
    still photo loses no card, but on a stream the same card is read again in the next frames,
    while a faint read of a half-hidden corner repeats its wrong name frame after frame at one
    spot, exactly like a card lying there. Raising it drops more of those; it loses cards the
    reader only ever sees faintly (small, blurred or far from the camera).
    Off by default: on the 20 tuning deals (seeds 7000-7019) 0.15 with ``play_confidence`` 0.25
    got 14 deals right instead of 11, but with the shipped reader it repairs one deal and loses
    another in each of two fresh sets of 20 (cards read only faintly are dropped). A model adapted
    to one deck sets it for its own reads (``reader.json``'s ``tracker``), where it lost no deal."""

    play_confidence: float = 0.0
    """Mean read confidence a card lying in the play area needs to count as played on its own.
    A wrong name that keeps coming back at one spot is read faintly every time, a card lying
    there mostly is not. Below it, a card is still evidence for completing a vaza that vanished
    one card short. Raising it keeps out more repeated misreads; it leaves more real cards to be
    found only when their vaza vanishes (later, and out of order if another card landed since).
    Off by default, for the reason given under ``min_confidence``."""

    settle_seconds: float = 0.25
    """How long a card must lie still in the play area before it counts as played. Raising it keeps
    out more ghosts, misreads and cards waved over the table; it delays every ``card_played`` and
    leaves more cards to be caught only as weak reads when the next card covers them quickly."""

    min_sightings: int = 3
    """Frames in which a card must be seen during that time. Raising it needs more evidence against
    misreads that repeat; with many dropped frames it slows plays down (a card seen in 2 of 4 frames
    waits for a third)."""

    min_presence: float = 0.25
    """Share of the frames given since a card landed in which it must be seen. Raising it refuses
    reads that come and go (a ghost that returns now and then); it delays a card a hand covers
    right after it lands, until the hand has gone."""

    still_radius: float = 0.15
    """How far (share of the image's shorter side) a card's box may move from one sighting to the
    next and still be the same stretch of lying still. The reader's box is one corner index or
    both, so a card lying still jumps by about half a card: keep it above that. Raising it
    tolerates more jitter and slow nudges; lowering it better ignores a card still sliding or
    waved over the table, at the cost of restarting the wait on jumpy boxes."""

    clear_seconds: float = 0.8
    """How long the cards of a trick must all be unseen before it counts as gathered (full) or as
    vanished (unfinished); also how long a card hidden exactly under a new one may still explain
    the new one away as a misread. Raising it survives longer hands over the pile; it delays
    ``trick_gathered`` (a quick lead waits for it, though a new card seen landing gathers the
    trick after ``settle_seconds``)."""

    turned_seconds: float = 0.6
    """How long a face-up card must lie still by one side, before any play, to be taken as the
    turned card. Raising it ignores cards shown briefly; it delays the start of the deal."""

    forget_seconds: float = 1.5
    """Gap after which a card's run is over and a new sighting starts a new one (half of it for a
    run of one or two sightings); also how far around a read other reads are compared. Raising
    it bridges longer occlusions; it risks joining stray reads to a card landing later."""

    approach_seconds: float = 1.0
    """How long before a card enters the play area a sighting of it by a side still tells which
    side it came from (a card slides in within about half a second). Raising it finds the side
    of slow plays; it risks taking the side of a stray read of that card elsewhere."""

    weak_sightings: int = 2
    """Sightings (the last two at one spot) that make a card that landed and got covered before it
    settled a weak play (flagged): played before the next card, or (summed over its stretches) to
    complete a trick that vanished. Raising it refuses more two-frame misreads; it loses more cards
    hidden quickly."""

    weak_confidence: float = 0.8
    """Mean read confidence a card covered before it settled needs to be played before the next
    card. Raising it refuses more misreads that happened to repeat at one spot (a misread is
    usually a doubtful read); it leaves covered cards read only doubtfully to be put back in their
    place when their trick vanishes one card short (which needs no confidence: a trick is only
    gathered whole)."""

    same_spot: float = 0.7
    """Box overlap (intersection over union) at which a read sits on another card's box: read there
    when that card was read there more often around then, it is that card misread.
    The reader's first stage draws the box and its second names it, so a misread of one index
    keeps nearly the same box; a card dropped on another one overlaps its box less (a queen landing
    on a king in the demo clip: 0.51, which 0.5 took for a misread and lost). Raising it lets more
    misreads through; lowering it risks dismissing a real card dropped on another one. (A box
    merely inside another is no sign: a card's two-corner box spans the whole card, and the next
    card lands on it.)"""

    suspect_confidence: float = 0.6
    """A proven renúncia resting on a read below this confidence is flagged as suspected. Raising it
    marks more renúncias as doubtful; lowering it lets misreads accuse players."""
