"""What a note says of a list of therapies is each one's; a result line documents its test; a count of
doses defines the regimen it is; a date is no second value of a count.

The sentences are our own, in the house styles the notes suite names (SOAP line, referral letter, PA form,
handler summary)."""

from __future__ import annotations

import pytest

from clauseguard.reading.facts import DocumentationFact, MeasureFact, TherapyFact, read_facts
from clauseguard.reading.facts.sheet import ConditionFact


def _therapies(narrative: str, as_of: str | None = None) -> dict[str, TherapyFact]:
    sheet = read_facts(narrative, as_of=as_of) if as_of else read_facts(narrative)
    return {f.therapy: f for f in sheet.facts if isinstance(f, TherapyFact)}


@pytest.mark.parametrize("narrative", [
    "Eight weeks of physiotherapy and anti-inflammatories gave her no meaningful relief.",  # referral
    "8 wks PT/NSAIDs, no relief.",  # handler summary
    "Tx so far: PT (home) three times weekly x 8 wks plus ibuprofen - inadequate relief.",  # SOAP line
    "Prior treatment: physical therapy twice weekly x 8 weeks, NSAIDs - inadequate relief.",  # PA form
])
def test_an_outcome_after_a_list_reaches_every_item(narrative: str) -> None:
    facts = _therapies(narrative)
    assert len(facts) == 2 and any("physical therapy" in t for t in facts)
    for f in facts.values():
        assert "failed" in f.statuses, f


def test_an_outcome_in_brackets_is_its_own_items() -> None:
    facts = _therapies("Prior treatment: metformin (nausea), pioglitazone x 5 mo (inadequate response).")
    assert "failed" not in facts["metformin"].statuses
    assert any("failed" in f.statuses for t, f in facts.items() if t != "metformin")


@pytest.mark.parametrize("narrative", [
    "Metformin helped, glipizide gave no relief.",  # a clause of its own between them
    "Tried metformin, then glipizide, no relief.",  # one after the other, not one list
])
def test_an_outcome_does_not_cross_a_clause_of_its_own(narrative: str) -> None:
    facts = _therapies(narrative)
    assert "failed" not in facts["metformin"].statuses


def test_a_length_before_a_list_is_each_items() -> None:
    facts = _therapies("12 wks PT/NSAIDs.")
    assert facts["physical therapy"].duration_days == facts["nsaid"].duration_days == 84.0


def test_a_list_then_a_new_statement_keeps_the_length_to_its_own() -> None:
    facts = _therapies("6 weeks of PT, then NSAIDs.")
    assert facts["nsaid"].duration_days is None


@pytest.mark.parametrize("narrative", [
    "Imaging: MRI 03/2024 - complex tear of the anterior horn of the lateral meniscus.",
    "MRI knee: lateral meniscus tear.",
    "Imaging: MRI - bucket-handle tear of the medial meniscus.",
])
def test_a_result_line_documents_its_test(narrative: str) -> None:
    docs = [f for f in read_facts(narrative).facts if isinstance(f, DocumentationFact)]
    assert any(d.item == "magnetic resonance imaging" and d.about == "meniscal tear" and d.status == "present"
               for d in docs), docs


@pytest.mark.parametrize("narrative", [
    "Please approve the MRI - the patient worries about a meniscal tear.",  # the test does not open the line
    "MRI - patient keeps asking about a meniscal tear.",  # a remark, not a finding, after the mark
])
def test_a_remark_after_a_test_documents_nothing(narrative: str) -> None:
    docs = [f for f in read_facts(narrative).facts if isinstance(f, DocumentationFact)]
    assert not any(d.about == "meniscal tear" for d in docs), docs


@pytest.mark.parametrize(("narrative", "status"), [
    ("His left knee locks and occasionally gives way.", "present"),  # referral
    ("Knee catches intermittently on stairs.", "present"),  # SOAP
    ("Denies that the knee locks.", "absent"),
])
def test_what_the_knee_does_is_a_mechanical_symptom(narrative: str, status: str) -> None:
    found = [f for f in read_facts(narrative).facts if isinstance(f, ConditionFact) and f.concept == "mechanical symptoms"]
    assert found and found[0].status == status


def test_a_locked_knee_stays_a_locked_knee() -> None:
    concepts = {f.concept for f in read_facts("The knee is locked in 30 degrees of flexion.").facts
                if isinstance(f, ConditionFact)}
    assert "locked knee" in concepts and "mechanical symptoms" not in concepts


