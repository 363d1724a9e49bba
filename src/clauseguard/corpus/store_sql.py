"""The SQL every store backend speaks: reading the corpus whole or by clause id, writing an append plan.

SQLite and PostgreSQL hold the same tables (their DDL lives in `migrations.py` / `pg_migrations.py`),
so the queries live here once, written with `?` placeholders that a backend's `Db` adapts. Every
version's clause set is sealed when written and checked when read: a version whose clauses no
longer hash to their seal is refused by name. It never commits or opens a connection itself.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any, Protocol

from clauseguard.corpus.model import FORMAT_V1, Corpus
from clauseguard.corpus.seals import clause_set_hash, version_key
from clauseguard.corpus.timeline import AppendPlan, TimelineEvent
from clauseguard.errors import CorpusError, NotFoundError, Problem


class Db(Protocol):
    """One open transaction of a backend, with `?` placeholders."""

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]: ...

    def run(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Execute one statement; the number of rows it changed."""
        ...

    def many(self, sql: str, params: Iterable[Sequence[Any]]) -> None: ...


@dataclass(frozen=True)
class VersionState:
    """What the store holds for one version: the hash of its clauses now, its seal, its end date."""

    content_hash: str
    sealed_hash: str | None
    effective_end: date | None

    @property
    def intact(self) -> bool:
        return self.sealed_hash is None or self.sealed_hash == self.content_hash


def _iso(day: date | None) -> str | None:
    return None if day is None else day.isoformat()


def _criteria_json(value: Any) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False, sort_keys=True)


