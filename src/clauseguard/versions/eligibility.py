"""Eligibility: which clauses a request may retrieve, decided before any ranking, with the fixed
reason for every other clause.

A plan's decision changes only where one of its documents' or riders' versions starts or ends, so it
is computed once per (plan, date interval) and shared by every request in that interval: a request
costs O(eligible clauses), not O(corpus).
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, timedelta
from functools import cached_property
from typing import NamedTuple

from clauseguard.corpus.model import Corpus, Plan, TermsAnchor, Version
from clauseguard.errors import NotFoundError
from clauseguard.versions.rules import (
    OTHER_PAYER,
    OUTSIDE_CONTRACT_PERIOD,
    ClauseRef,
    VersionIndex,
    _plan_of_payer,
    not_a_document_of_plan,
    not_in_effect_on,
    rider_not_attached,
    version_in_effect,
    version_index,
)
from clauseguard.versions.terms import GoverningTerms

# --- eligibility -------------------------------------------------------------------------------


class DocumentDecision(NamedTuple):
    """For one document: the version whose clauses are eligible, or why none of them is."""

    document_id: str
    version: str | None  # governing version label; None when no clause of the document is eligible
    reason: str | None  # why the whole document is out (payer, plan, rider, term); None when it applies
    other_versions: str  # the reason given to the clauses of every other version


@dataclass(frozen=True, eq=False)
class Decided:
    """The part of an eligibility decision that does not depend on the exact day: each document's
    governing version label and whole-document reason, and the eligible clause ids. Shared by every
    request of one plan in one date interval (or one contract's governing terms)."""

    labels: Mapping[str, str | None]  # document id -> governing version label (None: no clause eligible)
    reasons: Mapping[str, str | None]  # document id -> why the whole document is out (None: it applies)
    governing: tuple[ClauseRef, ...]  # the (document, version) pairs whose clauses are eligible, by document id
    eligible: tuple[str, ...]  # the eligible clause ids, documents by id, clauses in the document's order


@dataclass(frozen=True, eq=False)
class Eligibility:
    """Which clauses a request may retrieve, decided before any ranking, with the fixed reason for the rest."""

    payer_id: str
    plan_id: str
    day: date  # the date that selected the versions
    anchor: TermsAnchor
    decided: Decided = field(repr=False)
    _index: VersionIndex = field(repr=False)

    @property
    def other_versions(self) -> str:
        """The reason given to the clauses of a document's other versions."""
        return OUTSIDE_CONTRACT_PERIOD if self.anchor == "contract_date" else not_in_effect_on(self.day)

    @cached_property
    def documents(self) -> Mapping[str, DocumentDecision]:
        """Every document's decision, by id (built on first use: a request needs only `eligible`)."""
        other = self.other_versions
        return {d: DocumentDecision(d, self.decided.labels[d], self.decided.reasons[d], other) for d in self.decided.labels}

    def reason(self, clause_id: str) -> str | None:
        """None when the clause is eligible, else the fixed reason it is not."""
        ref = self._index.clauses.get(clause_id)
        if ref is None:
            raise NotFoundError("clause", clause_id, "check the id against `clauseguard clause`")
        why = self.decided.reasons[ref.document_id]
        if why is not None:
            return why
        return None if ref.version == self.decided.labels[ref.document_id] else self.other_versions

    @cached_property
    def reasons(self) -> dict[str, str | None]:
        """Every clause of the corpus mapped to None (eligible) or its reason; documents by id."""
        return {cid: self.reason(cid) for cid in self._index.clauses}

    @property
    def eligible(self) -> tuple[str, ...]:
        """The eligible clause ids, documents by id, clauses in the document's order."""
        return self.decided.eligible


def _decide(
    index: VersionIndex,
    plan: Plan,
    day: date,
    governing: Mapping[str, Version | None] | None,
    within_term: bool,
) -> Decided:
    plan_docs = {d.id for d in index.plan_documents(plan)}
    riders = {d.id for d in index.attached_riders(plan)}
    labels: dict[str, str | None] = {}
    reasons: dict[str, str | None] = {}
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
        labels[doc_id] = version.version if version is not None else None
        reasons[doc_id] = reason
    pairs = tuple(ClauseRef(d, label) for d, label in labels.items() if reasons[d] is None and label is not None)
    eligible: list[str] = []
    for ref in pairs:
        eligible += index.clauses_of[ref]
    return Decided(labels, reasons, pairs, tuple(eligible))


def _boundaries(index: VersionIndex, plan: Plan) -> tuple[date, ...]:
    """The days on which a version of one of the plan's documents or riders starts, or the day after one ends."""
    found: set[date] = set()
    for doc in (*index.plan_documents(plan), *index.attached_riders(plan)):
        for v in doc.versions:
            found.add(v.effective_start)
            if v.effective_end is not None:
                found.add(v.effective_end + timedelta(days=1))
    return tuple(sorted(found))


def interval_of(index: VersionIndex, plan: Plan, day: date) -> int:
    """Which of the plan's date intervals (between version boundaries of its documents and riders) holds the day."""
    bounds = index.decisions.get(("bounds", plan.id))
    if bounds is None:
        bounds = index.decisions[("bounds", plan.id)] = _boundaries(index, plan)
    return bisect.bisect_right(bounds, day)


def eligibility(corpus: Corpus, *, plan_id: str, day: date, payer_id: str | None = None) -> Eligibility:
    """A clause is eligible for a plan on a day when its document is the payer's, applies to the plan
    (a rider: is attached to it), and its version is the one in effect that day. The decision is the
    same between two version boundaries of the plan's documents, so it is made once per interval."""
    index = version_index(corpus)
    plan = _plan_of_payer(index, plan_id, payer_id)
    cache = index.decisions
    key = ("plan", plan.id, interval_of(index, plan, day))
    decided = cache.get(key)
    if not isinstance(decided, Decided):
        decided = cache[key] = _decide(index, plan, day, None, within_term=True)
    return Eligibility(plan.payer, plan.id, day, "service_date", decided, index)


def eligibility_under_terms(corpus: Corpus, terms: GoverningTerms) -> Eligibility:
    """Under a contract, only the clauses of the versions its governing terms selected are eligible,
    and none when the request's date falls outside the contract's term."""
    index = version_index(corpus)
    governing = {**terms.versions, **terms.riders}
    chosen = tuple(sorted((d, v.version if v is not None else None) for d, v in governing.items()))
    key = ("terms", terms.plan.id, terms.within_term, chosen)
    decided = index.decisions.get(key)
    if not isinstance(decided, Decided):
        decided = index.decisions[key] = _decide(index, terms.plan, terms.effective_date, governing, terms.within_term)
    return Eligibility(terms.plan.payer, terms.plan.id, terms.effective_date, terms.anchor, decided, index)
