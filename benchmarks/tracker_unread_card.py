"""Tracker benchmark: one card the reader never reads (or two of one vaza). Is the deal still
rebuilt?

A card can go unread for a whole deal: thrown in a blur, covered at once by the next card, or in
a deck the reader barely knows. Each deal is tracked once as read, then once for each of several
of its plays with every read of that card taken out (with ``--pairs``, of two neighbouring plays
of one vaza, in each of the first nine vazas); a deal is exact when its dealer, turned card and
all 40 plays (so every seat and vaza) match the truth. Deals the tracker gets wrong even as read
are left out of the count with cards taken out.

The reads are those of a perfect reader on the cards that lie still or move slowly enough to be
sharp (``detection_stream(sharp_only=True)``: a card in flight is a streak that no reader names,
so which side it came from is seldom seen), or, with ``--from-kept DIR``, the card reader's own
reads of rendered deals kept by ``tracker_video_eval.py --keep DIR``. A turned trunfo that is
never read is not tried: the tracker starts a deal on it.

    python benchmarks/tracker_unread_card.py                       # seeds 9500-9519, simulated
    python benchmarks/tracker_unread_card.py --from-kept KEPT --first 7200
    python benchmarks/tracker_unread_card.py --pairs              # two cards of a vaza unread
"""

from __future__ import annotations

import argparse
import json
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

PLACES = tuple(range(1, 40, 3))
"""Which plays of each deal go unread, one at a time: one in three, across every vaza and every
place in a vaza."""
PAIRS = tuple((4 * vaza + vaza % 3, 4 * vaza + vaza % 3 + 1) for vaza in range(9))
"""With ``--pairs``: two neighbouring plays of each of the first nine vazas go unread together,
first and second, second and third, third and fourth in turn."""


def deal_reads(seed: int, kept: Path | None) -> tuple[list[Any], dict[str, Any]]:
    """The deal's per-frame reads and its truth (the simulator's record, geometry and fps)."""
    if kept is not None:
        from scorekeeper.tracking.stream import read_stream

        truth = json.loads((kept / f"deal-{seed}.json").read_text())
        _, frames = read_stream(kept / f"deal-{seed}.jsonl")
        return list(frames), truth
    from scorekeeper.synth.simulate import simulate
    from scorekeeper.synth.truth import detection_stream

    simulation = simulate(seed)
    return detection_stream(simulation.timeline, sharp_only=True), simulation.truth


def track_without(
    frames: list[Any], truth: dict[str, Any], unread: tuple[str, ...], thresholds: Any
) -> dict[str, Any]:
    """The tracker's record of the deal with every read of the ``unread`` cards taken out,
    against the truth: how many plays are right, and whether the deal is exact."""
    from scorekeeper.rules import Card, Rules
    from scorekeeper.tracking import TableGeometry, Tracker
    from scorekeeper.tracking.evaluate import compare
    from scorekeeper.tracking.noise import never_read
    from scorekeeper.tracking.offline import track_stream

    for card in unread:
        frames = never_read(frames, Card.parse(card))
    tracker = Tracker(
        TableGeometry.from_json(truth["geometry"]),
        Rules.from_json(truth["record"]["rules"]),
        fps=truth["fps"],
        thresholds=thresholds,
    )
    record = track_stream(frames, tracker).record
    comparison = compare(truth["record"], record)
    return {"plays_right": comparison.plays_right, "exact": comparison.deals_right == 1}


def evaluate_seed(
    seed: int, kept: Path | None, thresholds: Any, pairs: bool = False
) -> dict[str, Any]:
    frames, truth = deal_reads(seed, kept)
    deal = truth["record"]["deals"][0]
    as_read = track_without(frames, truth, (), thresholds)
    tried = []
    for places in PAIRS if pairs else [(place,) for place in PLACES]:
        cards = tuple(deal["plays"][place] for place in places)
        if deal["trump"] in cards:
            continue
        tried.append(
            {
                "place": places[0],
                "card": " ".join(cards),
                **track_without(frames, truth, cards, thresholds),
            }
        )
    return {"seed": seed, "as_read": as_read, "unread": tried}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=20, help="how many deals (default 20)")
    parser.add_argument("--first", type=int, default=9500, help="first seed (default 9500)")
    parser.add_argument(
        "--from-kept",
        type=Path,
        default=None,
        help="the card reader's reads kept by tracker_video_eval.py --keep (default: a perfect "
        "reader of the sharp sightings)",
    )
    parser.add_argument("--model", default=None, help="whose tracker thresholds (with --from-kept)")
    parser.add_argument(
        "--pairs",
        action="store_true",
        help="two neighbouring plays of one vaza unread together instead of one card",
    )
    parser.add_argument("--workers", type=int, default=2, help="processes (default 2)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    thresholds = None
    if args.from_kept is not None:
        from scorekeeper.pipeline.session import reader_thresholds
        from scorekeeper.vision.reader import CardReader

        thresholds = reader_thresholds(CardReader(args.model, threads=1))
    seeds = range(args.first, args.first + args.seeds)
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        rows = list(
            pool.map(
                evaluate_seed,
                seeds,
                [args.from_kept] * len(seeds),
                [thresholds] * len(seeds),
                [args.pairs] * len(seeds),
            )
        )
    counted = [r for r in rows if r["as_read"]["exact"]]
    tries = [t for r in counted for t in r["unread"]]
    summary = {
        "deals": len(rows),
        "deals_exact_as_read": len(counted),
        "unread_tries": len(tries),
        "exact_with_a_card_unread": sum(t["exact"] for t in tries),
        "plays_right_share": round(
            sum(t["plays_right"] for t in tries) / max(40 * len(tries), 1), 3
        ),
        "as_many_plays_wrong_as_unread_or_fewer": sum(
            t["plays_right"] >= 40 - len(t["card"].split()) for t in tries
        ),
        "last_vaza_exact": sum(t["exact"] for t in tries if t["place"] >= 36),
        "last_vaza_tries": sum(t["place"] >= 36 for t in tries),
    }
    if args.json:
        print(json.dumps({"summary": summary, "deals": rows}, indent=2))
        return 0
    for row in rows:
        wrong = [f"{t['card']}@{t['place'] + 1}" for t in row["unread"] if not t["exact"]]
        state = "exact" if row["as_read"]["exact"] else "WRONG as read (not counted)"
        print(f"seed {row['seed']}: {state}; wrong with cards unread: {', '.join(wrong) or '-'}")
    exact = summary["exact_with_a_card_unread"]
    what = "two cards of a vaza never read" if args.pairs else "one card never read"
    print(
        f"{what}: {exact}/{len(tries)} deals rebuilt exactly "
        f"({100 * exact / max(len(tries), 1):.0f}%), "
        f"plays right {100 * summary['plays_right_share']:.1f}%; no more plays wrong than cards "
        f"unread in {summary['as_many_plays_wrong_as_unread_or_fewer']}; in the last vaza "
        f"{summary['last_vaza_exact']}/{summary['last_vaza_tries']}; over the "
        f"{len(counted)} of {len(rows)} deals rebuilt exactly as read"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
