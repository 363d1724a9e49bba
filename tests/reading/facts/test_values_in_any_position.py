"""Severity after the noun or under a label, onset ages with their comparison, onset dated by a start,
and a value stated more than once (issue 11): each read the same whatever the wording, and a value
stated two ways never picked."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from clauseguard.corpus.criteria import Criteria, criteria_from_json
from clauseguard.reading.evaluate import evaluate
from clauseguard.reading.facts import AgeFact, ConditionFact, MeasureFact, read_facts

AS_OF = date(2024, 3, 1)


def tree(text: str, when: dict[str, Any]) -> Criteria:
    return criteria_from_json({"rules": [{"effect": "covered", "span": text, "when": when}]}, text)


def condition(narrative: str, concept: str, vocabulary: tuple[str, ...] = ()) -> ConditionFact:
    [fact] = [f for f in read_facts(narrative, vocabulary=vocabulary, as_of=AS_OF).of(ConditionFact)
              if f.concept == concept]
    return fact


def ages(narrative: str) -> set[tuple[str, str, float]]:
    return {(a.of, a.comparator, a.value) for a in read_facts(narrative, as_of=AS_OF).of(AgeFact)}


@pytest.mark.parametrize("narrative", [
    "Asthma, severe.",
    "Asthma - severe, on ICS/LABA.",
    "Dx: asthma.\nSeverity: severe.",
    "Severe asthma.",
])
def test_a_severity_before_after_or_under_a_label_is_the_same_severity(narrative: str) -> None:
    assert condition(narrative, "asthma", ("asthma",)).severity == ("severe",)


def test_a_severity_label_under_two_diagnoses_grades_neither() -> None:
    sheet = read_facts("Asthma and rheumatoid arthritis.\nSeverity: severe.", vocabulary=("asthma",))
    assert all(f.severity == () for f in sheet.of(ConditionFact))


@pytest.mark.parametrize(("narrative", "expected"), [
    ("Breast cancer diagnosed before age 50.", ("onset", "<", 50.0)),
    ("Dx before age 45: breast cancer.", ("onset", "<", 45.0)),
    ("Diagnosed with breast cancer prior to age 50.", ("onset", "<", 50.0)),
    ("Breast cancer, dx at age <50.", ("onset", "<", 50.0)),
    ("Onset before the age of 40.", ("onset", "<", 40.0)),
    ("Diagnosed with breast cancer at age 45 or younger.", ("onset", "<=", 45.0)),
    ("Onset after age 50.", ("onset", ">", 50.0)),
    ("Patient over age 65 with COPD.", ("member", ">", 65.0)),
    ("Member under age 18.", ("member", "<", 18.0)),
    ("Age 65 or older.", ("member", ">=", 65.0)),
])
def test_an_age_keeps_the_comparison_written_with_it(narrative: str, expected: tuple[str, str, float]) -> None:
    """"before age 50" was read as a member aged exactly 50: a bound is a bound, and after an event
    word it bounds the age at onset, never the member's age."""
    assert ages(narrative) == {expected}


@pytest.mark.parametrize("narrative", [
    "58 yo with new-onset headaches since 2024-01-10.",
    "58 yo, new onset headache x 3 wks.",
    "58 yo, new headache, onset 2 weeks ago.",
    "58 y/o F with new headaches that started 3 weeks ago.",
    "I am writing about a 58-year-old man who developed headaches for the first time three weeks ago.",
])
def test_a_new_condition_dated_by_its_start_or_its_length_gives_the_onset(narrative: str) -> None:
    assert ("onset", ">=", 57.0) in ages(narrative)


@pytest.mark.parametrize(("narrative", "days"), [
    ("Headache, onset 2 weeks ago.", 14.0),
    ("Headaches began 2024-02-01.", 29.0),
    ("Low back pain; onset: 2024-02-20.", None),  # another clause: no length of the pain
])
def test_a_condition_lasts_since_its_stated_start(narrative: str, days: float | None) -> None:
    facts = read_facts(narrative, vocabulary=("low back pain",), as_of=AS_OF).of(ConditionFact)
    assert any(f.duration_days == days for f in facts)


def test_a_therapy_is_never_dated_by_an_onset_word() -> None:
    """"began 2023-01" dates a condition; a course of a drug started then may have stopped since."""
    sheet = read_facts("Metformin began 2023-06-01, stopped after 2 weeks.", as_of=AS_OF)
    assert all(getattr(f, "duration_days", None) != 274.0 for f in sheet.facts)


AGE_TEXT = "Covered for members aged 65 or older"
AGE = tree(AGE_TEXT, {"kind": "age", "span": "aged 65 or older", "comparator": ">=", "value": 65})
A1C_TEXT = "Covered when the hemoglobin A1c is greater than 8 percent"
A1C = tree(A1C_TEXT, {"kind": "measure", "span": "the hemoglobin A1c is greater than 8 percent",
                      "quantity": "hemoglobin a1c", "comparator": ">", "value": 8, "unit": "percent"})


