"""The append-only corpus store, its timeline rules, its migrations and where the data comes from."""

from __future__ import annotations

import copy
import json
import re
import sqlite3
from collections.abc import Callable, Iterator
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest

from clauseguard.corpus import sources
from clauseguard.corpus.criteria import criteria_from_json, criteria_to_json
from clauseguard.corpus.loader import demo_corpus_path, load_demo
from clauseguard.corpus.migrations import MIGRATIONS, migrate, statements
from clauseguard.corpus.model import FORMAT_V1, Corpus
from clauseguard.corpus.sources import home_dir, open_corpus, open_persistent_store
from clauseguard.corpus.store import CorpusStore, SqliteStore, StoredClause
from clauseguard.corpus.timeline import TimelineEvent, plan_append
from clauseguard.corpus.validate import check_corpus
from clauseguard.errors import AppendOnlyError, CorpusError, NotFoundError

DOC = "MHP-MP-0142"
RIDER = "MHP-RID-DME"
C1 = "MHP-MP-0142.v1.C1"
C2 = "MHP-MP-0142.v1.C2"
C2_TEXT = "CGM is medically necessary for type 1 diabetes with fingerstick testing."
# Policy-as-code as an author writes it (spans as text, numbers as YAML would keep them) ...
CRITERIA = {"rules": [{"effect": "covered", "span": "CGM is medically necessary for type 1 diabetes",
                       "population": {"kind": "condition", "id": "a1", "span": "type 1 diabetes",
                                      "concept": "type 1 diabetes mellitus"}}]}
# ... and the canonical form the corpus keeps, stores and exports.
CANONICAL = criteria_to_json(criteria_from_json(CRITERIA, C2_TEXT))


def base_data() -> dict[str, Any]:
    """A small corpus: one payer, two plans, a medical policy (v1 open-ended) and a rider."""
    return {
        "format": FORMAT_V1,
        "payers": [{"id": "MHP", "name": "Meridian Health Plan"}],
        "plans": [
            {"id": "MHP-PPO-GOLD", "payer": "MHP", "name": "Meridian PPO Gold", "riders": [RIDER]},
            {"id": "MHP-HMO-BASE", "payer": "MHP", "name": "Meridian HMO Base"},
        ],
        "contracts": [
            {"id": "CT-48213", "plan": "MHP-PPO-GOLD", "holder": "Acme Ltd", "effective_date": "2022-06-01",
             "end_date": None, "terms_anchor": "contract_date"}
        ],
        "codes": [
            {"code": "A9276", "system": "HCPCS", "descriptor": "Sensor; invasive, disposable"},
            {"code": "95249", "system": "CPT", "descriptor": "Ambulatory continuous glucose monitoring"},
            {"code": "E1399", "system": "HCPCS", "descriptor": "Durable medical equipment, miscellaneous"},
        ],
        "documents": [
            {
                "id": DOC, "payer": "MHP", "kind": "medical_policy",
                "title": "Continuous Glucose Monitoring (Personal Use)", "codes": ["A9276", "95249"],
                "versions": [
                    {
                        "version": "v1", "effective_start": "2023-01-01", "effective_end": None,
                        "source": {"file": "cgm-2023.pdf", "sha256": "ab12", "reader": "pdf"},
                        "clauses": [
                            {"id": C1, "section": "Scope", "text": "This policy covers personal-use CGM.", "kind": "scope",
                             "page": 1},
                            {"id": C2, "section": "Coverage Criteria",
                             "text": "CGM is medically necessary for type 1 diabetes with fingerstick testing.",
                             "kind": "criteria", "article": "7.3 Devices", "page": 2, "page_label": "ii",
                             "benefit": "cgm", "coverage_type": "conditional", "criteria": CRITERIA},
                        ],
                    }
                ],
            },
            {
                "id": RIDER, "payer": "MHP", "kind": "rider", "title": "DME expansion rider", "codes": ["E1399"],
                "plans": ["MHP-PPO-GOLD"], "overrides": [DOC],
                "versions": [
                    {"version": "R1", "effective_start": "2023-01-01", "effective_end": "2025-12-31",
                     "clauses": [{"id": "MHP-RID-DME.R1.C1", "section": "Waiver", "text": "The fingerstick requirement is waived."}]}
                ],
            },
        ],
    }


