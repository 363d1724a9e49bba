"""A plan written inside a line is a plan (a blind hunt, 2026-12-07, found "T2DM on metformin. Plan: insulin
glargine ..." read as insulin received, and a CGM auto-determined COVERED): a heading that opens a sentence
inside a line starts its section for the headings that set a status; the dose count of a planned regimen is
planned with it; a count the plan restates as ongoing keeps its status. Our own wording, in handler, SOAP and
form styles."""

from __future__ import annotations

import pytest

from clauseguard.reading.facts import ConditionFact, MeasureFact, TherapyFact, read_facts
from clauseguard.reading.lexicon import default_lexicon


def _therapies(narrative: str) -> dict[str, str]:
    return {f.therapy: f.assertion for f in read_facts(narrative).facts if isinstance(f, TherapyFact)}


def _measures(narrative: str) -> dict[str, str]:
    return {f.quantity: f.assertion for f in read_facts(narrative).facts if isinstance(f, MeasureFact)}


@pytest.mark.parametrize(("narrative", "therapy"), [
    ("T2DM on metformin. Plan: insulin glargine qHS.", "basal insulin"),  # handler line
    ("Moderate RA; plan: methotrexate, biologic if no response.", "methotrexate"),
    ("Dx E11.9. Requested: basal-bolus insulin regimen.", "basal-bolus insulin regimen"),  # a form's inline field
])
def test_a_heading_inside_a_line_plans_what_follows(narrative: str, therapy: str) -> None:
    # the therapy as the lexicon names it (a regimen's other names map to its one concept)
    assert _therapies(narrative)[default_lexicon().concept_named(therapy) or therapy] == "planned"


def test_what_comes_before_the_inline_heading_keeps_its_status() -> None:
    assert _therapies("T2DM on metformin. Plan: insulin glargine qHS.")["metformin"] == "affirmed"


def test_the_dose_count_of_a_planned_regimen_is_planned() -> None:
    assert _measures("T2DM. Plan: insulin glargine qHS plus lispro TID (4 injections/day).")["insulin injections"] == "planned"


@pytest.mark.parametrize("narrative", [
    "Fingersticks QID; will start basal insulin.",  # another count in a sentence that plans a therapy
    "S: T1DM.\nP: Continue fingerstick testing QID. Start CGM.",  # the plan says the count goes on
])
def test_a_count_the_member_keeps_up_is_not_planned(narrative: str) -> None:
    assert _measures(narrative)["fingerstick tests"] == "affirmed"


def test_a_one_line_soap_note_plans_after_its_p() -> None:
    assert _therapies("S: T2DM, on metformin. P: insulin glargine qHS.")["basal insulin"] == "planned"


@pytest.mark.parametrize("narrative", [
    "Methotrexate was prescribed at today's visit and is due to start next week.",  # referral letter
    "Insulin glargine: first dose tomorrow.",  # handler line
])
def test_a_start_still_to_come_is_planned(narrative: str) -> None:
    assert set(_therapies(narrative).values()) == {"planned"}


@pytest.mark.parametrize(("narrative", "status"), [
    ("BMI 42. Plan: preoperative psychological evaluation; no contraindication expected.", "planned"),
    ("Breast cancer at 41. Plan: pre-test genetic counselling.", "planned"),
    ("A: obesity.\nP: Psych eval completed, no contraindication.", "affirmed"),  # its clause says it was done
])
def test_an_evaluation_under_a_plan_is_a_step_to_come_unless_done(narrative: str, status: str) -> None:
    steps = [f for f in read_facts(narrative).facts if isinstance(f, ConditionFact)
             and f.concept in ("psychological evaluation", "genetic counselling")]
    assert [f.assertion for f in steps] == [status]


@pytest.mark.parametrize(("narrative", "therapy", "status"), [
    ("T2DM. Rx written for insulin 3 injections daily, to start after education class.", "insulin", "planned"),
    ("T2DM on metformin; insulin glargine prescribed today, first dose tomorrow.", "basal insulin", "planned"),
    ("T2DM on metformin; insulin glargine prescribed today, first dose tomorrow.", "metformin", "affirmed"),
    ("T2DM on metformin, starting dose 500 mg.", "metformin", "affirmed"),  # a dose, not a start to come
])
def test_a_clause_saying_when_it_starts_plans_the_therapy_before_it(narrative: str, therapy: str, status: str) -> None:
    assert _therapies(narrative)[therapy] == status
