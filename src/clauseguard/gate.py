"""The gate: a pure function from a verified answer to DETERMINE / REVIEW / REFUSE / HALT.

Deterministic code only. It reads the verifier's checks and the reader's findings; it never reads
policy text, never calls a model, and no self-reported confidence can move an answer past it. The
deployment's gate policy (which outcomes may go out on their own) is an argument, never a global.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from clauseguard.responses import CHECK_NAMES, Checks, Gate, Outcome, Reason

INSUFFICIENT: Final = "INSUFFICIENT_EVIDENCE"
CHECKS: Final = CHECK_NAMES


@dataclass(frozen=True)
class CheckedCitation:
    """A citation as the cold verifier left it: which of the five checks passed."""

    clause_id: str
    checks: Checks


@dataclass(frozen=True)
class Conflict:
    """Two sources that disagree; precedence may settle it, reliance on the loser still needs a human."""

    description: str
    resolved_by_precedence: bool
    request_relies_on_overridden: bool


@dataclass(frozen=True)
class GatePolicy:
    """Which outcomes a DETERMINE may release without a person: a deployment's choice, not the engine's.

    Many payers require a clinician's signature before a medical-necessity denial; `covered-only`
    sends every NOT_COVERED that would be DETERMINE to REVIEW for that signature. A policy can only
    hold an answer back, never let one through that the rules would not.
    """

    name: str = "default"
    automatic_outcomes: tuple[Outcome, ...] = ("COVERED", "NOT_COVERED")

    @property
    def is_default(self) -> bool:
        return set(self.automatic_outcomes) == {"COVERED", "NOT_COVERED"}


DEFAULT_POLICY: Final = GatePolicy()
NAMED_POLICIES: Final[dict[str, GatePolicy]] = {
    "default": DEFAULT_POLICY,
    "covered-only": GatePolicy("covered-only", ("COVERED",)),
    "review-all": GatePolicy("review-all", ()),
}


@dataclass(frozen=True)
class GateInput:
    halts: tuple[Reason, ...] = ()
    refusals: tuple[Reason, ...] = ()  # no governing document or version, no evidence, a fact unknown
    citations: tuple[CheckedCitation, ...] = ()
    conflicts: tuple[Conflict, ...] = ()
    uncompiled: tuple[Reason, ...] = ()  # a criterion the reader could not compile
    budget: tuple[Reason, ...] = ()  # a blown time or token budget, a model that timed out
    outcome: Outcome | None = None  # what the governing source gives, before the gate


@dataclass(frozen=True)
class GateDecision:
    gate: Gate
    outcome: Outcome
    reasons: tuple[Reason, ...] = field(default_factory=tuple)


def failed_checks(citation: CheckedCitation) -> list[str]:
    return citation.checks.failed()


def review_reasons(inp: GateInput) -> list[Reason]:
    """Everything that sends an otherwise complete answer to a human, in a stable order."""
    reasons: list[Reason] = []
    for citation in inp.citations:
        failed = failed_checks(citation)
        if failed:
            reasons.append(
                Reason(
                    "citation_check_failed",
                    f"citation {citation.clause_id} failed verification: {', '.join(failed)}",
                )
            )
    for conflict in inp.conflicts:
        if not conflict.resolved_by_precedence:
            reasons.append(Reason("conflict_unresolved", f"{conflict.description}; precedence does not settle it"))
        elif conflict.request_relies_on_overridden:
            reasons.append(
                Reason(
                    "relies_on_overridden_source",
                    f"{conflict.description}; the request relies on the overridden source",
                )
            )
    reasons.extend(inp.uncompiled)
    reasons.extend(inp.budget)
    return reasons


def decide(inp: GateInput, policy: GatePolicy = DEFAULT_POLICY) -> GateDecision:
    """First rule that fires wins: HALT (preflight failed), REFUSE (no evidence or a fact unknown),
    REVIEW (a check failed, a conflict needs a human, a criterion or budget failed), else DETERMINE;
    then the deployment's policy may hold a DETERMINE back for a person's signature."""
    return apply_policy(_decide(inp), policy)


def apply_policy(decision: GateDecision, policy: GatePolicy) -> GateDecision:
    """A DETERMINE whose outcome the policy does not release on its own becomes REVIEW, saying why;
    every other decision is left exactly as it is (a policy never releases anything)."""
    if decision.gate != "DETERMINE" or decision.outcome in policy.automatic_outcomes:
        return decision
    allowed = " or ".join(policy.automatic_outcomes) or "no outcome"
    reason = Reason(
        "policy_requires_review",
        f"this deployment's gate policy '{policy.name}' releases only {allowed} on its own; "
        f"a {decision.outcome.replace('_', ' ').lower()} answer needs a person's signature",
    )
    return GateDecision("REVIEW", decision.outcome, (*decision.reasons, reason))


def _decide(inp: GateInput) -> GateDecision:
    if inp.halts:
        return GateDecision("HALT", INSUFFICIENT, inp.halts)
    if not inp.refusals and inp.outcome is None and inp.uncompiled:
        # The governing text exists but could not be read: a human reads it; there is no outcome yet.
        return GateDecision("REVIEW", INSUFFICIENT, inp.uncompiled + inp.budget)
    if inp.refusals or inp.outcome is None or inp.outcome == INSUFFICIENT:
        refusals = inp.refusals or (Reason("no_decision", "no clause decides this request"),)
        return GateDecision("REFUSE", INSUFFICIENT, refusals)
    if not inp.citations:
        return GateDecision("REFUSE", INSUFFICIENT, (Reason("no_citation", "no verified clause supports an outcome"),))
    reviews = review_reasons(inp)
    if reviews:
        return GateDecision("REVIEW", inp.outcome, tuple(reviews))
    return GateDecision("DETERMINE", inp.outcome, ())
