"""Speed of `clauseguard eval` on the external suite: the whole process (start to exit) and engine time
per case from the scorecard, medians over several runs, printed with the targets and the reference.

    python bench/eval_speed.py [--runs 5] [--corpus PATH] [CASES_FILE ...]

Each run is `clauseguard --corpus ../shared/external/mkrafa/corpus.json eval seed.json generated.json
--json` in a fresh process. The first run (which builds the corpus store and indexes in a scratch
CLAUSEGUARD_HOME) is reported apart as the cold run and left out of the medians.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
MKRAFA = REPO.parent / "shared" / "external" / "mkrafa"
TARGET_WALL_S = 5.0
TARGET_P95_S = 0.010
REFERENCE_P95_S = 0.119  # the external project's deterministic stand-in, same 134 cases, 2 cores


def one_run(command: list[str], env: dict[str, str]) -> tuple[float, dict[str, Any]]:
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, cwd=REPO, env=env, check=False)  # noqa: S603
    wall = time.perf_counter() - start
    if done.returncode not in (0, 1) or not done.stdout.strip():
        sys.stderr.write(f"eval failed (exit {done.returncode}):\n{done.stderr}")
        raise SystemExit(2)
    return wall, json.loads(done.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "cases", nargs="*", type=Path, default=[MKRAFA / "seed.json", MKRAFA / "generated.json"]
    )
    parser.add_argument("--corpus", type=Path, default=MKRAFA / "corpus.json")
    parser.add_argument("--runs", type=int, default=5, help="warm runs measured (after one cold run)")
    args = parser.parse_args()
    if not args.corpus.exists():
        print(f"external suite not found at {args.corpus.parent}; nothing to measure")
        return 2

    command = [
        sys.executable,
        "-m",
        "clauseguard",
        "--corpus",
        str(args.corpus),
        "eval",
        *map(str, args.cases),
        "--json",
    ]
    with tempfile.TemporaryDirectory(prefix="clauseguard-bench-") as home:
        env = {**os.environ, "CLAUSEGUARD_HOME": home}
        cold_wall, card = one_run(command, env)
        walls: list[float] = []
        p50s: list[float] = []
        p95s: list[float] = []
        for _ in range(args.runs):
            wall, card = one_run(command, env)
            walls.append(wall)
            answer = card.get("answer") or {}
            p50s.append(float(answer.get("p50_latency_s") or 0.0))
            p95s.append(float(answer.get("p95_latency_s") or 0.0))

    answer = card.get("answer") or {}
    cases = answer.get("cases", card["case_set"]["count"])
    wall = statistics.median(walls)
    p95 = statistics.median(p95s)
    print(
        f"clauseguard eval, {card['case_set']['count']} cases ({cases} scored), {args.runs} warm runs, "
        f"{os.cpu_count()} CPUs"
    )
    print(f"{'measure':<34}{'median':>12}{'target':>12}{'ratio':>10}")
    print(f"{'whole process, cold (1 run)':<34}{cold_wall:>11.3f}s{'':>12}{'':>10}")
    print(f"{'whole process, warm':<34}{wall:>11.3f}s{TARGET_WALL_S:>11.1f}s{wall / TARGET_WALL_S:>10.2f}")
    print(f"{'engine time per case, p50':<34}{statistics.median(p50s) * 1000:>10.2f}ms{'':>12}{'':>10}")
    print(
        f"{'engine time per case, p95':<34}{p95 * 1000:>10.2f}ms{TARGET_P95_S * 1000:>10.0f}ms{p95 / TARGET_P95_S:>10.2f}"
    )
    if p95 > 0:
        print(
            f"p95 against the external stand-in ({REFERENCE_P95_S * 1000:.0f} ms): {REFERENCE_P95_S / p95:.1f}x faster"
        )
    figures = {
        k: answer.get(k) for k in ("determination_accuracy", "gate_correctness", "false_auto_determine")
    }
    print("last run: " + ", ".join(f"{k} {v}" for k, v in figures.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
