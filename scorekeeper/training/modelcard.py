"""The figures part of ``models/README.md``, rewritten from ``metrics.json`` after each evaluation.

Only the text between ``<!-- figures:start -->`` and ``<!-- figures:end -->`` is generated; the rest
of the card (data, recipe, what limits accuracy) is written by people and kept as it is.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

START = "<!-- figures:start -->"
END = "<!-- figures:end -->"


def figures_markdown(metrics: dict[str, Any]) -> str:
    lines = [
        ("| set | detector size | stage 1 index AP50 | index recall / precision | stage 2 top-1 (top-3) "
        "| 8/9/10 called not_a_card | card precision | card recall |"),
        "|---|---|---|---|---|---|---|---|",
    ]
    rows: list[tuple[str, str, dict[str, Any]]] = []
    synthetic = metrics.get("synthetic_val")
    if synthetic:
        rows.append(("synthetic val", str(synthetic["detector_size"]), synthetic))
    for size, block in (metrics.get("realcards_dev") or {}).items():
        rows.append(("realcards-dev", size, block))
    for name, size, block in rows:
        s1, s2, cards = block["stage1"], block["stage2"], block["cards"]
        lines.append(
            f"| {name} | {size} | {s1['index_ap50']} | {s1['index_recall']} / {s1['index_precision']} "
            f"| {s2.get('top1')} ({s2.get('top3')}) | {s2.get('non_sueca_rejected', '-')} "
            f"| {cards['card_precision']} | {cards['card_recall']} |"
        )
    latency = metrics.get("latency")
    if latency:
        lines += ["", (f"Latency, both stages, one {latency['frame']} frame: median "
                  f"{latency['median_ms']} ms (p90 {latency['p90_ms']} ms, {latency['runs']} runs).")]
    return "\n".join(lines)


def update_model_card(readme: Path, metrics: dict[str, Any]) -> None:
    """Replace the generated figures in ``readme`` (appended at the end when the markers are absent)."""
    block = f"{START}\n{figures_markdown(metrics)}\n{END}"
    text = readme.read_text(encoding="utf-8") if readme.is_file() else "# Card reader models\n"
    if START in text and END in text:
        head, rest = text.split(START, 1)
        _, tail = rest.split(END, 1)
        text = head + block + tail
    else:
        text = text.rstrip() + "\n\n" + block + "\n"
    readme.write_text(text, encoding="utf-8")
