"""The audit log and the trace: every search and determination, replayable, with no PHI in either.

The audit table is append-only (triggers refuse UPDATE and DELETE) and keeps, per assertion, the
redacted request and response, the corpus fingerprint, a snapshot of that corpus, the seals of
the versions the answer cites and the original request sealed with AES-GCM (`privacy.seal`), so
any answer can be recomputed and checked later. Audit first,
answer second: `record` returns only once the row is durable and otherwise raises
EnvironmentFailure naming the file; a trace line follows its row or the row is marked as having
none. It never stores an unredacted narrative and never returns an answer it could not record.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sqlite3
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final, Protocol

from clauseguard.corpus.migrations import migrate, refuse_update_delete
from clauseguard.corpus.model import Corpus
from clauseguard.corpus.sqlite_faults import explain, lock_timeout
from clauseguard.decisions import DECISION_MIGRATIONS
from clauseguard.errors import CorpusError, EnvironmentFailure, NotFoundError

log = logging.getLogger("clauseguard.audit")

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
    (
        "a002_20261201_version_seals_and_missing_traces",
        """
ALTER TABLE assertions ADD COLUMN version_seals TEXT NOT NULL DEFAULT '{}';
CREATE TABLE missing_traces (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    trace_id     TEXT NOT NULL,
    assertion_id TEXT,
    reason       TEXT NOT NULL,
    recorded_at  TEXT NOT NULL
);
"""
        + refuse_update_delete("missing_traces", "the audit log"),
    ),
    (
        # the original request, sealed (clauseguard.privacy.seal): what replay and impact re-answer;
        # rows written before it have none and are re-answered from their redacted request
        "a003_20261201_sealed_originals",
        "ALTER TABLE assertions ADD COLUMN request_sealed BLOB;",
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
    version_seals: dict[str, str] = field(default_factory=dict)
    request_sealed: bytes | None = None  # the original request, AES-GCM (privacy.seal); None on older rows


@dataclass(frozen=True)
class AuditEntry:
    """One answer as the log keeps it (redacted), before it is written."""

    kind: str
    assertion_id: str
    trace_id: str
    request_redacted: dict[str, Any]
    response_redacted: dict[str, Any]
    store_path: str | None
    settings: dict[str, Any]
    version_seals: dict[str, str] = field(default_factory=dict)
    request_sealed: bytes | None = None  # the original request, AES-GCM (privacy.seal), never in clear


class AuditTrail(Protocol):
    """Where answers are recorded before they go out: a SQLite file, or PostgreSQL beside the store."""

    location: str  # the file path or password-free URL that errors name

    def record(self, *, kind: str, assertion_id: str, trace_id: str, request_redacted: dict[str, Any],
               response_redacted: dict[str, Any], corpus: Corpus, store_path: str | None,
               settings: dict[str, Any], version_seals: dict[str, str] | None = None,
               request_sealed: bytes | None = None) -> None:
        """Append one assertion durably, or raise EnvironmentFailure (then the answer must not go out)."""
        ...

    def record_many(self, entries: list[AuditEntry], corpus: Corpus) -> None:
        """Append several assertions in one durable transaction (a batch chunk), all or none."""
        ...

    def record_trace(self, trace: dict[str, Any]) -> None:
        """Append the trace line of a recorded answer, or mark it missing in the log."""
        ...

    def get(self, assertion_id: str) -> AuditRecord: ...

    def corpus(self, fingerprint: str) -> Corpus: ...

    def records(self, kind: str | None = None, *, payer: str | None = None,
                dates: tuple[str, str | None] | None = None) -> Iterator[AuditRecord]:
        """Every record in the order it was written, streamed; optionally only one kind, one payer
        (`payer_id` of the request) and requests dated within `dates` (inclusive; None: open end),
        filtered inside the database so a large log is not parsed row by row."""
        ...

    def count(self) -> int: ...

    def close(self) -> None: ...


def _record_of(row: tuple[Any, ...]) -> AuditRecord:
    return AuditRecord(
        seq=row[0], assertion_id=row[1], trace_id=row[2], kind=row[3], request=json.loads(row[4]),
        response=json.loads(row[5]), corpus_fingerprint=row[6], store_path=row[7], settings=json.loads(row[8]),
        recorded_at=row[9], version_seals=json.loads(row[10] or "{}"),
        request_sealed=None if row[11] is None else bytes(row[11]),
    )


def record_filter(kind: str | None, payer: str | None, dates: tuple[str, str | None] | None,
                  field: str, mark: str) -> tuple[str, tuple[Any, ...]]:
    """A WHERE clause over assertions for `records` (the backend gives its JSON accessor and placeholder)."""
    parts: list[str] = []
    params: list[Any] = []
    if kind:
        parts.append(f"kind = {mark}")
        params.append(kind)
    if payer is not None:
        parts.append(f"{field.format('payer_id')} = {mark}")
        params.append(payer)
    if dates is not None:
        parts.append(f"{field.format('as_of_date')} >= {mark}")
        params.append(dates[0])
        if dates[1] is not None:
            parts.append(f"{field.format('as_of_date')} <= {mark}")
            params.append(dates[1])
    return (" WHERE " + " AND ".join(parts) if parts else ""), tuple(params)


RECORD_COLUMNS: Final = (
    "seq, assertion_id, trace_id, kind, request_redacted, response_redacted, corpus_fingerprint,"
    " store_path, settings, recorded_at, version_seals, request_sealed"
)


def entry_row(entry: AuditEntry, fingerprint: str, now: str) -> tuple[Any, ...]:
    """The values of one assertions row, in INSERT order (shared by every backend)."""
    return (
        entry.assertion_id, entry.trace_id, entry.kind, digest(entry.request_redacted, 64),
        canonical(entry.request_redacted), canonical(entry.response_redacted), fingerprint, entry.store_path,
        canonical(entry.settings), now, canonical(entry.version_seals), entry.request_sealed,
    )


def snapshot_blob(corpus: Corpus) -> bytes:
    return zlib.compress(corpus.canonical_json().encode("utf-8"), 6)


def corpus_from_blob(blob: bytes, fingerprint: str) -> Corpus:
    corpus = Corpus.model_validate(json.loads(zlib.decompress(blob).decode("utf-8")))
    if corpus.fingerprint() != fingerprint:
        raise CorpusError(f"the audit log's snapshot of corpus {fingerprint} no longer matches its fingerprint")
    return corpus


def append_trace(path: Path, trace: dict[str, Any]) -> None:
    """One JSON line per request: stages, timings, knobs and fingerprints (already redacted).

    The line is written with one write call; a short or failed write is cut back off, so the file
    never holds half a line (OSError is raised for the caller to mark the trace missing)."""
    line = (json.dumps(trace, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        size = os.fstat(fd).st_size
        try:
            written = os.write(fd, line)
            if written != len(line):
                raise OSError(28, f"only {written} of {len(line)} bytes of the trace line were written")
        except OSError:
            os.ftruncate(fd, size)
            raise
    finally:
        os.close(fd)


class AuditLog:
    """An append-only SQLite log of assertions, with the corpora they were made on.

    Writes are synchronous=FULL in WAL mode: a row that `record` returned for survives a crash of
    the process and of the machine. The file's identity is checked before every write, so a log
    deleted or replaced under a running server is noticed instead of written into the void."""

    def __init__(self, path: Path, clock: Callable[[], datetime] | None = None, *, traces: Path | None = None) -> None:
        self.path = path
        self.location = str(path)
        self.traces = traces if traces is not None else path.parent / "traces.jsonl"
        self._clock = clock or (lambda: datetime.now(UTC))
        self._conn: sqlite3.Connection | None = None
        self._identity: tuple[int, int] | None = None
        self._last: tuple[Corpus, str] | None = None  # the corpus answers are made on, and its fingerprint
        self._open()

    def _fail(self, doing: str, exc: BaseException) -> EnvironmentFailure:
        return EnvironmentFailure(self.location, f"{doing}: {explain(exc)}")

    def _open(self) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(str(self.path), isolation_level=None, timeout=lock_timeout(),
                                   check_same_thread=False)
            try:
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=FULL")
                migrate(conn, self._clock, AUDIT_MIGRATIONS)
            except BaseException:
                conn.close()
                raise
            stat = os.stat(self.path)
        except (sqlite3.Error, OSError) as exc:
            raise self._fail("the audit log cannot be opened, so no answer can go out", exc) from exc
        self._conn, self._identity = conn, (stat.st_dev, stat.st_ino)

    def _connection(self) -> sqlite3.Connection:
        """The connection, after checking the file is still the one opened (or is back after vanishing)."""
        try:
            stat = os.stat(self.path)
        except FileNotFoundError:
            stat = None
        if stat is None:
            raise EnvironmentFailure(
                self.location,
                "the audit log has vanished (deleted or moved while this process ran); answers are refused "
                "until it is back: restore the file from a backup, or restart to begin a new log",
            )
        if self._conn is None or (stat.st_dev, stat.st_ino) != self._identity:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
            log.warning("the audit log at %s was replaced; continuing in the file now there", self.path)
            self._open()
        assert self._conn is not None
        return self._conn

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    # -- writing ------------------------------------------------------------------------------

    def record(self, *, kind: str, assertion_id: str, trace_id: str, request_redacted: dict[str, Any],
               response_redacted: dict[str, Any], corpus: Corpus, store_path: str | None,
               settings: dict[str, Any], version_seals: dict[str, str] | None = None,
               request_sealed: bytes | None = None) -> None:
        """Append one assertion (and its corpus snapshot, once per fingerprint) in one transaction."""
        self.record_many([AuditEntry(kind, assertion_id, trace_id, request_redacted, response_redacted,
                                     store_path, settings, dict(version_seals or {}), request_sealed)], corpus)

    def record_many(self, entries: list[AuditEntry], corpus: Corpus) -> None:
        if not entries:
            return
        conn = self._connection()
        now = self._clock().isoformat(timespec="seconds")
        fingerprint = self._fingerprint(corpus)
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                if conn.execute("SELECT 1 FROM corpora WHERE fingerprint = ?", (fingerprint,)).fetchone() is None:
                    conn.execute("INSERT INTO corpora VALUES (?, ?, ?)", (fingerprint, snapshot_blob(corpus), now))
                conn.executemany(
                    "INSERT INTO assertions (assertion_id, trace_id, kind, request_hash, request_redacted,"
                    " response_redacted, corpus_fingerprint, store_path, settings, recorded_at, version_seals,"
                    " request_sealed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [entry_row(e, fingerprint, now) for e in entries],
                )
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
        except (sqlite3.Error, OSError) as exc:
            raise self._fail("the answer could not be recorded, so it was not returned", exc) from exc

    def _fingerprint(self, corpus: Corpus) -> str:
        """Hashing a whole corpus costs more than an answer: done once per corpus object."""
        if self._last is None or self._last[0] is not corpus:
            self._last = (corpus, corpus.fingerprint())
        return self._last[1]

    def record_trace(self, trace: dict[str, Any]) -> None:
        try:
            append_trace(self.traces, trace)
            return
        except OSError as exc:
            reason = explain(exc)
        conn = self._connection()
        try:
            conn.execute(
                "INSERT INTO missing_traces (trace_id, assertion_id, reason, recorded_at) VALUES (?, ?, ?, ?)",
                (trace.get("trace_id", ""), trace.get("assertion_id"), reason,
                 self._clock().isoformat(timespec="seconds")),
            )
        except sqlite3.Error as exc:
            raise self._fail(f"the trace file {self.traces} could not be written ({reason}) nor marked missing",
                             exc) from exc
        log.warning("clauseguard: the trace of %s could not be written to %s (%s); it is marked missing in the "
                    "audit log %s", trace.get("trace_id"), self.traces, reason, self.path)

    # -- reading ------------------------------------------------------------------------------

    def get(self, assertion_id: str) -> AuditRecord:
        """The first record of an assertion id (identical requests give identical ids)."""
        row = self._connection().execute(
            f"SELECT {RECORD_COLUMNS} FROM assertions WHERE assertion_id = ? ORDER BY seq LIMIT 1",  # noqa: S608
            (assertion_id,),
        ).fetchone()
        if row is None:
            raise NotFoundError("assertion", assertion_id, f"the audit log at {self.path} has no such assertion")
        return _record_of(row)

    def records(self, kind: str | None = None, *, payer: str | None = None,
                dates: tuple[str, str | None] | None = None) -> Iterator[AuditRecord]:
        where, params = record_filter(kind, payer, dates, "json_extract(request_redacted, '$.{}')", "?")
        sql = f"SELECT {RECORD_COLUMNS} FROM assertions{where} ORDER BY seq"  # noqa: S608 - fixed fragments
        for row in self._connection().execute(sql, params):
            yield _record_of(row)

    def corpus(self, fingerprint: str) -> Corpus:
        """The corpus an assertion was made on, checked against its fingerprint."""
        row = self._connection().execute(
            "SELECT snapshot FROM corpora WHERE fingerprint = ?", (fingerprint,)
        ).fetchone()
        if row is None:
            raise NotFoundError("corpus snapshot", fingerprint)
        return corpus_from_blob(row[0], fingerprint)

    def entries(self, *, limit: int = 50, kind: str | None = None, trace_id: str | None = None) -> list[AuditRecord]:
        """The latest `limit` records, newest first (of one kind, or of one trace id), for people to read."""
        clauses = [(c, v) for c, v in (("kind = ?", kind), ("trace_id = ?", trace_id)) if v is not None]
        where = ("WHERE " + " AND ".join(c for c, _ in clauses)) if clauses else ""
        columns = ("seq, assertion_id, trace_id, kind, request_redacted, response_redacted, corpus_fingerprint, "
                   "store_path, settings, recorded_at")
        query = f"SELECT {columns} FROM assertions {where} ORDER BY seq DESC LIMIT ?"  # noqa: S608 - fixed clauses
        rows = self._connection().execute(query, (*(v for _, v in clauses), limit)).fetchall()
        return [AuditRecord(seq=r[0], assertion_id=r[1], trace_id=r[2], kind=r[3], request=json.loads(r[4]),
                            response=json.loads(r[5]), corpus_fingerprint=r[6], store_path=r[7],
                            settings=json.loads(r[8]), recorded_at=r[9]) for r in rows]

    def count(self) -> int:
        return int(self._connection().execute("SELECT COUNT(*) FROM assertions").fetchone()[0])


AUDIT_FILE: Final = "audit.sqlite"
TRACES_FILE: Final = "traces.jsonl"


def open_audit_log(opened: Any = None) -> AuditTrail:
    """The audit log for answers made on `opened`: beside a PostgreSQL store in the same database,
    else `$CLAUSEGUARD_HOME/audit.sqlite` (traces in `$CLAUSEGUARD_HOME/traces.jsonl` either way)."""
    from clauseguard.corpus.sources import home_dir

    store = getattr(opened, "store", None)
    audit_for = getattr(store, "audit_log", None)
    if callable(audit_for):  # a shared database keeps the audit log of every instance in one place
        trail: AuditTrail = audit_for(home_dir() / TRACES_FILE)
        return trail
    return AuditLog(home_dir() / AUDIT_FILE, traces=home_dir() / TRACES_FILE)
