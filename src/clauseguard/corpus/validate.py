"""Cross-reference checks over a whole corpus (one or several files).

Each problem names the file, the key path inside it and what would be valid. These checks read
records only; they never repair, reorder or drop anything.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from typing import Generic, TypeVar

from clauseguard.corpus.model import Corpus, Document, Version
from clauseguard.errors import Problem

T = TypeVar("T")


@dataclass(frozen=True)
class Located(Generic[T]):
    """A record and where it was written (file and key path)."""

    file: str
    path: str
    item: T

    def problem(self, suffix: str, message: str) -> Problem:
        return Problem(self.file, self.path + suffix, message)


def _located(parsed: list[tuple[str, Corpus]], attr: str) -> list[Located]:  # type: ignore[type-arg]
    return [
        Located(file, f"{attr}[{i}]", item)
        for file, corpus in parsed
        for i, item in enumerate(getattr(corpus, attr))
    ]


def _period(v: Version) -> str:
    return f"{v.effective_start.isoformat()} to {v.effective_end.isoformat() if v.effective_end else 'open-ended'}"


def _overlap(a: Version, b: Version) -> bool:
    far = date.max
    return a.effective_start <= (b.effective_end or far) and b.effective_start <= (a.effective_end or far)


def _duplicates(entries: Iterable[Located], key: str, what: str) -> list[Problem]:  # type: ignore[type-arg]
    first: dict[str, Located] = {}  # type: ignore[type-arg]
    problems = []
    for entry in entries:
        ident = getattr(entry.item, key)
        if ident in first:
            prev = first[ident]
            problems.append(
                entry.problem(f".{key}", f"{what} {ident!r} is already defined at {prev.file}: {prev.path}; ids must be unique")
            )
        else:
            first[ident] = entry
    return problems


def version_overlap_message(document_id: str, a: Version, b: Version) -> str:
    """The sentence used wherever two versions of one document would overlap."""
    return (
        f"versions of document {document_id} overlap: {a.version} ({_period(a)}) and "
        f"{b.version} ({_period(b)}); periods are inclusive at both ends and must not overlap"
    )


def check_versions(doc: Located[Document]) -> list[Problem]:
    """Each version's period is ordered, labels are unique, and no two versions overlap."""
    problems = []
    versions = doc.item.versions
    if not versions:
        problems.append(doc.problem(".versions", "a document needs at least one version"))
    labels: dict[str, int] = {}
    for i, v in enumerate(versions):
        where = f".versions[{i}]"
        if v.effective_end is not None and v.effective_end < v.effective_start:
            problems.append(
                doc.problem(
                    where + ".effective_end",
                    f"{v.effective_end} is before effective_start {v.effective_start}; "
                    "use a date on or after the start, or null for open-ended",
                )
            )
        if v.version in labels:
            problems.append(
                doc.problem(where + ".version", f"version label {v.version!r} is used twice in document {doc.item.id}")
            )
        labels[v.version] = i
        if not v.clauses:
            problems.append(doc.problem(where + ".clauses", "a version needs at least one clause"))
        for w in versions[:i]:
            if _overlap(v, w):
                problems.append(doc.problem(where, version_overlap_message(doc.item.id, w, v)))
    return problems