def read_corpus_unchecked(db: Db) -> Corpus:
    """The stored corpus in a fixed number of queries (one per table), whatever its size."""
    riders: dict[str, list[str]] = defaultdict(list)
    for plan_id, rider in db.rows("SELECT plan_id, rider FROM plan_riders ORDER BY plan_id, rider"):
        riders[plan_id].append(rider)
    links: dict[str, dict[str, list[str]]] = {name: defaultdict(list) for name in ("codes", "plans", "overrides")}
    for name, sql in (
        ("codes", "SELECT document_id, code FROM document_codes ORDER BY document_id, code"),
        ("plans", "SELECT document_id, plan_id FROM document_plans ORDER BY document_id, plan_id"),
        ("overrides", "SELECT document_id, target FROM document_overrides ORDER BY document_id, target"),
    ):
        for doc_id, value in db.rows(sql):
            links[name][doc_id].append(value)
    clauses: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for row in db.rows(
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
    for vid, doc_id, label, start, end, sfile, ssha, sreader in db.rows(
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
        "payers": [{"id": i, "name": n} for i, n in db.rows("SELECT id, name FROM payers ORDER BY id")],
        "plans": [
            {"id": i, "payer": p, "name": n, "riders": riders.get(i, [])}
            for i, p, n in db.rows("SELECT id, payer, name FROM plans ORDER BY id")
        ],
        "contracts": [
            {"id": i, "plan": p, "holder": h, "effective_date": s, "end_date": e, "terms_anchor": a}
            for i, p, h, s, e, a in db.rows(
                "SELECT id, plan, holder, effective_date, end_date, terms_anchor FROM contracts ORDER BY id"
            )
        ],
        "codes": [
            {"code": c, "system": s, "descriptor": d}
            for c, s, d in db.rows("SELECT code, system, descriptor FROM codes ORDER BY code")
        ],
        "documents": [
            {
                "id": i, "payer": p, "kind": k, "title": t,
                "codes": links["codes"].get(i, []), "plans": links["plans"].get(i, []),
                "overrides": links["overrides"].get(i, []), "versions": versions.get(i, []),
            }
            for i, p, k, t in db.rows("SELECT id, payer, kind, title FROM documents ORDER BY id")
        ],
    }
    return Corpus.model_validate(data).normalised()


def stored_seals(db: Db) -> dict[str, str]:
    return {
        version_key(doc, label): sealed
        for doc, label, sealed in db.rows(
            "SELECT v.document_id, v.label, s.content_hash FROM version_seals s JOIN versions v ON v.id = s.version_id"
        )
    }


def version_states(db: Db) -> dict[str, VersionState]:
    """Every stored version: its clauses' hash now, the seal written with it, its end date."""
    corpus = read_corpus_unchecked(db)
    seals = stored_seals(db)
    return {
        version_key(d.id, v.version): VersionState(
            clause_set_hash(v.clauses), seals.get(version_key(d.id, v.version)), v.effective_end
        )
        for d in corpus.documents
        for v in d.versions
    }


def read_corpus(db: Db, where: str) -> Corpus:
    """The stored corpus, refused (naming the versions) if any version's clauses no longer match its seal."""
    corpus = read_corpus_unchecked(db)
    seals = stored_seals(db)
    broken = [
        version_key(d.id, v.version)
        for d in corpus.documents
        for v in d.versions
        if seals.get(version_key(d.id, v.version), clause_set_hash(v.clauses)) != clause_set_hash(v.clauses)
    ]
    if broken:
        raise CorpusError([
            Problem(where, "", f"version {key} was changed behind the store's back: its clauses no longer match the "
                    "seal written with them; restore the store from a backup (the store is append-only)")
            for key in broken
        ])
    return corpus


def unsealed_versions(db: Db) -> list[tuple[int, str, str]]:
    """(version row id, document id, label) of versions written before seals existed."""
    return [
        (int(r[0]), r[1], r[2])
        for r in db.rows(
            "SELECT id, document_id, label FROM versions WHERE id NOT IN (SELECT version_id FROM version_seals) "
            "ORDER BY id"
        )
    ]


def seal_unsealed(db: Db) -> int:
    """Seal the versions a store held before seals existed (with their clauses as they are now)."""
    pending = unsealed_versions(db)
    if not pending:
        return 0
    corpus = read_corpus_unchecked(db)
    by_key = {version_key(d.id, v.version): v for d in corpus.documents for v in d.versions}
    db.many(
        "INSERT INTO version_seals (version_id, content_hash, clause_count) VALUES (?, ?, ?)",
        [(vid, clause_set_hash(by_key[version_key(doc, label)].clauses), len(by_key[version_key(doc, label)].clauses))
         for vid, doc, label in pending],
    )
    return len(pending)


CLAUSE_QUERY = (
    "SELECT c.id, d.id, d.title, d.kind, d.payer, v.label, v.effective_start, v.effective_end, "
    "c.section, c.text, c.kind, c.article, c.page, c.page_label, c.benefit, c.coverage_type, c.criteria, "
    "c.page_end, c.page_end_label FROM clauses c JOIN versions v ON v.id = c.version_id JOIN documents d ON d.id = v.document_id "
    "WHERE c.id = ?"
)
LINK_QUERIES = (
    ("document_codes", "SELECT code FROM document_codes WHERE document_id = ? ORDER BY code"),
    ("document_plans", "SELECT plan_id FROM document_plans WHERE document_id = ? ORDER BY plan_id"),
    ("document_overrides", "SELECT target FROM document_overrides WHERE document_id = ? ORDER BY target"),
)


def read_timeline(db: Db, document_id: str, with_recorded_at: bool) -> list[TimelineEvent]:
    if not db.rows("SELECT 1 FROM documents WHERE id = ?", (document_id,)):
        raise NotFoundError("document", document_id, "list the documents with `clauseguard corpus stats`")
    rows = db.rows(
        "SELECT document_id, kind, version, date, detail, recorded_at FROM timeline_events "
        "WHERE document_id = ? ORDER BY seq",
        (document_id,),
    )
    return [
        TimelineEvent(d, k, v, date.fromisoformat(day), detail, recorded if with_recorded_at else None)
        for d, k, v, day, detail, recorded in rows
    ]


def write_plan(db: Db, plan: AppendPlan, recorded_at: str, where: str) -> None:
    """Insert everything the plan adds; timeline events first, so a closing always has its event."""
    db.many("INSERT INTO payers (id, name) VALUES (?, ?)", [(p.id, p.name) for p in plan.payers])
    db.many("INSERT INTO plans (id, payer, name) VALUES (?, ?, ?)", [(p.id, p.payer, p.name) for p in plan.plans])
    riders = [(p.id, r) for p in plan.plans for r in p.riders]
    riders += [(link.owner_id, r) for link in plan.links if link.owner == "plan" for r in link.values]
    db.many("INSERT INTO plan_riders (plan_id, rider) VALUES (?, ?)", riders)
    db.many(
        "INSERT INTO contracts (id, plan, holder, effective_date, end_date, terms_anchor) VALUES (?, ?, ?, ?, ?, ?)",
        [(c.id, c.plan, c.holder, _iso(c.effective_date), _iso(c.end_date), c.terms_anchor) for c in plan.contracts],
    )
    db.many("INSERT INTO codes (code, system, descriptor) VALUES (?, ?, ?)",
            [(c.code, c.system, c.descriptor) for c in plan.codes])
    db.many("INSERT INTO documents (id, payer, kind, title) VALUES (?, ?, ?, ?)",
            [(d.id, d.payer, d.kind, d.title) for d in plan.documents])
    doc_links: dict[str, list[tuple[str, str]]] = {
        name: [(d.id, x) for d in plan.documents for x in getattr(d, name)] for name in ("codes", "plans", "overrides")
    }
    for link in plan.links:
        if link.owner == "document":
            doc_links[link.field] += [(link.owner_id, x) for x in link.values]
    db.many("INSERT INTO document_codes (document_id, code) VALUES (?, ?)", doc_links["codes"])
    db.many("INSERT INTO document_plans (document_id, plan_id) VALUES (?, ?)", doc_links["plans"])
    db.many("INSERT INTO document_overrides (document_id, target) VALUES (?, ?)", doc_links["overrides"])
    db.many(
        "INSERT INTO timeline_events (document_id, kind, version, date, detail, recorded_at) VALUES (?, ?, ?, ?, ?, ?)",
        [(e.document_id, e.kind, e.version, e.date.isoformat(), e.detail, recorded_at) for e in plan.events],
    )
    for closed in plan.closed:
        changed = db.run(
            "UPDATE versions SET effective_end = ? WHERE document_id = ? AND label = ? AND effective_end IS NULL",
            (_iso(closed.effective_end), closed.document_id, closed.version),
        )
        if changed != 1:
            raise CorpusError([Problem(where, "", f"version {closed.version} of {closed.document_id} is no longer "
                                       "open-ended; nothing was written")])
    for nv in plan.versions:
        v = nv.version
        found = db.rows(
            "INSERT INTO versions (document_id, label, effective_start, effective_end, source_file, source_sha256, "
            "source_reader) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id",
            (
                nv.document_id, v.version, _iso(v.effective_start), _iso(v.effective_end),
                v.source.file if v.source else None, v.source.sha256 if v.source else None,
                v.source.reader if v.source else None,
            ),
        )
        version_id = found[0][0]
        db.many(
            "INSERT INTO clauses (id, version_id, position, section, text, kind, article, page, page_label, "
            "benefit, coverage_type, criteria, page_end, page_end_label) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (c.id, version_id, position, c.section, c.text, c.kind, c.article, c.page, c.page_label,
                 c.benefit, c.coverage_type, _criteria_json(c.criteria), c.page_end, c.page_end_label)
                for position, c in enumerate(v.clauses)
            ],
        )
        db.run("INSERT INTO version_seals (version_id, content_hash, clause_count) VALUES (?, ?, ?)",
               (version_id, clause_set_hash(v.clauses), len(v.clauses)))


def set_fingerprint(db: Db, fingerprint: str) -> None:
    """The `meta` row other instances compare with before each request (and the format, once)."""
    changed = db.run("UPDATE meta SET value = ? WHERE key = 'fingerprint'", (fingerprint,))
    if not changed:
        db.run("INSERT INTO meta (key, value) VALUES ('fingerprint', ?)", (fingerprint,))
    if not db.rows("SELECT 1 FROM meta WHERE key = 'format'"):
        db.run("INSERT INTO meta (key, value) VALUES ('format', ?)", (FORMAT_V1,))


def stored_fingerprint(db: Db) -> str | None:
    """The fingerprint written by the last append (cheap: one row), or None for a store never written."""
    found = db.rows("SELECT value FROM meta WHERE key = 'fingerprint'")
    return str(found[0][0]) if found else None
