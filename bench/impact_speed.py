"""`impact` time on a synthetic audit log of 100,000 determinations, with 1 and 2 worker processes.

    python bench/impact_speed.py [--rows 100000] [--distinct 2000]

The log is made, not measured: `--distinct` real determinations on the demo corpus without
KHP-MP-0224 v2 are answered and audited once, then their rows are repeated under new assertion ids
up to `--rows` (as a payer's log repeats the same cases). Then v2 is ingested (it closes v1) and
`impact --document KHP-MP-0224 --version v2` runs: it scans every row, keeps those in v2's window
that the policy governs, re-answers each distinct request once and lists what changes. Prints the
time to build the log apart from the impact time.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import tempfile
import time
from pathlib import Path

from workload import requests

from clauseguard.audit import AuditLog
from clauseguard.batch.impact import impact
from clauseguard.batch.runner import CollectingAudit, Source
from clauseguard.corpus.loader import load_demo
from clauseguard.corpus.model import Corpus
from clauseguard.corpus.sources import home_dir, open_corpus
from clauseguard.corpus.store import SqliteStore
from clauseguard.engine import Engine

DOC = "KHP-MP-0224"


def split_demo() -> tuple[Corpus, Corpus]:
    demo = load_demo()
    doc = next(d for d in demo.documents if d.id == DOC)
    v1, v2 = doc.versions
    earlier = doc.model_copy(update={"versions": (v1.model_copy(update={"effective_end": None}),)})
    before = demo.model_copy(update={"documents": tuple(earlier if d.id == DOC else d for d in demo.documents)})
    revision = Corpus.model_validate({"format": demo.format, "documents": [
        {**doc.model_dump(mode="json"), "versions": [v2.model_dump(mode="json")]}]})
    return before, revision


def build_log(store_file: Path, rows: int, distinct: int) -> float:
    started = time.perf_counter()
    engine = Engine(open_corpus(None, str(store_file))).warm_up()
    collector = CollectingAudit()
    engine.audit = collector  # type: ignore[assignment]
    for request in requests(distinct, spread=True):
        engine.determine(request)
    log = AuditLog(home_dir() / "audit.sqlite")
    entries = collector.entries
    batch = []
    for n in range(rows):
        entry = entries[n % len(entries)]
        batch.append(dataclasses.replace(entry, assertion_id=f"{entry.assertion_id}-{n}"))
        if len(batch) == 5000:
            log.record_many(batch, engine.corpus)
            batch = []
    log.record_many(batch, engine.corpus)
    assert log.count() == rows
    log.close()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--distinct", type=int, default=2000)
    args = parser.parse_args()
    os.environ["CLAUSEGUARD_HOME"] = tempfile.mkdtemp(prefix="cg-impact-")
    store_file = home_dir() / "store.sqlite"
    before, revision = split_demo()
    with SqliteStore(store_file) as store:
        store.add(before)
    built = build_log(store_file, args.rows, args.distinct)
    with SqliteStore(store_file) as store:
        store.add(revision)
    size = (home_dir() / "audit.sqlite").stat().st_size / 1e6
    print(f"audit log: {args.rows} determination rows ({args.distinct} distinct requests), {size:.0f} MB, "
          f"built in {built:.1f} s")
    for workers in (1, 2):
        started = time.perf_counter()
        report = impact(DOC, "v2", Source(store=str(store_file)), workers=workers)
        elapsed = time.perf_counter() - started
        print(f"  impact with {workers} worker(s): {elapsed:6.1f} s — {report['considered']} rows in the window, "
              f"{report['changed_count']} change")


if __name__ == "__main__":
    main()
