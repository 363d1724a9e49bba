"""Forward-only schema migrations of the SQLite corpus store, recorded in `_migrations`.

A migration, once released, is never edited or removed: a change is a new entry at the end of
`MIGRATIONS`. Applying them is idempotent and happens in one transaction per run.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Final

_APPEND_ONLY_TABLES: Final[tuple[str, ...]] = (
    "payers",
    "plans",
    "plan_riders",
    "contracts",
    "codes",
    "documents",
    "document_codes",
    "document_plans",
    "document_overrides",
    "timeline_events",
)


def refuse_update_delete(table: str, what: str = "the corpus store") -> str:
    """Triggers that make a table append-only inside the database itself."""
    return f"""
CREATE TRIGGER {table}_no_update BEFORE UPDATE ON {table}
BEGIN SELECT RAISE(ABORT, '{what} is append-only: {table} rows are never updated'); END;
CREATE TRIGGER {table}_no_delete BEFORE DELETE ON {table}
BEGIN SELECT RAISE(ABORT, '{what} is append-only: {table} rows are never deleted'); END;
"""


_INITIAL_SCHEMA: Final = (
    """
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE payers (
    id   TEXT PRIMARY KEY,
    name TEXT NOT NULL
);
CREATE TABLE plans (
    id    TEXT PRIMARY KEY,
    payer TEXT NOT NULL,
    name  TEXT NOT NULL
);
CREATE TABLE plan_riders (
    plan_id TEXT NOT NULL REFERENCES plans(id),
    rider   TEXT NOT NULL,
    PRIMARY KEY (plan_id, rider)
);
CREATE TABLE contracts (
    id             TEXT PRIMARY KEY,
    plan           TEXT NOT NULL,
    holder         TEXT NOT NULL,
    effective_date TEXT NOT NULL,
    end_date       TEXT,
    terms_anchor   TEXT NOT NULL
);
CREATE TABLE codes (
    code       TEXT PRIMARY KEY,
    system     TEXT NOT NULL,
    descriptor TEXT NOT NULL
);
CREATE TABLE documents (
    id    TEXT PRIMARY KEY,
    payer TEXT NOT NULL,
    kind  TEXT NOT NULL,
    title TEXT NOT NULL
);
CREATE TABLE document_codes (
    document_id TEXT NOT NULL REFERENCES documents(id),
    code        TEXT NOT NULL,
    PRIMARY KEY (document_id, code)
);
CREATE TABLE document_plans (
    document_id TEXT NOT NULL REFERENCES documents(id),
    plan_id     TEXT NOT NULL,
    PRIMARY KEY (document_id, plan_id)
);
CREATE TABLE document_overrides (
    document_id TEXT NOT NULL REFERENCES documents(id),
    target      TEXT NOT NULL,
    PRIMARY KEY (document_id, target)
);
CREATE TABLE versions (
    id              INTEGER PRIMARY KEY,
    document_id     TEXT NOT NULL REFERENCES documents(id),
    label           TEXT NOT NULL,
    effective_start TEXT NOT NULL,
    effective_end   TEXT,
    source_file     TEXT,
    source_sha256   TEXT,
    source_reader   TEXT,
    UNIQUE (document_id, label)
);
CREATE TABLE clauses (
    id            TEXT PRIMARY KEY,
    version_id    INTEGER NOT NULL REFERENCES versions(id),
    position      INTEGER NOT NULL,
    section       TEXT NOT NULL,
    text          TEXT NOT NULL,
    kind          TEXT,
    article       TEXT,
    page          INTEGER,
    page_label    TEXT,
    benefit       TEXT,
    coverage_type TEXT,
    criteria      TEXT,
    UNIQUE (version_id, position)
);
CREATE TABLE timeline_events (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    document_id TEXT NOT NULL,
    kind        TEXT NOT NULL,
    version     TEXT NOT NULL,
    date        TEXT NOT NULL,
    detail      TEXT NOT NULL,
    recorded_at TEXT NOT NULL
);
CREATE INDEX timeline_events_document ON timeline_events (document_id, seq);

CREATE TRIGGER clauses_no_update BEFORE UPDATE ON clauses
BEGIN SELECT RAISE(ABORT, 'the corpus store is append-only: a clause id always resolves to the same text'); END;
CREATE TRIGGER clauses_no_delete BEFORE DELETE ON clauses
BEGIN SELECT RAISE(ABORT, 'the corpus store is append-only: clauses are never deleted'); END;