def corpus_of(data: dict[str, Any]) -> Corpus:
    return Corpus.model_validate(data)


def new_version(label: str, start: str, end: str | None, *, clause_ids: list[str] | None = None) -> Corpus:
    """A partial corpus holding only a new version of DOC (its payer and codes are already stored)."""
    ids = clause_ids or [f"{DOC}.{label}.C1"]
    return corpus_of(
        {
            "format": FORMAT_V1,
            "documents": [
                {
                    "id": DOC, "payer": "MHP", "kind": "medical_policy",
                    "title": "Continuous Glucose Monitoring (Personal Use)",
                    "versions": [
                        {"version": label, "effective_start": start, "effective_end": end,
                         "clauses": [{"id": i, "section": "Coverage", "text": f"Text of {i}."} for i in ids]}
                    ],
                }
            ],
        }
    )


def fixed_clock() -> datetime:
    return datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC)


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.integration)])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    """Every store test runs against both backends: the SQLite file and a PostgreSQL database."""
    if request.param == "sqlite":
        s: Any = SqliteStore(tmp_path / "store.sqlite", clock=fixed_clock)
    else:
        from clauseguard.corpus.postgres_store import PostgresStore

        s = PostgresStore(request.getfixturevalue("pg_url"), clock=fixed_clock)
    yield s
    s.close()


def raw_rows(store: Any, sql: str) -> list[tuple[Any, ...]]:
    """A query straight to the backend's database, beside the store's own connection."""
    if isinstance(store, SqliteStore):
        conn = sqlite3.connect(store.path)
        try:
            return conn.execute(sql).fetchall()
        finally:
            conn.close()
    import psycopg

    with psycopg.connect(store.url) as pg:
        return list(pg.execute(sql).fetchall())


