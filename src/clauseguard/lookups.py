"""What every interface shows next to an answer: a clause, a document's versions, a code and the documents
that govern it, a plan's riders, and what the audit log holds for an assertion.

Read from the opened corpus, its store and the audit log; it never answers a question and never writes.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from clauseguard.audit import AuditTrail
from clauseguard.corpus.sources import Opened
from clauseguard.errors import NotFoundError
from clauseguard.responses import (
    AuditView,
    ClauseRecord,
    CodeDocument,
    CodeRecord,
    PlanRiders,
    RiderEntry,
    TimelineEntry,
    VersionEntry,
    VersionTimeline,
)
from clauseguard.versions import attached_riders, version_in_effect


def clause_record(opened: Opened, clause_id: str) -> dict[str, Any]:
    """One clause read from the store by id, with its document and version."""
    stored = opened.store.clause(clause_id)
    if stored is None:
        raise NotFoundError("clause", clause_id, "clause ids look like DOCUMENT.VERSION.C2")
    return ClauseRecord(
        clause_id=stored.id, document_id=stored.document_id, document_title=stored.document_title,
        kind=stored.kind, version=stored.version, effective_start=stored.effective_start.isoformat(),
        effective_end=stored.effective_end.isoformat() if stored.effective_end else None,
        section=stored.section, article=stored.article, page=stored.page, page_label=stored.page_label,
        page_end=stored.page_end, page_end_label=stored.page_end_label, text=stored.text,
    ).as_json()


def version_timeline(opened: Opened, document_id: str) -> dict[str, Any]:
    """A document's versions in date order, with clause counts and the store's timeline events."""
    doc = next((d for d in opened.corpus.documents if d.id == document_id), None)
    if doc is None:
        raise NotFoundError("document", document_id, "the catalog (/v1/corpus, list_catalog) lists every document")
    return VersionTimeline(
        document_id=doc.id, title=doc.title, kind=doc.kind, payer=doc.payer,
        versions=[
            VersionEntry(version=v.version, effective_start=v.effective_start.isoformat(),
                         effective_end=v.effective_end.isoformat() if v.effective_end else None,
                         clauses=len(v.clauses))
            for v in doc.versions
        ],
        events=[
            TimelineEntry(kind=e.kind, version=e.version, date=e.date.isoformat(), detail=e.detail)
            for e in opened.store.timeline(doc.id)
        ],
    ).as_json()


def code_record(opened: Opened, code: str) -> dict[str, Any]:
    """A code, its system and descriptor, and the documents that govern it."""
    found = next((c for c in opened.corpus.codes if c.code == code), None)
    if found is None:
        raise NotFoundError("code", code)
    return CodeRecord(
        code=found.code, system=found.system, descriptor=found.descriptor,
        documents=[CodeDocument(document_id=d.id, payer=d.payer, kind=d.kind, title=d.title)
                   for d in opened.corpus.documents if code in d.codes],
    ).as_json()


def plan_riders(opened: Opened, plan_id: str, as_of: date | None = None) -> dict[str, Any]:
    """The riders attached to a plan; with a date, only those with a version in effect that day."""
    plan = next((p for p in opened.corpus.plans if p.id == plan_id), None)
    if plan is None:
        raise NotFoundError("plan", plan_id)
    out = []
    for rider in attached_riders(opened.corpus, plan_id):
        version = version_in_effect(rider, as_of) if as_of is not None else rider.versions[-1]
        if version is None:
            continue
        out.append(RiderEntry(
            rider_id=rider.id, title=rider.title, overrides=list(rider.overrides), version=version.version,
            effective_start=version.effective_start.isoformat(),
            effective_end=version.effective_end.isoformat() if version.effective_end else None,
        ))
    return PlanRiders(plan_id=plan_id, payer_id=plan.payer, as_of_date=as_of.isoformat() if as_of else None,
                      riders=out).as_json()


def audit_view(audit: AuditTrail, assertion_id: str) -> dict[str, Any]:
    """What the audit log holds for an assertion (redacted request and response)."""
    record = audit.get(assertion_id)
    return AuditView(
        assertion_id=record.assertion_id, trace_id=record.trace_id, kind=record.kind,
        corpus_fingerprint=record.corpus_fingerprint, recorded_at=record.recorded_at,
        request=record.request, response=record.response, settings=record.settings,
    ).as_json()
