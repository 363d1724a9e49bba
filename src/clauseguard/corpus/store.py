"""The corpus store: where a corpus lives between commands, append-only, read back whole or by clause id.

`CorpusStore` is the seam (SQLite here, PostgreSQL later). A store never updates or deletes a
clause, and the SQLite schema's triggers refuse it too; the only change history allows is closing
an open-ended version. The append rules themselves live in `timeline.py`.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol, runtime_checkable

from clauseguard.corpus.migrations import migrate
from clauseguard.corpus.model import FORMAT_V1, Clause, Corpus
from clauseguard.corpus.timeline import AppendPlan, TimelineEvent, plan_append
from clauseguard.errors import CorpusError, NotFoundError, Problem

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
    """Where the corpus lives: append-only, read whole at start-up, re-read by clause id to verify."""

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


def _iso(day: date | None) -> str | None:
    return None if day is None else day.isoformat()


def _day(text: str | None) -> date | None:
    return None if text is None else date.fromisoformat(text)


def _criteria_json(value: Any) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False, sort_keys=True)


class SqliteStore:
    """The embedded store: one SQLite file, stdlib sqlite3, schema from `migrations.py`.

    `path` may be ":memory:" for a throwaway store (then `reopen()` gives an empty one).
    """

    def __init__(self, path: Path | str, *, clock: Clock = utc_now) -> None:
        self.path = Path(path)
        self._clock = clock
        self._lock = threading.RLock()
        try:
            self._conn = sqlite3.connect(
                str(path), isolation_level=None, timeout=30.0, check_same_thread=False
            )
        except sqlite3.Error as exc:
            raise CorpusError([Problem(str(path), "", f"cannot open the store: {exc}")]) from exc
        try:
            self._conn.execute("PRAGMA foreign_keys = ON")
            migrate(self._conn, clock)
        except sqlite3.Error as exc:
            self._conn.close()
            raise CorpusError(
                [Problem(str(path), "", f"is not a usable clauseguard store ({exc}); "
                         "point --store at a clauseguard store file, or at a new file")]
            ) from exc

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

    # -- reading -----------------------------------------------------------------------------

    def is_empty(self) -> bool:
        with self._lock:
            return self._conn.execute("SELECT 1 FROM documents LIMIT 1").fetchone() is None

    def corpus(self) -> Corpus:
        with self._transaction() as conn:  # one snapshot, even while another process appends
            return self._read_corpus(conn)

    def fingerprint(self) -> str:
        return self.corpus().fingerprint()

    def _read_corpus(self, conn: sqlite3.Connection) -> Corpus:
        """The stored corpus in a fixed number of queries (one per table), whatever its size."""
        riders: dict[str, list[str]] = defaultdict(list)
        for plan_id, rider in conn.execute("SELECT plan_id, rider FROM plan_riders ORDER BY plan_id, rider"):
            riders[plan_id].append(rider)
        links: dict[str, dict[str, list[str]]] = {name: defaultdict(list) for name in ("codes", "plans", "overrides")}
        for name, sql in (
            ("codes", "SELECT document_id, code FROM document_codes ORDER BY document_id, code"),
            ("plans", "SELECT document_id, plan_id FROM document_plans ORDER BY document_id, plan_id"),
            ("overrides", "SELECT document_id, target FROM document_overrides ORDER BY document_id, target"),
        ):
            for doc_id, value in conn.execute(sql):
                links[name][doc_id].append(value)
        clauses: dict[int, list[dict[str, Any]]] = defaultdict(list)
        for row in conn.execute(
            "SELECT version_id, id, section, text, kind, article, page, page_label, benefit, coverage_type, criteria, "
            "page_end, page_end_label FROM clauses ORDER BY version_id, position"
        ):
            clauses[row[0]].append(
                {
                    "id": row[1], "section": row[2], "text": row[3], "kind": row[4], "article": row[5],
                    "page": row[6], "page_label": row[7], "benefit": row[8], "coverage_type": row[9],
                    "criteria": None if row[10] is None else json.loads(row[10]),
                    "page_end": row[11], "page_end_label": row[12],
                }
            )
        versions: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for vid, doc_id, label, start, end, sfile, ssha, sreader in conn.execute(
            "SELECT id, document_id, label, effective_start, effective_end, source_file, source_sha256, "
            "source_reader FROM versions ORDER BY document_id, effective_start, label"
        ):
            versions[doc_id].append(
                {
                    "version": label, "effective_start": start, "effective_end": end,
                    "source": None if sfile is None else {"file": sfile, "sha256": ssha, "reader": sreader},
                    "clauses": clauses.get(vid, []),
                }
            )
        data = {
            "format": FORMAT_V1,
            "payers": [{"id": i, "name": n} for i, n in conn.execute("SELECT id, name FROM payers ORDER BY id")],
            "plans": [
                {"id": i, "payer": p, "name": n, "riders": riders.get(i, [])}
                for i, p, n in conn.execute("SELECT id, payer, name FROM plans ORDER BY id")
            ],
            "contracts": [
                {"id": i, "plan": p, "holder": h, "effective_date": s, "end_date": e, "terms_anchor": a}
                for i, p, h, s, e, a in conn.execute(
                    "SELECT id, plan, holder, effective_date, end_date, terms_anchor FROM contracts ORDER BY id"
                )
            ],
            "codes": [
                {"code": c, "system": s, "descriptor": d}
                for c, s, d in conn.execute("SELECT code, system, descriptor FROM codes ORDER BY code")
            ],
            "documents": [
                {
                    "id": i, "payer": p, "kind": k, "title": t,
                    "codes": links["codes"].get(i, []), "plans": links["plans"].get(i, []),
                    "overrides": links["overrides"].get(i, []), "versions": versions.get(i, []),
                }
                for i, p, k, t in conn.execute("SELECT id, payer, kind, title FROM documents ORDER BY id")
            ],
        }
        return Corpus.model_validate(data).normalised()

    def clause(self, clause_id: str) -> StoredClause | None:
        with self._lock:
            row = self._conn.execute(
                "SELECT c.id, d.id, d.title, d.kind, d.payer, v.label, v.effective_start, v.effective_end, "
                "c.section, c.text, c.kind, c.article, c.page, c.page_label, c.benefit, c.coverage_type, c.criteria, "
                "c.page_end, c.page_end_label FROM clauses c JOIN versions v ON v.id = c.version_id JOIN documents d ON d.id = v.document_id "
                "WHERE c.id = ?",
                (clause_id,),
            ).fetchone()
            if row is None:
                return None
            links = {
                table: tuple(
                    r[0]
                    for r in self._conn.execute(
                        f"SELECT {column} FROM {table} WHERE document_id = ? ORDER BY {column}",  # noqa: S608
                        (row[1],),
                    )
                )
                for table, column in (
                    ("document_codes", "code"), ("document_plans", "plan_id"), ("document_overrides", "target")
                )
            }
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

    def document_codes(self, document_id: str) -> tuple[str, ...]:
        with self._lock:
            rows = self._conn.execute(
                "SELECT code FROM document_codes WHERE document_id = ? ORDER BY code", (document_id,)
            ).fetchall()
        return tuple(r[0] for r in rows)

    def plan_riders(self, plan_id: str) -> tuple[str, ...]:
        with self._lock:
            rows = self._conn.execute(
                "SELECT rider FROM plan_riders WHERE plan_id = ? ORDER BY rider", (plan_id,)
            ).fetchall()
        return tuple(r[0] for r in rows)

    def timeline(self, document_id: str, *, with_recorded_at: bool = False) -> list[TimelineEvent]:
        with self._transaction() as conn:
            if conn.execute("SELECT 1 FROM documents WHERE id = ?", (document_id,)).fetchone() is None:
                raise NotFoundError("document", document_id, "list the documents with `clauseguard corpus stats`")
            rows = conn.execute(
                "SELECT document_id, kind, version, date, detail, recorded_at FROM timeline_events "
                "WHERE document_id = ? ORDER BY seq",
                (document_id,),
            ).fetchall()
        return [
            TimelineEvent(d, k, v, date.fromisoformat(day), detail, recorded if with_recorded_at else None)
            for d, k, v, day, detail, recorded in rows
        ]

    # -- writing -----------------------------------------------------------------------------

    def add(self, corpus: Corpus, *, source: str = "corpus being added") -> AddReport:
        """Append `corpus` in one transaction: everything it adds is written, or nothing is."""
        try:
            with self._transaction("IMMEDIATE") as conn:
                existing = self._read_corpus(conn)
                plan = plan_append(existing, corpus, source=source)
                before = existing.fingerprint()
                if not plan.changed:
                    return AddReport(fingerprint_before=before, fingerprint=before, notes=plan.notes)
                self._write(conn, plan)
                after = self._read_corpus(conn).fingerprint()
                expected = plan.result.fingerprint()
                if after != expected:  # a bug, never a user error: refuse to commit a store we cannot read back
                    raise CorpusError(
                        [Problem(str(self.path), "", f"the store read back as {after}, expected {expected}; nothing was written")]
                    )
                conn.execute(
                    "INSERT INTO meta (key, value) VALUES ('fingerprint', ?) "
                    "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                    (after,),
                )
                conn.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('format', ?)", (FORMAT_V1,))
                return AddReport.from_plan(plan, before, after)
        except sqlite3.Error as exc:
            raise CorpusError([Problem(str(self.path), "", f"could not write the store, nothing was written: {exc}")]) from exc

    def _write(self, conn: sqlite3.Connection, plan: AppendPlan) -> None:
        recorded_at = self._clock().isoformat(timespec="seconds")
        conn.executemany("INSERT INTO payers (id, name) VALUES (?, ?)", [(p.id, p.name) for p in plan.payers])
        conn.executemany(
            "INSERT INTO plans (id, payer, name) VALUES (?, ?, ?)", [(p.id, p.payer, p.name) for p in plan.plans]
        )
        riders = [(p.id, r) for p in plan.plans for r in p.riders]
        riders += [(link.owner_id, r) for link in plan.links if link.owner == "plan" for r in link.values]
        conn.executemany("INSERT INTO plan_riders (plan_id, rider) VALUES (?, ?)", riders)
        conn.executemany(
            "INSERT INTO contracts (id, plan, holder, effective_date, end_date, terms_anchor) VALUES (?, ?, ?, ?, ?, ?)",
            [(c.id, c.plan, c.holder, _iso(c.effective_date), _iso(c.end_date), c.terms_anchor) for c in plan.contracts],
        )
        conn.executemany(
            "INSERT INTO codes (code, system, descriptor) VALUES (?, ?, ?)",
            [(c.code, c.system, c.descriptor) for c in plan.codes],
        )
        conn.executemany(
            "INSERT INTO documents (id, payer, kind, title) VALUES (?, ?, ?, ?)",
            [(d.id, d.payer, d.kind, d.title) for d in plan.documents],
        )
        doc_links: dict[str, list[tuple[str, str]]] = {
            name: [(d.id, x) for d in plan.documents for x in getattr(d, name)]
            for name in ("codes", "plans", "overrides")
        }
        for link in plan.links:
            if link.owner == "document":
                doc_links[link.field] += [(link.owner_id, x) for x in link.values]
        conn.executemany("INSERT INTO document_codes (document_id, code) VALUES (?, ?)", doc_links["codes"])
        conn.executemany("INSERT INTO document_plans (document_id, plan_id) VALUES (?, ?)", doc_links["plans"])
        conn.executemany("INSERT INTO document_overrides (document_id, target) VALUES (?, ?)", doc_links["overrides"])
        for closed in plan.closed:
            cursor = conn.execute(
                "UPDATE versions SET effective_end = ? WHERE document_id = ? AND label = ? AND effective_end IS NULL",
                (_iso(closed.effective_end), closed.document_id, closed.version),
            )
            if cursor.rowcount != 1:
                raise CorpusError(
                    [Problem(str(self.path), "", f"version {closed.version} of {closed.document_id} is no longer open-ended; nothing was written")]
                )
        for nv in plan.versions:
            v = nv.version
            cursor = conn.execute(
                "INSERT INTO versions (document_id, label, effective_start, effective_end, source_file, source_sha256, "
                "source_reader) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    nv.document_id, v.version, _iso(v.effective_start), _iso(v.effective_end),
                    v.source.file if v.source else None, v.source.sha256 if v.source else None,
                    v.source.reader if v.source else None,
                ),
            )
            version_id = cursor.lastrowid
            conn.executemany(
                "INSERT INTO clauses (id, version_id, position, section, text, kind, article, page, page_label, "
                "benefit, coverage_type, criteria, page_end, page_end_label) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        c.id, version_id, position, c.section, c.text, c.kind, c.article, c.page, c.page_label,
                        c.benefit, c.coverage_type, _criteria_json(c.criteria), c.page_end, c.page_end_label,
                    )
                    for position, c in enumerate(v.clauses)
                ],
            )
        conn.executemany(
            "INSERT INTO timeline_events (document_id, kind, version, date, detail, recorded_at) VALUES (?, ?, ?, ?, ?, ?)",
            [(e.document_id, e.kind, e.version, e.date.isoformat(), e.detail, recorded_at) for e in plan.events],
        )

    # -- handles ------------------------------------------------------------------------------

    def reopen(self) -> SqliteStore:
        return SqliteStore(self.path, clock=self._clock)

    def close(self) -> None:
        with self._lock:
            self._conn.close()
