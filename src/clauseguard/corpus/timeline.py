"""Appending a corpus to a stored one: what is new, which open version closes, what is refused.

Pure functions over corpus records, no I/O. It never edits a stored clause, never drops a
record and never moves a date except by closing an open-ended version the day before its
successor starts; anything else that would rewrite history raises AppendOnlyError.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any, Literal, TypeVar

from pydantic import BaseModel

from clauseguard.corpus.model import FORMAT_V1, Clause, Code, Contract, Corpus, Document, Payer, Plan, Version
from clauseguard.corpus.validate import Located, check_corpus, check_versions, version_overlap_message
from clauseguard.errors import AppendOnlyError, CorpusError, Problem

EventKind = Literal["version_added", "version_closed"]
EVENT_KINDS: tuple[str, ...] = ("version_added", "version_closed")

R = TypeVar("R", bound=BaseModel)


@dataclass(frozen=True)
class TimelineEvent:
    """One change on a document's timeline, in the order the store recorded it."""

    document_id: str
    kind: EventKind
    version: str
    date: date  # the new version's start, or the closed version's new end
    detail: str
    recorded_at: str | None = field(default=None, compare=False)  # wall clock, shown only on request


@dataclass(frozen=True)
class NewVersion:
    document_id: str
    version: Version


@dataclass(frozen=True)
class NewClause:
    document_id: str
    version: str
    clause: Clause


@dataclass(frozen=True)
class ClosedVersion:
    """An open-ended stored version that gets an end date (its clauses do not change)."""

    document_id: str
    version: str
    effective_end: date


@dataclass(frozen=True)
class LinksAdded:
    """Ids added to a list that may only grow: a plan's riders, a document's codes, plans, overrides."""

    owner: Literal["plan", "document"]
    owner_id: str
    field: Literal["riders", "codes", "plans", "overrides"]
    values: tuple[str, ...]


@dataclass(frozen=True)
class AppendPlan:
    """Everything an append adds or closes, and the normalised corpus it results in."""

    payers: tuple[Payer, ...]
    plans: tuple[Plan, ...]
    contracts: tuple[Contract, ...]
    codes: tuple[Code, ...]
    documents: tuple[Document, ...]  # new documents; their versions are listed in `versions` too
    versions: tuple[NewVersion, ...]  # every new version, of new and of stored documents
    closed: tuple[ClosedVersion, ...]
    links: tuple[LinksAdded, ...]
    events: tuple[TimelineEvent, ...]
    notes: tuple[str, ...]  # sentences for the user: lists that grew, open ends kept as stored
    result: Corpus

    @property
    def clauses(self) -> tuple[NewClause, ...]:
        return tuple(NewClause(nv.document_id, nv.version.version, c) for nv in self.versions for c in nv.version.clauses)

    @property
    def changed(self) -> bool:
        """False when the append is a no-op (everything given is already stored)."""
        return bool(
            self.payers or self.plans or self.contracts or self.codes or self.documents
            or self.versions or self.closed or self.links
        )


def _differing_fields(stored: BaseModel, given: BaseModel, ignore: Iterable[str] = ()) -> list[tuple[str, Any, Any]]:
    """(field, stored value, given value) for each field that differs, compared as JSON data."""
    a, b = stored.model_dump(mode="json"), given.model_dump(mode="json")
    skip = set(ignore)
    return [(k, a[k], b[k]) for k in a if k not in skip and a[k] != b[k]]


