"""The audit log in PostgreSQL, beside the shared store: every instance's answers in one append-only place.

Same rows, seals and rules as the SQLite log (`audit.py`): `record` returns only after COMMIT, and a
database that cannot take the row is EnvironmentFailure naming the URL without its password; rows
from several instances interleave by their sequence number, none lost. It never stores PHI.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clauseguard.audit import (
    RECORD_COLUMNS,
    AuditEntry,
    AuditRecord,
    _record_of,
    append_trace,
    corpus_from_blob,
    entry_row,
    record_filter,
    snapshot_blob,
)
from clauseguard.corpus.model import Corpus
from clauseguard.corpus.pg_migrations import AUDIT_MIGRATIONS, migrate
from clauseguard.errors import EnvironmentFailure, NotFoundError

if TYPE_CHECKING:
    from clauseguard.corpus.postgres_store import PostgresStore

log = logging.getLogger("clauseguard.audit")

INSERT_ASSERTION = (
    "INSERT INTO assertions (assertion_id, trace_id, kind, request_hash, request_redacted, response_redacted,"
    " corpus_fingerprint, store_path, settings, recorded_at, version_seals, request_sealed)"
    " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
)


class PostgresAuditLog:
    """Assertions and corpus snapshots in the store's database, through the store's connection pool."""

    def __init__(self, store: PostgresStore, traces: Path, clock: Callable[[], datetime] | None = None) -> None:
        self._store = store
        self.location = store.location
        self.traces = traces
        self._clock = clock or (lambda: datetime.now(UTC))
        self._last: tuple[Corpus, str] | None = None  # the corpus answers are made on, and its fingerprint
        try:
            with store.pool.connection() as conn:
                conn.autocommit = True
                try:
                    migrate(conn, AUDIT_MIGRATIONS, "_audit_migrations", self._now())
                finally:
                    conn.autocommit = False
        except Exception as exc:
            raise self._fail("the audit log cannot be opened, so no answer can go out", exc) from exc

    def _now(self) -> str:
        return self._clock().isoformat(timespec="seconds")

    def _fail(self, doing: str, exc: BaseException) -> EnvironmentFailure:
        return EnvironmentFailure(self.location, f"{doing}: {self._store.failure(exc, 'failed')}")

    def record(self, *, kind: str, assertion_id: str, trace_id: str, request_redacted: dict[str, Any],
               response_redacted: dict[str, Any], corpus: Corpus, store_path: str | None,
               settings: dict[str, Any], version_seals: dict[str, str] | None = None,
               request_sealed: bytes | None = None) -> None:
        self.record_many([AuditEntry(kind, assertion_id, trace_id, request_redacted, response_redacted,
                                     store_path, settings, dict(version_seals or {}), request_sealed)], corpus)

    def record_many(self, entries: list[AuditEntry], corpus: Corpus) -> None:
        if not entries:
            return
        if self._last is None or self._last[0] is not corpus:  # hashing a corpus costs more than an answer
            self._last = (corpus, corpus.fingerprint())
        now, fingerprint = self._now(), self._last[1]
        try:
            with self._store.pool.connection() as conn, conn.transaction():
                known = conn.execute("SELECT 1 FROM corpora WHERE fingerprint = %s", (fingerprint,)).fetchone()
                if known is None:
                    conn.execute("INSERT INTO corpora VALUES (%s, %s, %s) ON CONFLICT (fingerprint) DO NOTHING",
                                 (fingerprint, snapshot_blob(corpus), now))
                with conn.cursor() as cursor:
                    cursor.executemany(INSERT_ASSERTION, [entry_row(e, fingerprint, now) for e in entries])
        except Exception as exc:
            raise self._fail("the answer could not be recorded, so it was not returned", exc) from exc

    def record_trace(self, trace: dict[str, Any]) -> None:
        try:
            append_trace(self.traces, trace)
            return
        except OSError as exc:
            reason = f"{type(exc).__name__}: {exc}"
        try:
            with self._store.pool.connection() as conn, conn.transaction():
                conn.execute(
                    "INSERT INTO missing_traces (trace_id, assertion_id, reason, recorded_at) VALUES (%s, %s, %s, %s)",
                    (trace.get("trace_id", ""), trace.get("assertion_id"), reason, self._now()),
                )
        except Exception as exc:
            raise self._fail(f"the trace file {self.traces} could not be written ({reason}) nor marked missing",
                             exc) from exc
        log.warning("clauseguard: the trace of %s could not be written to %s (%s); it is marked missing in the "
                    "audit log at %s", trace.get("trace_id"), self.traces, reason, self.location)

    def _rows(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        try:
            with self._store.pool.connection() as conn, conn.transaction():
                return list(conn.execute(sql, params).fetchall())
        except Exception as exc:
            if isinstance(exc, NotFoundError):
                raise
            raise self._fail("the audit log could not be read", exc) from exc

    def get(self, assertion_id: str) -> AuditRecord:
        found = self._rows(
            f"SELECT {RECORD_COLUMNS} FROM assertions WHERE assertion_id = %s ORDER BY seq LIMIT 1",  # noqa: S608
            (assertion_id,),
        )
        if not found:
            raise NotFoundError("assertion", assertion_id, f"the audit log at {self.location} has no such assertion")
        return _record_of(found[0])

    def records(self, kind: str | None = None, *, payer: str | None = None,
                dates: tuple[str, str | None] | None = None) -> Iterator[AuditRecord]:
        where, params = record_filter(kind, payer, dates, "(request_redacted::jsonb ->> '{}')", "%s")
        sql = f"SELECT {RECORD_COLUMNS} FROM assertions{where}"  # noqa: S608 - fixed fragments
        last = 0
        while True:  # pages by sequence number, so a huge log streams in bounded memory
            page = self._rows(sql + (" AND" if where else " WHERE") + " seq > %s ORDER BY seq LIMIT 1000",
                              (*params, last))
            if not page:
                return
            for row in page:
                yield _record_of(row)
            last = int(page[-1][0])

    def corpus(self, fingerprint: str) -> Corpus:
        found = self._rows("SELECT snapshot FROM corpora WHERE fingerprint = %s", (fingerprint,))
        if not found:
            raise NotFoundError("corpus snapshot", fingerprint)
        return corpus_from_blob(bytes(found[0][0]), fingerprint)

    def count(self) -> int:
        return int(self._rows("SELECT COUNT(*) FROM assertions")[0][0])

    def close(self) -> None:
        """The pool belongs to the store; nothing to close here."""
