"""Latency per determination on the PostgreSQL store versus the SQLite store, audit log included.

    python bench/store_latency.py [--n 300]

Both stores hold the bundled demo corpus; each engine answers the same `n` distinct determinations
after a warm-up, writing its audit row durably (SQLite synchronous=FULL; PostgreSQL COMMIT) and
checking the shared store's fingerprint before each request. PostgreSQL is a throwaway server on
loopback (Debian's postgresql, started in a temporary folder). Prints p50/p95 and the ratio.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from workload import requests

from clauseguard.corpus.loader import load_demo
from clauseguard.corpus.postgres_store import PostgresStore
from clauseguard.corpus.sources import open_corpus
from clauseguard.corpus.store import SqliteStore
from clauseguard.engine import Engine
from clauseguard.testing_postgres import start_server


def latencies(engine: Engine, n: int) -> list[float]:
    cases = requests(n + 20)
    for case in cases[:20]:  # warm-up: first compilations, connections
        engine.determine(case)
    out = []
    for case in cases[20:]:
        started = time.perf_counter()
        engine.determine(case)
        out.append(time.perf_counter() - started)
    return out


def p(values: list[float], q: float) -> float:
    return sorted(values)[min(len(values) - 1, int(q * len(values)))] * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=300)
    args = parser.parse_args()
    os.environ["CLAUSEGUARD_HOME"] = tempfile.mkdtemp(prefix="cg-latency-")
    store_file = Path(os.environ["CLAUSEGUARD_HOME"]) / "store.sqlite"
    with SqliteStore(store_file) as store:
        store.add(load_demo())
    lite = latencies(Engine(open_corpus(None, str(store_file))).warm_up(), args.n)
    server = start_server()
    try:
        url = server.create_database("bench")
        with PostgresStore(url) as store:
            store.add(load_demo())
        pg = latencies(Engine(open_corpus(None, None, url)).warm_up(), args.n)
    finally:
        server.stop()
    print(f"{args.n} determinations each, demo corpus, audit log included")
    for name, values in (("sqlite", lite), ("postgresql", pg)):
        print(f"  {name:10s}: p50 {p(values, 0.5):6.2f} ms   p95 {p(values, 0.95):6.2f} ms   "
              f"mean {statistics.fmean(values) * 1000:6.2f} ms")
    print(f"  ratio postgresql/sqlite (p50): {p(pg, 0.5) / p(lite, 0.5):.2f}")


if __name__ == "__main__":
    main()