def row_counts(store: Any) -> dict[str, int]:
    if isinstance(store, SqliteStore):
        tables = [r[0] for r in raw_rows(store, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    else:
        tables = [r[0] for r in raw_rows(store, "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1")]
    return {t: raw_rows(store, f'SELECT count(*) FROM "{t}"')[0][0] for t in tables}  # noqa: S608


# -- round trip and no-ops ---------------------------------------------------------------------


def test_round_trip_gives_the_same_corpus_and_fingerprint(store: SqliteStore) -> None:
    corpus = corpus_of(base_data())
    assert store.is_empty()
    report = store.add(corpus)
    assert report.changed and not store.is_empty()
    assert store.corpus() == corpus.normalised()
    assert store.fingerprint() == corpus.fingerprint() == report.fingerprint
    assert report.documents == (DOC, RIDER) and report.clauses == (C1, C2, "MHP-RID-DME.R1.C1")
    assert report.payers == ("MHP",) and set(report.codes) == {"A9276", "95249", "E1399"}
    assert isinstance(store, CorpusStore)
    # A second handle reads the same thing from the file alone.
    with store.reopen() as again:
        assert again.corpus().canonical_json() == corpus.canonical_json()
    meta = dict(raw_rows(store, "SELECT key, value FROM meta"))
    assert meta["fingerprint"] == corpus.fingerprint()


def test_an_empty_store_holds_the_empty_corpus(store: SqliteStore) -> None:
    assert store.corpus() == Corpus(format=FORMAT_V1)
    assert store.fingerprint() == Corpus(format=FORMAT_V1).fingerprint()


def test_adding_the_same_corpus_twice_changes_nothing(store: SqliteStore) -> None:
    corpus = corpus_of(base_data())
    store.add(corpus)
    counts, timeline = row_counts(store), store.timeline(DOC)
    report = store.add(corpus)
    assert not report.changed and report.summary().startswith("Nothing new")
    assert row_counts(store) == counts
    assert store.timeline(DOC) == timeline
    assert store.fingerprint() == corpus.fingerprint()


def test_plan_append_of_identical_records_is_a_no_op() -> None:
    corpus = corpus_of(base_data()).normalised()
    plan = plan_append(corpus, corpus)
    assert not plan.changed and plan.events == () and plan.result == corpus
    assert check_corpus([("store", plan.result)]) == []


# -- refusals: nothing is rewritten, nothing is written --------------------------------------


def test_changed_clause_text_is_refused_and_nothing_is_written(store: SqliteStore) -> None:
    store.add(corpus_of(base_data()))
    before, counts = store.fingerprint(), row_counts(store)
    data = base_data()
    data["documents"][0]["versions"][0]["clauses"][1]["text"] = "CGM is covered for everyone."
    data["documents"][0]["versions"][0]["clauses"][1]["criteria"] = None  # its spans quoted the old text
    # A valid new payer in the same corpus must not be written either: the add is all or nothing.
    data["payers"].append({"id": "OTH", "name": "Other Payer"})
    with pytest.raises(AppendOnlyError) as caught:
        store.add(corpus_of(data))
    message = str(caught.value)
    assert f"changed text under existing version label v1 of document {DOC}" in message
    assert C2 in message and "text differs" in message
    assert caught.value.problems[0].path == f"documents[{DOC}].versions[v1].clauses"
    assert store.fingerprint() == before
    assert row_counts(store) == counts


def test_other_clause_fields_and_missing_clauses_under_a_stored_label_are_refused(store: SqliteStore) -> None:
    store.add(corpus_of(base_data()))
    data = base_data()
    data["documents"][0]["versions"][0]["clauses"][1]["page"] = 3
    with pytest.raises(AppendOnlyError, match=f"clause {C2} page differs"):
        store.add(corpus_of(data))
    data = base_data()
    del data["documents"][0]["versions"][0]["clauses"][0]
    with pytest.raises(AppendOnlyError, match=f"stored clause {C1} is missing"):
        store.add(corpus_of(data))


def test_a_reused_clause_id_is_refused_even_with_the_same_text(store: SqliteStore) -> None:
    store.add(corpus_of(base_data()))
    counts = row_counts(store)
    with pytest.raises(AppendOnlyError) as caught:
        store.add(new_version("v2", "2024-07-01", None, clause_ids=[C1]))
    assert f"clause id {C1} is already stored under version v1 of document {DOC}" in str(caught.value)
    assert "never reused" in str(caught.value)
    assert row_counts(store) == counts


def test_changed_payer_plan_contract_code_or_document_fields_are_refused(store: SqliteStore) -> None:
    store.add(corpus_of(base_data()))
    edits: list[tuple[Callable[[dict[str, Any]], object], str]] = [
        (lambda d: d["payers"][0].update(name="Meridian"), "payer MHP is already stored with name"),
        (lambda d: d["plans"][1].update(name="HMO"), "plan MHP-HMO-BASE is already stored with name"),
        (lambda d: d["contracts"][0].update(effective_date="2022-07-01"), "contract CT-48213 is already stored with effective_date '2022-06-01'"),
        (lambda d: d["codes"][0].update(descriptor="Sensor"), "code A9276 is already stored with descriptor"),
        (lambda d: d["documents"][0].update(title="CGM"), f"document {DOC} is already stored with title"),
        (lambda d: d["documents"][0]["versions"][0].update(effective_start="2023-02-01"), "version v1 of document MHP-MP-0142 is stored with effective_start"),
        (lambda d: d["documents"][1]["versions"][0].update(effective_end="2026-12-31"), "A closed version's end never moves"),
    ]
    for edit, expected in edits:
        data = base_data()
        edit(data)
        with pytest.raises(AppendOnlyError, match=re.escape(expected)):
            store.add(corpus_of(data))
    assert store.fingerprint() == corpus_of(base_data()).fingerprint()


def test_a_result_that_breaks_cross_references_is_refused(store: SqliteStore) -> None:
    store.add(corpus_of(base_data()))
    data = {"format": FORMAT_V1, "plans": [{"id": "X-PLAN", "payer": "NOPE", "name": "Orphan"}]}
    with pytest.raises(CorpusError, match="unknown payer 'NOPE'") as caught:
        store.add(corpus_of(data))
    assert not isinstance(caught.value, AppendOnlyError)
    assert store.fingerprint() == corpus_of(base_data()).fingerprint()


# -- versions on one timeline ------------------------------------------------------------------


def test_a_new_version_after_a_closed_one_is_added_beside_it(store: SqliteStore) -> None:
    data = base_data()
    data["documents"][0]["versions"][0]["effective_end"] = "2023-12-31"
    store.add(corpus_of(data))
    report = store.add(new_version("v2", "2024-01-01", None))
    assert report.versions == ((DOC, "v2"),) and report.clauses == (f"{DOC}.v2.C1",)
    versions = {v.version: v for v in store.corpus().documents[0].versions}
    assert versions["v1"].effective_end == date(2023, 12, 31) and versions["v2"].effective_end is None
    assert [e.kind for e in report.events] == ["version_added"]


def test_a_new_version_inside_an_open_ended_one_closes_it_the_day_before(store: SqliteStore) -> None:
    original = corpus_of(base_data())
    store.add(original)
    v1_clause_before = store.clause(C2)
    report = store.add(new_version("v2", "2024-07-01", None))
    assert [(e.kind, e.version, e.date) for e in report.events] == [
        ("version_closed", "v1", date(2024, 6, 30)),
        ("version_added", "v2", date(2024, 7, 1)),
    ]
    assert "the day before version v2 starts on 2024-07-01" in report.events[0].detail
    assert "1 version(s) closed" in report.summary()
    timeline = store.timeline(DOC)
    assert [(e.kind, e.version, e.date.isoformat()) for e in timeline] == [
        ("version_added", "v1", "2023-01-01"),
        ("version_closed", "v1", "2024-06-30"),
        ("version_added", "v2", "2024-07-01"),
    ]
    assert all(e.recorded_at is None for e in timeline)
    assert {e.recorded_at for e in store.timeline(DOC, with_recorded_at=True)} == {"2025-01-02T03:04:05+00:00"}
    after = store.clause(C2)
    assert after is not None and v1_clause_before is not None
    assert after.text == v1_clause_before.text and after.effective_end == date(2024, 6, 30)
    assert check_corpus([("store", store.corpus())]) == []
    # Loading the original file again (v1 still open-ended there) changes nothing and says why.
    again = store.add(original)
    assert not again.changed and any("kept as stored" in n for n in again.notes)
    # The stored corpus exported and loaded into a fresh store is the same corpus.
    with SqliteStore(":memory:") as copy_store:
        copy_store.add(store.corpus())
        assert copy_store.fingerprint() == store.fingerprint()


def test_a_corpus_giving_the_end_of_a_stored_open_version_closes_it(store: SqliteStore) -> None:
    store.add(corpus_of(base_data()))
    data = base_data()
    data["documents"][0]["versions"][0]["effective_end"] = "2024-03-31"
    data["documents"][0]["versions"].append(
        {"version": "v2", "effective_start": "2024-04-01",
         "clauses": [{"id": f"{DOC}.v2.C1", "section": "Coverage", "text": "New text."}]}
    )
    report = store.add(corpus_of(data))
    assert [(e.kind, e.version, e.date.isoformat()) for e in report.events] == [
        ("version_closed", "v1", "2024-03-31"),
        ("version_added", "v2", "2024-04-01"),
    ]
    assert store.fingerprint() == corpus_of(data).fingerprint()


@pytest.mark.parametrize(
    ("stored_end", "label", "start", "end", "both"),
    [
        # overlaps a closed version
        ("2023-12-31", "v2", "2023-06-01", None, "v1 (2023-01-01 to 2023-12-31) and v2 (2023-06-01 to open-ended)"),
        # starts the same day as the open-ended version: nothing to close the day before
        (None, "v2", "2023-01-01", None, "v1 (2023-01-01 to open-ended) and v2 (2023-01-01 to open-ended)"),
        # starts before the open-ended version and runs into it
        (None, "v0", "2022-01-01", "2023-06-30", "v1 (2023-01-01 to open-ended) and v0 (2022-01-01 to 2023-06-30)"),
    ],
)
def test_any_other_overlap_is_refused_naming_both_versions(
    store: SqliteStore, stored_end: str | None, label: str, start: str, end: str | None, both: str
) -> None:
    data = base_data()
    data["documents"][0]["versions"][0]["effective_end"] = stored_end
    store.add(corpus_of(data))
    counts = row_counts(store)
    with pytest.raises(AppendOnlyError) as caught:
        store.add(new_version(label, start, end))
    assert f"versions of document {DOC} overlap: {both}" in str(caught.value)
    assert row_counts(store) == counts


def test_overlapping_versions_inside_the_corpus_being_added_are_an_error(store: SqliteStore) -> None:
    store.add(corpus_of(base_data()))
    data = new_version("v2", "2024-01-01", None).model_dump(mode="json")
    data["documents"][0]["versions"].append(
        {"version": "v3", "effective_start": "2024-06-01", "effective_end": None,
         "clauses": [{"id": f"{DOC}.v3.C1", "section": "S", "text": "T"}]}
    )
    with pytest.raises(CorpusError, match="v2 \\(2024-01-01 to open-ended\\) and v3 \\(2024-06-01 to open-ended\\)"):
        store.add(corpus_of(data))


def test_timeline_of_an_unknown_document_is_an_error(store: SqliteStore) -> None:
    store.add(corpus_of(base_data()))
    with pytest.raises(NotFoundError, match="unknown document 'NOPE'"):
        store.timeline("NOPE")


# -- lists that may only grow ----------------------------------------------------------------


def test_plan_riders_and_document_links_may_grow(store: SqliteStore) -> None:
    store.add(corpus_of(base_data()))
    data = base_data()
    data["plans"][1]["riders"] = [RIDER]  # attach the rider to the HMO plan too
    data["documents"][1]["plans"] = ["MHP-PPO-GOLD", "MHP-HMO-BASE"]
    data["documents"][0]["codes"] = ["A9276"]  # a shorter list removes nothing
    data["codes"].append({"code": "95250", "system": "CPT", "descriptor": "CGM, physician"})
    data["documents"][0]["codes"].append("95250")
    report = store.add(corpus_of(data))
    assert report.codes == ("95250",)
    assert "plan MHP-HMO-BASE: riders MHP-RID-DME added (a plan's riders only grow)" in report.notes
    assert f"document {RIDER}: plans MHP-HMO-BASE added (these lists only grow)" in report.notes
    stored = store.corpus()
    assert {p.id: p.riders for p in stored.plans}["MHP-HMO-BASE"] == (RIDER,)
    assert stored.documents[0].codes == ("95249", "95250", "A9276")
    assert report.events == ()
    assert check_corpus([("store", stored)]) == []


# -- the database refuses rewrites too ----------------------------------------------------------


def test_triggers_block_update_and_delete_of_clauses(store: SqliteStore) -> None:
    if not isinstance(store, SqliteStore):
        pytest.skip("the SQLite triggers; PostgreSQL's are tested in tests/corpus/test_postgres_store.py")
    store.add(corpus_of(base_data()))
    conn = sqlite3.connect(store.path)
    try:
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            conn.execute("UPDATE clauses SET text = 'rewritten' WHERE id = ?", (C1,))
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            conn.execute("DELETE FROM clauses WHERE id = ?", (C1,))
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            conn.execute("DELETE FROM versions")
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):  # a closed end never moves
            conn.execute("UPDATE versions SET effective_end = '2026-01-01' WHERE label = 'R1'")
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):  # closing cannot change the start
            conn.execute("UPDATE versions SET effective_end = '2024-01-01', effective_start = '2022-01-01' WHERE label = 'v1'")
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            conn.execute("UPDATE payers SET name = 'x'")
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            conn.execute("DELETE FROM timeline_events")
        conn.rollback()
        with pytest.raises(sqlite3.DatabaseError, match="timeline event"):  # not without its recorded event
            conn.execute("UPDATE versions SET effective_end = '2024-06-30' WHERE label = 'v1'")
        conn.rollback()
        # The one change allowed: an open-ended version gets an end date, with its timeline event.
        conn.execute(
            "INSERT INTO timeline_events (document_id, kind, version, date, detail, recorded_at) "
            "VALUES (?, 'version_closed', 'v1', '2024-06-30', 'closed by hand', 'now')", (DOC,)
        )
        conn.execute("UPDATE versions SET effective_end = '2024-06-30' WHERE label = 'v1'")
        conn.commit()
    finally:
        conn.close()
    assert store.corpus().documents[0].versions[0].effective_end == date(2024, 6, 30)
    assert store.clause(C1) is not None and store.clause(C1).text == "This policy covers personal-use CGM."  # type: ignore[union-attr]