def _show(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _period(v: Version) -> str:
    end = v.effective_end.isoformat() if v.effective_end else "open-ended"
    return f"{v.effective_start.isoformat()} to {end}"


def _overlap(a: Version, b: Version) -> bool:
    return a.effective_start <= (b.effective_end or date.max) and b.effective_start <= (a.effective_end or date.max)


class _Planner:
    def __init__(self, existing: Corpus, incoming: Corpus, source: str) -> None:
        self.old = existing.normalised()
        self.new = incoming.normalised()
        self.source = source
        self.problems: list[Problem] = []
        self.notes: list[str] = []
        self.links: list[LinksAdded] = []
        self.events: list[TimelineEvent] = []
        self.closed: list[ClosedVersion] = []
        self.new_versions: list[NewVersion] = []

    def refuse(self, path: str, message: str) -> None:
        self.problems.append(Problem(self.source, path, message))

    # -- records without history: same id, same fields -------------------------------------

    def merge_records(self, stored: Sequence[R], given: Sequence[R], key: str, what: str, grow: str = "") -> tuple[list[R], list[R]]:
        """(the merged list, the new records); a stored id with other fields is refused."""
        by_id: dict[str, R] = {getattr(r, key): r for r in stored}
        merged: dict[str, R] = dict(by_id)
        added: list[R] = []
        for record in given:
            ident = getattr(record, key)
            before = by_id.get(ident)
            if before is None:
                merged[ident] = record
                added.append(record)
                continue
            fields = _differing_fields(before, record, ignore=(grow,) if grow else ())
            for name, was, now in fields:
                self.refuse(
                    f"{what}s[{ident}].{name}",
                    f"{what} {ident} is already stored with {name} {_show(was)}; "
                    f"{_show(now)} was given. Stored records never change: "
                    f"give the changed {what} a new id",
                )
            if grow and not fields:
                grown = sorted(set(getattr(record, grow)) - set(getattr(before, grow)))
                if grown:
                    merged[ident] = before.model_copy(update={grow: tuple(sorted({*getattr(before, grow), *grown}))})
                    self.links.append(LinksAdded("plan", ident, "riders", tuple(grown)))
                    self.notes.append(f"plan {ident}: riders {', '.join(grown)} added (a plan's riders only grow)")
        return list(merged.values()), added

    # -- documents and their versions -------------------------------------------------------

    def merge_document(self, stored: Document, given: Document) -> Document:
        path = f"documents[{stored.id}]"
        for name, was, now in _differing_fields(stored, given, ignore=("codes", "plans", "overrides", "versions")):
            self.refuse(
                f"{path}.{name}",
                f"document {stored.id} is already stored with {name} {_show(was)}; "
                f"{_show(now)} was given. A stored document keeps its payer, kind and title",
            )
        update: dict[str, Any] = {}
        growing: tuple[Literal["codes", "plans", "overrides"], ...] = ("codes", "plans", "overrides")
        for name in growing:
            grown = sorted(set(getattr(given, name)) - set(getattr(stored, name)))
            if grown:
                update[name] = tuple(sorted({*getattr(stored, name), *grown}))
                self.links.append(LinksAdded("document", stored.id, name, tuple(grown)))
                self.notes.append(f"document {stored.id}: {name} {', '.join(grown)} added (these lists only grow)")
        update["versions"] = self.merge_versions(stored, given)
        return stored.model_copy(update=update)

    def merge_versions(self, stored: Document, given: Document) -> tuple[Version, ...]:
        doc = stored.id
        working: dict[str, Version] = {v.version: v for v in stored.versions}
        stored_labels = set(working)
        pending: list[Version] = []
        for v in given.versions:
            before = working.get(v.version)
            if before is None:
                pending.append(v)
                continue
            path = f"documents[{doc}].versions[{v.version}]"
            changes = _clause_changes(before, v)
            if changes:
                self.refuse(
                    path + ".clauses",
                    f"changed text under existing version label {v.version} of document {doc}: "
                    + "; ".join(changes)
                    + ". A stored version never changes: give the new text a new version label and new clause ids",
                )
            for name, was, now in _differing_fields(before, v, ignore=("version", "effective_end", "clauses")):
                self.refuse(
                    f"{path}.{name}",
                    f"version {v.version} of document {doc} is stored with {name} {_show(was)}; "
                    f"{_show(now)} was given. A stored version never changes: use a new version label",
                )
            if before.effective_end == v.effective_end:
                continue
            if before.effective_end is None and v.effective_end is not None:
                working[v.version] = before.model_copy(update={"effective_end": v.effective_end})
                self._close(doc, before, v.effective_end, "as the corpus being added gives its end")
            elif v.effective_end is None:
                assert before.effective_end is not None
                self.notes.append(
                    f"version {v.version} of document {doc} was given open-ended but the store closed it on "
                    f"{before.effective_end.isoformat()}; kept as stored"
                )
            else:
                assert before.effective_end is not None
                self.refuse(
                    f"{path}.effective_end",
                    f"version {v.version} of document {doc} is stored ending {before.effective_end.isoformat()}; "
                    f"{v.effective_end.isoformat()} was given. A closed version's end never moves",
                )
        for v in sorted(pending, key=lambda x: (x.effective_start, x.version)):
            accepted = True
            for label in sorted(working, key=lambda x: (working[x].effective_start, x)):
                w = working[label]
                if not _overlap(w, v):
                    continue
                closable = label in stored_labels and w.effective_end is None and w.effective_start < v.effective_start
                if closable:
                    end = v.effective_start - timedelta(days=1)
                    working[label] = w.model_copy(update={"effective_end": end})
                    self._close(
                        doc, w, end, f"the day before version {v.version} starts on {v.effective_start.isoformat()}"
                    )
                else:
                    accepted = False
                    self.refuse(f"documents[{doc}].versions[{v.version}]", version_overlap_message(doc, w, v))
            if accepted:
                working[v.version] = v
                self._add(doc, v)
        return tuple(working.values())

    def _close(self, doc: str, version: Version, end: date, why: str) -> None:
        self.closed.append(ClosedVersion(doc, version.version, end))
        self.events.append(
            TimelineEvent(
                doc,
                "version_closed",
                version.version,
                end,
                f"version {version.version} of document {doc} (in effect from "
                f"{version.effective_start.isoformat()}, open-ended) closed on {end.isoformat()}, {why}; "
                "its clauses are unchanged",
            )
        )

    def _add(self, doc: str, version: Version) -> None:
        self.new_versions.append(NewVersion(doc, version))
        n = len(version.clauses)
        self.events.append(
            TimelineEvent(
                doc,
                "version_added",
                version.version,
                version.effective_start,
                f"version {version.version} of document {doc} added, in effect {_period(version)} "
                f"({n} clause{'s' if n != 1 else ''})",
            )
        )

    # -- clause ids are never reused ----------------------------------------------------------

    def check_clause_ids(self) -> None:
        stored: dict[str, tuple[str, str]] = {
            c.id: (d.id, v.version) for d in self.old.documents for v in d.versions for c in v.clauses
        }
        for nv in self.new_versions:
            for c in nv.version.clauses:
                where = stored.get(c.id)
                if where is not None:
                    self.refuse(
                        f"documents[{nv.document_id}].versions[{nv.version.version}].clauses[{c.id}]",
                        f"clause id {c.id} is already stored under version {where[1]} of document {where[0]}; "
                        "a clause id always resolves to the same text and is never reused: give this clause a new id",
                    )


def _clause_changes(stored: Version, given: Version) -> list[str]:
    """Sentences naming each clause that differs between two records of one version label."""
    old = {c.id: c for c in stored.clauses}
    new = {c.id: c for c in given.clauses}
    out = []
    for cid, c in new.items():
        before = old.get(cid)
        if before is None:
            out.append(f"clause {cid} is not stored under it")
            continue
        for name, was, now in _differing_fields(before, c):
            out.append(f"clause {cid} {name} differs (stored {_show(was)}, given {_show(now)})")
    out += [f"stored clause {cid} is missing" for cid in old if cid not in new]
    if not out and [c.id for c in stored.clauses] != [c.id for c in given.clauses]:
        out.append("the clauses are given in another order")
    return out


def _given_problems(incoming: Corpus, source: str) -> list[Problem]:
    """What is wrong with the corpus being added on its own: ids given twice, bad version periods."""
    problems: list[Problem] = []
    for attr, key, what in (
        ("payers", "id", "payer"),
        ("plans", "id", "plan"),
        ("contracts", "id", "contract"),
        ("codes", "code", "code"),
        ("documents", "id", "document"),
    ):
        seen: set[str] = set()
        for i, record in enumerate(getattr(incoming, attr)):
            ident = getattr(record, key)
            if ident in seen:
                problems.append(Problem(source, f"{attr}[{i}].{key}", f"{what} {ident!r} is given twice; ids must be unique"))
            seen.add(ident)
    clause_seen: set[str] = set()
    for i, doc in enumerate(incoming.documents):
        problems += check_versions(Located(source, f"documents[{i}]", doc))
        for v in doc.versions:
            for c in v.clauses:
                if c.id in clause_seen:
                    problems.append(
                        Problem(source, f"documents[{doc.id}].versions[{v.version}].clauses[{c.id}]",
                                f"clause id {c.id!r} is given twice; a clause id is never reused")
                    )
                clause_seen.add(c.id)
    return problems


def plan_append(existing: Corpus, incoming: Corpus, *, source: str = "corpus being added") -> AppendPlan:
    """What adding `incoming` to the stored `existing` corpus does, or AppendOnlyError naming every refusal.

    The rule a handler would accept: what the store holds never changes; a new version may close
    the open-ended version it succeeds (the day before it starts), and lists of riders, codes,
    plans and overrides may grow. Anything else that differs is refused.
    """
    given = _given_problems(incoming, source)
    if given:
        raise CorpusError(given)
    p = _Planner(existing, incoming, source)
    payers, new_payers = p.merge_records(p.old.payers, p.new.payers, "id", "payer")
    plans, new_plans = p.merge_records(p.old.plans, p.new.plans, "id", "plan", grow="riders")
    contracts, new_contracts = p.merge_records(p.old.contracts, p.new.contracts, "id", "contract")
    codes, new_codes = p.merge_records(p.old.codes, p.new.codes, "code", "code")

    documents: dict[str, Document] = {d.id: d for d in p.old.documents}
    new_documents: list[Document] = []
    for doc in p.new.documents:
        stored = documents.get(doc.id)
        if stored is None:
            documents[doc.id] = doc
            new_documents.append(doc)
            for v in doc.versions:
                p._add(doc.id, v)
        else:
            documents[doc.id] = p.merge_document(stored, doc)
    p.check_clause_ids()
    if p.problems:
        raise AppendOnlyError(p.problems)

    result = Corpus(
        format=FORMAT_V1,
        payers=tuple(payers),
        plans=tuple(plans),
        contracts=tuple(contracts),
        codes=tuple(codes),
        documents=tuple(documents.values()),
    ).normalised()
    problems = check_corpus([("store", result)])
    if problems:
        raise CorpusError(
            [Problem(f"the store after adding the {source}", q.path, q.message) for q in problems]
        )
    return AppendPlan(
        payers=tuple(new_payers),
        plans=tuple(new_plans),
        contracts=tuple(new_contracts),
        codes=tuple(new_codes),
        documents=tuple(new_documents),
        versions=tuple(p.new_versions),
        closed=tuple(p.closed),
        links=tuple(p.links),
        events=tuple(p.events),
        notes=tuple(p.notes),
        result=result,
    )
