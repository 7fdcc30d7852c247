"""``scorekeeper enrol``'s library half: a source in, a saved face pack out (:func:`capture_deck`).

The source is what the user typed: a camera index (``0``), a video or a photo, or a folder of
photos; a folder that already is a face pack is copied into the decks folder as it is, and an SVG
card deck (:mod:`~scorekeeper.enrol.svg_deck`) is rendered card by card, both without reading
anything. Photos are read one outline at a time; video and cameras go through a
:class:`~scorekeeper.enrol.collection.ViewTracker`, so a card lying in view for a hundred frames is
one card. Then the doubtful names are settled (terminal, page, or the reader's guesses) and the
pack is written.
"""

from __future__ import annotations

import os
import select
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from scorekeeper.enrol import EnrolError
from scorekeeper.enrol.collection import Collection, Sighting, ViewTracker
from scorekeeper.enrol.confirm import confirm_in_terminal
from scorekeeper.enrol.identify import DOUBT_BELOW, IndexReader, read_face, reading_from_probs
from scorekeeper.enrol.outline import flat_faces, sharpness
from scorekeeper.enrol.pack import check_deck_name, import_face_pack, is_face_pack, save_face_pack
from scorekeeper.enrol.svg_deck import import_svg_deck, is_svg_deck
from scorekeeper.errors import SourceError
from scorekeeper.paths import decks_dir
from scorekeeper.pipeline.capture import SourceSpec, open_capture
from scorekeeper.rules.cards import DECK
from scorekeeper.synth.faces import pack_file_name

PHOTO_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp", ".bmp", ".tif", ".tiff")

SAMPLE_FPS = 3.0
"""Frames read per second of video. More catches a card shown only briefly and costs reading time
(each frame's cards go through the reader); cards lie still while enrolling, so a few suffice."""

Log = Callable[[str], None]


def capture_deck(
    source: str,
    *,
    name: str,
    reader: IndexReader,
    interactive: bool,
    accept_guesses: bool,
    page: bool,
    log: Log = print,
    ask: Callable[[str], str] = input,
    root: str | os.PathLike[str] | None = None,
    replace: bool = False,
    doubt_below: float = DOUBT_BELOW,
    use_detector: bool = True,
    sample_fps: float = SAMPLE_FPS,
    stop: Callable[[], bool] | None = None,
    host: str = "0.0.0.0",
    port: int = 8000,
    pin: str | None = None,
) -> Path:
    """Enrol the deck shown by ``source`` as ``name``; returns the saved pack's folder.

    ``interactive`` asks about doubtful cards in the terminal (``ask``/``log``); ``accept_guesses``
    keeps the reader's guesses without asking; with neither, doubtful cards are left out.
    ``page`` serves the enrolment page (``host``, ``port``, ``pin``) and waits there for "Guardar
    baralho". ``stop`` ends a camera capture early (default: ``q`` and Enter in the terminal).
    Bad sources raise :class:`SourceError`, an incomplete deck :class:`EnrolError`, one line each.
    """
    check_deck_name(name)
    spec = SourceSpec(source)
    path = Path(source)
    if spec.camera_index is None and path.is_dir() and is_face_pack(path):
        saved = import_face_pack(path, name, replace=replace, root=root)
        log(f"{path} is already a face pack: copied as deck {name!r} to {saved}")
        return saved
    if spec.camera_index is None and is_svg_deck(path):
        saved = import_svg_deck(path, name, replace=replace, root=root)
        log(f"{path} is an SVG card deck: rendered its 40 cards as deck {name!r} to {saved}")
        return saved

    collection = Collection()
    resumed = _resume_partial(collection, name, root=root)
    if resumed:
        log(
            f"continuing deck {name!r}: {resumed} cards kept from last time — "
            f"{collection.progress()}"
        )

    def save(allow_partial: bool) -> Path:
        return save_face_pack(
            collection, name, allow_partial=allow_partial, replace=replace, root=root
        )

    server: Any = None
    enrol_session: Any = None
    if page:
        server, enrol_session = _start_page(
            collection, save, name=name, host=host, port=port, pin=pin, log=log
        )
    try:

        def read(face: np.ndarray) -> Any:
            return read_face(reader, face, doubt_below=doubt_below, use_detector=use_detector)

        if spec.camera_index is not None:
            _from_video(
                spec,
                collection,
                read,
                live=True,
                sample_fps=sample_fps,
                log=log,
                stop=stop or _typed_q,
                doubt_below=doubt_below,
            )
        elif path.is_dir():
            photos = sorted(p for p in path.iterdir() if p.suffix.lower() in PHOTO_SUFFIXES)
            if not photos:
                raise SourceError(
                    f"folder {source!r} holds no photos ({' '.join(PHOTO_SUFFIXES)}) "
                    "and is not a face pack of 40 images named like Ah.png: "
                    "point --source at the photos or the pack"
                )
            for photo in photos:
                _from_photo(photo, collection, read, log=log, strict=False)
        elif path.is_file() and path.suffix.lower() in PHOTO_SUFFIXES:
            _from_photo(path, collection, read, log=log, strict=True)
        elif spec.is_url or path.is_file():
            _from_video(
                spec,
                collection,
                read,
                live=False,
                sample_fps=sample_fps,
                log=log,
                stop=stop or (lambda: False),
                doubt_below=doubt_below,
            )
        else:
            raise SourceError(
                f"no such file or folder {source!r}: "
                "give a camera index (0), a video or photo file, or a folder of photos"
            )
        log(collection.summary())

        if page:
            return _wait_for_page(enrol_session, collection, log=log)
        if accept_guesses:
            settled = collection.accept_guesses()
            if settled:
                log(f"kept the reader's guesses for {settled} doubtful cards")
        elif interactive:
            with tempfile.TemporaryDirectory(prefix="scorekeeper-enrol-") as review:
                confirm_in_terminal(
                    collection, ask=ask, say=log, show=lambda s: _write_review(s, Path(review))
                )
        else:
            dropped = collection.drop_doubtful()
            if dropped:
                log(
                    f"left out {dropped} doubtful cards: confirm them interactively or accept the "
                    "reader's guesses"
                )
        log(collection.summary())
        if not collection.complete:
            _keep_partial(collection, name, root=root)
            missing = [card.notation for card in collection.missing()]
            raise EnrolError(
                f"deck {name!r} lacks {len(missing)} of the 40 cards: {' '.join(missing)}; the "
                f"{40 - len(missing)} found are kept: "
                "run the same command again to show only the missing ones"
            )
        saved = save(False)
        _forget_partial(name, root=root)
        log(f"saved deck {name!r}: {saved}")
        return saved
    finally:
        if server is not None:
            server.stop()