# -- migrations ------------------------------------------------------------------------------


def test_migrations_are_applied_once_and_recorded(tmp_path: Path) -> None:
    path = tmp_path / "m.sqlite"
    SqliteStore(path).close()
    SqliteStore(path).close()
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        rows = conn.execute("SELECT id FROM _migrations ORDER BY rowid").fetchall()
        assert [r[0] for r in rows] == [mid for mid, _ in MIGRATIONS]
        assert migrate(conn) == []
        triggers = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")}
        assert {"clauses_no_update", "clauses_no_delete", "versions_only_close"} <= triggers
        conn.execute("INSERT INTO _migrations (id, applied_at) VALUES ('m999_from_the_future', 'x')")
    finally:
        conn.close()
    with pytest.raises(CorpusError, match="newer clauseguard"):
        SqliteStore(path)


def test_statements_keep_trigger_bodies_whole() -> None:
    sql = "CREATE TABLE t (a TEXT);\nCREATE TRIGGER x BEFORE DELETE ON t BEGIN SELECT RAISE(ABORT, 'no; never'); END;\n"
    assert statements(sql) == [
        "CREATE TABLE t (a TEXT);",
        "CREATE TRIGGER x BEFORE DELETE ON t BEGIN SELECT RAISE(ABORT, 'no; never'); END;",
    ]


