"""Several instances, one truth: two real `serve` processes on one PostgreSQL database answer
identically, an ingest is seen by both on their next request, and their audit rows interleave with
none lost; the impact endpoint returns a job id, then its result."""

from __future__ import annotations

import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest

from clauseguard.corpus.postgres_store import PostgresStore
from clauseguard.corpus.store import SqliteStore
from clauseguard.interfaces.demo_commands import DEMO_DETERMINATION
from tests.batch.test_impact import DOC, audit_some, split_demo
from tests.interfaces.conftest import free_port, running_cli, without_timings

pytestmark = pytest.mark.integration
MARCH = {**DEMO_DETERMINATION, "as_of_date": "2024-03-01"}
JOB_POLLS = 600  # polls 0.2 s apart: a hang guard for the job, not a speed claim


def ask(url: str, body: dict[str, Any]) -> dict[str, Any]:
    response = httpx.post(f"{url}/v1/determinations", json=body, timeout=60)
    assert response.status_code == 200, response.text
    return dict(without_timings(response.json()))


def test_two_servers_on_one_database_answer_alike_and_see_an_ingest(pg_url: str, tmp_path: Path) -> None:
    before, revision = split_demo()
    with PostgresStore(pg_url) as store:
        store.add(before)
    env = {"CLAUSEGUARD_STORE_URL": pg_url}
    with ExitStack() as stack:
        servers = []
        for name in ("a", "b"):
            home = tmp_path / name
            home.mkdir()
            port = free_port()
            servers.append(stack.enter_context(running_cli(
                ["serve", "--host", "127.0.0.1", "--port", str(port)], home=home,
                ready_url=f"http://127.0.0.1:{port}/readyz", extra_env=env)))
        a, b = (ask(s.url, MARCH) for s in servers)
        assert a == b and a["outcome"] == "COVERED"  # v1 (four weeks) governs March 2024 before the revision
        with PostgresStore(pg_url) as store:  # the revision, ingested through the shared store
            store.add(revision)
        after = [ask(s.url, MARCH) for s in servers]
        assert after[0] == after[1] and after[0]["outcome"] != "COVERED"  # both now read v2 (twelve weeks)
        assert httpx.get(f"{servers[0].url}/readyz").json()["corpus_fingerprint"] == \
            httpx.get(f"{servers[1].url}/readyz").json()["corpus_fingerprint"]
        for _ in range(3):  # interleaved answers from both instances
            for s in servers:
                ask(s.url, {**MARCH, "narrative": MARCH["narrative"] + f" Visit from {s.url}."})
    with psycopg.connect(pg_url) as conn:
        rows = conn.execute("SELECT seq, trace_id FROM assertions ORDER BY seq").fetchall()
    assert len(rows) == 4 + 6 and len({r[0] for r in rows}) == 10
    assert {r[1] for r in rows} >= {a["trace_id"], after[0]["trace_id"]}
    for s in servers:
        assert "changed" in s.log.read_text()  # each instance noticed the new corpus and rebuilt once
        assert s.log.read_text().count("answering from the new corpus") == 1


def test_the_impact_endpoint_returns_a_job_and_then_its_result(tmp_path: Path) -> None:
    before, revision = split_demo()
    store_file = tmp_path / "store.sqlite"
    with SqliteStore(store_file) as store:
        store.add(before)
    home = tmp_path / "home"
    home.mkdir()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("CLAUSEGUARD_HOME", str(home))
        audited = audit_some(store_file)
    with SqliteStore(store_file) as store:
        store.add(revision)
    port = free_port()
    with running_cli(["--store", str(store_file), "serve", "--host", "127.0.0.1", "--port", str(port)], home=home,
                     ready_url=f"http://127.0.0.1:{port}/readyz") as server:
        started = httpx.post(f"{server.url}/v1/impact", json={"document_id": DOC, "version": "v2"}, timeout=30)
        assert started.status_code == 202 and started.json()["job_id"].startswith("im-")
        job_id = started.json()["job_id"]
        for _ in range(JOB_POLLS):
            job = httpx.get(f"{server.url}/v1/impact/{job_id}", timeout=30).json()
            if job["status"] != "running":
                break
            time.sleep(0.2)
        else:
            pytest.fail("the impact job did not finish")
        assert job["status"] == "done", job
        assert [c["key"] for c in job["result"]["changed"]] == [audited[1].assertion_id]
        assert httpx.get(f"{server.url}/v1/impact/im-nope").status_code == 404
        bad = httpx.post(f"{server.url}/v1/impact", json={"document_id": DOC}, timeout=30)
        assert bad.status_code == 422 and "version" in bad.text