# -- sources ---------------------------------------------------------------------------------------


def _from_photo(
    path: Path, collection: Collection, read: Callable[[np.ndarray], Any], *, log: Log, strict: bool
) -> None:
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if image is None:
        if strict:
            raise SourceError(f"cannot read photo {str(path)!r}: not an image OpenCV can decode")
        log(f"{path.name}: not a readable image, skipped")
        return
    faces = flat_faces(image)
    if not faces:
        log(f"{path.name}: no card found (cards apart, on a darker table, all of each in view)")
    for number, (_outline, face) in enumerate(faces, start=1):
        collection.add(
            face, read(face), origin=f"{path.name} card {number}", sharpness=sharpness(face)
        )
    if faces:
        log(f"{path.name}: {len(faces)} cards — {collection.progress()}")


def _frames(spec: SourceSpec, *, sample_fps: float, live: bool) -> Iterator[tuple[int, np.ndarray]]:
    """(frame index, image) every 1/``sample_fps`` seconds of the source."""
    capture = open_capture(spec)
    try:
        fps = float(capture.get(cv2.CAP_PROP_FPS))
        fps = fps if 1.0 <= fps <= 240.0 else 15.0
        step = max(1, round(fps / sample_fps))
        index = 0
        got = 0
        failures = 0
        last = 0.0
        while True:
            ok, image = capture.read()
            if not ok or image is None or not image.size:
                failures += 1
                if not live or failures >= 30:
                    break
                continue
            failures = 0
            if live:  # a camera runs in real time: sample by the clock
                now = time.monotonic()
                if now - last >= 1.0 / sample_fps:
                    last = now
                    got += 1
                    yield index, image
            elif index % step == 0:
                got += 1
                yield index, image
            index += 1
        if got == 0:
            raise SourceError(
                f"cannot read {spec.describe()}: it gave no frames (a broken or empty file?)"
            )
    finally:
        capture.release()


