"""A psychological evaluation as notes write it, a test joined to its finding by a hyphen ("MRI-confirmed
tear"), and treatment shorthand ("conservative tx")."""

from __future__ import annotations

import pytest

from clauseguard.reading.facts import ConditionFact, DocumentationFact, TherapyFact, read_facts


@pytest.mark.parametrize(("narrative", "status"), [
    ("Psych eval cleared (no contraindication).", "present"),  # handler shorthand
    ("A psychological evaluation was completed in May.", "present"),  # referral letter
    ("Psych clearance on file.", "present"),
    ("Psychological evaluation pending.", "unknown"),
    ("No psychological evaluation yet.", "absent"),
])
def test_a_psychological_evaluation_is_read_with_its_status(narrative: str, status: str) -> None:
    [fact] = [f for f in read_facts(narrative).of(ConditionFact) if f.concept == "psychological evaluation"]
    assert fact.status == status


@pytest.mark.parametrize(("narrative", "status"), [
    ("38F, MRI-confirmed medial meniscus tear, catching episodes.", "present"),
    ("Biopsy-proven celiac disease.", None),  # no biopsy in the lexicon: nothing is made up
    ("No MRI-proven meniscus tear.", "unknown"),  # the test itself is denied: never a documentation met
])
def test_a_test_hyphenated_to_its_cue_documents_the_finding(narrative: str, status: str | None) -> None:
    facts = [f for f in read_facts(narrative).of(DocumentationFact) if f.about is not None]
    assert [f.status for f in facts] == ([status] if status else [])


def test_conservative_treatment_shorthand() -> None:
    [fact] = [f for f in read_facts("10 wks conservative tx failed.").of(TherapyFact) if f.therapy == "conservative therapy"]
    assert fact.duration_days == 70 and fact.outcome == "inadequate response"
