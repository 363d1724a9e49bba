"""Issue 15, item 6: append-only, provable. The database refuses a clause slipped into a version that
already has clauses, and an end date set without its timeline event; every version's clause set is
sealed, the seals of the cited versions are in the audit row, and replay checks them, so a change
behind the store's back is a mismatch while a recorded closing is not."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from clauseguard.audit import AuditLog
from clauseguard.corpus.model import Corpus
from clauseguard.corpus.seals import clause_set_hash, version_key
from clauseguard.corpus.sources import open_corpus
from clauseguard.corpus.store import SqliteStore
from clauseguard.engine import Engine
from clauseguard.errors import CorpusError
from clauseguard.replay import replay
from tests.corpus.test_store import C1, C2, DOC, base_data, corpus_of, new_version

SEARCH = {"payer_id": "MHP", "plan_id": "MHP-HMO-BASE", "effective_date": "2023-06-01",
          "question": "Is CGM medically necessary for type 1 diabetes with fingerstick testing?", "threshold": 0.1}


@pytest.fixture
def store_file(tmp_path: Path) -> Path:
    path = tmp_path / "store.sqlite"
    with SqliteStore(path) as store:
        store.add(corpus_of(base_data()))
    return path


def raw(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(path, isolation_level=None)


def v1_id(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT id FROM versions WHERE label = 'v1'").fetchone()[0])


def test_an_insert_into_a_version_that_has_clauses_is_refused(store_file: Path) -> None:
    conn = raw(store_file)
    try:
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            conn.execute(
                "INSERT INTO clauses (id, version_id, position, section, text) VALUES (?, ?, 9, 'Coverage', ?)",
                (f"{DOC}.v1.C9", v1_id(conn), "CGM is covered for everyone."),
            )
    finally:
        conn.close()


def test_an_end_date_without_its_timeline_event_is_refused(store_file: Path) -> None:
    conn = raw(store_file)
    try:
        with pytest.raises(sqlite3.DatabaseError, match="timeline event"):
            conn.execute("UPDATE versions SET effective_end = '2023-12-31' WHERE label = 'v1'")
    finally:
        conn.close()


def test_every_version_is_sealed_with_the_hash_of_its_clauses(store_file: Path) -> None:
    corpus = corpus_of(base_data())
    conn = raw(store_file)
    try:
        seals = dict(conn.execute(
            "SELECT d.id || '@' || v.label, s.content_hash FROM version_seals s JOIN versions v ON v.id = s.version_id "
            "JOIN documents d ON d.id = v.document_id"
        ).fetchall())
    finally:
        conn.close()
    assert seals == {version_key(d.id, v.version): clause_set_hash(v.clauses) for d in corpus.documents for v in d.versions}


def tamper(path: Path, sql: list[str]) -> None:
    """What someone with the file and the sqlite3 shell can do: drop the triggers, then write."""
    conn = raw(path)
    try:
        for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'").fetchall():
            conn.execute(f'DROP TRIGGER "{name}"')
        for statement in sql:
            conn.execute(statement)
    finally:
        conn.close()


def answer_on(store_file: Path) -> dict[str, Any]:
    engine = Engine(open_corpus(None, str(store_file)))
    response = engine.search(SEARCH).as_json()
    engine.audit.close()
    return response


def test_the_audit_row_records_the_seals_of_the_cited_versions(store_file: Path, isolated_home: Path) -> None:
    response = answer_on(store_file)
    assert response["sources"], response
    log = AuditLog(isolated_home / "audit.sqlite")
    try:
        record = log.get(response["trace_id"])
    finally:
        log.close()
    v1 = corpus_of(base_data()).documents[0].versions[0]
    assert record.version_seals == {version_key(DOC, "v1"): clause_set_hash(v1.clauses)}


def test_a_clause_slipped_in_behind_the_stores_back_is_refused_and_replay_mismatches(
    store_file: Path, isolated_home: Path
) -> None:
    response = answer_on(store_file)
    assert replay(response["trace_id"])["match"]
    conn = raw(store_file)
    vid = v1_id(conn)
    conn.close()
    tamper(store_file, [
        f"INSERT INTO clauses (id, version_id, position, section, text) VALUES "  # noqa: S608 - a test's own values
        f"('{DOC}.v1.C9', {vid}, 9, 'Coverage', 'CGM is covered for everyone.')"
    ])
    with pytest.raises(CorpusError, match=f"{DOC}@v1"):  # the next command refuses the store, naming the version
        SqliteStore(store_file).corpus()
    result = replay(response["trace_id"])
    assert not result["match"] and result["tampered_versions"] == [version_key(DOC, "v1")]


def test_an_end_date_moved_behind_the_stores_back_is_a_mismatch(store_file: Path, isolated_home: Path) -> None:
    response = answer_on(store_file)
    tamper(store_file, ["UPDATE versions SET effective_end = '2023-12-31' WHERE label = 'v1'"])
    result = replay(response["trace_id"])
    assert not result["match"] and version_key(DOC, "v1") in result["tampered_versions"]


def test_a_recorded_closing_is_known_to_replay(store_file: Path, isolated_home: Path) -> None:
    response = answer_on(store_file)
    with SqliteStore(store_file) as store:
        report = store.add(new_version("v2", "2024-07-01", None))
    assert any(e.kind == "version_closed" for e in report.events)
    result = replay(response["trace_id"])
    assert result["match"], result
    assert result["closed_since"] == [{"version": version_key(DOC, "v1"), "effective_end": "2024-06-30"}]


def test_the_seal_ignores_the_end_date(store_file: Path) -> None:
    with SqliteStore(store_file) as store:
        store.add(new_version("v2", "2024-07-01", None))
        corpus: Corpus = store.corpus()
    v1 = next(v for v in corpus.documents[0].versions if v.version == "v1")
    assert v1.effective_end is not None
    assert clause_set_hash(v1.clauses) == clause_set_hash(corpus_of(base_data()).documents[0].versions[0].clauses)
    assert {c.id for c in v1.clauses} == {C1, C2}
