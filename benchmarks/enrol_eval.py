"""Enrolment measured on a real deck: ../shared/card-faces/photo_deck_mit treated as a café's deck.

1. Capture: the 40 faces are laid five at a time on a rendered table (eight photos, tilted camera,
   a lamp to one side), outlines are found and warped flat, and the active card reader names each
   flat face. Prints how many outlines were found, named right, and flagged doubtful.
2. Adaptation: from the face pack, scenes are rendered, both stages fine-tuned within
   ``--minutes``, and the active model and the adapted one are compared on held-back scenes of
   the deck (card precision/recall), with the time each step took. Needs the train extra.
3. Fanned hands: ``--fanned`` scenes of the deck held fanned (every card but the top one showing
   only the strip with its index, as a player's hand photographed from above), rendered with a
   seed enrolment never uses, read by the active model and the adapted one.
4. Photos of fanned hands: ``--photos`` more, rendered as a phone photographs a table (2560 px
   wide, indices 24-64 px tall, ``dataset build --camera phone``: a still, with no webcam's
   motion blur; the kind of photo enrolment chooses its photo threshold on, another seed), read
   by both models as a live frame is read and as ``scorekeeper detect`` reads a photo (searched
   at finer sizes too, at the model's photo threshold where it has one); ``--photo-conf P ...``
   reads them as photos again at each card probability P (``detect --conf P``).

    python benchmarks/enrol_eval.py                    # all four, 15-minute fine-tune
    python benchmarks/enrol_eval.py --skip-adapt       # capture and fans, active model (no torch)
    python benchmarks/enrol_eval.py --adapted DIR      # a model enrolled before, not enrolled again
    python benchmarks/enrol_eval.py --minutes 48 --precision bf16   # longer, in bfloat16

Everything is written under a temporary SCOREKEEPER_HOME: the real one is not touched.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DECK = ROOT.parent / "shared" / "card-faces" / "photo_deck_mit"


def measure_capture(deck: Path, *, photos: int = 8, per_photo: int = 5) -> dict[str, object]:
    import numpy as np

    from scorekeeper.enrol.identify import read_face
    from scorekeeper.enrol.outline import flat_faces
    from scorekeeper.rules.cards import DECK as CARDS
    from scorekeeper.synth.faces import FacePack
    from scorekeeper.vision.reader import CardReader
    from tests.enrol_scenes import table_photo

    pack = FacePack.load(deck)
    reader = CardReader()
    labels = [c.notation for c in CARDS]
    found = right = doubtful = doubtful_wrong = 0
    began = time.perf_counter()
    for i in range(photos):
        batch = labels[i * per_photo : (i + 1) * per_photo]
        photo, placed = table_photo(
            batch, pack=pack, seed=100 + i, kind=("wood", "felt", "cloth")[i % 3]
        )
        for outline, face in flat_faces(photo):
            centre = np.asarray(outline.center)
            truth = min(
                placed, key=lambda p: float(np.linalg.norm(p.corners.mean(axis=0) - centre))
            )
            reading = read_face(reader, face)
            found += 1
            right += reading.card.notation == truth.label
            doubtful += reading.doubtful
            doubtful_wrong += reading.doubtful and reading.card.notation != truth.label
    return {
        "cards": photos * per_photo,
        "outlines_found": found,
        "named_right": right,
        "doubtful": doubtful,
        "wrong_and_not_doubtful": found - right - doubtful_wrong,
        "seconds": round(time.perf_counter() - began, 1),
    }


def measure_adapt(
    deck: Path, *, minutes: float, scenes: int, heldback: int, precision: str = "fp32"
) -> dict[str, object]:
    from scorekeeper.paths import user_models_dir
    from scorekeeper.training.adapt import AdaptPlan, adapt
    from scorekeeper.vision.registry import find_model

    plan = AdaptPlan(
        deck=deck,
        name="photo-deck-mit",
        base=find_model(None),
        scenes=scenes,
        heldback=heldback,
        minutes=minutes,
        precision=precision,
    )
    result = adapt(plan, log=lambda line: None)
    return {
        "before": result.before,
        "after": result.after,
        "made_default": result.better,
        "minutes": result.minutes,
        "line": result.line(),
        "model": str(user_models_dir() / plan.name),
    }


FANNED_SEED = 4242
"""Far from enrolment's scene seeds (``--seed`` and ``--seed`` + 1000)."""


def render_deck_scenes(
    deck: Path,
    work: Path,
    name: str,
    *,
    images: int,
    seed: int,
    scene: dict[str, object],
    build_options: tuple[str, ...] = (),
) -> list[Any]:
    """``images`` scenes of ``deck`` alone, rendered with the scene ranges of
    ``datasets/scenes.json`` changed by ``scene``, into ``work/name``; their labelled truth."""
    import subprocess

    from scorekeeper.training.adapt import deck_scenes_command
    from scorekeeper.vision.evaluate import labelled_images, labelled_truth

    out = work / name
    command = deck_scenes_command(
        deck, out, images=images, seed=seed, scene=scene, build_options=build_options
    )
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return labelled_truth(list(labelled_images(out, "train")))


