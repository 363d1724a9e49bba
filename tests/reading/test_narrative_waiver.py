"""An exception that changes the answer on the narrative's word alone goes to a person.

A waiver ("..., unless the member has hypoglycemia unawareness, in which case the frequency
requirement does not apply") flips an answer on one misread sentence: "educated on hypoglycemia
unawareness", "hypoglycemia unawareness: ___", "(per patient)" were each read as the exception
present and released COVERED. The evaluator records every waiver that decided the answer from
narrative facts alone, and the gate sends such an answer to REVIEW naming it.
"""

from __future__ import annotations

from clauseguard.gate import CheckedCitation, GateInput, decide
from clauseguard.reading.evaluate import evaluate
from clauseguard.reading.facts import read_facts
from clauseguard.reading.grammar import Refusal, compile_clause
from clauseguard.responses import Checks, Reason

CLAUSE = ("Personal-use CGM is covered when the member has type 1 diabetes mellitus and performs at least four (4) "
          "fingerstick tests per day, unless the member has hypoglycemia unawareness, in which case the fingerstick "
          "frequency requirement does not apply.")


def _evaluated(narrative: str, codes: list[str]):  # type: ignore[no-untyped-def]
    criteria = compile_clause(CLAUSE)
    assert not isinstance(criteria, Refusal), criteria
    return evaluate(criteria, read_facts(narrative, codes))


def test_a_waiver_that_decides_from_the_narrative_is_named() -> None:
    found = _evaluated("Type 1 diabetes. Checks fingersticks twice a day. Hypoglycemia unawareness.", ["E10.9"])
    assert found.outcome == "covered"
    assert found.rests_on and "hypoglycemia unawareness" in found.rests_on[0]


def test_no_waiver_read_none_named() -> None:
    found = _evaluated("Type 1 diabetes. Aware of his lows; denies hypoglycemia unawareness.", ["E10.9"])
    assert found.outcome != "covered" and found.rests_on == ()


def test_the_gate_sends_an_answer_resting_on_it_to_review() -> None:
    why = Reason("exception_from_narrative", "clause C: X lifts Y; the answer rests on it, so a person confirms it")
    checks = Checks(exists=True, verbatim=True, in_effect=True, applicable=True, supports=True)
    base = GateInput(citations=(CheckedCitation("C", checks),), outcome="COVERED")
    assert decide(base).gate == "DETERMINE"
    decision = decide(GateInput(citations=base.citations, outcome="COVERED", unconfirmed=(why,)))
    assert decision.gate == "REVIEW" and decision.outcome == "COVERED" and why in decision.reasons
