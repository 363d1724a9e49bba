"""Which version of which document governs a request: periods, plans, riders, contract terms, eligibility.

One place decides versions and riders for search, determination and compare: `rules` (periods,
plans, riders, codes, fixed reasons), `terms` (contract terms), `eligibility` (which clauses a
request may retrieve, shared per plan and date interval) and `governing` (what governs one request,
and the version label shown). It never reads clause text, never ranks and never does I/O.
"""

from clauseguard.versions.eligibility import (
    DocumentDecision,
    Eligibility,
    eligibility,
    eligibility_under_terms,
)
from clauseguard.versions.governing import (
    Governing,
    governing_contract,
    governing_plan,
    no_document_in_effect,
)
from clauseguard.versions.rules import (
    OTHER_PAYER,
    OUTSIDE_CONTRACT_PERIOD,
    ClauseRef,
    RiderInEffect,
    VersionIndex,
    attached_riders,
    governing_documents_for_code,
    no_version_covers,
    not_a_document_of_plan,
    not_in_effect_on,
    pick_version,
    plan_documents,
    rider_not_attached,
    riders_in_effect,
    riders_overriding,
    term_does_not_cover,
    version_in_effect,
    version_index,
)
from clauseguard.versions.terms import GoverningTerms, governing_terms, policy_terms_version

__all__ = [
    "OTHER_PAYER", "OUTSIDE_CONTRACT_PERIOD", "ClauseRef", "DocumentDecision", "Eligibility", "Governing",
    "GoverningTerms", "RiderInEffect", "VersionIndex", "attached_riders", "eligibility", "eligibility_under_terms",
    "governing_contract", "governing_documents_for_code", "governing_plan", "governing_terms", "no_document_in_effect",
    "no_version_covers", "not_a_document_of_plan", "not_in_effect_on", "pick_version", "plan_documents",
    "policy_terms_version", "rider_not_attached", "riders_in_effect", "riders_overriding", "term_does_not_cover",
    "version_in_effect", "version_index",
]
