"""Fixtures for the ways in: the real `clauseguard serve` on a free loopback port, and the engine
every interface's answer is compared with (built once, on the bundled demo corpus)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from clauseguard.corpus.sources import open_corpus
from clauseguard.engine import Engine

REPO = Path(__file__).resolve().parents[2]
SEARCH_SUITE = REPO / "evals" / "demo" / "search.json"
DETERMINATION_SUITE = REPO / "evals" / "demo" / "determinations.json"
SEARCH_FIELDS = ("contract_id", "payer_id", "plan_id", "effective_date", "question", "threshold", "k")
DETERMINATION_FIELDS = ("payer_id", "plan_id", "procedure_codes", "diagnosis_codes", "as_of_date", "narrative",
                        "question")
# A hang guard, not a speed claim: how long a test waits for a server before giving up. The
# contract's 30 s to /healthz is measured by bench/serve_start.py.
READY_TIMEOUT_S = 180.0


def free_port() -> int:
    """A loopback port nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass(frozen=True)
class Served:
    """A server process we started: where it answers and how long it took to answer /healthz."""

    url: str
    home: Path
    log: Path
    started_in: float


@contextmanager
def running_cli(
    args: Sequence[str], *, home: Path, ready_url: str, extra_env: Mapping[str, str] | None = None,
    any_answer: bool = False,
) -> Iterator[Served]:
    """Run `python -m clauseguard ARGS` until the block ends; ready once `ready_url` answers 200 (any
    answer with `any_answer`, for an MCP endpoint that wants a session before it says more)."""
    log = home / "server.log"
    env = {**os.environ, "CLAUSEGUARD_HOME": str(home), **(extra_env or {})}
    started = time.monotonic()
    with log.open("wb") as sink:
        proc = subprocess.Popen(  # noqa: S603 - our own CLI, fixed arguments
            [sys.executable, "-m", "clauseguard", *args], stdout=sink, stderr=subprocess.STDOUT, env=env,
        )
    try:
        while True:
            elapsed = time.monotonic() - started
            if proc.poll() is not None:
                pytest.fail(f"the server exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
            if elapsed > READY_TIMEOUT_S:
                pytest.fail(f"{ready_url} did not answer within {READY_TIMEOUT_S} s:\n{log.read_text()[-3000:]}")
            try:
                status = httpx.get(ready_url, timeout=1.0).status_code
                if status == 200 or (any_answer and status < 500):
                    break
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        base = ready_url.split("/", 3)
        yield Served(url="/".join(base[:3]), home=home, log=log, started_in=elapsed)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


@pytest.fixture(scope="session")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """`clauseguard --corpus demo serve` on a free loopback port, shared by the API and web tests."""
    home = tmp_path_factory.mktemp("served-home")
    port = free_port()
    with running_cli(["--corpus", "demo", "serve", "--host", "127.0.0.1", "--port", str(port)],
                     home=home, ready_url=f"http://127.0.0.1:{port}/readyz") as server:
        yield server


@pytest.fixture(scope="session")
def demo_engine(tmp_path_factory: pytest.TempPathFactory) -> Engine:
    """The engine on the demo corpus, in this process: what every interface must agree with."""
    home = tmp_path_factory.mktemp("engine-home")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("CLAUSEGUARD_HOME", str(home))
        engine = Engine(open_corpus("demo", None))
        _ = engine.index, engine.audit  # bound to this home, whatever a later test sets
    return engine


def without_timings(data: Any) -> Any:
    """The answer minus its timing fields, the only part allowed to differ between interfaces."""
    if isinstance(data, dict):
        return {k: without_timings(v) for k, v in data.items() if k != "timings"}
    if isinstance(data, list):
        return [without_timings(v) for v in data]
    return data


def suite_cases(path: Path) -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = json.loads(path.read_text())["cases"]
    return cases


def search_request(case: Mapping[str, Any]) -> dict[str, Any]:
    """The search request a suite case carries (its other fields are the answer key)."""
    return {k: case[k] for k in SEARCH_FIELDS if case.get(k) is not None}


def determination_request(case: Mapping[str, Any]) -> dict[str, Any]:
    """The seven input fields of a determination case."""
    return {k: case[k] for k in DETERMINATION_FIELDS}
