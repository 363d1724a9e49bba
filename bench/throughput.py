"""HTTP throughput of `clauseguard serve --workers N` for N = 1, 2, 4, on loopback, medians printed.

    python bench/throughput.py [--workers 1 2 4] [--clients 8] [--requests 400]

Each server answers a fixed mix of the demo suites' requests (searches and determinations, in a
fixed order) from `--clients` client threads; the run is bounded by `--requests` and a time cap, and
sends traffic to 127.0.0.1 only. Printed: requests/s, p50/p95 latency, and the ratio to one worker.
The client threads share the machine's cores with the servers, so on 2 cores the ratios are a floor.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parents[1]
SEARCH_KEYS = ("contract_id", "payer_id", "plan_id", "effective_date", "question", "threshold", "k")
DETERMINATION_KEYS = ("payer_id", "plan_id", "procedure_codes", "diagnosis_codes", "as_of_date", "narrative", "question")
TIME_CAP_S = 300.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def requests_mix() -> list[tuple[str, dict[str, Any]]]:
    searches = json.loads((REPO / "evals/demo/search.json").read_text())["cases"]
    determinations = json.loads((REPO / "evals/demo/determinations.json").read_text())["cases"]
    mix: list[tuple[str, dict[str, Any]]] = []
    for s in searches:
        if s["expected_status"] != "error":
            mix.append(("/v1/search", {k: s[k] for k in SEARCH_KEYS if s.get(k) is not None}))
    for d in determinations[:40]:
        mix.append(("/v1/determinations", {k: d[k] for k in DETERMINATION_KEYS}))
    return mix


def wait_ready(url: str, workers: int) -> None:
    """Every worker ready: /readyz answers 200 on enough fresh connections in a row."""
    deadline = time.monotonic() + 180
    in_a_row = 0
    while time.monotonic() < deadline:
        try:
            ok = httpx.get(url + "/readyz", timeout=2, headers={"Connection": "close"}).status_code == 200
        except httpx.HTTPError:
            ok = False
        in_a_row = in_a_row + 1 if ok else 0
        if in_a_row >= 8 * workers:
            return
        time.sleep(0.05)
    raise SystemExit("the server did not become ready")


def drive(url: str, mix: list[tuple[str, dict[str, Any]]], clients: int, total: int) -> tuple[float, list[float]]:
    latencies: list[float] = []
    lock = threading.Lock()
    counter = iter(range(total))
    stop = time.monotonic() + TIME_CAP_S

    def client() -> None:
        with httpx.Client(base_url=url, timeout=60) as http:
            for i in counter:
                if time.monotonic() > stop:
                    return
                path, body = mix[i % len(mix)]
                started = time.perf_counter()
                response = http.post(path, json=body)
                took = time.perf_counter() - started
                if response.status_code not in (200, 404):
                    raise SystemExit(f"{path}: HTTP {response.status_code}: {response.text[:200]}")
                with lock:
                    latencies.append(took)

    threads = [threading.Thread(target=client) for _ in range(clients)]
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return time.perf_counter() - started, latencies


def one(workers: int, clients: int, total: int, home: str) -> tuple[float, float, float]:
    port = free_port()
    env = {**os.environ, "CLAUSEGUARD_HOME": home}
    env.pop("CLAUSEGUARD_API_KEYS", None)
    proc = subprocess.Popen(  # noqa: S603 - our own CLI on loopback
        [sys.executable, "-m", "clauseguard", "--corpus", "demo", "serve", "--port", str(port), "--workers", str(workers)],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        url = f"http://127.0.0.1:{port}"
        wait_ready(url, workers)
        mix = requests_mix()
        drive(url, mix, clients, min(total, 2 * clients))  # warm every worker's caches
        elapsed, latencies = drive(url, mix, clients, total)
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    latencies.sort()
    p95 = latencies[int(0.95 * (len(latencies) - 1))]
    return len(latencies) / elapsed, statistics.median(latencies), p95


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--requests", type=int, default=400)
    args = parser.parse_args()
    home = tempfile.mkdtemp(prefix="cg-throughput-")
    subprocess.run([sys.executable, "-m", "clauseguard", "--corpus", "demo", "corpus", "stats"],  # noqa: S603
                   env={**os.environ, "CLAUSEGUARD_HOME": home}, stdout=subprocess.DEVNULL, check=True)
    print(f"HTTP throughput, demo corpus, {args.clients} clients, {args.requests} requests per run, "
          f"{os.cpu_count()} CPUs (clients share them)")
    base = None
    for workers in args.workers:
        rate, p50, p95 = one(workers, args.clients, args.requests, home)
        base = base or rate
        print(f"workers {workers}: {rate:6.1f} requests/s  p50 {p50 * 1000:6.1f} ms  p95 {p95 * 1000:6.1f} ms  "
              f"ratio to 1 worker {rate / base:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
