"""A figure the note qualifies is not the bare figure (a blind hunt, 2026-12-07, found each of these read as the
figure alone and auto-determined): a bound keeps its side, a range is at least its lower end, an approximation
or a part-time count is no figure. Our own wording, in SOAP, handler and referral styles."""

from __future__ import annotations

import pytest

from clauseguard.reading.facts import AgeFact, MeasureFact, TherapyFact, read_facts


def _measure(narrative: str, quantity: str) -> list[MeasureFact]:
    return [f for f in read_facts(narrative).facts if isinstance(f, MeasureFact) and f.quantity == quantity]


@pytest.mark.parametrize(("narrative", "comparator", "value"), [
    ("T2DM on insulin, fewer than three injections a day.", "<", 3.0),  # handler summary
    ("Insulin injections <3/day.", "<", 3.0),  # SOAP shorthand
    ("On no more than 2 insulin injections daily.", "<=", 2.0),
    ("Takes at least 4 insulin injections a day.", ">=", 4.0),
    ("Four or more insulin injections a day.", ">=", 4.0),
    ("Insulin injections two to three times a day.", ">=", 2.0),  # a range: at least its lower end
])
def test_a_bound_or_a_range_keeps_what_it_says(narrative: str, comparator: str, value: float) -> None:
    [fact] = _measure(narrative, "insulin injections")
    assert (fact.comparator, fact.value) == (comparator, value)


@pytest.mark.parametrize("narrative", [
    "Insulin injections nearly four times a day.",  # an approximation
    "About 3 insulin injections a day.",
    "Insulin 4 injections a day on weekdays, 2 on weekends.",  # part of the time
    "Insulin injections 4x/day occasionally.",
])
def test_an_approximate_or_part_time_count_is_no_figure(narrative: str) -> None:
    assert all(f.value is None or f.status != "present" for f in _measure(narrative, "insulin injections"))


@pytest.mark.parametrize("narrative", [
    "Diabetic foot ulcer; fewer than 30 days of standard wound care.",
    "Methotrexate for nearly 3 months, inadequate response.",
])
def test_a_qualified_length_of_a_course_is_no_length(narrative: str) -> None:
    assert all(f.duration_days is None for f in read_facts(narrative).facts if isinstance(f, TherapyFact))


def test_a_range_of_ages_is_at_least_its_lower_end() -> None:
    [age] = [f for f in read_facts("Breast cancer diagnosed at age 44 to 48.").facts if isinstance(f, AgeFact)]
    assert (age.comparator, age.value) == (">=", 44.0)


@pytest.mark.parametrize("narrative", [
    "Suspected corticosteroid intolerance.",  # a hedge on the outcome of a course
    "Probable failure of budesonide, to be confirmed.",
])
def test_a_hedged_course_is_unknown(narrative: str) -> None:
    assert all(f.status == "unknown" for f in read_facts(narrative).facts if isinstance(f, TherapyFact))


@pytest.mark.parametrize("narrative", [
    "Endocrinologist recommends 6 fingerstick tests per day.",  # what is advised is not yet done
    "Goal: fingersticks 5x/day.",
])
def test_a_recommended_or_goal_count_is_not_what_the_member_does(narrative: str) -> None:
    assert all(f.status != "present" for f in _measure(narrative, "fingerstick tests"))


def test_a_figure_in_another_unit_is_never_read_in_the_usual_one() -> None:
    # "HbA1c 53 mmol/mol" (IFCC units) is about 7.0%: read as 53 percent it met "HbA1c >= 8%"
    [fact] = [f for f in read_facts("T2DM, HbA1c 53 mmol/mol.").facts if isinstance(f, MeasureFact)]
    assert fact.unit == "mmol/mol"
    [usual] = [f for f in read_facts("T2DM, HbA1c 9.2%.").facts if isinstance(f, MeasureFact)]
    assert usual.unit == "percent"