def measure_fanned(
    deck: Path, models: dict[str, str | None], *, images: int, work: Path
) -> dict[str, object]:
    """Card precision and recall of each model on ``images`` scenes of fanned hands of ``deck``."""
    from scorekeeper.vision.evaluate import measure_cards
    from scorekeeper.vision.reader import CardReader

    truth = render_deck_scenes(
        deck, work, "fanned", images=images, seed=FANNED_SEED, scene={"fan_probability": 1.0}
    )
    return {name: measure_cards(CardReader(model), truth) for name, model in models.items()}


PHOTO_SEED = 4343
"""Far from the seeds of the photos enrolment chooses its photo threshold on (``--seed`` + 2000)."""


def measure_photos(
    deck: Path,
    models: dict[str, str | None],
    *,
    images: int,
    work: Path,
    card_probs: tuple[float, ...] = (),
) -> dict[str, object]:
    """Card precision and recall of each model on ``images`` 2560-px photos of fanned hands of
    ``deck``, read as a live frame (``live``), as a still photo (``photo``) and as a still photo
    at each of ``card_probs`` instead of the model's own (``photo@0.7``: ``detect --conf 0.7``)."""
    from scorekeeper.training.adapt import PHOTO_BUILD, PHOTO_SCENE
    from scorekeeper.vision.evaluate import measure_cards
    from scorekeeper.vision.reader import CardReader

    truth = render_deck_scenes(
        deck,
        work,
        "photos",
        images=images,
        seed=PHOTO_SEED,
        scene=PHOTO_SCENE,
        build_options=PHOTO_BUILD,
    )
    figures: dict[str, object] = {}
    readings: list[tuple[str, bool, float | None]] = [("live", False, None), ("photo", True, None)]
    readings += [(f"photo@{p:g}", True, p) for p in card_probs]
    for name, model in models.items():
        for mode, photo, card_prob in readings:
            reader = CardReader(model, photo=photo, card_prob=card_prob)
            began = time.perf_counter()
            result = measure_cards(reader, truth)
            result["seconds_per_photo"] = round((time.perf_counter() - began) / len(truth), 2)
            figures[f"{name} {mode}"] = result
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--deck", type=Path, default=DECK, help="face pack to treat as the café's deck"
    )
    parser.add_argument("--minutes", type=float, default=15.0, help="fine-tuning budget (15)")
    parser.add_argument(
        "--precision",
        choices=("auto", "fp32", "bf16"),
        default="fp32",
        help="what the enrolment's training steps compute in (scorekeeper enrol --precision; fp32)",
    )
    parser.add_argument("--scenes", type=int, default=400)
    parser.add_argument("--heldback", type=int, default=100)
    parser.add_argument(
        "--fanned", type=int, default=100, help="scenes of fanned hands to read (100; 0: none)"
    )
    parser.add_argument(
        "--photos", type=int, default=60, help="2560-px photos of fanned hands (60; 0: none)"
    )
    parser.add_argument(
        "--photo-conf",
        type=float,
        nargs="+",
        default=[],
        metavar="P",
        help="read the photos again at each of these card probabilities (detect --conf P)",
    )
    parser.add_argument("--skip-adapt", action="store_true")
    parser.add_argument(
        "--adapted",
        type=Path,
        default=None,
        metavar="DIR",
        help="a model enrolled on the deck before: measured instead of enrolling again",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if not args.deck.is_dir():
        print(f"enrol_eval: no face pack at {args.deck}: pass --deck DIR", file=sys.stderr)
        return 2
    figures: dict[str, object] = {"deck": args.deck.name}
    with tempfile.TemporaryDirectory() as home:
        os.environ["SCOREKEEPER_HOME"] = home
        from scorekeeper.vision.registry import find_model

        shipped = str(find_model(None))
        figures["capture"] = measure_capture(args.deck)
        if not args.json:
            print(f"capture: {figures['capture']}", flush=True)
        models: dict[str, str | None] = {"active": shipped}
        if args.adapted is not None:
            models["adapted"] = str(args.adapted)
        elif not args.skip_adapt:
            adapted = measure_adapt(
                args.deck,
                minutes=args.minutes,
                scenes=args.scenes,
                heldback=args.heldback,
                precision=args.precision,
            )
            figures["adapt"] = adapted
            models["adapted"] = str(adapted["model"])
            if not args.json:
                print(f"adapt: {adapted}", flush=True)
        if args.fanned:
            figures["fanned"] = measure_fanned(
                args.deck, models, images=args.fanned, work=Path(home)
            )
            if not args.json:
                print(f"fanned hands: {figures['fanned']}", flush=True)
        if args.photos:
            figures["photos"] = measure_photos(
                args.deck,
                models,
                images=args.photos,
                work=Path(home),
                card_probs=tuple(args.photo_conf),
            )
            if not args.json:
                print(f"photos of fanned hands: {figures['photos']}")
    if args.json:
        print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
