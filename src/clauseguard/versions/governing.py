"""What governs one request (a contract, or a plan on a date): the documents and riders in effect,
the eligibility they give, and the version label a handler is shown. Search, compare and the
determination pipeline take their versions from here or from the rules it is built on.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date

from clauseguard.corpus.model import Corpus, Document, Version
from clauseguard.versions.eligibility import Eligibility, eligibility, eligibility_under_terms, interval_of
from clauseguard.versions.rules import _plan_of_payer, riders_in_effect, version_in_effect, version_index
from clauseguard.versions.terms import governing_terms

# --- what governs a search, a comparison side, a determination ----------------------------------


@dataclass(frozen=True)
class Governing:
    """The versions that govern one request (a contract, or a plan on a date): documents and riders in
    effect, the eligibility they give, and the labels handlers are shown."""

    eligibility: Eligibility | None  # None when no version governs
    effective_date: date | None  # the date that selected the versions
    requested_date: date | None  # the request's date, when it differs
    documents: tuple[Document, ...]  # the plan's documents (riders excluded), by id
    versions: Mapping[str, Version]  # document id -> governing version (in effect only)
    riders: Mapping[str, Version]  # rider id -> governing version (attached and in effect only)
    rider_documents: Mapping[str, Document]  # the riders in effect, by id
    uncovered: str | None  # why nothing governs, as a sentence; None when terms govern

    @property
    def applicable_versions(self) -> dict[str, str] | None:
        """Every governing document (riders included) mapped to its version label; None when nothing governs."""
        if self.uncovered is not None:
            return None
        return dict(sorted({d: v.version for d, v in {**self.versions, **self.riders}.items()}.items()))

    def overridden_by(self, rider_id: str) -> tuple[str, ...]:
        """The governing documents a rider in effect overrides, by id (empty for anything else)."""
        rider = self.rider_documents.get(rider_id)
        return tuple(sorted(d for d in rider.overrides if d in self.versions)) if rider is not None else ()

    def applicable_version(self, answered_from: tuple[str, ...] = ()) -> str | None:
        """The one label a handler is shown: the version of the plan's terms document (kind
        policy_terms, first by id); for a plan without one, the version of the document the answer
        comes from (a rider's answer comes from the document it overrides; a FAQ never governs);
        with no such answer, the first governing document by id that is not a FAQ."""
        if self.uncovered is not None:
            return None
        kinds = {d.id: d.kind for d in self.documents}
        terms = sorted(d for d in self.versions if kinds.get(d) == "policy_terms")
        if terms:
            return self.versions[terms[0]].version
        for doc_id in answered_from:
            for governed in (self.overridden_by(doc_id) or (doc_id,)):
                if governed in self.versions and kinds.get(governed) != "faq":
                    return self.versions[governed].version
        ranked = sorted(self.versions, key=lambda d: (kinds.get(d) == "faq", d))
        return self.versions[ranked[0]].version if ranked else None


def governing_contract(corpus: Corpus, contract_id: str, request_date: date | None) -> Governing:
    """A contract's governing terms (see `governing_terms`) as the versions one request uses."""
    terms = governing_terms(corpus, contract_id, request_date)
    elig = eligibility_under_terms(corpus, terms) if terms.uncovered is None else None
    versions = {d: v for d, v in terms.versions.items() if v is not None}
    riders = {d: v for d, v in terms.riders.items() if v is not None}
    return Governing(
        eligibility=elig,
        effective_date=terms.effective_date,
        requested_date=terms.requested_date,
        documents=terms.documents,
        versions=versions,
        riders=riders,
        rider_documents={r.id: r for r in terms.rider_documents if r.id in riders},
        uncovered=terms.uncovered,
    )


def no_document_in_effect(plan_id: str, day: date) -> str:
    return f"no document of plan {plan_id} is in effect on {day.isoformat()}"


def governing_plan(corpus: Corpus, plan_id: str, day: date, payer_id: str | None = None) -> Governing:
    """A plan on a date: its documents' versions in effect that day and the riders attached and in effect."""
    index = version_index(corpus)
    plan = _plan_of_payer(index, plan_id, payer_id)
    documents = index.plan_documents(plan)
    # the versions in effect change only at a version boundary of the plan's documents: once per interval
    key = ("governing", plan.id, interval_of(index, plan, day))
    found = index.decisions.get(key)
    if found is None:
        found = index.decisions[key] = (
            {d.id: v for d in documents if (v := version_in_effect(d, day)) is not None},
            {r.document.id: r for r in riders_in_effect(corpus, plan.id, day)},
        )
    versions, riders = found
    uncovered = None if versions else no_document_in_effect(plan.id, day)
    return Governing(
        eligibility=eligibility(corpus, plan_id=plan.id, day=day, payer_id=payer_id) if uncovered is None else None,
        effective_date=day,
        requested_date=None,
        documents=documents,
        versions=versions,
        riders={r: found.version for r, found in riders.items()},
        rider_documents={r: found.document for r, found in riders.items()},
        uncovered=uncovered,
    )