def test_a_file_that_is_not_a_store_is_a_corpus_error(tmp_path: Path) -> None:
    path = tmp_path / "notes.sqlite"
    path.write_text("not a database at all, just some text that is long enough " * 20)
    with pytest.raises(CorpusError, match="not a usable clauseguard store"):
        SqliteStore(path)


# -- cold reads --------------------------------------------------------------------------------


def test_clause_is_a_cold_read_with_its_document_and_version(store: Any) -> None:
    store.add(corpus_of(base_data()))
    got = store.clause(C2)
    assert got == StoredClause(
        id=C2, document_id=DOC, document_title="Continuous Glucose Monitoring (Personal Use)",
        document_kind="medical_policy", payer="MHP", version="v1", effective_start=date(2023, 1, 1),
        effective_end=None, section="Coverage Criteria",
        text="CGM is medically necessary for type 1 diabetes with fingerstick testing.", kind="criteria",
        article="7.3 Devices", page=2, page_label="ii", benefit="cgm", coverage_type="conditional",
        criteria=CANONICAL, document_codes=("95249", "A9276"),
    )
    assert got.as_clause() == corpus_of(base_data()).documents[0].versions[0].clauses[1]
    assert got.covers(date(2030, 1, 1)) and not got.covers(date(2022, 12, 31))
    assert store.clause("NOPE") is None
    # No cache: a version closed through another handle shows at the next read.
    with store.reopen() as writer:
        writer.add(new_version("v2", "2024-07-01", None))
    closed = store.clause(C2)
    assert closed is not None and closed.effective_end == date(2024, 6, 30)
    assert store.clause(f"{DOC}.v2.C1") is not None


