"""The audit log and the trace: every search and determination, replayable, with no PHI in either.

The audit table is append-only (triggers refuse UPDATE and DELETE) and keeps, per assertion, the
redacted request and response, the corpus fingerprint and a snapshot of that corpus, so any answer
can be recomputed on the corpus it was made on. It never stores an unredacted narrative.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from clauseguard.corpus.migrations import migrate, refuse_update_delete
from clauseguard.corpus.model import Corpus
from clauseguard.decisions import DECISION_MIGRATIONS
from clauseguard.errors import CorpusError, NotFoundError

AUDIT_MIGRATIONS: Final[list[tuple[str, str]]] = [
    (
        "a001_20261130_audit_log",
        """
CREATE TABLE corpora (
    fingerprint TEXT PRIMARY KEY,
    snapshot    BLOB NOT NULL,
    recorded_at TEXT NOT NULL
);
CREATE TABLE assertions (
    seq                INTEGER PRIMARY KEY AUTOINCREMENT,
    assertion_id       TEXT NOT NULL,
    trace_id           TEXT NOT NULL,
    kind               TEXT NOT NULL,
    request_hash       TEXT NOT NULL,
    request_redacted   TEXT NOT NULL,
    response_redacted  TEXT NOT NULL,
    corpus_fingerprint TEXT NOT NULL REFERENCES corpora(fingerprint),
    store_path         TEXT,
    settings           TEXT NOT NULL,
    recorded_at        TEXT NOT NULL
);
CREATE INDEX assertions_id ON assertions (assertion_id);
"""
        + refuse_update_delete("corpora", "the audit log")
        + refuse_update_delete("assertions", "the audit log"),
    ),
    *DECISION_MIGRATIONS,  # people's final decisions (clauseguard.decisions), in their own table
]


def canonical(data: Any) -> str:
    """JSON with sorted keys and no spaces: what hashes and ids are computed over."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def digest(data: Any, length: int = 24) -> str:
    return hashlib.sha256(canonical(data).encode("utf-8")).hexdigest()[:length]


@dataclass(frozen=True)
class AuditRecord:
    seq: int
    assertion_id: str
    trace_id: str
    kind: str
    request: dict[str, Any]
    response: dict[str, Any]
    corpus_fingerprint: str
    store_path: str | None
    settings: dict[str, Any]
    recorded_at: str


class AuditLog:
    """An append-only SQLite log of assertions, with the corpora they were made on."""

    def __init__(self, path: Path, clock: Callable[[], datetime] | None = None) -> None:
        self.path = path
        self._clock = clock or (lambda: datetime.now(UTC))
        path.parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(str(path), isolation_level=None, timeout=30)
        # WAL with NORMAL sync: a committed row survives a process crash; an OS crash may lose the
        # last rows, never corrupt the log. Every determination writes here, so this is the hot path.
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=NORMAL")
        migrate(self._conn, self._clock, AUDIT_MIGRATIONS)

    def close(self) -> None:
        self._conn.close()

    def record(
        self,
        *,
        kind: str,
        assertion_id: str,
        trace_id: str,
        request_redacted: dict[str, Any],
        response_redacted: dict[str, Any],
        corpus: Corpus,
        store_path: str | None,
        settings: dict[str, Any],
    ) -> None:
        """Append one assertion (and its corpus snapshot, once per fingerprint) in one transaction."""
        now = self._clock().isoformat(timespec="seconds")
        fingerprint = corpus.fingerprint()
        self._conn.execute("BEGIN IMMEDIATE")
        try:
            known = self._conn.execute("SELECT 1 FROM corpora WHERE fingerprint = ?", (fingerprint,)).fetchone()
            if known is None:
                blob = zlib.compress(corpus.canonical_json().encode("utf-8"), 6)
                self._conn.execute("INSERT INTO corpora VALUES (?, ?, ?)", (fingerprint, blob, now))
            self._conn.execute(
                "INSERT INTO assertions (assertion_id, trace_id, kind, request_hash, request_redacted,"
                " response_redacted, corpus_fingerprint, store_path, settings, recorded_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    assertion_id,
                    trace_id,
                    kind,
                    digest(request_redacted, 64),
                    canonical(request_redacted),
                    canonical(response_redacted),
                    fingerprint,
                    store_path,
                    canonical(settings),
                    now,
                ),
            )
            self._conn.execute("COMMIT")
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise

    def get(self, assertion_id: str) -> AuditRecord:
        """The first record of an assertion id (identical requests give identical ids)."""
        row = self._conn.execute(
            "SELECT seq, assertion_id, trace_id, kind, request_redacted, response_redacted, corpus_fingerprint,"
            " store_path, settings, recorded_at FROM assertions WHERE assertion_id = ? ORDER BY seq LIMIT 1",
            (assertion_id,),
        ).fetchone()
        if row is None:
            raise NotFoundError("assertion", assertion_id, f"the audit log at {self.path} has no such assertion")
        return AuditRecord(
            seq=row[0],
            assertion_id=row[1],
            trace_id=row[2],
            kind=row[3],
            request=json.loads(row[4]),
            response=json.loads(row[5]),
            corpus_fingerprint=row[6],
            store_path=row[7],
            settings=json.loads(row[8]),
            recorded_at=row[9],
        )

    def corpus(self, fingerprint: str) -> Corpus:
        """The corpus an assertion was made on, checked against its fingerprint."""
        row = self._conn.execute("SELECT snapshot FROM corpora WHERE fingerprint = ?", (fingerprint,)).fetchone()
        if row is None:
            raise NotFoundError("corpus snapshot", fingerprint)
        corpus = Corpus.model_validate(json.loads(zlib.decompress(row[0]).decode("utf-8")))
        if corpus.fingerprint() != fingerprint:
            raise CorpusError(f"the audit log's snapshot of corpus {fingerprint} no longer matches its fingerprint")
        return corpus

    def entries(self, *, limit: int = 50, kind: str | None = None, trace_id: str | None = None) -> list[AuditRecord]:
        """The latest `limit` records, newest first (of one kind, or of one trace id), for people to read."""
        clauses = [(c, v) for c, v in (("kind = ?", kind), ("trace_id = ?", trace_id)) if v is not None]
        where = ("WHERE " + " AND ".join(c for c, _ in clauses)) if clauses else ""
        columns = ("seq, assertion_id, trace_id, kind, request_redacted, response_redacted, corpus_fingerprint, "
                   "store_path, settings, recorded_at")
        query = f"SELECT {columns} FROM assertions {where} ORDER BY seq DESC LIMIT ?"  # noqa: S608 - fixed clauses
        rows = self._conn.execute(query, (*(v for _, v in clauses), limit)).fetchall()
        return [AuditRecord(seq=r[0], assertion_id=r[1], trace_id=r[2], kind=r[3], request=json.loads(r[4]),
                            response=json.loads(r[5]), corpus_fingerprint=r[6], store_path=r[7],
                            settings=json.loads(r[8]), recorded_at=r[9]) for r in rows]

    def count(self) -> int:
        return int(self._conn.execute("SELECT COUNT(*) FROM assertions").fetchone()[0])


def append_trace(path: Path, trace: dict[str, Any]) -> None:
    """One JSON line per request: stages, timings, knobs and fingerprints (already redacted)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(trace, sort_keys=True, ensure_ascii=False) + "\n")
