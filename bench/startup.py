"""Start-up times of the ways in, whole process, medians over warm runs, against the issue's targets.

    python bench/startup.py [--runs 5]

Measured: `clauseguard --help`; one CLI search (`--corpus demo search ... --json`); one CLI `ask`;
`serve` until /healthz answers 200 and until /readyz answers 200. Every run is a fresh process; all
share one CLAUSEGUARD_HOME warmed first (corpus store and index caches built), which is how a
handler's machine runs after its first command. The cold figure (a fresh home) is printed apart.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable

import httpx

CLI = [sys.executable, "-m", "clauseguard"]
SEARCH = ["--corpus", "demo", "search", "--contract", "CT-48213", "--question",
          "dental implant: coverage, annual cap, waiting period", "--json"]
ASK = ["--corpus", "demo", "ask", "--payer", "KHP", "--plan", "KHP-HMO-CORE", "--code", "29881", "--dx", "S83.511D",
       "--as-of", "2024-01-01", "--narrative", "Medial meniscal tear confirmed on MRI. Six weeks of supervised physical "
       "therapy without relief.", "--question", "Is arthroscopic meniscectomy covered?", "--json"]
TARGETS = {"--help": 0.3, "CLI search": 0.6, "CLI ask": 3.0, "serve -> /healthz": 1.5, "serve -> /readyz": 10.0}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def whole_process(args: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run([*CLI, *args], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)  # noqa: S603
    return time.perf_counter() - start


def serve_until(env: dict[str, str]) -> tuple[float, float]:
    """Seconds from starting `serve` to the first 200 of /healthz, and of /readyz."""
    port = free_port()
    start = time.perf_counter()
    proc = subprocess.Popen([*CLI, "--corpus", "demo", "serve", "--port", str(port)], env=env,  # noqa: S603
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    healthy = ready = 0.0
    try:
        deadline = start + 120
        while time.perf_counter() < deadline and not ready:
            try:
                if not healthy and httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                    healthy = time.perf_counter() - start
                if healthy and httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=1).status_code == 200:
                    ready = time.perf_counter() - start
            except httpx.HTTPError:
                pass
            if proc.poll() is not None:
                raise SystemExit(f"serve exited with {proc.returncode}")
            time.sleep(0.02)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    return healthy, ready


def report(name: str, times: list[float]) -> None:
    median = statistics.median(times)
    target = TARGETS[name]
    verdict = "met" if median <= target else "NOT met"
    print(f"{name:18s} median {median:6.3f} s  (min {min(times):.3f}, max {max(times):.3f}; {len(times)} runs)  "
          f"target {target:.1f} s: {verdict}, ratio {median / target:.2f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    env = {**os.environ, "CLAUSEGUARD_HOME": tempfile.mkdtemp(prefix="cg-startup-")}
    env.pop("CLAUSEGUARD_API_KEYS", None)
    cold = whole_process(SEARCH, env)  # builds the store and index caches
    whole_process(ASK, env)
    print(f"startup, {os.cpu_count()} CPUs, Python {sys.version.split()[0]}; warm CLAUSEGUARD_HOME "
          f"(the cold first search, caches built: {cold:.2f} s)")
    runs: dict[str, Callable[[], float]] = {
        "--help": lambda: whole_process(["--help"], env),
        "CLI search": lambda: whole_process(SEARCH, env),
        "CLI ask": lambda: whole_process(ASK, env),
    }
    for name, run in runs.items():
        report(name, [run() for _ in range(args.runs)])
    served = [serve_until(env) for _ in range(args.runs)]
    report("serve -> /healthz", [h for h, _ in served])
    report("serve -> /readyz", [r for _, r in served])
    return 0


if __name__ == "__main__":
    sys.exit(main())
