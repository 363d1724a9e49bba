"""`clauseguard batch`: answers byte-identical to serial in input order, every answer audited once,
bad lines reported by number, resumable after a stop (a database gone mid-batch included), on local
processes and on a local Ray cluster of two workers."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from clauseguard.batch.results import journal_path
from clauseguard.batch.runner import Source, run_batch
from clauseguard.corpus.loader import load_demo
from clauseguard.corpus.sources import open_corpus
from clauseguard.engine import Engine
from clauseguard.errors import EnvironmentFailure
from clauseguard.interfaces.cli import main
from clauseguard.interfaces.demo_commands import DEMO_DETERMINATION

DEMO = Source(corpus="demo")
DATES = ("2023-12-30", "2023-12-31", "2024-01-01", "2024-01-02", "2024-06-01", "2022-05-05")
SEARCH = {"contract_id": "CT-48213", "question": "dental implant: coverage, annual cap, waiting period"}


def write_requests(path: Path) -> list[dict[str, Any]]:
    requests: list[dict[str, Any]] = [{**DEMO_DETERMINATION, "as_of_date": d} for d in DATES]
    lines = [json.dumps(r) for r in requests]
    lines.insert(2, '{"payer_id": "KHP", "as_of_date": 20240101}')  # line 3: a field of the wrong type
    lines.insert(4, "[1, 2")  # line 5: not JSON
    lines.append(json.dumps({"kind": "search", **SEARCH}))
    lines.append(json.dumps(requests[0]))  # the same request again: answered (and audited) once
    path.write_text("\n".join(lines) + "\n")
    return [*requests, SEARCH]


def audit_count(home: Path) -> int:
    with sqlite3.connect(home / "audit.sqlite") as conn:
        return int(conn.execute("SELECT COUNT(*) FROM assertions").fetchone()[0])


def stable(answer: Any) -> dict[str, Any]:
    data = answer.as_json()
    data.pop("timings", None)
    return dict(data)


@pytest.fixture
def requests_file(tmp_path: Path) -> Path:
    path = tmp_path / "requests.jsonl"
    write_requests(path)
    return path


def test_processes_answer_byte_identically_to_serial_in_input_order(
    requests_file: Path, tmp_path: Path, isolated_home: Path
) -> None:
    serial = run_batch(requests_file, tmp_path / "serial.jsonl", DEMO, workers=1)
    assert audit_count(isolated_home) == 7  # six determinations and a search; the repeated line is not re-audited
    parallel = run_batch(requests_file, tmp_path / "parallel.jsonl", DEMO, workers=2, chunk_size=2)
    assert (tmp_path / "serial.jsonl").read_bytes() == (tmp_path / "parallel.jsonl").read_bytes()
    assert serial.answered == parallel.answered == 8 and parallel.computed == 7
    assert [(b.line, b.message.split(":")[0]) for b in serial.bad_lines] == [(3, "as_of_date"), (5, "not valid JSON at column 6; write one JSON object per line")]
    rows = [json.loads(line) for line in (tmp_path / "serial.jsonl").read_text().splitlines()]
    assert [r["line"] for r in rows] == list(range(1, 11))
    engine = Engine(open_corpus("demo", None), log=False)
    first = next(r for r in rows if r["line"] == 1)
    assert first["response"] == stable(engine.determine({**DEMO_DETERMINATION, "as_of_date": DATES[0]}))
    assert rows[-1]["response"] == first["response"] and rows[-2]["response"] == stable(engine.search(SEARCH))


def test_a_rerun_skips_what_is_done_and_audits_nothing_again(requests_file: Path, tmp_path: Path, isolated_home: Path) -> None:
    out = tmp_path / "results.jsonl"
    run_batch(requests_file, out, DEMO)
    full, audited = out.read_bytes(), audit_count(isolated_home)
    again = run_batch(requests_file, out, DEMO)
    assert again.computed == 0 and again.skipped == 8 and out.read_bytes() == full
    assert audit_count(isolated_home) == audited


def test_a_stopped_batch_resumes_from_its_results_and_journal(requests_file: Path, tmp_path: Path, isolated_home: Path) -> None:
    reference = tmp_path / "reference.jsonl"
    run_batch(requests_file, reference, DEMO)
    audited = audit_count(isolated_home)
    out = tmp_path / "results.jsonl"
    lines = reference.read_text().splitlines(keepends=True)
    out.write_text("".join(lines[:2]))  # a results file written when an earlier run stopped
    row = json.loads(lines[3])
    journal_path(out).write_text(json.dumps({"request_hash": row["request_hash"], "kind": row["kind"],
                                             "response": row["response"]}) + "\n" + '{"request_hash": "rq-half')
    resumed = run_batch(requests_file, out, DEMO)
    assert resumed.skipped == 4 and resumed.computed == 4  # lines 1, 2, 4 and the repeat of line 1 were done
    assert out.read_bytes() == reference.read_bytes() and not journal_path(out).exists()
    assert audit_count(isolated_home) == audited + 4  # only what was not done before is audited


def test_the_cli_reports_bad_lines_with_their_numbers(
    requests_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["--corpus", "demo", "batch", str(requests_file), "-o", str(tmp_path / "r.jsonl"), "--workers", "1",
                 "--json"])
    captured = capsys.readouterr()
    assert code == 0 and json.loads(captured.out)["answered"] == 8
    assert f"{requests_file}: line 3: as_of_date" in captured.err and f"{requests_file}: line 5: not valid JSON" in captured.err


@pytest.mark.integration
def test_a_database_gone_mid_batch_stops_with_what_is_done_and_resumes(
    requests_file: Path, tmp_path: Path, isolated_home: Path
) -> None:
    from clauseguard.corpus.postgres_store import PostgresStore
    from clauseguard.testing_postgres import start_server

    reference = tmp_path / "reference.jsonl"
    run_batch(requests_file, reference, DEMO)
    try:
        server = start_server()
    except Exception as exc:  # noqa: BLE001 - the integration fixtures decide skip vs fail; here the same rule
        import os
        if os.environ.get("CI") == "true":
            raise
        pytest.skip(f"PostgreSQL is not available here ({exc})")
    try:
        url = server.create_database("batch")
        with PostgresStore(url) as store:
            store.add(load_demo())  # the same corpus, so the same answers as the demo
        source = Source(store_url=url)
        out = tmp_path / "results.jsonl"
        halted: list[int] = []

        def stop_after_first_chunk(done: int, total: int) -> None:
            if done and not halted:
                halted.append(done)
                server.halt()

        with pytest.raises(EnvironmentFailure, match="run the same command again to resume") as stopped:
            run_batch(requests_file, out, source, chunk_size=2, progress=stop_after_first_chunk)
        assert "postgresql://clauseguard@127.0.0.1" in str(stopped.value) and "test-secret-pw" not in str(stopped.value)
        partial = [json.loads(line) for line in out.read_text().splitlines() if "request_hash" in line]
        assert len({r["request_hash"] for r in partial}) == halted[0] == 2  # the first chunk, recorded
        server.start_again()
        resumed = run_batch(requests_file, out, source, chunk_size=2)
        assert resumed.skipped == 3 and out.read_bytes() == reference.read_bytes()  # lines 1, 2 and the repeat of 1
    finally:
        server.stop()


@pytest.mark.integration
@pytest.mark.slow
def test_a_local_ray_cluster_of_two_workers_answers_like_serial(
    requests_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("ray", reason="Ray is an extra: pip install 'clauseguard[ray]'")
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")  # a throwaway loopback cluster; no token file written
    run_batch(requests_file, tmp_path / "serial.jsonl", DEMO)
    on_ray = run_batch(requests_file, tmp_path / "ray.jsonl", DEMO, workers=2, engine="ray", chunk_size=2)
    assert on_ray.computed == 7
    assert (tmp_path / "ray.jsonl").read_bytes() == (tmp_path / "serial.jsonl").read_bytes()
