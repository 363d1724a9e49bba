"""Which version of which document governs a request: periods, plans, riders, contract terms, eligibility.

It owns the version rules and the fixed reasons a clause is ineligible; it never reads clause text,
never ranks, never does I/O, and never falls back to a nearby version, plan or contract.
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from functools import cached_property
from typing import Final, NamedTuple

from clauseguard.corpus.model import Contract, Corpus, Document, Plan, TermsAnchor, Version
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


# --- contract terms ----------------------------------------------------------------------------


@dataclass(frozen=True)
class GoverningTerms:
    """The versions that govern a contract for one request, and the date that selected them."""

    contract: Contract
    plan: Plan
    anchor: TermsAnchor
    effective_date: date  # the date that selected the versions
    requested_date: date | None  # the request's date, when it differs from effective_date
    within_term: bool  # False when the request's date falls outside the contract's term
    documents: tuple[Document, ...]  # the plan's documents (riders excluded), by id
    rider_documents: tuple[Document, ...]  # the riders attached to the plan, by id
    versions: Mapping[str, Version | None]  # document id -> governing version
    riders: Mapping[str, Version | None]  # rider id -> governing version
    uncovered: str | None  # why no version governs, as a sentence; None when terms govern

    @property
    def applicable_versions(self) -> dict[str, str] | None:
        """Every governing document (riders included) mapped to its version label; None when nothing governs."""
        if self.uncovered is not None:
            return None
        labels = {d: v.version for d, v in {**self.versions, **self.riders}.items() if v is not None}
        return dict(sorted(labels.items()))


def governing_terms(corpus: Corpus, contract_id: str, request_date: date | None) -> GoverningTerms:
    """A contract-dated contract keeps the versions in effect on its own effective date for its whole term;
    otherwise the request's date (or, with none, the contract's effective date) picks them."""
    index = version_index(corpus)
    contract = index.contract(contract_id)
    plan = index.plan(contract.plan)
    documents = index.plan_documents(plan)
    riders = index.attached_riders(plan)

    if contract.terms_anchor == "contract_date" or request_date is None:
        selecting = contract.effective_date
    else:
        selecting = request_date

    outside = request_date is not None and (
        request_date < contract.effective_date
        or (contract.end_date is not None and request_date > contract.end_date)
    )
    if request_date is not None and outside:
        versions: dict[str, Version | None] = {d.id: None for d in documents}
        rider_versions: dict[str, Version | None] = {r.id: None for r in riders}
        uncovered: str | None = term_does_not_cover(contract, request_date)
    else:
        versions = {d.id: version_in_effect(d, selecting) for d in documents}
        rider_versions = {r.id: version_in_effect(r, selecting) for r in riders}
        uncovered = None if any(v is not None for v in versions.values()) else no_version_covers(selecting)

    return GoverningTerms(
        contract=contract,
        plan=plan,
        anchor=contract.terms_anchor,
        effective_date=selecting,
        requested_date=request_date if request_date != selecting else None,
        within_term=not outside,
        documents=documents,
        rider_documents=riders,
        versions=versions,
        riders=rider_versions,
        uncovered=uncovered,
    )


def policy_terms_version(terms: GoverningTerms) -> str | None:
    """The one label handlers know: the governing version of the plan's policy terms (first by id),
    else of the first governing document by id; None when no version governs."""
    if terms.uncovered is not None:
        return None
    ranked = sorted(terms.documents, key=lambda d: (d.kind != "policy_terms", d.id))
    for doc in ranked:
        version = terms.versions.get(doc.id)
        if version is not None:
            return version.version
    return None


# --- eligibility -------------------------------------------------------------------------------


class DocumentDecision(NamedTuple):
    """For one document: the version whose clauses are eligible, or why none of them is."""

    document_id: str
    version: str | None  # governing version label; None when no clause of the document is eligible
    reason: str | None  # why the whole document is out (payer, plan, rider, term); None when it applies
    other_versions: str  # the reason given to the clauses of every other version


@dataclass(frozen=True, eq=False)
class Eligibility:
    """Which clauses a request may retrieve, decided before any ranking, with the fixed reason for the rest."""

    payer_id: str
    plan_id: str
    day: date  # the date that selected the versions
    anchor: TermsAnchor
    documents: Mapping[str, DocumentDecision]
    _index: VersionIndex = field(repr=False)

    def reason(self, clause_id: str) -> str | None:
        """None when the clause is eligible, else the fixed reason it is not."""
        ref = self._index.clauses.get(clause_id)
        if ref is None:
            raise NotFoundError("clause", clause_id, "check the id against `clauseguard clause`")
        decision = self.documents[ref.document_id]
        if decision.reason is not None:
            return decision.reason
        return None if ref.version == decision.version else decision.other_versions

    @cached_property
    def reasons(self) -> dict[str, str | None]:
        """Every clause of the corpus mapped to None (eligible) or its reason; documents by id."""
        return {cid: self.reason(cid) for cid in self._index.clauses}

    @cached_property
    def eligible(self) -> tuple[str, ...]:
        """The eligible clause ids, documents by id, clauses in the document's order."""
        found: list[str] = []
        for decision in self.documents.values():
            if decision.reason is None and decision.version is not None:
                found += self._index.clauses_of[ClauseRef(decision.document_id, decision.version)]
        return tuple(found)


def _decide(
    index: VersionIndex,
    plan: Plan,
    day: date,
    anchor: TermsAnchor,
    governing: Mapping[str, Version | None] | None,
    within_term: bool,
) -> Eligibility:
    plan_docs = {d.id for d in index.plan_documents(plan)}
    riders = {d.id for d in index.attached_riders(plan)}
    other_versions = OUTSIDE_CONTRACT_PERIOD if anchor == "contract_date" else not_in_effect_on(day)
    decisions: dict[str, DocumentDecision] = {}
    for doc_id, doc in index.documents.items():
        version: Version | None = None
        if doc.payer != plan.payer:
            reason: str | None = OTHER_PAYER
        elif doc.kind == "rider" and doc_id not in riders:
            reason = rider_not_attached(plan.id)
        elif doc.kind != "rider" and doc_id not in plan_docs:
            reason = not_a_document_of_plan(plan.id)
        elif not within_term:
            reason = OUTSIDE_CONTRACT_PERIOD
        else:
            reason = None
            version = governing.get(doc_id) if governing is not None else version_in_effect(doc, day)
        label = version.version if version is not None else None
        decisions[doc_id] = DocumentDecision(doc_id, label, reason, other_versions)
    return Eligibility(plan.payer, plan.id, day, anchor, decisions, index)


def eligibility(corpus: Corpus, *, plan_id: str, day: date, payer_id: str | None = None) -> Eligibility:
    """A clause is eligible for a plan on a day when its document is the payer's, applies to the plan
    (a rider: is attached to it), and its version is the one in effect that day."""
    index = version_index(corpus)
    plan = _plan_of_payer(index, plan_id, payer_id)
    return _decide(index, plan, day, "service_date", None, within_term=True)


def eligibility_under_terms(corpus: Corpus, terms: GoverningTerms) -> Eligibility:
    """Under a contract, only the clauses of the versions its governing terms selected are eligible,
    and none when the request's date falls outside the contract's term."""
    index = version_index(corpus)
    governing = {**terms.versions, **terms.riders}
    return _decide(index, terms.plan, terms.effective_date, terms.anchor, governing, terms.within_term)
