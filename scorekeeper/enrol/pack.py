"""Face packs on disk: the 40 flat faces of an enrolled deck, ``Ah.png`` ... ``2c.png``.

A pack lives in its own folder under :func:`decks_dir` (in the user's data folder, never in the
checkout, so an upgrade keeps a café's decks). It is written to a hidden folder beside it and
renamed into place, so a crash, a full disk or Ctrl-C never leaves half a deck under the real
name. What counts as a pack is what :meth:`scorekeeper.synth.faces.FacePack.load` (the simulator
and the fine-tuning read packs with it) accepts, so :func:`is_face_pack` simply asks it.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path

import cv2
import numpy as np

from scorekeeper.enrol import EnrolError
from scorekeeper.enrol.collection import Collection
from scorekeeper.paths import decks_dir, is_usable_name, user_data_dir
from scorekeeper.rules.cards import DECK, Card
from scorekeeper.synth import SynthError
from scorekeeper.synth.faces import FacePack, pack_file_name

__all__ = [
    "check_deck_name",
    "decks_dir",
    "import_face_pack",
    "is_face_pack",
    "load_face_pack",
    "save_face_pack",
    "user_data_dir",
]


def check_deck_name(name: str) -> str:
    """``name`` if it may name a deck, else :class:`EnrolError` saying what is allowed."""
    if not is_usable_name(name):
        raise EnrolError(
            f"deck name {name!r} is not allowed: use letters, digits, - and _ "
            "(up to 48, starting with a letter or digit), like cafe-central"
        )
    return name


def is_face_pack(folder: str | os.PathLike[str]) -> bool:
    """Whether ``folder`` holds a whole face pack (40 readable faces named by card)."""
    try:
        FacePack.load(folder)
    except SynthError:
        return False
    return True


def load_face_pack(folder: str | os.PathLike[str]) -> FacePack:
    """The pack in ``folder`` (:class:`SynthError`, one line naming missing files, if it is not)."""
    return FacePack.load(folder)


def save_face_pack(
    faces: Collection | Mapping[Card, np.ndarray],
    name: str,
    *,
    allow_partial: bool = False,
    replace: bool = False,
    root: str | os.PathLike[str] | None = None,
) -> Path:
    """Write the faces as a pack named ``name`` under ``root`` (default :func:`decks_dir`).

    Fewer than 40 faces is refused, naming the missing cards, unless ``allow_partial``. An existing
    deck of that name is refused unless ``replace``; it is then swapped out only once the new one is
    complete on disk.
    """
    check_deck_name(name)
    chosen = faces.faces() if isinstance(faces, Collection) else dict(faces)
    missing = [card.notation for card in DECK if card not in chosen]
    if missing and not allow_partial:
        raise EnrolError(
            f"deck {name!r} lacks {len(missing)} of the 40 cards: {' '.join(missing)}: "
            "show them to the camera, or save a partial deck on purpose"
        )
    if not chosen:
        raise EnrolError(f"deck {name!r} has no faces at all: show the cards to the camera")
    folder, target = _deck_folder(root), _deck_folder(root) / name
    _claim(folder, target, replace=replace)

    def write(staging: Path) -> None:
        for card in DECK:
            if card in chosen:
                path = staging / f"{pack_file_name(card)}.png"
                if not cv2.imwrite(str(path), chosen[card]):
                    raise EnrolError(f"cannot write {path}: check the disk has room")

    return _publish(folder, target, write, replace=replace)


def _deck_folder(root: str | os.PathLike[str] | None) -> Path:
    return Path(root) if root is not None else decks_dir()


def _claim(folder: Path, target: Path, *, replace: bool) -> None:
    """Refuse to overwrite a deck unless asked to; make sure the decks folder exists."""
    if target.exists() and not replace:
        raise EnrolError(
            f"deck {target.name!r} already exists at {target}: choose another name or replace it"
        )
    folder.mkdir(parents=True, exist_ok=True)


def import_face_pack(
    source: str | os.PathLike[str],
    name: str,
    *,
    replace: bool = False,
    root: str | os.PathLike[str] | None = None,
) -> Path:
    """Copy a folder that already is a face pack into the decks folder as ``name``, normalised:
    one PNG per card named ``Ah.png`` ... ``2c.png`` (transparency kept), nothing else."""
    check_deck_name(name)
    try:
        pack = FacePack.load(source)
    except SynthError as error:
        raise EnrolError(str(error)) from None
    folder, target = _deck_folder(root), _deck_folder(root) / name
    if target.resolve() == Path(source).resolve():
        return target  # the deck itself, named again (to adapt the reader to it): nothing to copy
    _claim(folder, target, replace=replace)

    def write(staging: Path) -> None:
        for card in DECK:
            file = pack.files[card.notation]
            path = staging / f"{pack_file_name(card)}.png"
            if file.suffix.lower() == ".png":
                shutil.copyfile(file, path)
                continue
            image = cv2.imread(str(file), cv2.IMREAD_UNCHANGED)
            if image is None or not cv2.imwrite(str(path), image):
                raise EnrolError(f"cannot convert {file} to {path}: is the disk full?")

    return _publish(folder, target, write, replace=replace)


def _publish(folder: Path, target: Path, write: Callable[[Path], None], *, replace: bool) -> Path:
    """Run ``write(staging)`` in a hidden folder beside ``target``, then rename it into place."""
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".partial", dir=folder))
    old: Path | None = None
    try:
        write(staging)
        staging.chmod(0o755)  # mkdtemp makes it private; a deck is an ordinary folder
        if target.exists() and replace:
            old = staging.with_suffix(".old")
            target.rename(old)
        staging.rename(target)
    except BaseException:
        if old is not None and not target.exists():
            old.rename(target)
        shutil.rmtree(staging, ignore_errors=True)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
    return target
