"""Contract terms: the versions that govern a contract for one request, and the one label handlers know.

A contract-dated contract keeps the versions in effect on its own date for its whole term; a
service-dated one follows the request's date. It never reads clause text.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date

from clauseguard.corpus.model import Contract, Corpus, Document, Plan, TermsAnchor, Version
from clauseguard.versions.rules import (
    no_version_covers,
    term_does_not_cover,
    version_in_effect,
    version_index,
)

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