@pytest.mark.parametrize(("criteria", "narrative", "outcome"), [
    (AGE, "67 yo M. Age: 67.", "covered"),
    (AGE, "Age 67. Today the patient, 64 yo, reports ...", "undecided"),
    (AGE, "Pt is 60 yo; member age 67.", "undecided"),
    (A1C, "HbA1c 9.1%. Repeat HbA1c 9.1% on 02/2024.", "covered"),
    (A1C, "HbA1c 9.1% in January; HbA1c 7.2% today.", "undecided"),
    (A1C, "A1c 7.4%. A1c 9.0%.", "undecided"),
    # two values that give one outcome decide it, whichever is the member's (a lab series, a handler's "prior")
    (A1C, "Labs: HbA1c 8.9% (10/2023), 8.7% (01/2024).", "covered"),
    (A1C, "A1c 7.4%, prior 7.9%.", "not_covered"),
])
def test_a_value_stated_twice_is_one_fact_and_two_values_are_a_conflict(criteria: Criteria, narrative: str,
                                                                         outcome: str) -> None:
    """Two different values for one fact decide only what both give, whichever the first is (never a pick)."""
    assert evaluate(criteria, read_facts(narrative, as_of=AS_OF)).outcome == outcome


def test_the_same_value_twice_is_read_once_and_two_values_are_both_kept_marked() -> None:
    [once] = read_facts("HbA1c 8.2%. HbA1c 8.2%.").of(MeasureFact)
    assert not once.conflicting
    both = read_facts("HbA1c 8.2%. HbA1c 9.1%.").of(MeasureFact)
    assert len(both) == 2 and all(f.conflicting for f in both)


@pytest.mark.parametrize("narrative", [
    "Hypoglycemia unawareness was not screened for.",
    "Hypoglycemia unawareness: N/A.",
    "Hypoglycemia unawareness not addressed today.",
])
def test_a_question_nobody_asked_is_a_gap(narrative: str) -> None:
    sheet = read_facts(narrative, ("E10.9",))
    assert not [f for f in sheet.of(ConditionFact) if f.concept == "hypoglycemia unawareness"]
    assert [g.item for g in sheet.gaps] == ["hypoglycemia unawareness"]


@pytest.mark.parametrize("narrative", [
    "There is a suggestion of hypoglycaemia unawareness, which I have not been able to confirm.",
    "I cannot be certain whether she has hypoglycaemia unawareness.",
    "I have not been able to establish whether she has hypoglycaemia unawareness.",
    "She is being assessed for hypoglycaemia unawareness.",
    "She reports reduced awareness of hypoglycaemia at times, which I would like to assess formally.",
    "Apparent hypoglycaemia unawareness.",
    "Hypoglycaemia unawareness is presumed.",
    "Hypo unawareness - maybe.",
    "poss hypo unawareness",
    "Hypoglycemia unawareness: patient unsure.",
    "Hypoglycemia unawareness — not clinically confirmed.",
    "Hypoglycemia unawareness is being considered.",
    "Hypoglycemia unawareness: unable to determine.",
    "Hypoglycemia unawareness cannot be confirmed from the records provided.",
    "Hypoglycemia unawareness — awaiting endocrinology review.",
    "She worries she might develop hypoglycemia unawareness.",
    "She previously had hypoglycemia unawareness but it has resolved.",
])
def test_a_hedged_or_past_exception_is_never_a_present_one(narrative: str) -> None:
    """A waiver's trigger stated with a hedge, a doubt or as over must never waive a requirement ("I cannot
    be certain whether" was read as a denial, "not clinically confirmed" as present)."""
    facts = [f for f in read_facts(narrative, ("E10.9",)).of(ConditionFact) if f.concept == "hypoglycemia unawareness"]
    assert all(f.status != "present" or f.certainty == "suspected" or f.resolved for f in facts)
    assert all(f.status != "absent" for f in facts)


def test_a_confirmed_exception_stays_present() -> None:
    for narrative in ("Has hypoglycemia unawareness, confirmed by the endocrinologist.",
                      "Hypoglycemia unawareness: yes (Clarke score 5).", "Documented hypoglycemia unawareness."):
        [fact] = [f for f in read_facts(narrative, ("E10.9",)).of(ConditionFact)
                  if f.concept == "hypoglycemia unawareness"]
        assert fact.status == "present" and fact.certainty != "suspected" and not fact.resolved


@pytest.mark.parametrize("narrative", ["Low-dose aspirin daily.", "Low back pain x 8 weeks.", "Low risk for falls."])
def test_the_adjective_low_is_no_hypoglycemia(narrative: str) -> None:
    """"lows" are hypoglycaemic episodes; its singular "low" is an adjective, never one."""
    assert not [f for f in read_facts(narrative).of(ConditionFact) if f.concept == "hypoglycemia"]


def test_lows_are_hypoglycemia() -> None:
    assert [f for f in read_facts("Had two lows last week.").of(ConditionFact) if f.concept == "hypoglycemia"]
