"""Time from `clauseguard serve` starting to /healthz answering 200, median of several cold starts.

    python bench/serve_start.py [--runs 3] [--corpus demo]

The CLI contract asks for /healthz within 30 s of starting; each run uses a fresh CLAUSEGUARD_HOME
(so the first request builds the corpus store and indexes), which is the slow case.
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

import httpx

TARGET_S = 30.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def one_start(corpus: str) -> float:
    port = free_port()
    env = {**os.environ, "CLAUSEGUARD_HOME": tempfile.mkdtemp(prefix="cg-serve-")}
    command = [sys.executable, "-m", "clauseguard", "--corpus", corpus, "serve", "--port", str(port)]
    start = time.perf_counter()
    proc = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # noqa: S603
    try:
        while True:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                    return time.perf_counter() - start
            except httpx.HTTPError:
                pass
            if proc.poll() is not None:
                raise SystemExit(f"serve exited with {proc.returncode}")
            time.sleep(0.05)
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--corpus", default="demo")
    args = parser.parse_args()
    times = [one_start(args.corpus) for _ in range(args.runs)]
    median = statistics.median(times)
    print(f"serve -> /healthz 200, {args.runs} cold starts, {os.cpu_count()} CPUs (corpus {args.corpus})")
    print(f"median {median:.2f}s  (min {min(times):.2f}s, max {max(times):.2f}s); target {TARGET_S:.0f}s; "
          f"ratio {median / TARGET_S:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
