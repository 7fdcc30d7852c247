"""``scorekeeper train``: the card reader's whole recipe (needs the ``train`` extra).

Builds the synthetic data, trains the index detector and the index classifier, exports both to
ONNX in the model folder, measures them and writes ``metrics.json``; ``models/README.md`` quotes it.
The same command runs on a GPU machine with ``--device 0``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from scorekeeper.errors import ScorekeeperError


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "train",
        help="build the card reader's models (needs the train extra)",
        description="Build data, train both stages of the card reader, export ONNX, measure.",
    )
    parser.add_argument(
        "--data",
        type=Path,
        default=Path("data/scorekeeper"),
        metavar="DIR",
        help="where the synthetic sets go (default: data/scorekeeper)",
    )
    parser.add_argument(
        "--runs",
        type=Path,
        default=Path("runs/scorekeeper"),
        metavar="DIR",
        help="where training runs and checkpoints go (default: runs/scorekeeper)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        metavar="DIR",
        help="model folder to write (default: models/sueca-reader)",
    )
    parser.add_argument("--images", type=int, default=3000, metavar="N", help="scenes to render")
    parser.add_argument(
        "--faces",
        type=Path,
        action="append",
        default=None,
        metavar="DIR",
        help="face pack folder (repeatable; default: ../shared/card-faces/*)",
    )
    parser.add_argument("--det-epochs", type=int, default=10, metavar="E")
    parser.add_argument("--cls-epochs", type=int, default=12, metavar="E")
    parser.add_argument(
        "--cls-steps",
        type=int,
        default=None,
        metavar="N",
        help="classifier steps an epoch (default: one pass over its training crops)",
    )
    parser.add_argument(
        "--cls-lr",
        type=float,
        default=None,
        metavar="LR",
        help="classifier's top learning rate (default 2e-3; ~5e-4 to fine-tune the shipped one)",
    )
    parser.add_argument(
        "--view-steps",
        type=int,
        default=None,
        metavar="N",
        help="card-view network training steps (default 6000)",
    )
    parser.add_argument(
        "--view-lr",
        type=float,
        default=None,
        metavar="LR",
        help="card-view network's top learning rate (default 2e-3; 1e-3 to continue it)",
    )
    parser.add_argument("--imgsz", type=int, default=320, help="detector training size")
    parser.add_argument("--batch", type=int, default=16, help="detector batch")
    parser.add_argument("--device", default="cpu", help="cpu, or a CUDA device such as 0")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--realcards",
        type=Path,
        default=None,
        metavar="DIR",
        help="labelled real photos to measure on (default: ../shared/realcards-dev)",
    )
    parser.add_argument(
        "--video",
        type=Path,
        default=None,
        metavar="DIR",
        help="a 'scorekeeper dataset video' folder: its index crops and the hard "
        "negatives the current detector finds there also train the classifier, "
        "and tiles of its frames the detector",
    )
    parser.add_argument(
        "--video-tiles",
        type=int,
        default=6000,
        metavar="N",
        help="deal-video tiles in the detector's data (default 6000)",
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="continue an interrupted run, or start from the model's checkpoints",
    )
    parser.add_argument(
        "--steps",
        default=",".join(_steps()),
        help="comma-separated subset of: " + ", ".join(_steps()),
    )
    parser.set_defaults(handler=run)


def _steps() -> tuple[str, ...]:
    from scorekeeper.training.recipe import STEPS

    return STEPS


def run(args: argparse.Namespace) -> int:
    from scorekeeper.training import require_training_extra

    require_training_extra()
    from scorekeeper.paths import shared_data_dir, shipped_models_dir
    from scorekeeper.training.card_view import CardViewRecipe
    from scorekeeper.training.classifier import ClassifierRecipe
    from scorekeeper.training.detector import DetectorRecipe
    from scorekeeper.training.recipe import Recipe, default_faces, run_recipe
    from scorekeeper.vision.registry import DEFAULT_MODEL

    steps = tuple(s.strip() for s in args.steps.split(",") if s.strip())
    unknown = [s for s in steps if s not in _steps()]
    if unknown:
        raise ScorekeeperError(f"unknown step {unknown[0]!r}: choose from {', '.join(_steps())}")
    realcards = args.realcards or (shared_data_dir() / "realcards-dev")
    recipe = Recipe(
        data=args.data,
        runs=args.runs,
        model_dir=args.out or shipped_models_dir() / DEFAULT_MODEL,
        images=args.images,
        faces=args.faces if args.faces is not None else default_faces(),
        seed=args.seed,
        detector=DetectorRecipe(
            epochs=args.det_epochs,
            imgsz=args.imgsz,
            batch=args.batch,
            device=args.device,
            seed=args.seed,
        ),
        classifier=ClassifierRecipe(
            epochs=args.cls_epochs,
            device=args.device,
            seed=args.seed,
            steps_per_epoch=args.cls_steps,
            lr=args.cls_lr if args.cls_lr is not None else ClassifierRecipe.lr,
        ),
        card_view=CardViewRecipe(
            seed=args.seed,
            device=args.device,
            **({"steps": args.view_steps} if args.view_steps else {}),
            **({"lr": args.view_lr} if args.view_lr is not None else {}),
        ),
        realcards=realcards if realcards.is_dir() else None,
        resume=args.resume,
        video=args.video,
        video_tiles=args.video_tiles,
    )
    recipe.model_dir.mkdir(parents=True, exist_ok=True)
    run_recipe(recipe, steps)
    return 0