# -- where the data comes from -------------------------------------------------------------------


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "home"
    monkeypatch.setenv("CLAUSEGUARD_HOME", str(path))
    return path


@pytest.fixture
def demo(monkeypatch: pytest.MonkeyPatch) -> Corpus:
    """A stand-in for the bundled demo corpus (the real one is tested where it is built)."""
    data = base_data()
    data["payers"][0]["name"] = "Meridian Health Plan (demo)"
    corpus = corpus_of(data).normalised()
    monkeypatch.setattr(sources, "load_demo", lambda: corpus)
    return corpus


def write_corpus(path: Path, data: dict[str, Any]) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_home_dir_follows_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CLAUSEGUARD_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "me"))
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    assert home_dir() == tmp_path / "me" / ".local" / "share" / "clauseguard"
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert home_dir() == tmp_path / "xdg" / "clauseguard"
    monkeypatch.setenv("CLAUSEGUARD_HOME", str(tmp_path / "cg"))
    assert home_dir() == tmp_path / "cg"


def test_corpus_demo_opens_the_bundled_demo(home: Path, demo: Corpus) -> None:
    opened = open_corpus("demo", None)
    assert opened.origin == "demo" and opened.corpus == demo
    assert opened.store.fingerprint() == demo.fingerprint()
    assert "bundled demo corpus" in opened.description
    assert not (home / "store.sqlite").exists()
    opened.store.close()


