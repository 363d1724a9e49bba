"""The corpus store: where a corpus lives between commands, append-only, read back whole or by clause id.

`CorpusStore` is the seam (SQLite here, PostgreSQL later). A store never updates or deletes a
clause, and the SQLite schema's triggers refuse it too; the only change history allows is closing
an open-ended version. The append rules themselves live in `timeline.py`.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol, runtime_checkable

from clauseguard.corpus.migrations import migrate
from clauseguard.corpus.model import Clause, Corpus
from clauseguard.corpus.sqlite_faults import classify, explain, lock_timeout
from clauseguard.corpus.store_sql import (
    CLAUSE_QUERY,
    LINK_QUERIES,
    Db,
    VersionState,
    read_corpus,
    read_timeline,
    seal_unsealed,
    set_fingerprint,
    stored_fingerprint,
    unsealed_versions,
    version_states,
    write_plan,
)
from clauseguard.corpus.timeline import AppendPlan, TimelineEvent, plan_append
from clauseguard.errors import ClauseguardError, CorpusError, EnvironmentFailure, Problem

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class StoredClause:
    """One clause as the database holds it, with the document and version it belongs to."""

    id: str
    document_id: str
    document_title: str
    document_kind: str
    payer: str
    version: str
    effective_start: date
    effective_end: date | None
    section: str
    text: str
    kind: str | None = None
    article: str | None = None
    page: int | None = None
    page_label: str | None = None
    benefit: str | None = None
    coverage_type: str | None = None
    criteria: Any = None
    page_end: int | None = None
    page_end_label: str | None = None
    document_codes: tuple[str, ...] = ()  # codes the clause's document governs
    document_plans: tuple[str, ...] = ()  # plans it is limited to (empty: every plan of the payer)
    document_overrides: tuple[str, ...] = ()  # documents a rider overrides

    def covers(self, day: date) -> bool:
        """Whether the clause's version is in effect on `day` (inclusive at both ends)."""
        return self.effective_start <= day and (self.effective_end is None or day <= self.effective_end)

    def as_clause(self) -> Clause:
        return Clause.model_validate(
            {
                "id": self.id, "section": self.section, "text": self.text, "kind": self.kind,
                "article": self.article, "page": self.page, "page_label": self.page_label,
                "benefit": self.benefit, "coverage_type": self.coverage_type, "criteria": self.criteria,
                "page_end": self.page_end, "page_end_label": self.page_end_label,
            }
        )


