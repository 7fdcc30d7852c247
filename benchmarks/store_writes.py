"""Write time as a table's log grows: one card appended at 100 events and at 10,000, same run.

Builds two stores in a temporary folder: a short log (``--small`` events) and a long one
(``--large``), both made of whole legal matches (a new match whenever one is won), then times
``--writes`` single-card appends on each (a deal played one card per write, as the tracker does),
alternating between the two so the machine's load falls on both alike. Prints the median and p90
per write and the ratio large/small (the target: within 2x), first for ``Store.append`` (the
tracker's write), then for ``POST /api/plays`` through the app (a phone's write, answered with the
whole state). CPU time is printed beside each figure: the disk's flush, the same at any length,
is most of the wall time on a slow disk and would hide a fold that grows with the log.

    python benchmarks/store_writes.py                     # 100 vs 10,000 events, 80 writes each
    python benchmarks/store_writes.py --large 20000 --writes 40
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scorekeeper.rules import random_legal_deal
from scorekeeper.store import CardPlayed, DealStarted, MatchStarted, Store
from scorekeeper.web import create_app

SEED = 20_000
PIN = "8080"


def deal_events(rng: random.Random, dealer: int) -> tuple[DealStarted, list[CardPlayed]]:
    turned, plays, _ = random_legal_deal(rng, dealer=dealer)
    return DealStarted(dealer=dealer, turned=turned.notation), [
        CardPlayed(card.notation) for card in plays
    ]


def grow(store: Store, table: str, events: int, rng: random.Random) -> int:
    """Append whole deals (a new match when one is won) until the log has about ``events``."""
    dealer = 0
    while store.last_seq(table) + 41 <= events:
        if store.state(table)["winner"]:
            store.append(table, MatchStarted())
        start, plays = deal_events(rng, dealer)
        store.append(table, start, *plays)
        dealer = (dealer + 1) % 4
    return store.last_seq(table)


def open_deal(store: Store, table: str, rng: random.Random) -> list[CardPlayed]:
    if store.state(table)["winner"]:
        store.append(table, MatchStarted())
    start, plays = deal_events(rng, dealer=store.state(table)["next_dealer"])
    store.append(table, start)
    return plays


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", type=int, default=100)
    parser.add_argument("--large", type=int, default=10_000)
    parser.add_argument(
        "--writes", type=int, default=80, help="timed writes on each log (default 80)"
    )
    args = parser.parse_args()
    rng = random.Random(SEED)
    with tempfile.TemporaryDirectory(prefix="store-writes-") as folder:
        stores = {}
        for name, size in (("small", args.small), ("large", args.large)):
            store = Store.open(Path(folder) / f"{name}.db")
            built = time.perf_counter()
            grown = grow(store, "mesa", size, rng)
            print(
                f"{name}: {grown} events built in {time.perf_counter() - built:.1f} s", flush=True
            )
            stores[name] = store
        clients = {
            name: create_app(
                {"DATABASE": str(store.path), "PIN": PIN, "TESTING": True}
            ).test_client()
            for name, store in stores.items()
        }

        def by_store(name: str, card: CardPlayed) -> None:
            stores[name].append("mesa", card)

        def by_api(name: str, card: CardPlayed) -> None:
            response = clients[name].post(
                "/api/plays", json={"card": card.card}, headers={"X-Scorekeeper-Pin": PIN}
            )
            assert response.status_code == 200, response.get_json()

        pending = {name: open_deal(store, "mesa", rng) for name, store in stores.items()}
        for label, write in (("Store.append", by_store), ("POST /api/plays", by_api)):
            times: dict[str, list[float]] = {"small": [], "large": []}
            cpu: dict[str, list[float]] = {"small": [], "large": []}
            for _ in range(args.writes):
                for name, store in stores.items():
                    if not pending[name]:
                        pending[name] = open_deal(store, "mesa", rng)
                    card = pending[name].pop(0)
                    began, began_cpu = time.perf_counter(), time.process_time()
                    write(name, card)
                    times[name].append(time.perf_counter() - began)
                    cpu[name].append(time.process_time() - began_cpu)
            medians, cpu_medians = {}, {}
            for name, store in stores.items():
                ms = sorted(t * 1000 for t in times[name])
                medians[name] = statistics.median(ms)
                cpu_medians[name] = statistics.median(t * 1000 for t in cpu[name])
                p90 = ms[int(0.9 * (len(ms) - 1))]
                print(
                    f"{label}, log at {store.last_seq('mesa')} events: "
                    f"median {medians[name]:.2f} ms "
                    f"(CPU {cpu_medians[name]:.2f} ms), p90 {p90:.2f} ms"
                )
            print(
                f"{label}: ratio large/small "
                f"{medians['large'] / medians['small']:.2f} (target <= 2), "
                f"CPU {cpu_medians['large'] / cpu_medians['small']:.2f}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
