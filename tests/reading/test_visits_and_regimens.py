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


@pytest.mark.parametrize(("narrative", "expected"), [
    # the latest visit, dated by the calendar wholly before the window: failed
    ("I last saw him in March 2024 and he has had no visit with me since.", "not_met"),
    ("The prescriber's last contact was a clinic visit in November 2023.", "not_met"),
    # a calendar date never meets the window (it may be the note's, the order's or another visit's)
    ("F2F visit 11/20/2024 - diabetes control evaluated.", "unknown"),
    ("Most recent visit: telehealth visit 22 October 2024 - diabetes control evaluated.", "unknown"),
    # a month that straddles the window's start says neither
    ("Last clinic visit in June 2024; diabetes control reviewed.", "unknown"),
    # a visit dated by a word of time, written right after it
    ("Seen in person today: reviewed her diabetes control.", "met"),
    # a date after the request's dates nothing; one that only another word links to the visit is not its date
    ("Last office visit 01/15/2025 for diabetes control.", "unknown"),
    ("Last office visit, then an A1c 03/2024.", "unknown"),
])
def test_a_calendar_date_can_fail_a_visit_window_but_never_meet_it(narrative: str, expected: str) -> None:
    criteria = _event(EITHER_CLAUSE, "in-person or telehealth visit to evaluate diabetes control")
    assert _status(criteria, narrative) == expected


LIMIT_CLAUSE = "More than one spring powered lancing device per 6 months is not reasonable and necessary."


def _limit() -> Criteria:
    text = LIMIT_CLAUSE
    return criteria_from_json({"rules": [{"effect": "covered", "span": text, "when": {
        "kind": "count", "span": text, "item": "spring powered lancing device", "comparator": "<=", "value": 1,
        "per": {"length": 6, "unit": "month"}}}]}, text)


@pytest.mark.parametrize(("narrative", "expected"), [
    ("She lost the spring-loaded lancing device we delivered on 2021-07-26 and asks for another.", "not_met"),
    ("Lancing device dispensed 3 weeks ago; requesting a replacement.", "not_met"),
    # delivered before the window by the calendar: it clears nothing (an unstated later one may exist)
    ("Lancing device delivered on 2020-11-02; requesting a replacement.", "unknown"),
    # a laser lancing device is another item
    ("Laser lancing device delivered on 2021-07-26.", "unknown"),
])
def test_a_prior_supply_dated_by_the_calendar_counts_against_a_limit(narrative: str, expected: str) -> None:
    assert _status(_limit(), narrative, as_of=date(2021, 9, 20)) == expected


# --- injections a day from the regimen ---------------------------------------------------------


@pytest.mark.parametrize(("narrative", "value", "comparator"), [
    ("Insulin glargine 24 units once at bedtime, no mealtime insulin; metformin.", 1.0, "=="),
    ("DM2, degludec 1x/day only.", 1.0, "=="),
    ("T2DM on NPH twice a day.", 2.0, ">="),  # the note does not close the regimen: at least two
    # the class named again without a drug or a rate restates the rated drug, and may close the regimen
    ("DM2 on Tresiba 24 u once daily.\nA: DM2 on basal insulin only.", 1.0, "=="),
    ("T2DM on insulin. Glargine 20 u at bedtime.", 1.0, ">="),
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


# --- counts written with their period, and dose self-adjustment ---------------------------------


@pytest.mark.parametrize(("narrative", "quantity", "value"), [
    ("45M T1DM on MDI (4 inj/day), adjusts doses from meter readings.", "insulin injections", 4.0),
    ("He does 3 fingersticks a day.", "fingerstick tests", 3.0),
    ("BGM testing frequency: twice a day.", "fingerstick tests", 2.0),
    ("Checks her glucose four times a day.", "fingerstick tests", 4.0),
])
def test_a_count_before_its_name_takes_the_period_after_it(narrative: str, quantity: str, value: float) -> None:
    facts = read_facts(narrative)
    [fact] = [f for f in facts.facts if isinstance(f, MeasureFact) and f.quantity == quantity]
    assert (fact.value, fact.comparator, fact.per.unit if fact.per else None) == (value, "==", "day")


@pytest.mark.parametrize(("narrative", "status"), [
    ("Insulin regimen: multiple daily injections, 4 per day, self-adjusted.", "present"),
    ("T1DM, MDI x2 mo (self-adjusting).", "present"),
    ("On a pump, adjusts her doses every day from her readings.", "present"),
    ("He is not self-adjusting.", "absent"),
])
def test_dose_self_adjustment_is_read_in_its_common_wordings(narrative: str, status: str) -> None:
    facts = read_facts(narrative)
    assert [f.status for f in facts.facts if getattr(f, "concept", None) == "insulin dose self-adjustment"] == [status]


@pytest.mark.parametrize(("written", "ago"), [
    ("2024-03-22", (255.0, 255.0)),
    ("03/22/2024", (255.0, 255.0)),
    ("22 March 2024", (255.0, 255.0)),
    ("March 22, 2024", (255.0, 255.0)),
    ("March 2024", (246.0, 276.0)),  # every day of the month: from its last day to its first
    ("03/2024", (246.0, 276.0)),
])
def test_a_date_after_an_event_gives_how_long_ago_it_was(written: str, ago: tuple[float, float]) -> None:
    from clauseguard.reading.facts.note import Note
    from clauseguard.reading.facts.rules import default_rules
    from clauseguard.reading.facts.values import dated_after
    from clauseguard.reading.lexicon import default_lexicon

    text = f"Office visit on {written}."
    note = Note(text, default_lexicon(), default_rules(), date(2024, 12, 2))
    found = dated_after(note, len("Office visit"), len(text))
    assert found is not None and (found[0], found[1]) == ago


def test_prior_deliveries_never_show_a_limit_in_units_kept() -> None:
    text = "Up to 100 test strips every 3 months are covered."
    criteria = criteria_from_json({"rules": [{"effect": "covered", "span": text, "when": {
        "kind": "count", "span": text, "item": "test strips", "comparator": "<=", "value": 100,
        "per": {"length": 3, "unit": "month"}}}]}, text)
    # one delivery three weeks ago and this request are two deliveries, not two strips
    assert _status(criteria, "Supplies were last delivered 3 weeks ago.") == "unknown"
