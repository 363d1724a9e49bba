"""The gate's rules, one test each, first rule wins, and a no-fault control that DETERMINEs."""

from __future__ import annotations

import pytest

from clauseguard.gate import CHECKS, CheckedCitation, Conflict, GateInput, decide
from clauseguard.preflight import Reason
from clauseguard.responses import Checks

ALL_PASS = Checks(**dict.fromkeys(CHECKS, True))
GOOD = CheckedCitation("P.v1.C2", ALL_PASS)


def test_no_fault_control_determines() -> None:
    decision = decide(GateInput(citations=(GOOD,), outcome="NOT_COVERED"))
    assert (decision.gate, decision.outcome, decision.reasons) == ("DETERMINE", "NOT_COVERED", ())


def test_halt_wins_over_everything() -> None:
    halt = Reason("halt_payer_id", "payer_id is empty; give the payer's id")
    decision = decide(
        GateInput(halts=(halt,), refusals=(Reason("no_evidence", "x"),), citations=(GOOD,), outcome="COVERED")
    )
    assert (decision.gate, decision.outcome, decision.reasons) == ("HALT", "INSUFFICIENT_EVIDENCE", (halt,))


@pytest.mark.parametrize(
    "refusal",
    [
        Reason("no_governing_document", "no document of payer MHP governs code 31241"),
        Reason("no_version", "no version of MHP-MP-1 is in effect on 2019-03-01"),
        Reason("no_evidence", "Not enough evidence found in policy documents."),
        Reason("missing_fact", "the request does not state: fingerstick tests per day"),
    ],
)
def test_refuse_rules_beat_review(refusal: Reason) -> None:
    bad = CheckedCitation("X", ALL_PASS.model_copy(update={"verbatim": False}))
    decision = decide(GateInput(refusals=(refusal,), citations=(bad,), outcome="COVERED"))
    assert (decision.gate, decision.outcome, decision.reasons) == ("REFUSE", "INSUFFICIENT_EVIDENCE", (refusal,))


def test_no_outcome_or_no_citation_refuses() -> None:
    assert decide(GateInput(citations=(GOOD,), outcome=None)).gate == "REFUSE"
    assert decide(GateInput(outcome="COVERED")).gate == "REFUSE"


@pytest.mark.parametrize("check", CHECKS)
def test_each_failed_check_is_review_naming_it(check: str) -> None:
    cited = CheckedCitation("P.v1.C2", ALL_PASS.model_copy(update={check: False}))
    decision = decide(GateInput(citations=(cited,), outcome="COVERED"))
    assert decision.gate == "REVIEW" and decision.outcome == "COVERED"
    assert decision.reasons[0].code == "citation_check_failed"
    assert decision.reasons[0].text == f"citation P.v1.C2 failed verification: {check}"


def test_unresolved_conflict_is_review() -> None:
    conflict = Conflict("FAQ F1 says 6 months, policy P says 3 months", False, False)
    decision = decide(GateInput(citations=(GOOD,), conflicts=(conflict,), outcome="COVERED"))
    assert decision.gate == "REVIEW" and decision.reasons[0].code == "conflict_unresolved"


def test_resolved_conflict_relied_on_is_review_else_determine() -> None:
    relied = Conflict("FAQ F1 contradicts policy P", True, True)
    decision = decide(GateInput(citations=(GOOD,), conflicts=(relied,), outcome="COVERED"))
    assert decision.gate == "REVIEW" and decision.reasons[0].code == "relies_on_overridden_source"
    settled = Conflict("FAQ F1 contradicts policy P", True, False)
    assert decide(GateInput(citations=(GOOD,), conflicts=(settled,), outcome="COVERED")).gate == "DETERMINE"


def test_uncompiled_criterion_and_budget_are_review() -> None:
    for field in ("uncompiled", "budget"):
        reason = Reason("criterion_not_compiled" if field == "uncompiled" else "budget_exceeded", "x")
        decision = decide(GateInput(citations=(GOOD,), outcome="NOT_COVERED", **{field: (reason,)}))
        assert (decision.gate, decision.outcome, decision.reasons) == ("REVIEW", "NOT_COVERED", (reason,))


def test_unreadable_governing_text_with_no_outcome_is_review_not_refuse() -> None:
    reason = Reason("criterion_not_compiled", "clause P.v1.C2 could not be read in full")
    decision = decide(GateInput(uncompiled=(reason,), outcome=None))
    assert (decision.gate, decision.outcome, decision.reasons) == ("REVIEW", "INSUFFICIENT_EVIDENCE", (reason,))
    missing = Reason("missing_fact", "the request does not state: A1c")
    assert decide(GateInput(refusals=(missing,), uncompiled=(reason,))).gate == "REFUSE"
