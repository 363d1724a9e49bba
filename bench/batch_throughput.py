"""Batch throughput with 1 and 2 local worker processes on the same determinations; prints the ratio.

    python bench/batch_throughput.py [--n 10000] [--runs 1]

Each run starts from a fresh CLAUSEGUARD_HOME and results file (nothing to resume), on the bundled
demo corpus; the figure is determinations per second (median of the runs) and the 2-worker/1-worker
ratio. Every answer is audited (one durable transaction per chunk), as in production.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from workload import write_requests

from clauseguard.batch.runner import Source, run_batch


def one_run(requests: Path, workers: int) -> float:
    home = Path(tempfile.mkdtemp(prefix="cg-batch-"))
    os.environ["CLAUSEGUARD_HOME"] = str(home)
    started = time.perf_counter()
    summary = run_batch(requests, home / "results.jsonl", Source(corpus="demo"), workers=workers)
    elapsed = time.perf_counter() - started
    assert summary.computed == summary.requests, "every request is distinct, so every one is answered"
    return summary.requests / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()
    requests = write_requests(Path(tempfile.mkdtemp(prefix="cg-requests-")) / "requests.jsonl", args.n)
    rates = {w: statistics.median(one_run(requests, w) for _ in range(args.runs)) for w in (1, 2)}
    print(f"batch of {args.n} determinations, demo corpus, {os.cpu_count()} cores, median of {args.runs} run(s)")
    for workers, rate in rates.items():
        print(f"  {workers} worker(s): {rate:8.1f} determinations/s ({args.n / rate:6.1f} s)")
    print(f"  ratio 2/1 workers: {rates[2] / rates[1]:.2f}")


if __name__ == "__main__":
    main()
