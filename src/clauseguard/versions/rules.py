"""The version rules: which version of a document is in effect on a day, the plan's documents and
riders, the documents that govern a code, and the fixed reasons a clause is ineligible.

It never reads clause text, never ranks, never does I/O, and never falls back to a nearby version,
plan or contract.
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Final, NamedTuple

from clauseguard.corpus.model import Contract, Corpus, Document, Plan, Version
from clauseguard.errors import CorpusError, NotFoundError, RequestError

# Why a clause is ineligible: the design's fixed strings ("excluded" in a search response), plus
# `not_a_document_of_plan`, which the design does not name.
OUTSIDE_CONTRACT_PERIOD: Final = "outside the contract period"
OTHER_PAYER: Final = "other payer"


def not_in_effect_on(day: date) -> str:
    return f"not in effect on {day.isoformat()}"


def rider_not_attached(plan_id: str) -> str:
    return f"rider not attached to plan {plan_id}"


def not_a_document_of_plan(plan_id: str) -> str:
    return f"not a document of plan {plan_id}"


def no_version_covers(day: date) -> str:
    return f"no version of the terms covers {day.isoformat()}"


def term_does_not_cover(contract: Contract, day: date) -> str:
    end = contract.end_date.isoformat() if contract.end_date else "open-ended"
    return f"the contract's term ({contract.effective_date.isoformat()} to {end}) does not cover {day.isoformat()}"


# --- one document's timeline -------------------------------------------------------------------


def version_in_effect(document: Document, day: date) -> Version | None:
    """The version whose period (inclusive at both ends, no end meaning open-ended) contains the day, or none."""
    covering = [v for v in document.versions if v.covers(day)]
    if not covering:
        return None
    # Overlaps are refused at load; should one slip through, the later start wins, as on ingest.
    return max(covering, key=lambda v: (v.effective_start, v.version))


# --- the per-corpus index ----------------------------------------------------------------------


class ClauseRef(NamedTuple):
    """Where a clause lives: its document and the label of its version."""

    document_id: str
    version: str


@dataclass(frozen=True, eq=False)
class VersionIndex:
    """Lookups built once per corpus so that deciding eligibility costs one pass over documents."""

    documents: Mapping[str, Document]
    plans: Mapping[str, Plan]
    contracts: Mapping[str, Contract]
    payer_documents: Mapping[str, tuple[Document, ...]]
    clauses: Mapping[str, ClauseRef]  # every clause id, documents by id, versions by start
    clauses_of: Mapping[ClauseRef, tuple[str, ...]]
    payers: Mapping[str, object] = field(default_factory=dict)
    # eligibility decisions shared per (plan, date interval) or contract terms (clauseguard.versions.eligibility)
    decisions: dict[tuple[Any, ...], Any] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def build(cls, corpus: Corpus) -> VersionIndex:
        docs = sorted(corpus.documents, key=lambda d: d.id)
        by_payer: dict[str, list[Document]] = {}
        clauses: dict[str, ClauseRef] = {}
        clauses_of: dict[ClauseRef, tuple[str, ...]] = {}
        for d in docs:
            by_payer.setdefault(d.payer, []).append(d)
            for v in sorted(d.versions, key=lambda v: (v.effective_start, v.version)):
                ref = ClauseRef(d.id, v.version)
                ids = tuple(c.id for c in v.clauses)
                clauses_of[ref] = clauses_of.get(ref, ()) + ids
                for cid in ids:
                    clauses.setdefault(cid, ref)
        return cls(
            documents={d.id: d for d in docs},
            plans={p.id: p for p in sorted(corpus.plans, key=lambda p: p.id)},
            contracts={c.id: c for c in sorted(corpus.contracts, key=lambda c: c.id)},
            payer_documents={p: tuple(ds) for p, ds in sorted(by_payer.items())},
            clauses=clauses,
            clauses_of=clauses_of,
            payers={p.id: p for p in corpus.payers},
        )

    def plan(self, plan_id: str) -> Plan:
        plan = self.plans.get(plan_id)
        if plan is None:
            raise NotFoundError("plan", plan_id, _known("plans", self.plans))
        return plan

    def contract(self, contract_id: str) -> Contract:
        contract = self.contracts.get(contract_id)
        if contract is None:
            raise NotFoundError("contract", contract_id, _known("contracts", self.contracts))
        return contract

    def plan_documents(self, plan: Plan) -> tuple[Document, ...]:
        return tuple(
            d
            for d in self.payer_documents.get(plan.payer, ())
            if d.kind != "rider" and (not d.plans or plan.id in d.plans)
        )

    def attached_riders(self, plan: Plan) -> tuple[Document, ...]:
        riders = []
        for rider_id in sorted(set(plan.riders)):
            doc = self.documents.get(rider_id)
            if doc is None or doc.kind != "rider" or doc.payer != plan.payer:
                # The validator refuses this; dropping the rider silently could invert an answer.
                raise CorpusError(
                    f"plan {plan.id} lists rider {rider_id!r}, which is not a rider of payer {plan.payer} "
                    "in this corpus; run `clauseguard corpus validate` and fix the plan's riders list"
                )
            riders.append(doc)
        return tuple(riders)


def _known(what: str, ids: Mapping[str, object]) -> str:
    names = sorted(ids)
    shown = ", ".join(names[:12]) + (" ..." if len(names) > 12 else "")
    return f"known {what}: {shown or 'none'}"


_INDEXES: dict[int, tuple[weakref.ref[Corpus], VersionIndex]] = {}


def version_index(corpus: Corpus) -> VersionIndex:
    """The corpus's lookups for the version rules, built on first use and kept while the corpus object lives."""
    key = id(corpus)
    entry = _INDEXES.get(key)
    if entry is not None and entry[0]() is corpus:
        return entry[1]
    built = VersionIndex.build(corpus)
    _INDEXES[key] = (weakref.ref(corpus), built)
    weakref.finalize(corpus, _INDEXES.pop, key, None)
    return built


