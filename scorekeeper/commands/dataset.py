"""``scorekeeper dataset build|video|contact-sheet``: synthetic training data for the card
reader."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from scorekeeper.paths import scene_config_path


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "dataset",
        help="render synthetic café-table scenes as a YOLO data set (and index crops)",
        description="Synthetic training data for the card reader: YOLO detection set on the "
        "printed corner indices, optional classification crops, contact sheets to check them.",
    )
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")

    build = actions.add_parser(
        "build",
        help="render N scenes into --out",
        description="Render café-table frames with boxes on every visible corner index "
        "(rank + small suit pip), 40 classes in the rules engine's DECK order.",
    )
    build.add_argument("--out", required=True, type=Path, help="output folder")
    build.add_argument("--images", required=True, type=int, help="how many frames")
    build.add_argument(
        "--faces",
        action="append",
        default=[],
        metavar="DIR",
        help="folder of 40 face images Ah.png 7h.png ... 2c.png (repeatable); "
        "procedural decks are always used too",
    )
    build.add_argument("--seed", type=int, default=0, help="same seed, same files (default 0)")
    build.add_argument("--imgsz", type=int, default=640, help="long side of the images (640)")
    build.add_argument(
        "--render-scale",
        type=float,
        default=2.0,
        help="frames are drawn this many times larger, then shrunk; crops come "
        "from the large frame (2.0: a 1280 px webcam for 640 px images)",
    )
    build.add_argument("--val", type=float, default=0.1, help="fraction for val (0.1)")
    build.add_argument(
        "--crops",
        action="store_true",
        help="also write index crops in crops/{train,val}/<card|not_a_card>/",
    )
    build.add_argument("--crop-size", default="48x64", help="crop width x height (48x64)")
    build.add_argument(
        "--single-class",
        action="store_true",
        help="one class 'index' (for a corner-index detector) instead of 40 cards",
    )
    build.add_argument(
        "--procedural-share",
        type=float,
        default=0.5,
        help="share of scenes with a procedural deck when --faces is given (0.5)",
    )
    build.add_argument("--tables", type=Path, help="folder of table-top photos to mix in")
    build.add_argument(
        "--camera",
        choices=("phone", "webcam"),
        default="webcam",
        help="what takes the frames: a café's webcam (blur, noise, low JPEG; default) or a phone "
        "taking still photos",
    )
    build.add_argument(
        "--config",
        type=Path,
        default=None,
        help=f"scene ranges as JSON (default {scene_config_path().name} if present)",
    )
    build.add_argument("--workers", type=int, default=2, help="processes (2)")
    build.add_argument("--overwrite", action="store_true", help="replace a data set in --out")
    build.add_argument(
        "--contact-sheet",
        type=Path,
        metavar="PNG",
        help="also draw the labels of the first images into this picture",
    )
    build.add_argument("--quiet", action="store_true", help="no progress bar")
    build.set_defaults(handler=run_build)

    video = actions.add_parser(
        "video",
        help="render frames of simulated deal videos with their index labels into --out",
        description="Frames of simulated deals (the tracker's view: cards sliding in, vazas "
        "stacked, hands over cards) with a box per readable corner index: full frames in "
        "frames/ for the classifier, frames shrunk to the detector's size in detector/.",
    )
    video.add_argument("--out", required=True, type=Path, help="output folder")
    video.add_argument(
        "--seeds",
        required=True,
        metavar="FIRST-LAST",
        help="deal seeds, e.g. 9000-9079 (7000-7999 are the tracker benchmark's)",
    )
    video.add_argument("--every", type=int, default=6, help="keep every n-th frame (6)")
    video.add_argument(
        "--faces",
        type=Path,
        metavar="FOLDER",
        help="deal with this face pack (40 faces named Ah.png ... 2c.png) instead of "
        "procedural decks; the labels box where its faces print their indices",
    )
    video.add_argument("--workers", type=int, default=2, help="processes (2)")
    video.set_defaults(handler=run_video)

    sheet = actions.add_parser(
        "contact-sheet",
        help="draw the labels over a few images of a data set",
        description="Tile a few images with their boxes and class names (or, with --crops, "
        "a row of crops per class) so a person can check the labels by eye.",
    )
    sheet.add_argument("dataset", type=Path, help="a folder written by 'dataset build'")
    sheet.add_argument("--out", type=Path, required=True, help="picture to write (.png)")
    sheet.add_argument("--count", type=int, default=12, help="images (12)")
    sheet.add_argument("--start", type=int, default=0, help="skip this many images first")
    sheet.add_argument("--split", choices=("train", "val"), default="train")
    sheet.add_argument("--columns", type=int, default=3)
    sheet.add_argument("--crops", action="store_true", help="show crops per class instead")
    sheet.set_defaults(handler=run_sheet)


def _crop_size(text: str) -> tuple[int, int]:
    from scorekeeper.synth import SynthError

    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise SynthError(f"--crop-size {text!r}: write width x height, like 48x64") from None
    if w < 8 or h < 8:
        raise SynthError(f"--crop-size {text!r}: use at least 8x8")
    return w, h


def run_build(args: argparse.Namespace) -> int:
    from scorekeeper.synth import SynthError
    from scorekeeper.synth.contact_sheet import contact_sheet, write_sheet
    from scorekeeper.synth.dataset import BuildOptions, build_dataset
    from scorekeeper.synth.effects import CAMERAS
    from scorekeeper.synth.faces import load_face_packs
    from scorekeeper.synth.scene import SceneConfig
    from scorekeeper.synth.tables import TableImages

    default_config = scene_config_path()
    config_path = args.config or (default_config if default_config.is_file() else None)
    if args.config is not None and not args.config.is_file():
        raise SynthError(f"--config {str(args.config)!r} does not exist")
    scene = SceneConfig.load(config_path) if config_path else SceneConfig()
    if args.workers < 1:
        raise SynthError(f"--workers {args.workers}: use 1 or more")
    if not 0 <= args.procedural_share <= 1:
        raise SynthError(f"--procedural-share {args.procedural_share}: use a fraction 0 to 1")
    packs = load_face_packs(args.faces)
    tables = TableImages.load(args.tables) if args.tables else None
    options = BuildOptions(
        out=args.out,
        images=args.images,
        seed=args.seed,
        imgsz=args.imgsz,
        render_scale=args.render_scale,
        val_fraction=args.val,
        crops=args.crops,
        crop_size=_crop_size(args.crop_size),
        single_class=args.single_class,
        procedural_fraction=args.procedural_share,
        workers=args.workers,
        scene=scene,
        effects=CAMERAS[args.camera],
    )
    report = build_dataset(
        options, packs, tables, overwrite=args.overwrite, progress=not args.quiet
    )
    q = report.height_quantiles()
    print(
        f"wrote {report.images} images ({report.train} train, {report.val} val) with "
        f"{report.boxes} index boxes to {args.out}"
    )
    print(
        f"speed: {report.images_per_second:.1f} images/s with {args.workers} worker(s) at "
        f"{args.imgsz} px"
    )
    if q:
        print("index height in output px: " + ", ".join(f"{k} {v}" for k, v in q.items()))
    if report.crops:
        print(
            f"crops: {sum(report.crops.values())} ({report.crops.get('not_a_card', 0)} not_a_card)"
        )
    if args.contact_sheet:
        path = write_sheet(contact_sheet(args.out, count=12), args.contact_sheet)
        print(f"contact sheet: {path}")
    return 0


def _seed_range(text: str) -> tuple[int, ...]:
    first, _, last = text.partition("-")
    try:
        seeds = tuple(range(int(first), int(last or first) + 1))
    except ValueError:
        seeds = ()
    if not seeds:
        raise SystemExit(
            f"scorekeeper dataset video: --seeds {text!r} is not FIRST-LAST, e.g. 9000-9079"
        )
    return seeds


def run_video(args: argparse.Namespace) -> int:
    from scorekeeper.synth import SynthError
    from scorekeeper.synth.plan import SimulationError
    from scorekeeper.synth.video_set import VideoSetOptions, build_video_set

    options = VideoSetOptions(
        out=args.out, seeds=_seed_range(args.seeds), every=args.every, faces=args.faces
    )
    try:
        summary = build_video_set(options, workers=args.workers)
    except (SimulationError, SynthError) as error:
        raise SystemExit(f"scorekeeper dataset video: {error}") from None
    print(f"{summary['frames']} frames, {summary['indices']} index boxes -> {args.out}")
    return 0


def run_sheet(args: argparse.Namespace) -> int:
    from scorekeeper.synth.contact_sheet import contact_sheet, crop_sheet, write_sheet

    if args.crops:
        image = crop_sheet(args.dataset, split=args.split)
    else:
        image = contact_sheet(
            args.dataset, count=args.count, split=args.split, columns=args.columns, start=args.start
        )
    print(write_sheet(image, args.out))
    return 0