def check_corpus(parsed: list[tuple[str, Corpus]]) -> list[Problem]:
    """Every cross-reference problem of the merged files, in file order."""
    payers = _located(parsed, "payers")
    plans = _located(parsed, "plans")
    contracts = _located(parsed, "contracts")
    codes = _located(parsed, "codes")
    documents: list[Located[Document]] = _located(parsed, "documents")

    problems: list[Problem] = []
    problems += _duplicates(payers, "id", "payer")
    problems += _duplicates(plans, "id", "plan")
    problems += _duplicates(contracts, "id", "contract")
    problems += _duplicates(codes, "code", "code")
    problems += _duplicates(documents, "id", "document")

    payer_ids = {e.item.id for e in payers}
    plan_by_id = {e.item.id: e.item for e in plans}
    doc_by_id = {e.item.id: e.item for e in documents}
    code_ids = {e.item.code for e in codes}

    def unknown(entry: Located, suffix: str, kind: str, ident: str, known: Iterable[str]) -> Problem:  # type: ignore[type-arg]
        names = sorted(known)
        shown = ", ".join(names[:12]) + (" ..." if len(names) > 12 else "")
        return entry.problem(suffix, f"unknown {kind} {ident!r}; known {kind}s: {shown or 'none'}")

    for e in plans:
        if e.item.payer not in payer_ids:
            problems.append(unknown(e, ".payer", "payer", e.item.payer, payer_ids))
        for i, rider in enumerate(e.item.riders):
            doc = doc_by_id.get(rider)
            if doc is None:
                problems.append(unknown(e, f".riders[{i}]", "rider", rider, (d for d, x in doc_by_id.items() if x.kind == "rider")))
            elif doc.kind != "rider":
                problems.append(e.problem(f".riders[{i}]", f"document {rider!r} is a {doc.kind}, not a rider"))
            elif doc.payer != e.item.payer:
                problems.append(e.problem(f".riders[{i}]", f"rider {rider!r} belongs to payer {doc.payer}, not {e.item.payer}"))

    for e in contracts:
        if e.item.plan not in plan_by_id:
            problems.append(unknown(e, ".plan", "plan", e.item.plan, plan_by_id))
        if e.item.end_date is not None and e.item.end_date < e.item.effective_date:
            problems.append(e.problem(".end_date", f"{e.item.end_date} is before effective_date {e.item.effective_date}; use a later date or null"))

    riders_of_plan = {pid: set(p.riders) for pid, p in plan_by_id.items()}
    clause_seen: dict[str, str] = {}
    for e in documents:
        d = e.item
        if d.payer not in payer_ids:
            problems.append(unknown(e, ".payer", "payer", d.payer, payer_ids))
        for i, code in enumerate(d.codes):
            if code not in code_ids:
                problems.append(e.problem(f".codes[{i}]", f"code {code!r} is governed by {d.id} but absent from the top-level codes list; add it there with its system and descriptor"))
        for i, pid in enumerate(d.plans):
            plan = plan_by_id.get(pid)
            if plan is None:
                problems.append(unknown(e, f".plans[{i}]", "plan", pid, plan_by_id))
            elif plan.payer != d.payer:
                problems.append(e.problem(f".plans[{i}]", f"plan {pid!r} belongs to payer {plan.payer}, not {d.payer}"))
        if d.overrides and d.kind != "rider":
            problems.append(e.problem(".overrides", f"only riders override other documents; {d.id} is a {d.kind} (use an empty list)"))
        for i, target in enumerate(d.overrides):
            if target not in doc_by_id:
                problems.append(unknown(e, f".overrides[{i}]", "document", target, doc_by_id))
            elif target == d.id:
                problems.append(e.problem(f".overrides[{i}]", "a rider cannot override itself"))
        if d.kind == "rider" and d.plans:
            attached = {pid for pid, riders in riders_of_plan.items() if d.id in riders}
            if set(d.plans) != attached:
                problems.append(
                    e.problem(
                        ".plans",
                        f"rider {d.id} lists plans {sorted(d.plans)} but the plans whose riders list names it are "
                        f"{sorted(attached)}; make the two agree (or leave the rider's plans empty)",
                    )
                )
        problems += check_versions(e)
        for i, v in enumerate(d.versions):
            for j, c in enumerate(v.clauses):
                where = f"{e.file}: {e.path}.versions[{i}].clauses[{j}]"
                if c.id in clause_seen:
                    problems.append(
                        e.problem(f".versions[{i}].clauses[{j}].id", f"clause id {c.id!r} is already used at {clause_seen[c.id]}; a clause id is never reused")
                    )
                else:
                    clause_seen[c.id] = where
    return problems

