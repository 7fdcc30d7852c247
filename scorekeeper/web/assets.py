"""Where the page's templates and static files are: top-level ``web/`` in a checkout (and in an
editable install), ``<prefix>/share/scorekeeper/web`` once installed from a wheel."""

from __future__ import annotations

from importlib import metadata
from pathlib import Path

_MARKER = "share/scorekeeper/web/templates/page.html"


def web_dir() -> Path:
    checkout = Path(__file__).resolve().parents[2] / "web"
    if (checkout / "templates" / "page.html").is_file():
        return checkout
    try:
        files = metadata.files("scorekeeper") or []
    except metadata.PackageNotFoundError:
        files = []
    for file in files:
        if file.as_posix().endswith(_MARKER):
            return Path(str(file.locate())).resolve().parents[1]
    raise FileNotFoundError(
        "the page's files (web/templates, web/static) are missing: reinstall scorekeeper"
    )
