"""The figures part of ``models/README.md``, rewritten from ``metrics.json`` after each evaluation.

Only the text between ``<!-- figures:start -->`` and ``<!-- figures:end -->`` is generated; the rest
of the card (data, recipe, what limits accuracy) is written by people and kept as it is.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

_BINS = ((0.0, 0.3), (0.3, 0.5), (0.5, 0.7), (0.7, 0.8), (0.8, 0.9), (0.9, 1.0))
START = "<!-- figures:start -->"
END = "<!-- figures:end -->"


def figures_markdown(metrics: dict[str, Any]) -> str:
    lines = [
        (
            "| set | detector size | stage 1 index AP50 | index recall / precision "
            "| stage 2 top-1 (top-3) | 8/9/10 called not_a_card | card precision | card recall "
            "| recall \u2665 / \u2660 / \u2666 / \u2663 |"
        ),
        "|---|---|---|---|---|---|---|---|---|",
    ]
    rows: list[tuple[str, str, dict[str, Any]]] = []
    synthetic = metrics.get("synthetic_val")
    if synthetic:
        rows.append(("synthetic val", str(synthetic["detector_size"]), synthetic))
    for key, name in (
        ("realcards_dev", "realcards-dev"),
        ("realcards_dev_webcam_scale", "realcards-dev, webcam scale"),
        ("realcards_webcam", "realcards-webcam"),
    ):
        for size, block in (metrics.get(key) or {}).items():
            rows.append((name, size, block))
    for name, size, block in rows:
        s1, s2, cards = block["stage1"], block["stage2"], block["cards"]
        suits = cards.get("suit_recall")
        by_suit = (
            " / ".join(str(round(suits[s], 2)) for s in ("H", "S", "D", "C")) if suits else "-"
        )
        lines.append(
            f"| {name} | {size} | {s1['index_ap50']} "
            f"| {s1['index_recall']} / {s1['index_precision']} "
            f"| {s2.get('top1')} ({s2.get('top3')}) | {s2.get('non_sueca_rejected', '-')} "
            f"| {cards['card_precision']} | {cards['card_recall']} | {by_suit} |"
        )
    calibrated = [
        (name, size, block["calibration"]) for name, size, block in rows if block.get("calibration")
    ]
    if calibrated:
        lines += [
            "",
            "Stage 2 calibration on the labelled real corners (share right at each confidence):",
            "",
            "| set | ECE | " + " | ".join(f"{low}-{high}" for low, high in _BINS) + " |",
            "|---|---|" + "---|" * len(_BINS),
        ]
        seen = set()
        for name, _size, calibration in calibrated:
            if name in seen:  # stage 2 does not depend on the detector's size
                continue
            seen.add(name)
            right = {
                (b["from"], b["to"]): f"{b['right']} ({b['crops']})" for b in calibration["bins"]
            }
            lines.append(
                f"| {name} | {calibration['ece']} | "
                + " | ".join(right.get(b, "-") for b in _BINS)
                + " |"
            )
    latency = metrics.get("latency")
    if latency:
        lines += [
            "",
            (
                f"Latency, both stages, one {latency['frame']} frame: median "
                f"{latency['median_ms']} ms (p90 {latency['p90_ms']} ms, {latency['runs']} runs)"
                + (
                    f"; the same networks read the plain way (one detector size, one view) "
                    f"{latency['baseline_median_ms']} ms in the same run (ratio "
                    f"{latency['ratio_to_baseline']})."
                    if "baseline_median_ms" in latency
                    else "."
                )
            ),
        ]
    return "\n".join(lines)


def update_model_card(readme: Path, metrics: dict[str, Any]) -> None:
    """Replace the generated figures in ``readme`` (appended at the end when it has no markers)."""
    block = f"{START}\n{figures_markdown(metrics)}\n{END}"
    text = readme.read_text(encoding="utf-8") if readme.is_file() else "# Card reader models\n"
    if START in text and END in text:
        head, rest = text.split(START, 1)
        _, tail = rest.split(END, 1)
        text = head + block + tail
    else:
        text = text.rstrip() + "\n\n" + block + "\n"
    readme.write_text(text, encoding="utf-8")
