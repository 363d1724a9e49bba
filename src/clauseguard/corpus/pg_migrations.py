"""Forward-only migrations of the PostgreSQL store and audit log: the same ids, tables and rules as SQLite.

Each SQLite migration has its PostgreSQL twin under the same id (`m001...`, `a001...`), recorded in
`_migrations` (store) and `_audit_migrations` (audit log). Append-only is enforced by triggers here
too, TRUNCATE included. Text columns use the "C" collation so ordering and uniqueness are bytewise,
as in SQLite. Concurrent instances migrate one at a time under an advisory lock. A released
migration is never edited; a change is a new entry at the end.
"""

from __future__ import annotations

from typing import Any, Final

REFUSE_FUNCTION: Final = """
CREATE OR REPLACE FUNCTION clauseguard_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN RAISE EXCEPTION '%', TG_ARGV[0] USING ERRCODE = 'restrict_violation'; END $$;
"""


def refuse_update_delete(table: str, what: str = "the corpus store") -> str:
    """Triggers that make a table append-only inside the database itself (TRUNCATE too)."""
    return f"""
CREATE TRIGGER {table}_no_update BEFORE UPDATE ON {table} FOR EACH ROW
EXECUTE FUNCTION clauseguard_refuse('{what} is append-only: {table} rows are never updated');
CREATE TRIGGER {table}_no_delete BEFORE DELETE ON {table} FOR EACH ROW
EXECUTE FUNCTION clauseguard_refuse('{what} is append-only: {table} rows are never deleted');
CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table} FOR EACH STATEMENT
EXECUTE FUNCTION clauseguard_refuse('{what} is append-only: {table} is never truncated');
"""


T: Final = 'TEXT COLLATE "C"'

_INITIAL_SCHEMA: Final = (
    REFUSE_FUNCTION
    + f"""
CREATE TABLE meta (key {T} PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE payers (id {T} PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE plans (id {T} PRIMARY KEY, payer {T} NOT NULL, name TEXT NOT NULL);
CREATE TABLE plan_riders (plan_id {T} NOT NULL REFERENCES plans(id), rider {T} NOT NULL, PRIMARY KEY (plan_id, rider));
CREATE TABLE contracts (id {T} PRIMARY KEY, plan {T} NOT NULL, holder TEXT NOT NULL, effective_date TEXT NOT NULL,
                        end_date TEXT, terms_anchor TEXT NOT NULL);
CREATE TABLE codes (code {T} PRIMARY KEY, system TEXT NOT NULL, descriptor TEXT NOT NULL);
CREATE TABLE documents (id {T} PRIMARY KEY, payer {T} NOT NULL, kind TEXT NOT NULL, title TEXT NOT NULL);
CREATE TABLE document_codes (document_id {T} NOT NULL REFERENCES documents(id), code {T} NOT NULL,
                             PRIMARY KEY (document_id, code));
CREATE TABLE document_plans (document_id {T} NOT NULL REFERENCES documents(id), plan_id {T} NOT NULL,
                             PRIMARY KEY (document_id, plan_id));
CREATE TABLE document_overrides (document_id {T} NOT NULL REFERENCES documents(id), target {T} NOT NULL,
                                 PRIMARY KEY (document_id, target));
CREATE TABLE versions (
    id BIGSERIAL PRIMARY KEY, document_id {T} NOT NULL REFERENCES documents(id), label {T} NOT NULL,
    effective_start TEXT NOT NULL, effective_end TEXT, source_file TEXT, source_sha256 TEXT, source_reader TEXT,
    UNIQUE (document_id, label)
);
CREATE TABLE clauses (
    id {T} PRIMARY KEY, version_id BIGINT NOT NULL REFERENCES versions(id), position INTEGER NOT NULL,
    section TEXT NOT NULL, text TEXT NOT NULL, kind TEXT, article TEXT, page INTEGER, page_label TEXT,
    benefit TEXT, coverage_type TEXT, criteria TEXT, UNIQUE (version_id, position)
);
CREATE TABLE timeline_events (
    seq BIGSERIAL PRIMARY KEY, document_id {T} NOT NULL, kind TEXT NOT NULL, version {T} NOT NULL,
    date TEXT NOT NULL, detail TEXT NOT NULL, recorded_at TEXT NOT NULL
);
CREATE INDEX timeline_events_document ON timeline_events (document_id, seq);

CREATE TRIGGER clauses_no_update BEFORE UPDATE ON clauses FOR EACH ROW EXECUTE FUNCTION
clauseguard_refuse('the corpus store is append-only: a clause id always resolves to the same text');
CREATE TRIGGER clauses_no_delete BEFORE DELETE ON clauses FOR EACH ROW EXECUTE FUNCTION
clauseguard_refuse('the corpus store is append-only: clauses are never deleted');
CREATE TRIGGER clauses_no_truncate BEFORE TRUNCATE ON clauses FOR EACH STATEMENT EXECUTE FUNCTION
clauseguard_refuse('the corpus store is append-only: clauses are never truncated');

CREATE FUNCTION clauseguard_versions_only_close() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT (OLD.effective_end IS NULL AND NEW.effective_end IS NOT NULL AND NEW.id = OLD.id
          AND NEW.document_id = OLD.document_id AND NEW.label = OLD.label
          AND NEW.effective_start = OLD.effective_start
          AND NEW.source_file IS NOT DISTINCT FROM OLD.source_file
          AND NEW.source_sha256 IS NOT DISTINCT FROM OLD.source_sha256
          AND NEW.source_reader IS NOT DISTINCT FROM OLD.source_reader) THEN
    RAISE EXCEPTION 'the corpus store is append-only: a version only changes by closing an open end'
      USING ERRCODE = 'restrict_violation';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER versions_only_close BEFORE UPDATE ON versions FOR EACH ROW
EXECUTE FUNCTION clauseguard_versions_only_close();
CREATE TRIGGER versions_no_delete BEFORE DELETE ON versions FOR EACH ROW EXECUTE FUNCTION
clauseguard_refuse('the corpus store is append-only: versions are never deleted');
CREATE TRIGGER versions_no_truncate BEFORE TRUNCATE ON versions FOR EACH STATEMENT EXECUTE FUNCTION
clauseguard_refuse('the corpus store is append-only: versions are never truncated');
"""
    + "".join(
        refuse_update_delete(t)
        for t in ("payers", "plans", "plan_riders", "contracts", "codes", "documents", "document_codes",
                  "document_plans", "document_overrides", "timeline_events")
    )
)