@pytest.mark.parametrize(("narrative", "days"), [
    ("She has used five injections a day, adjusting her own doses, for the three months since diagnosis.", 91.3),
    ("Has injected insulin four times a day for five months.", 152.2),
])
def test_a_count_of_three_or_more_injections_a_day_is_an_intensive_regimen(narrative: str, days: float) -> None:
    regimen = _therapies(narrative)["intensive insulin regimen"]
    assert regimen.status == "present" and regimen.duration_days is not None
    assert abs(regimen.duration_days - days) < 1


@pytest.mark.parametrize("narrative", [
    "Two injections a day for 6 months.",  # fewer than the regimen's number
    "Two or five injections a day for 6 months, not sure which.",
])
def test_fewer_injections_define_no_intensive_regimen(narrative: str) -> None:
    assert "intensive insulin regimen" not in _therapies(narrative)


def test_a_slash_rate_is_a_rate() -> None:
    [m] = [f for f in read_facts("Glucose checks: 3/day.").facts if isinstance(f, MeasureFact)]
    assert m.value == 3.0 and m.per is not None and m.per.unit == "day"


def test_a_month_and_year_is_no_second_count() -> None:
    counts = [f for f in read_facts("Five injections a day since March 2023.").facts
              if isinstance(f, MeasureFact) and f.quantity == "insulin injections"]
    assert [c.value for c in counts] == [5.0] and not counts[0].conflicting


@pytest.mark.parametrize("narrative", [
    "Plantar ulcer, Wagner 3; four weeks of standard wound care have produced no measurable healing.",  # SOAP
    "No measurable healing after five weeks of standard wound care.",  # PA form
])
def test_no_measurable_healing_denies_the_healing_not_the_care(narrative: str) -> None:
    sheet = read_facts(narrative, vocabulary=["measurable healing"])
    healing = [f for f in sheet.facts if isinstance(f, ConditionFact) and f.concept == "measurable healing"]
    care = [f for f in sheet.facts if isinstance(f, TherapyFact) and f.therapy == "standard wound care"]
    assert healing and all(f.status == "absent" for f in healing)
    assert care and care[0].status == "present" and care[0].duration_days is not None


@pytest.mark.parametrize(("narrative", "concept"), [
    ("A: acute CO poisoning after a generator was run indoors.", "carbon monoxide poisoning"),
    ("Diver with decompression sickness after a rapid ascent.", "decompression sickness"),
    ("Suspected arterial gas embolism during the dive.", "gas embolism"),
])
def test_the_conditions_hyperbaric_oxygen_treats_are_known(narrative: str, concept: str) -> None:
    assert concept in {f.concept for f in read_facts(narrative).facts if isinstance(f, ConditionFact)}


def test_a_carbon_monoxide_code_is_carbon_monoxide_poisoning() -> None:
    sheet = read_facts("Brought in from a house fire.", diagnosis_codes=["T58.01XA"])
    assert "carbon monoxide poisoning" in {f.concept for f in sheet.facts if isinstance(f, ConditionFact)}


@pytest.mark.parametrize(("narrative", "status"), [
    ("Has never joined a medically supervised weight program.", "absent"),  # referral
    ("No supervised wt-loss program.", "absent"),  # handler shorthand
    ("Completed a physician supervised weight reduction programme (7 months).", "present"),  # PA form
])
def test_a_supervised_weight_programme_in_shorthand(narrative: str, status: str) -> None:
    assert _therapies(narrative)["weight-management program"].status == status


@pytest.mark.parametrize("narrative", [
    "We request an insulin pump for a 34-year-old woman diagnosed with type 1 diabetes last spring.",
    "Requesting a CGM for a 61 year old man with type 1 diabetes since childhood.",
])
def test_the_member_named_after_a_request_is_not_requested(narrative: str) -> None:
    [dm] = [f for f in read_facts(narrative).facts if isinstance(f, ConditionFact) and f.concept == "type 1 diabetes mellitus"]
    assert dm.status == "present" and dm.assertion == "affirmed"


def test_a_request_still_reaches_what_it_requests() -> None:
    [drug] = [f for f in read_facts("Requesting authorization for a trial of adalimumab for a 52-year-old man.").facts
              if isinstance(f, TherapyFact)]
    assert drug.assertion == "planned"


@pytest.mark.parametrize("narrative", [
    "Serology: RF 120, anti-CCP 300.",  # SOAP labs line
    "Seropositive disease with rheumatoid factor and anti-CCP antibodies.",  # PA form descriptor
    "Labs: ferritin 14, Hb 10.9.",
])
def test_a_laboratory_result_is_no_drug(narrative: str) -> None:
    assert not _therapies(narrative)
