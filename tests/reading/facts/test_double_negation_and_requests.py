"""Two findings of a blind hunt (2026-12-07) that auto-determined COVERED: a negation of a negation cue
("Not free of comorbidity: COPD") read as a denial, and a narrative asking for another service than the
procedure code bills ("Requesting endoscopic sleeve gastroplasty" under a sleeve-gastrectomy code). The
narrative governs, the discrepancy goes to a person. Our own wording."""

from __future__ import annotations

import pytest

from clauseguard.corpus.sources import open_corpus
from clauseguard.engine import Engine
from clauseguard.reading.facts import ConditionFact, ServiceFact, TherapyFact, read_facts


@pytest.mark.parametrize("narrative", [
    "High pretest probability of OSA. Not free of comorbidity: COPD.",
    "OSA likely; not without comorbidity - CHF (EF 30%).",
])
def test_a_negated_negation_cue_is_no_denial(narrative: str) -> None:
    conditions = [f for f in read_facts(narrative).facts if isinstance(f, ConditionFact)]
    assert conditions and all(f.status == "present" for f in conditions)


@pytest.fixture(scope="module")
def demo() -> Engine:
    return Engine(open_corpus("demo", None))


def _ask(engine: Engine, narrative: str) -> tuple[str, str, list[str]]:
    answer = engine.determine({"payer_id": "KHP", "plan_id": "KHP-HMO-CORE", "procedure_codes": ["43775"],
                               "diagnosis_codes": [], "as_of_date": "2024-08-01", "narrative": narrative,
                               "question": "Is sleeve gastrectomy covered?"}).as_json()
    return answer["gate"], answer["outcome"], [c["description"] for c in answer["conflicts"]]


@pytest.mark.parametrize("narrative", [
    "BMI 42. Requesting endoscopic sleeve gastroplasty. Psych eval: no contraindication.",
    "BMI 42. Intragastric balloon placement requested. Psychological evaluation found no contraindication.",
])
def test_a_narrative_asking_for_another_service_governs_and_goes_to_a_person(demo: Engine, narrative: str) -> None:
    gate, outcome, conflicts = _ask(demo, narrative)
    # the excluded procedure the narrative names decides, and the code-narrative mismatch needs a person
    assert (gate, outcome) == ("REVIEW", "NOT_COVERED")
    assert any("narrative requests" in c for c in conflicts)


@pytest.mark.parametrize(("narrative", "code"), [
    ("BMI 42. Requesting laparoscopic sleeve gastrectomy. Psych eval: no contraindication.", "43775"),  # the coded one
    ("Requesting an FFR study computed from the patient's coronary CT images.", "0501T"),  # CT: a part of its object
])
def test_the_coded_service_named_again_is_no_discrepancy(narrative: str, code: str) -> None:
    facts = read_facts(narrative, procedure_codes=[code]).facts
    assert [f for f in facts if isinstance(f, ServiceFact) and f.requested] == \
        [f for f in facts if isinstance(f, ServiceFact) and f.requested and f.source != "narrative"]


@pytest.mark.parametrize(("narrative", "concept"), [
    ("Possible MDD. Treatment plan with measurable goals.", "major depressive disorder"),  # handler line
    ("Rule out MDD.", "major depressive disorder"),
    ("New-onset headache. Equivocal papilledema on fundoscopy.", "papilledema"),  # the hedge before the finding
])
def test_a_hedged_finding_is_no_finding(narrative: str, concept: str) -> None:
    [fact] = [f for f in read_facts(narrative).facts if isinstance(f, ConditionFact) and f.concept == concept]
    assert fact.status == "unknown" or fact.assertion == "possible"


def test_a_query_mark_on_a_status_word_hedges_the_course() -> None:
    # "?intolerant of steroids" as "?papilledema": a query, not a finding
    [course] = [f for f in read_facts("Crohn's disease. ?intolerant of steroids.").facts if isinstance(f, TherapyFact)]
    assert course.status == "unknown"


def test_records_that_do_not_include_a_trial_leave_it_unstated() -> None:
    # the design: "the record does not include X" counts as unstated, in the plural too
    assert not [f for f in read_facts("Moderate RA. The records do not include any DMARD trial.").facts
                if isinstance(f, TherapyFact) and f.status == "absent"]


def test_a_request_for_a_service_only_the_policy_names_goes_to_a_person(demo: Engine) -> None:
    # "body-contouring surgery" is a phrase of the demo policy's exclusion the lexicon does not place: the
    # narrative asks for it under a sleeve-gastrectomy code, so no DETERMINE either way
    gate, _, conflicts = _ask(demo, "BMI 42. Body-contouring surgery requested after massive weight loss. "
                                    "Psych eval: no contraindication.")
    assert gate == "REVIEW" and conflicts