def _plan_of_payer(index: VersionIndex, plan_id: str, payer_id: str | None) -> Plan:
    if payer_id is not None and payer_id not in index.payers:  # the payer is wrong, not the plan
        raise NotFoundError("payer", payer_id, _known("payers", index.payers))
    plan = index.plan(plan_id)
    if payer_id is not None and payer_id != plan.payer:
        raise RequestError("plan_id", f"plan {plan_id} belongs to payer {plan.payer}, not {payer_id}")
    return plan


# --- plans and riders --------------------------------------------------------------------------


def plan_documents(corpus: Corpus, plan_id: str) -> list[Document]:
    """The plan's payer's documents that are not riders and are limited to no plan or name this one, by id."""
    index = version_index(corpus)
    return list(index.plan_documents(index.plan(plan_id)))


def attached_riders(corpus: Corpus, plan_id: str) -> list[Document]:
    """The riders the plan's own riders list attaches to it, by id, whatever their dates."""
    index = version_index(corpus)
    return list(index.attached_riders(index.plan(plan_id)))


class RiderInEffect(NamedTuple):
    document: Document
    version: Version


def riders_in_effect(corpus: Corpus, plan_id: str, day: date) -> list[RiderInEffect]:
    """A rider applies to a member only when the plan attaches it and one of its versions is in effect that day."""
    found = []
    for rider in attached_riders(corpus, plan_id):
        version = version_in_effect(rider, day)
        if version is not None:
            found.append(RiderInEffect(rider, version))
    return found


def governing_documents_for_code(
    corpus: Corpus, payer_id: str, code: str, plan_id: str | None = None
) -> list[Document]:
    """The payer's documents that list the code, limited to those that apply to the plan when one is given, by id."""
    index = version_index(corpus)
    candidates = [d for d in index.payer_documents.get(payer_id, ()) if code in d.codes]
    if plan_id is None:
        return candidates
    plan = _plan_of_payer(index, plan_id, payer_id)
    applies = {d.id for d in index.plan_documents(plan)} | {d.id for d in index.attached_riders(plan)}
    return [d for d in candidates if d.id in applies]


def pick_version(document: Document, label: str | None, day: date | None) -> Version | None:
    """A document's version by label; else the one in effect on the day; with neither, its latest.
    None when the day falls in no version (the caller says so); an unknown label is an error."""
    if label is not None:
        found = next((v for v in document.versions if v.version == label), None)
        if found is None:
            known = ", ".join(v.version for v in document.versions)
            raise NotFoundError("version", f"{document.id}@{label}", f"versions of {document.id}: {known}")
        return found
    if day is not None:
        return version_in_effect(document, day)
    return document.versions[-1]


def riders_overriding(corpus: Corpus, plan_id: str, day: date, documents: set[str]) -> list[RiderInEffect]:
    """The riders the plan lists (in its order), in effect on the day, that override one of the documents."""
    index = version_index(corpus)
    plan = index.plan(plan_id)
    found = []
    for rider_id in plan.riders:
        rider = index.documents.get(rider_id)
        if rider is None or not set(rider.overrides) & documents:
            continue
        version = version_in_effect(rider, day)
        if version is not None:
            found.append(RiderInEffect(rider, version))
    return found
