"""The deals kept for learning, per deck, capped on disk.

Each deck (the deck an installed model reads: the enrolled deck's name, or ``sueca-reader`` for the
shipped model) has a folder ``<user data>/play/<deck>/`` with one folder per accepted deal::

    deal-<recorded>-<table>/
        deal.json           the record it was named by, which plays the table corrected, the tiles
        tiles/<frame>.jpg   a card-region tile (never a whole frame), JPEG quality 90
        tiles/<frame>.txt   its named indices, YOLO rows (class in deck order) relative to the tile

The cap: at most :data:`MAX_DEALS` deals and :data:`MAX_MEGABYTES` per deck, and at most
:data:`MAX_TILES_PER_DEAL` tiles a deal; when a new deal passes either cap the oldest deals go.
Nothing leaves the machine; ``scorekeeper learn --forget`` deletes the folder.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scorekeeper.learning.tiles import Tile
from scorekeeper.paths import user_data_dir

MAX_DEALS = 50
"""Deals kept per deck: the last few evenings of one table, enough to learn from and to judge on."""
MAX_MEGABYTES = 200.0
"""Disk kept per deck; a deal is ~1-5 MB (120 tiles of a few tens of kB)."""
MAX_TILES_PER_DEAL = 120
"""Tiles kept per deal, spread evenly over it: neighbouring frames teach little more than one."""
JPEG_QUALITY = 90
DEAL_FILE = "deal.json"


def play_root() -> Path:
    return user_data_dir() / "play"


def play_dir(deck: str) -> Path:
    return play_root() / deck


@dataclass(frozen=True, slots=True)
class KeptDeal:
    folder: Path
    record: dict[str, Any]

    @property
    def tiles(self) -> dict[str, dict[str, Any]]:
        tiles: dict[str, dict[str, Any]] = self.record.get("tiles", {})
        return tiles

    @property
    def size_bytes(self) -> int:
        return sum(p.stat().st_size for p in self.folder.rglob("*") if p.is_file())


def kept_deals(deck: str) -> list[KeptDeal]:
    """The deck's kept deals, oldest first (a folder with no readable ``deal.json`` is skipped)."""
    root = play_dir(deck)
    if not root.is_dir():
        return []
    deals = []
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        try:
            record = json.loads((folder / DEAL_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        deals.append(KeptDeal(folder, record))
    return deals


def keep_deal(
    deck: str,
    tiles: Sequence[Tile],
    *,
    table: str,
    plays: Sequence[str],
    turned: str,
    corrected: Sequence[int],
    recorded: str | None = None,
) -> Path | None:
    """Write one accepted deal's tiles, then hold the cap; returns its folder (None: no tiles)."""
    import cv2

    if not tiles:
        return None
    chosen = _spread(list(tiles), MAX_TILES_PER_DEAL)
    stamp = recorded or time.strftime("%Y%m%dT%H%M%S")
    root = play_dir(deck)
    final = root / f"deal-{stamp}-{table}"
    n = 1
    while final.exists():
        n += 1
        final = root / f"deal-{stamp}-{table}-{n}"
    partial = root / f".{final.name}.partial"
    if partial.exists():
        shutil.rmtree(partial)
    (partial / "tiles").mkdir(parents=True)
    index: dict[str, dict[str, Any]] = {}
    for tile in chosen:
        stem = f"{tile.frame:07d}"
        ok, encoded = cv2.imencode(".jpg", tile.image, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
        if not ok:
            continue
        (partial / "tiles" / f"{stem}.jpg").write_bytes(encoded.tobytes())
        (partial / "tiles" / f"{stem}.txt").write_text(
            "\n".join(tile.yolo_rows()) + "\n", encoding="utf-8"
        )
        index[stem] = {"origin": list(tile.origin), "frame_size": list(tile.frame_size)}
    record = {
        "recorded": stamp,
        "table": table,
        "plays": list(plays),
        "turned": turned,
        "corrected": sorted(corrected),
        "tiles": index,
    }
    (partial / DEAL_FILE).write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    partial.rename(final)  # a half-written deal is never read as a kept one
    hold_cap(deck)
    return final


def hold_cap(
    deck: str, *, max_deals: int | None = None, max_megabytes: float | None = None
) -> list[Path]:
    """Drop the oldest deals until the deck is within both caps (default :data:`MAX_DEALS`,
    :data:`MAX_MEGABYTES`); returns what was dropped."""
    max_deals = MAX_DEALS if max_deals is None else max_deals
    max_megabytes = MAX_MEGABYTES if max_megabytes is None else max_megabytes
    deals = kept_deals(deck)
    sizes = [deal.size_bytes for deal in deals]
    dropped = []
    while deals and (len(deals) > max_deals or sum(sizes) > max_megabytes * 1e6):
        oldest = deals.pop(0)
        sizes.pop(0)
        shutil.rmtree(oldest.folder)
        dropped.append(oldest.folder)
    return dropped


@dataclass(frozen=True, slots=True)
class Forgotten:
    deck: str
    deals: int
    megabytes: float

    def line(self) -> str:
        return f"deleted {self.deals} kept deals of deck {self.deck} ({self.megabytes:.1f} MB)"


def forget(deck: str | None = None) -> list[Forgotten]:
    """Delete the kept deals of ``deck`` (None: of every deck); what was deleted, per deck."""
    root = play_root()
    decks = (
        [deck]
        if deck is not None
        else sorted(p.name for p in root.iterdir() if p.is_dir())
        if root.is_dir()
        else []
    )
    out = []
    for name in decks:
        folder = play_dir(name)
        if not folder.is_dir():
            continue
        size = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
        count = sum(1 for p in folder.iterdir() if p.is_dir() and (p / DEAL_FILE).is_file())
        shutil.rmtree(folder)
        out.append(Forgotten(name, count, size / 1e6))
    if deck is None and root.is_dir() and not any(root.iterdir()):
        root.rmdir()
    return out


def _spread(items: list[Tile], limit: int) -> list[Tile]:
    if len(items) <= limit:
        return items
    step = len(items) / limit
    return [items[int(i * step)] for i in range(limit)]