def _from_video(
    spec: SourceSpec,
    collection: Collection,
    read: Callable[[np.ndarray], Any],
    *,
    live: bool,
    sample_fps: float,
    log: Log,
    stop: Callable[[], bool],
    doubt_below: float,
) -> None:
    tracker = ViewTracker(
        collection, max_gap=max(2, round(2 * sample_fps)), doubt_below=doubt_below
    )
    if live:
        log(
            f"show the cards to {spec.describe()} a few at a time, apart; take them away to "
            "register them; q and Enter (or Ctrl-C) to stop"
        )
    shown = ""
    try:
        for index, image in _frames(spec, sample_fps=sample_fps, live=live):
            views = [
                (outline, face, read(face), sharpness(face)) for outline, face in flat_faces(image)
            ]
            tracker.update(index, views)
            pending = tracker.open_cards()
            line = collection.progress(pending=pending)
            if line != shown:
                shown = line
                log(line)
            if live and (stop() or set(DECK) <= set(collection.best()) | set(pending)):
                break
    except KeyboardInterrupt:
        log("stopped")
    tracker.finish()


def _typed_q() -> bool:
    """True once the user typed ``q`` and Enter (checked without waiting; POSIX terminals only)."""
    try:
        if not sys.stdin.isatty():
            return False
        ready, _, _ = select.select([sys.stdin], [], [], 0)
    except (OSError, ValueError):
        return False
    return bool(ready) and sys.stdin.readline().strip().lower() == "q"


# -- confirming ------------------------------------------------------------------------------------


def _write_review(sighting: Sighting, folder: Path) -> str:
    """Write a doubtful face where the user can open it; its path, for the question."""
    path = folder / f"card-{sighting.id:03d}.png"
    cv2.imwrite(str(path), sighting.face)
    return str(path)


def _start_page(
    collection: Collection,
    save: Callable[[bool], Path],
    *,
    name: str,
    host: str,
    port: int,
    pin: str | None,
    log: Log,
) -> tuple[Any, Any]:
    from scorekeeper.enrol.page import EnrolSession, create_enrol_app
    from scorekeeper.web.server import make_page_server
    from scorekeeper.web.table_pin import check_pin, new_pin

    enrol = EnrolSession(collection=collection, save=save, name=name)
    pin = check_pin(pin) if pin else new_pin()
    server = make_page_server(create_enrol_app(enrol, pin=pin), host, port)
    server.start_in_background()
    log(f"Enrolment page: {server.url}enrol/  (PIN {pin})")
    return server, enrol


def _wait_for_page(enrol: Any, collection: Collection, *, log: Log) -> Path:
    doubtful = len(collection.doubtful())
    log(
        f"confirm {doubtful} doubtful cards and press 'Guardar baralho' on the page; Ctrl-C to stop"
    )
    try:
        while not enrol.done.wait(0.5):
            pass
    except KeyboardInterrupt:
        raise EnrolError(
            f"stopped before the deck was saved ({collection.summary()}): nothing was written"
        ) from None
    saved: Path = enrol.saved
    log(f"saved deck {enrol.name!r}: {saved}")
    return saved


# -- an unfinished deck ----------------------------------------------------------------------------
# Showing 40 cards takes a while; a deck stopped at 37 keeps its 37 faces in ``.partial/NAME``
# beside the decks and the next `enrol` under the same name starts from them, asking only for the
# missing ones.


def _partial_root(root: str | os.PathLike[str] | None) -> Path:
    return (Path(root) if root is not None else decks_dir()) / ".partial"


def _partial_folder(name: str, root: str | os.PathLike[str] | None) -> Path:
    return _partial_root(root) / name


def _keep_partial(
    collection: Collection, name: str, *, root: str | os.PathLike[str] | None
) -> None:
    if not collection.faces():
        return
    save_face_pack(collection, name, allow_partial=True, replace=True, root=_partial_root(root))


def _forget_partial(name: str, *, root: str | os.PathLike[str] | None) -> None:
    shutil.rmtree(_partial_folder(name, root), ignore_errors=True)


def _resume_partial(
    collection: Collection, name: str, *, root: str | os.PathLike[str] | None
) -> int:
    folder = _partial_folder(name, root)
    if not folder.is_dir():
        return 0
    kept = 0
    for card in DECK:
        path = folder / f"{pack_file_name(card)}.png"
        face = cv2.imread(str(path), cv2.IMREAD_COLOR) if path.is_file() else None
        if face is None:
            continue
        certain = np.zeros(len(DECK), np.float32)
        certain[card.index] = 1.0
        collection.add(
            face,
            reading_from_probs(certain),
            origin="kept from last time",
            sharpness=sharpness(face),
        )
        kept += 1
    return kept
