"""The JSON the program shows to the outside, made from fixed inputs: what the golden files hold.

Each output is a name (its file under tests/golden/, without ``.json`` or ``.txt``) and the exact
text the program printed or served:

- ``scorekeeper replay --json`` on every record of examples/ and tests/data/variants/ and on the
  demo clip's record, under its own rules and under every preset (the error line where a preset
  does not replay it), and the summary for people that ``replay`` prints without ``--json``;
- the page's ``GET /api/state`` (and the answers of the writes) for those records sent whole,
  played card by card, and for a table's evening of decisions (renúncias confirmed and dismissed,
  doubts, names, a deal thrown in, an undo, new matches with their history lines).

Regenerate the files (only when an output is meant to change, and say why in the commit):

    PYTHONPATH=$PWD python -m tests.golden.outputs --write
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).resolve().parent
VARIANTS = ROOT / "tests" / "data" / "variants"
PIN = "2468"
AUTH = {"X-Scorekeeper-Pin": PIN}


def records() -> dict[str, Path]:
    from scorekeeper.synth.simulate import demo_clip

    found = {f"examples-{path.stem}": path for path in sorted((ROOT / "examples").glob("*.json"))}
    found.update({f"variants-{path.stem}": path for path in sorted(VARIANTS.glob("*.json"))})
    found["demo-clip"] = demo_clip()[1]
    return found


def record_of(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data["record"] if "record" in data and "events" in data else data


def replay_cli(*args: str) -> str:
    from scorekeeper.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(["replay", *args])
    return out.getvalue() if status == 0 else f"exit {status}: {err.getvalue()}"


def replay_outputs() -> Iterator[tuple[str, str]]:
    from scorekeeper.rules import PRESETS

    for name, path in records().items():
        yield f"replay/{name}", replay_cli(str(path), "--json")
        yield f"replay-text/{name}", replay_cli(str(path))
        for preset in PRESETS:
            yield (
                f"replay/{name}--rules-{preset}",
                replay_cli(str(path), "--json", "--rules", preset),
            )


def client(folder: str) -> Any:
    from scorekeeper.web import create_app

    app = create_app({"TESTING": True, "DATABASE": f"{folder}/golden.db", "PIN": PIN})
    return app, app.test_client()


def served(response: Any) -> str:
    return f"{response.status_code} {response.get_data(as_text=True)}"


def state_outputs() -> Iterator[tuple[str, str]]:
    from scorekeeper.store import CardPlayed, DealStarted, DealThrownIn, RulesChanged

    for name, path in records().items():
        record = record_of(path)
        with tempfile.TemporaryDirectory() as folder:
            app, web = client(folder)
            yield f"state/{name}-whole", served(web.post("/api/record", json=record, headers=AUTH))
            yield f"state/{name}-whole-get", served(web.get("/api/state"))
        with tempfile.TemporaryDirectory() as folder:
            app, web = client(folder)
            from scorekeeper.web.db import get_store

            with app.app_context():
                store, table = get_store(), app.config["DEFAULT_TABLE"]
                if record.get("rules"):
                    store.append(table, RulesChanged(rules=record["rules"]))
                for number, deal in enumerate(record["deals"], start=1):
                    store.append(table, DealStarted(dealer=deal["dealer"], turned=deal["trump"]))
                    for index, card in enumerate(deal["plays"], start=1):
                        store.append(table, CardPlayed(card))
                        if index in (1, 5, 22, 39):
                            yield (
                                f"state/{name}-deal{number}-play{index}",
                                served(web.get("/api/state")),
                            )
                    if "thrown_in" in deal:
                        store.append(table, DealThrownIn(reason=deal["thrown_in"]))
                    yield f"state/{name}-deal{number}-end", served(web.get("/api/state"))


def evening_outputs() -> Iterator[tuple[str, str]]:
    """One table's evening through the page's writes, each answer kept."""
    from scorekeeper.store import DealThrownIn, DoubtRaised
    from scorekeeper.web.db import get_store
    from tests.test_store import legal_deal, revoke_deal

    with tempfile.TemporaryDirectory() as folder:
        app, web = client(folder)

        def post(step: str, path: str, body: dict[str, Any]) -> tuple[str, str]:
            return f"evening/{step}", served(web.post(path, json=body, headers=AUTH))

        yield post("01-name", "/api/name", {"seat": 0, "name": "Ana"})
        yield post("02-name", "/api/name", {"seat": 3, "name": "Zé Tó"})
        turned, plays, revoke, _ = revoke_deal(seed=3)
        yield post("03-deal", "/api/deal", {"dealer": 0, "turned": turned})
        yield post("04-plays", "/api/plays", {"cards": plays[:20]})
        table = app.config["DEFAULT_TABLE"]
        with app.app_context():
            get_store().append(
                table,
                DoubtRaised(
                    deal=1, play=6, reason="weak_read", options=(plays[5], plays[30]), frame=120
                ),
            )
            get_store().append(
                table,
                DoubtRaised(
                    deal=1, play=None, reason="missing_card", options=(plays[2],), frame=130
                ),
            )
        yield "evening/05-doubts", served(web.get("/api/state"))
        doubts = web.get("/api/state").get_json()["doubts"]
        yield post("06-settle", "/api/doubt", {"doubt": doubts[1]["seq"], "card": None})
        yield post("07-plays", "/api/plays", {"cards": plays[20:]})
        yield post(
            "08-dismiss",
            "/api/renuncia",
            {"decision": "dismiss", "trick": revoke["trick"], "seat": revoke["seat"]},
        )
        yield post(
            "09-confirm",
            "/api/renuncia",
            {"decision": "confirm", "trick": revoke["trick"], "seat": revoke["seat"]},
        )
        yield post("10-undo", "/api/undo", {})
        yield post("11-rules", "/api/rules", {"melar": True, "tie": "carry"})
        for number, seed in enumerate((11, 12, 13, 14, 15, 16, 17, 18), start=1):
            dealer = web.get("/api/state").get_json()["next_dealer"]
            turned, cards = legal_deal(seed, dealer=dealer)
            if web.get("/api/state").get_json()["winner"]:
                yield post(f"12-match-{number}", "/api/match", {"rules": {"target": 6}})
            yield post(f"13-deal-{number}", "/api/deal", {"turned": turned})
            yield post(f"14-plays-{number}", "/api/plays", {"cards": cards})
        turned, _ = legal_deal(40, dealer=web.get("/api/state").get_json()["next_dealer"])
        yield post("15-deal", "/api/deal", {"turned": turned})
        with app.app_context():
            get_store().append(table, DealThrownIn(reason="melar"))
        yield "evening/16-thrown-in", served(web.get("/api/state"))
        yield post("17-deal", "/api/deal", {"turned": turned})
        yield post("17-correct-dealer", "/api/dealer", {"dealer": 2})
        yield post("18-new-match", "/api/match", {})
        yield "evening/19-state", served(web.get("/api/state"))


def outputs() -> dict[str, str]:
    found: dict[str, str] = {}
    for produce in (replay_outputs, state_outputs, evening_outputs):
        for name, text in produce():
            if text:
                found[name] = text
    return found


def golden_files() -> list[Path]:
    return sorted([*GOLDEN.rglob("*.json"), *GOLDEN.rglob("*.txt")])


def golden() -> dict[str, str]:
    return {
        str(path.relative_to(GOLDEN).with_suffix("")): path.read_text(encoding="utf-8")
        for path in golden_files()
    }


def write() -> int:
    for path in golden_files():
        path.unlink()
    made = outputs()
    for name, text in made.items():
        path = GOLDEN / f"{name}.{'txt' if name.startswith('replay-text/') else 'json'}"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    print(f"{len(made)} golden outputs written under {GOLDEN}")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="rewrite the golden files")
    sys.exit(write() if parser.parse_args().write else 0)