-- The one change history allows: an open-ended version gets its end date (the closing event).
CREATE TRIGGER versions_only_close BEFORE UPDATE ON versions
WHEN NOT (
    OLD.effective_end IS NULL AND NEW.effective_end IS NOT NULL
    AND NEW.id IS OLD.id AND NEW.document_id IS OLD.document_id AND NEW.label IS OLD.label
    AND NEW.effective_start IS OLD.effective_start AND NEW.source_file IS OLD.source_file
    AND NEW.source_sha256 IS OLD.source_sha256 AND NEW.source_reader IS OLD.source_reader
)
BEGIN SELECT RAISE(ABORT, 'the corpus store is append-only: a version only changes by closing an open end'); END;
CREATE TRIGGER versions_no_delete BEFORE DELETE ON versions
BEGIN SELECT RAISE(ABORT, 'the corpus store is append-only: versions are never deleted'); END;
"""
    + "".join(refuse_update_delete(t) for t in _APPEND_ONLY_TABLES)
)

# Every version's clause set is sealed (its content hash) when written; a sealed version takes no
# more clauses, and an end date is set only with its recorded `version_closed` timeline event.
_SEALS: Final = (
    """
CREATE TABLE version_seals (
    version_id   INTEGER PRIMARY KEY REFERENCES versions(id),
    content_hash TEXT NOT NULL,
    clause_count INTEGER NOT NULL
);
CREATE TRIGGER clauses_no_insert_into_sealed_version BEFORE INSERT ON clauses
WHEN EXISTS (SELECT 1 FROM version_seals WHERE version_id = NEW.version_id)
BEGIN SELECT RAISE(ABORT, 'the corpus store is append-only: a version that has its clauses takes no more (ingest a new version)'); END;
CREATE TRIGGER versions_close_is_recorded BEFORE UPDATE OF effective_end ON versions
WHEN NOT EXISTS (
    SELECT 1 FROM timeline_events t WHERE t.document_id = OLD.document_id AND t.kind = 'version_closed'
    AND t.version = OLD.label AND t.date = NEW.effective_end
)
BEGIN SELECT RAISE(ABORT, 'the corpus store is append-only: a version is closed only with its recorded timeline event (version_closed)'); END;
"""  # noqa: S608 - fixed DDL, no input
    + refuse_update_delete("version_seals")
)

# (id, sql), applied in this order; ids are timestamped so their order reads at a glance.
# A clause or table that runs onto later pages keeps its last page and the label printed there
# (issue 13).
_CLAUSE_PAGE_END: Final = """
ALTER TABLE clauses ADD COLUMN page_end INTEGER;
ALTER TABLE clauses ADD COLUMN page_end_label TEXT;
"""

MIGRATIONS: Final[list[tuple[str, str]]] = [
    ("m001_20250101_initial_schema", _INITIAL_SCHEMA),
    ("m002_20261201_version_seals", _SEALS),
    ("m003_20261201_clause_page_end", _CLAUSE_PAGE_END),
]


def statements(sql: str) -> list[str]:
    """Split a script into whole statements (a trigger body's `;` does not end its statement)."""
    out: list[str] = []
    pending = ""
    for piece in sql.split(";"):
        pending += piece + ";"
        if sqlite3.complete_statement(pending):
            if pending.strip(" \n\t;"):
                out.append(pending.strip())
            pending = ""
    if pending.strip(" \n\t;"):
        out.append(pending.strip())
    return out


def applied(conn: sqlite3.Connection) -> list[str]:
    """Ids of the migrations already applied to this database, in the order they were applied."""
    exists = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_migrations'").fetchone()
    if exists is None:
        return []
    return [row[0] for row in conn.execute("SELECT id FROM _migrations ORDER BY rowid")]


def migrate(
    conn: sqlite3.Connection,
    clock: Callable[[], datetime] | None = None,
    migrations: list[tuple[str, str]] | None = None,
) -> list[str]:
    """Apply every pending migration in one transaction; return the ids applied now (often none).

    The connection must be in autocommit mode (`isolation_level=None`): this function owns the
    transaction, so a failing migration leaves the database as it was. An up-to-date database is
    only read, never locked for writing.
    """
    migrations = MIGRATIONS if migrations is None else migrations
    known = [mid for mid, _ in migrations]
    done = applied(conn)
    unknown = sorted(set(done) - set(known))
    if unknown:
        raise sqlite3.DatabaseError(
            f"the store was written by a newer clauseguard (migrations {unknown}); upgrade clauseguard"
        )
    if len(done) == len(known):
        return []
    now = (clock or (lambda: datetime.now(UTC)))().isoformat(timespec="seconds")
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute("CREATE TABLE IF NOT EXISTS _migrations (id TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
        done_now = set(applied(conn))  # another process may have migrated while we waited for the lock
        ran = []
        for mid, sql in migrations:
            if mid in done_now:
                continue
            for statement in statements(sql):
                conn.execute(statement)
            conn.execute("INSERT INTO _migrations (id, applied_at) VALUES (?, ?)", (mid, now))
            ran.append(mid)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return ran