_SEALS: Final = (
    """
CREATE TABLE version_seals (
    version_id BIGINT PRIMARY KEY REFERENCES versions(id), content_hash TEXT NOT NULL, clause_count INTEGER NOT NULL
);
CREATE FUNCTION clauseguard_no_insert_into_sealed_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM version_seals WHERE version_id = NEW.version_id) THEN
    RAISE EXCEPTION 'the corpus store is append-only: a version that has its clauses takes no more (ingest a new version)'
      USING ERRCODE = 'restrict_violation';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER clauses_no_insert_into_sealed_version BEFORE INSERT ON clauses FOR EACH ROW
EXECUTE FUNCTION clauseguard_no_insert_into_sealed_version();
CREATE FUNCTION clauseguard_close_is_recorded() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.effective_end IS DISTINCT FROM OLD.effective_end AND NOT EXISTS (
      SELECT 1 FROM timeline_events t WHERE t.document_id = OLD.document_id AND t.kind = 'version_closed'
      AND t.version = OLD.label AND t.date = NEW.effective_end) THEN
    RAISE EXCEPTION 'the corpus store is append-only: a version is closed only with its recorded timeline event (version_closed)'
      USING ERRCODE = 'restrict_violation';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER versions_close_is_recorded BEFORE UPDATE OF effective_end ON versions FOR EACH ROW
EXECUTE FUNCTION clauseguard_close_is_recorded();
"""  # noqa: S608 - fixed DDL, no input
    + refuse_update_delete("version_seals")
)

# Criteria revisions (clauseguard.authoring), the twin of SQLite's m004: append-only, four eyes in the database.
_CRITERIA_REVISIONS: Final = (
    f"""
CREATE TABLE criteria_revisions (
    seq BIGSERIAL PRIMARY KEY, id {T} NOT NULL UNIQUE, clause_id {T} NOT NULL REFERENCES clauses(id),
    clause_sha256 TEXT NOT NULL, role TEXT NOT NULL, criteria TEXT NOT NULL, author TEXT NOT NULL,
    note TEXT NOT NULL, created_at TEXT NOT NULL, content_hash TEXT NOT NULL
);
CREATE INDEX criteria_revisions_clause ON criteria_revisions (clause_id, seq);
CREATE TABLE criteria_approvals (
    seq BIGSERIAL PRIMARY KEY, revision_id {T} NOT NULL REFERENCES criteria_revisions(id),
    approved_by TEXT NOT NULL, approved_at TEXT NOT NULL, UNIQUE (revision_id, approved_by)
);
CREATE FUNCTION clauseguard_criteria_four_eyes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM criteria_revisions r WHERE r.id = NEW.revision_id
             AND lower(btrim(r.author)) = lower(btrim(NEW.approved_by))) THEN
    RAISE EXCEPTION 'four eyes: a criteria revision is approved by someone other than its author'
      USING ERRCODE = 'restrict_violation';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER criteria_approvals_four_eyes BEFORE INSERT ON criteria_approvals FOR EACH ROW
EXECUTE FUNCTION clauseguard_criteria_four_eyes();
"""  # noqa: S608 - fixed DDL, no input
    + refuse_update_delete("criteria_revisions", "the criteria revision log")
    + refuse_update_delete("criteria_approvals", "the criteria revision log")
)

