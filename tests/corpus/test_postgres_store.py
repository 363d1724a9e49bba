"""What only PostgreSQL needs proving: its triggers, the same fingerprint as SQLite, concurrent appends
from several handles, its audit log, and a wrong password or dead host told without the password."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import psycopg
import pytest

from clauseguard.audit import AUDIT_MIGRATIONS
from clauseguard.corpus.loader import load_demo
from clauseguard.corpus.migrations import MIGRATIONS
from clauseguard.corpus.postgres_store import PostgresStore
from clauseguard.corpus.sources import open_corpus
from clauseguard.corpus.store import SqliteStore
from clauseguard.engine import Engine
from clauseguard.errors import AppendOnlyError, ClauseguardError, CorpusError
from clauseguard.interfaces.cli import main
from clauseguard.interfaces.demo_commands import DEMO_DETERMINATION
from clauseguard.replay import replay
from clauseguard.testing_postgres import PASSWORD, PostgresServer, free_port
from tests.corpus.test_store import C1, DOC, base_data, corpus_of, new_version

pytestmark = pytest.mark.integration


@pytest.fixture
def pg(pg_url: str) -> Any:
    store = PostgresStore(pg_url)
    yield store
    store.close()


def refused(url: str, sql: str) -> str:
    with psycopg.connect(url) as conn, pytest.raises(psycopg.Error) as caught:
        conn.execute(sql)
    return str(caught.value)


def test_triggers_refuse_every_rewrite(pg: PostgresStore, pg_url: str) -> None:
    pg.add(corpus_of(base_data()))
    for sql in (
        "UPDATE clauses SET text = 'rewritten' WHERE id = 'MHP-MP-0142.v1.C1'",
        "DELETE FROM clauses WHERE id = 'MHP-MP-0142.v1.C1'",
        "TRUNCATE clauses CASCADE",
        "DELETE FROM versions",
        "UPDATE versions SET effective_end = '2026-01-01' WHERE label = 'R1'",
        "UPDATE versions SET effective_end = '2024-01-01', effective_start = '2022-01-01' WHERE label = 'v1'",
        "UPDATE payers SET name = 'x'",
        "DELETE FROM timeline_events",
        "TRUNCATE version_seals",
        "INSERT INTO clauses (id, version_id, position, section, text) "
        "SELECT 'MHP-MP-0142.v1.C9', id, 9, 'Coverage', 'Covered for everyone.' FROM versions WHERE label = 'v1'",
    ):
        assert "append-only" in refused(pg_url, sql), sql
    assert "timeline event" in refused(pg_url, "UPDATE versions SET effective_end = '2024-06-30' WHERE label = 'v1'")
    with psycopg.connect(pg_url) as conn:  # the one allowed change, with its recorded event
        conn.execute("INSERT INTO timeline_events (document_id, kind, version, date, detail, recorded_at) "
                     "VALUES (%s, 'version_closed', 'v1', '2024-06-30', 'closed by hand', 'now')", (DOC,))
        conn.execute("UPDATE versions SET effective_end = '2024-06-30' WHERE label = 'v1'")
    assert pg.clause(C1) is not None and pg.clause(C1).effective_end is not None  # type: ignore[union-attr]


def test_the_same_content_has_the_same_fingerprint_and_migrations_in_both_backends(pg: PostgresStore, pg_url: str) -> None:
    demo = load_demo()
    pg.add(demo)
    with SqliteStore(":memory:") as lite:
        lite.add(demo)
        assert pg.fingerprint() == lite.fingerprint() == demo.fingerprint() == pg.stored_fingerprint()
        assert pg.corpus().canonical_json() == lite.corpus().canonical_json()
        assert pg.version_states() == lite.version_states()
    with psycopg.connect(pg_url) as conn:
        assert [r[0] for r in conn.execute("SELECT id FROM _migrations ORDER BY id")] == [m for m, _ in MIGRATIONS]


def test_concurrent_appends_of_one_document_land_as_distinct_versions_or_are_refused(pg_url: str) -> None:
    PostgresStore(pg_url).add(corpus_of(base_data()))
    outcomes: dict[str, Any] = {}
    barrier = threading.Barrier(2)

    def ingest(name: str, corpus: Any) -> None:
        store = PostgresStore(pg_url, pool_size=1)
        try:
            barrier.wait()
            outcomes[name] = store.add(corpus)
        except ClauseguardError as exc:
            outcomes[name] = exc
        finally:
            store.close()

    threads = [threading.Thread(target=ingest, args=("v2", new_version("v2", "2024-07-01", None))),
               threading.Thread(target=ingest, args=("v3", new_version("v3", "2025-01-01", None)))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # v2 first: v3 closes v2 and both land. v3 first: v2 would overlap v3, and is refused naming both.
    landed = {name for name, o in outcomes.items() if not isinstance(o, Exception)}
    failed = [o for o in outcomes.values() if isinstance(o, Exception)]
    assert landed in ({"v2", "v3"}, {"v3"}), outcomes
    assert all(isinstance(e, CorpusError) and "v2" in str(e) and "v3" in str(e) for e in failed)
    with PostgresStore(pg_url) as store:
        versions = {v.version: v for v in store.corpus().documents[0].versions}
    assert set(versions) == {"v1"} | landed and versions["v3"].effective_end is None

    same_label = [new_version("v4", "2026-01-01", None), new_version("v4", "2026-01-01", None,
                                                                    clause_ids=[f"{DOC}.v4.OTHER"])]
    outcomes.clear()
    barrier.reset()
    threads = [threading.Thread(target=ingest, args=(f"v4-{i}", c)) for i, c in enumerate(same_label)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    errors = [o for o in outcomes.values() if isinstance(o, Exception)]
    assert len(errors) == 1 and isinstance(errors[0], AppendOnlyError) and "v4" in str(errors[0])


def test_answers_are_audited_in_the_database_and_replay_from_it(
    pg_url: str, monkeypatch: pytest.MonkeyPatch, isolated_home: Path
) -> None:
    PostgresStore(pg_url).add(load_demo())
    monkeypatch.setenv("CLAUSEGUARD_STORE_URL", pg_url)
    engine = Engine(open_corpus(None, None))
    assert engine.opened.origin == "home" and PASSWORD not in engine.opened.description
    answer = engine.search({"contract_id": "CT-48213", "question": "dental implant: coverage"})
    assert not (isolated_home / "audit.sqlite").exists()
    with psycopg.connect(pg_url) as conn:
        rows = conn.execute("SELECT trace_id, store_path FROM assertions").fetchall()
        assert [r[0] for r in conn.execute("SELECT id FROM _audit_migrations ORDER BY id")] == \
            [m for m, _ in AUDIT_MIGRATIONS]
    assert rows == [(answer.trace_id, engine.opened.store.location)] and PASSWORD not in rows[0][1]
    assert replay(answer.trace_id)["match"]
    made = engine.determine({**DEMO_DETERMINATION, "as_of_date": "2024-03-01"})
    trail = engine.audit
    assert [r.trace_id for r in trail.records("search")] == [answer.trace_id] and trail.count() == 2
    assert [r.assertion_id for r in trail.records("determination", payer="KHP", dates=("2024-01-01", None))] == \
        [made.assertion_id]
    assert list(trail.records("determination", payer="KHP", dates=("2024-03-02", "2024-12-31"))) == []
    assert list(trail.records("determination", payer="ALD")) == []


def test_a_wrong_password_is_exit_2_naming_the_url_without_it(
    postgres_server: PostgresServer, capsys: pytest.CaptureFixture[str]
) -> None:
    url = postgres_server.url(password="not-the-password")  # noqa: S106 - the point of the test
    code = main(["--store-url", url, "corpus", "stats", "--json"])
    err = capsys.readouterr().err
    assert code == 2 and "not-the-password" not in err and PASSWORD not in err
    assert f"postgresql://clauseguard@127.0.0.1:{postgres_server.port}/postgres" in err and "password" in err


def test_an_unreachable_host_is_exit_2_naming_the_url_without_its_password(capsys: pytest.CaptureFixture[str]) -> None:
    port = free_port()
    code = main(["--store-url", f"postgresql://app:hunter2@127.0.0.1:{port}/cg", "corpus", "stats", "--json"])
    err = capsys.readouterr().err
    assert code == 2 and "hunter2" not in err and f"postgresql://app@127.0.0.1:{port}/cg" in err