@dataclass(frozen=True)
class AddReport:
    """What one `add` wrote: ids of the new records, the timeline events and notes for the user."""

    fingerprint_before: str
    fingerprint: str
    payers: tuple[str, ...] = ()
    plans: tuple[str, ...] = ()
    contracts: tuple[str, ...] = ()
    codes: tuple[str, ...] = ()
    documents: tuple[str, ...] = ()
    versions: tuple[tuple[str, str], ...] = ()  # (document id, version label)
    clauses: tuple[str, ...] = ()
    events: tuple[TimelineEvent, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def changed(self) -> bool:
        return self.fingerprint != self.fingerprint_before

    def summary(self) -> str:
        """One sentence a user can read after an ingest."""
        if not self.changed:
            return "Nothing new: the store already holds everything given."
        parts = [
            f"{len(ids)} {name}" for name, ids in (
                ("payer(s)", self.payers), ("plan(s)", self.plans), ("contract(s)", self.contracts),
                ("code(s)", self.codes), ("document(s)", self.documents), ("version(s)", self.versions),
                ("clause(s)", self.clauses),
            ) if ids
        ]
        closed = sum(1 for e in self.events if e.kind == "version_closed")
        if closed:
            parts.append(f"{closed} version(s) closed")
        return "Added " + (", ".join(parts) if parts else "links only") + "."

    @classmethod
    def from_plan(cls, plan: AppendPlan, before: str, after: str) -> AddReport:
        return cls(
            fingerprint_before=before,
            fingerprint=after,
            payers=tuple(p.id for p in plan.payers),
            plans=tuple(p.id for p in plan.plans),
            contracts=tuple(c.id for c in plan.contracts),
            codes=tuple(c.code for c in plan.codes),
            documents=tuple(d.id for d in plan.documents),
            versions=tuple((v.document_id, v.version.version) for v in plan.versions),
            clauses=tuple(c.clause.id for c in plan.clauses),
            events=plan.events,
            notes=plan.notes,
        )


@runtime_checkable
class CorpusStore(Protocol):
    """Where the corpus lives: append-only, read whole at start-up, re-read by clause id to verify.

    Backends: `SqliteStore` (embedded default) and `corpus.postgres_store.PostgresStore`."""

    location: str  # the file path, or the URL without its password: what messages and audit rows name

    def is_empty(self) -> bool:
        """True while the store holds no document."""
        ...

    def add(self, corpus: Corpus, *, source: str = "corpus being added") -> AddReport:
        """Append a corpus atomically (all or nothing); AppendOnlyError if it would rewrite history."""
        ...

    def corpus(self) -> Corpus:
        """The whole stored corpus, normalised."""
        ...

    def fingerprint(self) -> str:
        """The fingerprint of the stored corpus (as `Corpus.fingerprint()`)."""
        ...

    def stored_fingerprint(self) -> str | None:
        """The fingerprint the last append wrote (one row: what instances compare before each request)."""
        ...

    def version_states(self) -> dict[str, VersionState]:
        """Every version's clause hash now, its seal and its end date (what replay checks)."""
        ...

    def clause(self, clause_id: str) -> StoredClause | None:
        """A cold read of one clause straight from the database, or None if no clause has this id."""
        ...

    def plan_riders(self, plan_id: str) -> tuple[str, ...]:
        """The rider documents attached to a plan (empty for an unknown plan), read from the database."""
        ...

    def document_codes(self, document_id: str) -> tuple[str, ...]:
        """The codes a document governs (empty for an unknown document), read from the database."""
        ...

    def timeline(self, document_id: str, *, with_recorded_at: bool = False) -> list[TimelineEvent]:
        """The document's version events in the order they were recorded (NotFoundError if unknown)."""
        ...

    def reopen(self) -> CorpusStore:
        """A new, independent handle on the same database (shares no connection or cache)."""
        ...

    def close(self) -> None: ...


class SqliteDb:
    """A sqlite3 connection in the shape `store_sql` speaks (it already uses `?` placeholders)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return self.conn.execute(sql, tuple(params)).fetchall()

    def run(self, sql: str, params: Sequence[Any] = ()) -> int:
        return self.conn.execute(sql, tuple(params)).rowcount

    def many(self, sql: str, params: Iterable[Sequence[Any]]) -> None:
        self.conn.executemany(sql, [tuple(p) for p in params])


def store_fault(path: Path | str, exc: BaseException, doing: str) -> ClauseguardError:
    """A user's store that cannot be used, told as locked (EnvironmentFailure) or corrupt (CorpusError)."""
    if classify(exc) == "locked":
        return EnvironmentFailure(str(path), f"the store {doing}: {explain(exc)}")
    if classify(exc) == "corrupt":
        return CorpusError([Problem(str(path), "", f"is not a usable clauseguard store: {explain(exc)}; "
                                    "point --store at a clauseguard store file, or at a new file")])
    return CorpusError([Problem(str(path), "", f"the store {doing}: {explain(exc)}")])


class SqliteStore:
    """The embedded store: one SQLite file, stdlib sqlite3, schema from `migrations.py`.

    `path` may be ":memory:" for a throwaway store (then `reopen()` gives an empty one).
    """

    def __init__(self, path: Path | str, *, clock: Clock = utc_now) -> None:
        self.path = Path(path)
        self.location = str(path)
        self._clock = clock
        self._lock = threading.RLock()
        try:
            self._conn = sqlite3.connect(
                str(path), isolation_level=None, timeout=lock_timeout(), check_same_thread=False
            )
        except sqlite3.Error as exc:
            raise CorpusError([Problem(str(path), "", f"cannot open the store: {explain(exc)}")]) from exc
        try:
            self._conn.execute("PRAGMA foreign_keys = ON")
            migrate(self._conn, clock)
            if unsealed_versions(SqliteDb(self._conn)):  # a store written before seals existed
                with self._transaction("IMMEDIATE") as conn:
                    seal_unsealed(SqliteDb(conn))
        except sqlite3.Error as exc:
            self._conn.close()
            raise store_fault(path, exc, "cannot be opened") from exc

    def __repr__(self) -> str:
        return f"SqliteStore({str(self.path)!r})"

    def __enter__(self) -> SqliteStore:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    @contextmanager
    def _transaction(self, mode: str = "DEFERRED") -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._conn.execute(f"BEGIN {mode}")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    @contextmanager
    def _reading(self, doing: str) -> Iterator[SqliteDb]:
        """One snapshot read, even while another process appends; locked vs corrupt told apart."""
        try:
            with self._transaction() as conn:
                yield SqliteDb(conn)
        except sqlite3.Error as exc:
            raise store_fault(self.path, exc, doing) from exc

    # -- reading -----------------------------------------------------------------------------

    def is_empty(self) -> bool:
        with self._reading("cannot be read") as db:
            return not db.rows("SELECT 1 FROM documents LIMIT 1")

    def corpus(self) -> Corpus:
        with self._reading("cannot be read") as db:
            return read_corpus(db, str(self.path))

    def fingerprint(self) -> str:
        return self.corpus().fingerprint()

    def stored_fingerprint(self) -> str | None:
        with self._reading("cannot be read") as db:
            return stored_fingerprint(db)

    def version_states(self) -> dict[str, VersionState]:
        with self._reading("cannot be read") as db:
            return version_states(db)

    def clause(self, clause_id: str) -> StoredClause | None:
        with self._reading("cannot be read") as db:
            return stored_clause(db, clause_id)

    def document_codes(self, document_id: str) -> tuple[str, ...]:
        with self._reading("cannot be read") as db:
            return tuple(r[0] for r in db.rows(LINK_QUERIES[0][1], (document_id,)))

    def plan_riders(self, plan_id: str) -> tuple[str, ...]:
        with self._reading("cannot be read") as db:
            return tuple(r[0] for r in db.rows("SELECT rider FROM plan_riders WHERE plan_id = ? ORDER BY rider",
                                               (plan_id,)))

    def timeline(self, document_id: str, *, with_recorded_at: bool = False) -> list[TimelineEvent]:
        with self._reading("cannot be read") as db:
            return read_timeline(db, document_id, with_recorded_at)

    # -- writing -----------------------------------------------------------------------------

    def add(self, corpus: Corpus, *, source: str = "corpus being added") -> AddReport:
        """Append `corpus` in one transaction: everything it adds is written, or nothing is."""
        try:
            with self._transaction("IMMEDIATE") as conn:
                return append(SqliteDb(conn), corpus, source, self._clock, str(self.path))
        except sqlite3.Error as exc:
            if classify(exc) == "locked":
                raise store_fault(self.path, exc, "could not be written, nothing was written") from exc
            raise CorpusError([Problem(str(self.path), "", f"could not write the store, nothing was written: {exc}")]) from exc

    # -- handles ------------------------------------------------------------------------------

    def reopen(self) -> SqliteStore:
        return SqliteStore(self.path, clock=self._clock)

    def close(self) -> None:
        with self._lock:
            self._conn.close()


def stored_clause(db: Db, clause_id: str) -> StoredClause | None:
    """A cold read of one clause with its document, version and the document's links."""
    found = db.rows(CLAUSE_QUERY, (clause_id,))
    if not found:
        return None
    row = found[0]
    links = {table: tuple(r[0] for r in db.rows(sql, (row[1],))) for table, sql in LINK_QUERIES}
    start = _day(row[6])
    assert start is not None
    return StoredClause(
        id=row[0], document_id=row[1], document_title=row[2], document_kind=row[3], payer=row[4],
        version=row[5], effective_start=start, effective_end=_day(row[7]), section=row[8],
        text=row[9], kind=row[10], article=row[11], page=row[12], page_label=row[13], benefit=row[14],
        coverage_type=row[15], criteria=None if row[16] is None else json.loads(row[16]),
        page_end=row[17], page_end_label=row[18], document_codes=links["document_codes"], document_plans=links["document_plans"],
        document_overrides=links["document_overrides"],
    )


def _day(text: str | None) -> date | None:
    return None if text is None else date.fromisoformat(str(text))


def append(db: Db, corpus: Corpus, source: str, clock: Clock, where: str) -> AddReport:
    """The append of every backend, inside its writing transaction: plan, write, read back, check."""
    existing = read_corpus(db, where)
    plan = plan_append(existing, corpus, source=source)
    before = existing.fingerprint()
    if not plan.changed:
        return AddReport(fingerprint_before=before, fingerprint=before, notes=plan.notes)
    write_plan(db, plan, clock().isoformat(timespec="seconds"), where)
    after = read_corpus(db, where).fingerprint()
    expected = plan.result.fingerprint()
    if after != expected:  # a bug, never a user error: refuse to commit a store we cannot read back
        raise CorpusError([Problem(where, "", f"the store read back as {after}, expected {expected}; nothing was written")])
    set_fingerprint(db, after)
    return AddReport.from_plan(plan, before, after)