MIGRATIONS: Final[list[tuple[str, str]]] = [
    ("m001_20250101_initial_schema", _INITIAL_SCHEMA),
    ("m002_20261201_version_seals", _SEALS),
    ("m003_20261201_clause_page_end", "ALTER TABLE clauses ADD COLUMN page_end INTEGER; "
                                      "ALTER TABLE clauses ADD COLUMN page_end_label TEXT;"),
    ("m004_20261201_criteria_revisions", _CRITERIA_REVISIONS),
]

AUDIT_MIGRATIONS: Final[list[tuple[str, str]]] = [
    (
        "a001_20261130_audit_log",
        REFUSE_FUNCTION
        + """
CREATE TABLE corpora (fingerprint TEXT COLLATE "C" PRIMARY KEY, snapshot BYTEA NOT NULL, recorded_at TEXT NOT NULL);
CREATE TABLE assertions (
    seq BIGSERIAL PRIMARY KEY, assertion_id TEXT NOT NULL, trace_id TEXT NOT NULL, kind TEXT NOT NULL,
    request_hash TEXT NOT NULL, request_redacted TEXT NOT NULL, response_redacted TEXT NOT NULL,
    corpus_fingerprint TEXT COLLATE "C" NOT NULL REFERENCES corpora(fingerprint), store_path TEXT,
    settings TEXT NOT NULL, recorded_at TEXT NOT NULL
);
CREATE INDEX assertions_id ON assertions (assertion_id);
"""
        + refuse_update_delete("corpora", "the audit log")
        + refuse_update_delete("assertions", "the audit log"),
    ),
    (
        "a002_20261201_version_seals_and_missing_traces",
        """
ALTER TABLE assertions ADD COLUMN version_seals TEXT NOT NULL DEFAULT '{}';
CREATE TABLE missing_traces (
    seq BIGSERIAL PRIMARY KEY, trace_id TEXT NOT NULL, assertion_id TEXT, reason TEXT NOT NULL,
    recorded_at TEXT NOT NULL
);
"""
        + refuse_update_delete("missing_traces", "the audit log"),
    ),
    (
        "a003_20261201_sealed_originals",  # the original request, sealed (clauseguard.privacy.seal)
        "ALTER TABLE assertions ADD COLUMN request_sealed BYTEA;",
    ),
    (
        # the table of people's final decisions (clauseguard.decisions), so both backends hold one schema;
        # the decision commands write it on the SQLite audit log only, for now
        "d001_20261201_final_decisions",
        """
CREATE TABLE final_decisions (
    seq BIGSERIAL PRIMARY KEY, assertion_id TEXT NOT NULL, final_outcome TEXT NOT NULL, decided_by TEXT NOT NULL,
    reason TEXT NOT NULL, engine_gate TEXT NOT NULL, engine_outcome TEXT NOT NULL, documents TEXT NOT NULL,
    reason_codes TEXT NOT NULL, recorded_at TEXT NOT NULL
);
CREATE INDEX final_decisions_assertion ON final_decisions (assertion_id, seq);
"""
        + refuse_update_delete("final_decisions", "the decision log"),
    ),
]

LOCK_IDS: Final = {"_migrations": 7270_0001, "_audit_migrations": 7270_0002}


def migrate(conn: Any, migrations: list[tuple[str, str]], table: str, now: str) -> list[str]:
    """Apply pending migrations in one transaction under an advisory lock; the ids applied now.

    `conn` is a psycopg connection outside any transaction. RuntimeError names migrations this
    code does not know (the database was written by a newer clauseguard)."""
    known = [mid for mid, _ in migrations]
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (LOCK_IDS[table],))
        conn.execute(f"CREATE TABLE IF NOT EXISTS {table} (id TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
        done = [r[0] for r in conn.execute(f"SELECT id FROM {table} ORDER BY applied_at, id").fetchall()]  # noqa: S608
        unknown = sorted(set(done) - set(known))
        if unknown:
            raise RuntimeError(f"the database was written by a newer clauseguard (migrations {unknown}); "
                               "upgrade clauseguard")
        ran = []
        for mid, sql in migrations:
            if mid in done:
                continue
            conn.execute(sql)
            conn.execute(f"INSERT INTO {table} (id, applied_at) VALUES (%s, %s)", (mid, now))  # noqa: S608
            ran.append(mid)
    return ran