def test_corpus_path_is_cached_by_fingerprint_and_reused(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    file = write_corpus(tmp_path / "corpus.json", base_data())
    builds: list[Path] = []
    real_build = sources._build_atomically

    def counting_build(target: Path, corpus: Corpus, source: str) -> None:
        builds.append(target)
        real_build(target, corpus, source)

    monkeypatch.setattr(sources, "_build_atomically", counting_build)
    first = open_corpus(str(file), None)
    fingerprint = corpus_of(base_data()).fingerprint()
    cache = home / "cache" / f"{fingerprint.removeprefix('sha256:')}.sqlite"
    assert first.origin == "path" and builds == [cache] and cache.exists()
    assert first.store.fingerprint() == fingerprint == first.corpus.fingerprint()
    first.store.close()
    second = open_corpus(str(file), None)
    assert builds == [cache]  # reused, not rebuilt
    assert second.store.corpus() == first.corpus
    second.store.close()
    assert sorted(p.name for p in cache.parent.iterdir()) == [cache.name]  # no half-built leftovers
    assert not (home / "store.sqlite").exists()  # never mixed with the persistent store


def test_a_failed_cache_build_leaves_nothing_behind(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    file = write_corpus(tmp_path / "corpus.json", base_data())

    def broken_add(self: SqliteStore, corpus: Corpus, *, source: str = "") -> None:
        raise CorpusError("disk full")

    monkeypatch.setattr(SqliteStore, "add", broken_add)
    with pytest.raises(CorpusError, match="disk full"):
        open_corpus(str(file), None)
    assert list((home / "cache").iterdir()) == []


def test_no_corpus_option_reads_the_home_store_when_it_holds_documents(home: Path, demo: Corpus) -> None:
    data = base_data()
    data["payers"][0]["name"] = "Meridian Health Plan (home)"
    with open_persistent_store(None) as persistent:
        persistent.add(corpus_of(data))
    opened = open_corpus(None, None)
    assert opened.origin == "home" and opened.corpus == corpus_of(data).normalised()
    assert str(home / "store.sqlite") in opened.description and "2 documents" in opened.description
    opened.store.close()


def test_no_corpus_option_and_an_empty_home_gives_the_demo(home: Path, demo: Corpus) -> None:
    opened = open_corpus(None, None)
    assert opened.origin == "demo-while-empty" and opened.corpus == demo
    assert opened.store.fingerprint() == demo.fingerprint()
    assert "holds no document yet" in opened.description
    assert not (home / "store.sqlite").exists()  # reading never creates the persistent store
    opened.store.close()
    open_persistent_store(None).close()  # an existing but empty store still gives the demo
    again = open_corpus(None, None)
    assert again.origin == "demo-while-empty"
    again.store.close()


def test_store_option_without_corpus_is_the_persistent_store(home: Path, tmp_path: Path, demo: Corpus) -> None:
    path = tmp_path / "team.sqlite"
    with open_persistent_store(str(path)) as persistent:
        persistent.add(corpus_of(base_data()))
    opened = open_corpus(None, str(path))
    assert opened.origin == "home" and opened.corpus.fingerprint() == corpus_of(base_data()).fingerprint()
    opened.store.close()


def test_store_option_with_another_corpus_is_refused(home: Path, tmp_path: Path) -> None:
    first = write_corpus(tmp_path / "a.json", base_data())
    other = base_data()
    other["payers"][0]["name"] = "Another name"
    second = write_corpus(tmp_path / "b.json", other)
    target = tmp_path / "pinned.sqlite"
    opened = open_corpus(str(first), str(target))
    assert opened.store.fingerprint() == corpus_of(base_data()).fingerprint()
    opened.store.close()
    reused = open_corpus(str(first), str(target))  # the same corpus: reused
    reused.store.close()
    with pytest.raises(CorpusError, match="holds another corpus"):
        open_corpus(str(second), str(target))
    with SqliteStore(target) as kept:
        assert kept.fingerprint() == corpus_of(base_data()).fingerprint()
    assert not (home / "cache").exists()


def test_a_corpus_file_with_overlapping_versions_is_a_corpus_error(home: Path, tmp_path: Path) -> None:
    data = base_data()
    data["documents"][0]["versions"][0]["effective_end"] = "2024-06-30"
    data["documents"][0]["versions"].append(
        copy.deepcopy(
            {"version": "v2", "effective_start": "2024-01-01", "effective_end": None,
             "clauses": [{"id": f"{DOC}.v2.C1", "section": "Coverage", "text": "New text."}]}
        )
    )
    file = write_corpus(tmp_path / "overlap.json", data)
    with pytest.raises(CorpusError) as caught:
        open_corpus(str(file), None)
    message = str(caught.value)
    assert f"versions of document {DOC} overlap" in message
    assert "v1 (2023-01-01 to 2024-06-30)" in message and "v2 (2024-01-01 to open-ended)" in message
    assert not (home / "cache").exists()


def test_the_real_demo_corpus_round_trips_when_it_is_there(tmp_path: Path) -> None:
    if not demo_corpus_path().exists():
        pytest.skip(f"the bundled demo corpus is not there yet ({demo_corpus_path()})")
    try:
        corpus = load_demo()
    except CorpusError as exc:
        pytest.skip(f"the bundled demo corpus does not validate yet: {exc}")
    with SqliteStore(tmp_path / "demo.sqlite") as s:
        s.add(corpus)
        assert s.fingerprint() == corpus.fingerprint()


def test_timeline_events_are_plain_records() -> None:
    event = TimelineEvent("D", "version_added", "v1", date(2024, 1, 1), "added", recorded_at="x")
    assert event == TimelineEvent("D", "version_added", "v1", date(2024, 1, 1), "added")
