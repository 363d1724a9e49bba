"""Visits dated by the calendar, injections a day counted from a regimen, and criteria that admit the
member's caregiver (facts read from a note, judged by the evaluator)."""

from __future__ import annotations

from datetime import date

import pytest

from clauseguard.corpus.criteria import Criteria, criteria_from_json
from clauseguard.reading.evaluate import evaluate
from clauseguard.reading.facts import MeasureFact, read_facts, vocabulary_of

VISIT_CLAUSE = "The practitioner has an in-person visit with the member within six months before ordering the device."
EITHER_CLAUSE = "An in-person or telehealth visit to evaluate diabetes control within 6 months before ordering."
TRAINING_CLAUSE = "The practitioner has concluded that the member (or the member's caregiver) has sufficient training."
OWN_TRAINING = "The practitioner has concluded that the member has sufficient training."
INJECTIONS_CLAUSE = "The member takes three or more insulin injections a day."


def _event(text: str, item: str) -> Criteria:
    return criteria_from_json({"rules": [{"effect": "covered", "span": text, "when": {
        "kind": "event", "span": text, "item": item, "within": {"length": 6, "unit": "month"}}}]}, text)


def _documentation(text: str, item: str) -> Criteria:
    return criteria_from_json({"rules": [{"effect": "covered", "span": text, "when": {
        "kind": "documentation", "span": text, "item": item}}]}, text)


def _injections() -> Criteria:
    text = INJECTIONS_CLAUSE
    return criteria_from_json({"rules": [{"effect": "covered", "span": text, "when": {
        "kind": "measure", "span": text, "quantity": "insulin injections", "comparator": ">=", "value": 3,
        "per": {"length": 1, "unit": "day"}}}]}, text)


def _status(criteria: Criteria, narrative: str, as_of: date = date(2024, 12, 2)) -> str:
    facts = read_facts(narrative, vocabulary=vocabulary_of([criteria]), as_of=as_of)
    [result] = evaluate(criteria, facts).atoms
    return result.status


# --- visits ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("narrative", "expected"), [
    ("Seen in clinic 5 weeks ago - control reviewed.", "met"),
    # a visit older than the window says nothing of a later one, unless the note says it was the last
    ("Seen in clinic 8 months ago for a foot check.", "unknown"),
    ("Last seen in clinic 8 months ago; no contact since.", "not_met"),
    # a telehealth visit is not the in-person visit the clause asks for
    ("Telehealth visit 3 weeks ago - reviewed glucose log.", "unknown"),
    # a date in the sentence that belongs to another service is not the visit's
    ("Office visit planned; the sensor was started 2 weeks ago.", "unknown"),
])
def test_an_in_person_visit_is_dated_by_the_note(narrative: str, expected: str) -> None:
    assert _status(_event(VISIT_CLAUSE, "in-person office encounter"), narrative) == expected


@pytest.mark.parametrize(("narrative", "expected"), [
    ("Telehealth visit 2 months ago: evaluated control, criteria met.", "met"),
    ("In-person visit 3 weeks ago; diabetes control evaluated.", "met"),
    # in the window, but the note does not say the visit was for what the clause names
    ("Clinic visit 3 weeks ago for a sprained ankle.", "unknown"),
])
def test_either_kind_of_visit_meets_a_clause_that_takes_both(narrative: str, expected: str) -> None:
    assert _status(_event(EITHER_CLAUSE, "in-person or telehealth visit to evaluate diabetes control"), narrative) == expected


# --- injections a day from the regimen ---------------------------------------------------------


@pytest.mark.parametrize(("narrative", "value", "comparator"), [
    ("Insulin glargine 24 units once at bedtime, no mealtime insulin; metformin.", 1.0, "=="),
    ("DM2, degludec 1x/day only.", 1.0, "=="),
    ("T2DM on NPH twice a day.", 2.0, ">="),  # the note does not close the regimen: at least two
])
def test_injections_a_day_are_counted_from_the_regimen(narrative: str, value: float, comparator: str) -> None:
    facts = read_facts(narrative)
    [count] = [f for f in facts.facts if isinstance(f, MeasureFact) and f.quantity == "insulin injections"]
    assert (count.value, count.comparator, count.derived) == (value, comparator, True)


@pytest.mark.parametrize("narrative", [
    "Glargine once daily and lispro with meals.",  # a dose without a rate: no count
    "Glargine once daily; uses continuous subcutaneous insulin infusion for boluses.",  # a pump is no injection
    "Insulin glargine 20 units daily, possibly adding lispro.",
])
def test_a_regimen_with_an_uncounted_part_gives_no_count(narrative: str) -> None:
    facts = read_facts(narrative)
    assert not [f for f in facts.facts if isinstance(f, MeasureFact) and f.quantity == "insulin injections"
                and f.comparator == "=="]


@pytest.mark.parametrize(("narrative", "expected"), [
    ("Tresiba 24 u once daily; no mealtime insulin; no pump.", "not_met"),
    ("NPH twice a day.", "unknown"),
    ("Glargine at bedtime and lispro three times a day with meals.", "met"),
])
def test_a_counted_regimen_decides_an_injection_threshold(narrative: str, expected: str) -> None:
    assert _status(_injections(), narrative) == expected


# --- the member's caregiver --------------------------------------------------------------------


@pytest.mark.parametrize(("clause", "expected"), [(TRAINING_CLAUSE, "met"), (OWN_TRAINING, "unknown")])
def test_a_relative_s_training_counts_only_where_the_clause_admits_a_caregiver(clause: str, expected: str) -> None:
    narrative = "Her daughter, who helps with her care, was trained on this meter."
    assert _status(_documentation(clause, "device training"), narrative) == expected


# --- the clause's own evidence of an item ------------------------------------------------------

EVIDENCED = "The member must be able to use the meter; the order the prescriber signs shows that they are."


def _evidenced() -> Criteria:
    return criteria_from_json({"rules": [{"effect": "covered", "span": EVIDENCED, "when": {
        "kind": "documentation", "span": EVIDENCED, "item": "device training", "evidenced_by": "prescription"}}]},
        EVIDENCED)


@pytest.mark.parametrize(("narrative", "expected"), [
    ("T2DM on metformin. Rx sent for the meter, strips and lancets, test once daily.", "met"),
    ("T2DM on metformin. I have prescribed the meter.", "met"),
    # the request speaks of the item itself: the evidence is never consulted
    ("T2DM on metformin. Rx sent; she has not been trained on the meter yet.", "not_met"),
    ("T2DM on metformin. Rx sent; she will be trained on the meter next week.", "unknown"),
    # no evidence, or evidence that is not there, leaves the item unstated
    ("T2DM on metformin.", "unknown"),
    ("T2DM on metformin. No prescription on file yet.", "unknown"),
    ("T2DM on metformin. The prescription has not been sent yet.", "unknown"),
    ("T2DM on metformin. Rx to follow once approved.", "unknown"),
])
def test_a_clause_s_own_evidence_stands_in_only_for_an_unstated_item(narrative: str, expected: str) -> None:
    assert _status(_evidenced(), narrative) == expected
