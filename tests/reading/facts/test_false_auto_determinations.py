"""Each class of false auto-determination issue 11 found, as a test that failed on the old reader:
what a note says it lacks read as absent, a negation stopping inside the list it governs, a statement
about one drug crossing a "but" to another, and a planned treatment read as received; and a denial of
one drug read as a denial of its whole class. The criteria are authored trees (policy-as-code), so the
tests do not depend on the rule compiler."""

from __future__ import annotations

from typing import Any

import pytest

from clauseguard.corpus.criteria import Criteria, criteria_from_json
from clauseguard.reading.evaluate import Evaluation, evaluate
from clauseguard.reading.facts import read_facts, vocabulary_of


def tree(text: str, when: dict[str, Any], population: dict[str, Any] | None = None) -> Criteria:
    rule: dict[str, Any] = {"effect": "covered", "span": text, "when": when}
    if population is not None:
        rule["population"] = population
    return criteria_from_json({"rules": [rule]}, text)


def judge(criteria: Criteria, narrative: str) -> Evaluation:
    return evaluate(criteria, read_facts(narrative, vocabulary=vocabulary_of([criteria])))


PUMP_TEXT = ("A pump is covered for type 1 diabetes when the member completed diabetes self-management "
             "education and used multiple daily injections for at least three months")
PUMP = tree(PUMP_TEXT, {"kind": "all", "children": [
    {"kind": "treatment", "span": "completed diabetes self-management education",
     "therapy": "diabetes self-management education", "statuses": ["treated"]},
    {"kind": "duration", "span": "used multiple daily injections for at least three months",
     "therapy": "intensive insulin regimen", "comparator": ">=", "value": 3, "unit": "month"},
]}, {"kind": "condition", "span": "type 1 diabetes", "concept": "type 1 diabetes mellitus"})


@pytest.mark.parametrize("gap", [
    "Completion of diabetes self-management education is not documented.",
    "Diabetes self-management education: no documentation provided.",
    "No record of diabetes education in the submitted notes.",
    "The referral does not state whether she attended diabetes education.",
])
def test_what_the_note_says_it_lacks_is_a_missing_fact_never_a_failed_requirement(gap: str) -> None:
    ev = judge(PUMP, "Type 1 diabetes on multiple daily injections for two years. " + gap)
    assert ev.outcome == "undecided"  # REFUSE naming the fact: a request for the documentation
    assert any("diabetes self-management education" in m for m in ev.missing_facts)


HSAT_TEXT = ("Home sleep testing is covered for suspected sleep apnea UNLESS the member has chronic obstructive "
             "pulmonary disease, congestive heart failure or neuromuscular disease, in which case attended "
             "polysomnography is required")
HSAT = tree(HSAT_TEXT, {
    "kind": "routing",
    "span": "UNLESS the member has chronic obstructive pulmonary disease, congestive heart failure or neuromuscular "
            "disease, in which case attended polysomnography is required",
    "condition": {"kind": "any", "children": [
        {"kind": "condition", "span": "chronic obstructive pulmonary disease", "concept": "chronic obstructive pulmonary disease"},
        {"kind": "condition", "span": "congestive heart failure", "concept": "congestive heart failure"},
        {"kind": "condition", "span": "neuromuscular disease", "concept": "neuromuscular disease"}]},
    "target": {"kind": "service", "span": "attended polysomnography", "concept": "attended polysomnography"}})


@pytest.mark.parametrize("narrative", [
    "No history of congestive heart failure, neuromuscular disease, or COPD.",
    "Denies CHF, neuromuscular disease or chronic obstructive pulmonary disease.",
    "The request contains nothing about heart failure, neuromuscular disease or COPD.",
])
def test_a_negation_covers_every_item_of_its_list(narrative: str) -> None:
    ev = judge(HSAT, narrative)
    assert ev.outcome != "not_covered"  # the routing exception's trigger is not present
    assert not any(r.routed_to for r in ev.rules)


SECOND_TEXT = "A second biologic is covered after failure of a biologic"
SECOND = tree(SECOND_TEXT, {"kind": "treatment", "span": "failure of a biologic", "therapy": "biologic therapy",
                            "statuses": ["failed"]})


@pytest.mark.parametrize("narrative", [
    "Methotrexate failed but etanercept was started last month.",
    "No response to methotrexate but etanercept was started last month.",
    "Failed sulfasalazine but infliximab is going well.",
    "Methotrexate failed; however adalimumab was started in May.",
])
def test_a_statement_about_one_drug_never_crosses_a_but_to_another(narrative: str) -> None:
    # the failure is the conventional drug's; nothing says the biologic failed
    assert judge(SECOND, narrative).outcome != "covered"


DMARD_TEXT = ("A biologic is covered after at least three months of a conventional synthetic DMARD with an "
              "inadequate response")
DMARD = tree(DMARD_TEXT, {"kind": "duration", "span": "at least three months of a conventional synthetic DMARD",
                          "therapy": "conventional synthetic dmard", "comparator": ">=", "value": 3, "unit": "month",
                          "outcome": "inadequate response"})


def test_a_denial_of_one_drug_is_no_denial_of_its_class() -> None:
    # "no methotrexate" says nothing of sulfasalazine, a conventional DMARD the lexicon may not know by
    # this abbreviation-free spelling; the requirement stays unknown, never failed
    ev = judge(DMARD, "No prior methotrexate. Sulfazine trial for five months, inadequate response.")
    assert ev.outcome != "not_covered"


@pytest.mark.parametrize("narrative", [
    "Type 1 diabetes. Plan: start multiple daily injections for three months, then reassess.",
    "Type 1 diabetes. Diabetes self-management education completed. We will start multiple daily injections "
    "for three months.",
    "Type 1 diabetes. Diabetes self-management education completed. Requesting authorization for multiple daily "
    "injections for three months.",
    # the passive future: what someone will be put on or given has not been received either
    "Type 1 diabetes. Diabetes self-management education completed. He will be started on multiple daily "
    "injections for three months.",
    "Type 1 diabetes. Diabetes self-management education completed. Multiple daily injections for three months "
    "will be tried.",
])
def test_a_planned_or_requested_treatment_has_not_been_received(narrative: str) -> None:
    assert judge(PUMP, narrative).outcome != "covered"


@pytest.mark.parametrize("narrative", [
    # a start the note says has not happened (read as received until 2026-12-02)
    "Type 1 diabetes. Diabetes self-management education completed. He has not started multiple daily "
    "injections yet.",
    "Type 1 diabetes. Diabetes self-management education completed. Not yet started on multiple daily injections.",
])
def test_a_treatment_not_yet_started_has_not_been_received(narrative: str) -> None:
    assert judge(PUMP, narrative).outcome != "covered"


CGM_TEXT = ("CGM is covered for type 1 diabetes when the member performs four fingerstick tests per day, unless the "
            "member has hypoglycemia unawareness, in which case the frequency requirement does not apply")
CGM = criteria_from_json({"rules": [{"effect": "covered", "span": CGM_TEXT, "when": {"kind": "all", "children": [
    {"kind": "condition", "span": "type 1 diabetes", "concept": "type 1 diabetes mellitus"},
    {"kind": "waiver", "span": CGM_TEXT,
     "body": {"kind": "count", "span": "four fingerstick tests per day", "item": "fingerstick tests",
              "comparator": ">=", "value": 4, "per": {"length": 1, "unit": "day"}, "id": "freq"},
     "condition": {"kind": "condition", "span": "hypoglycemia unawareness", "concept": "hypoglycemia unawareness"},
     "waives": ["freq"]}]}}]}, CGM_TEXT)


@pytest.mark.parametrize("narrative", [
    "T1DM on MDI. Denies hypoglycemia unawareness. A/P: hypoglycemia unawareness, frequent nocturnal lows.",
    "Hypoglycemia unawareness: no. Clinical rationale: type 1 diabetes with hypoglycemia unawareness.",
])
def test_an_exception_stated_and_denied_in_one_note_waives_nothing(narrative: str) -> None:
    """Two statements of one fact that disagree are a conflict: unknown, never the one that covers."""
    assert judge(CGM, narrative).outcome == "undecided"


TRAINING_TEXT = "A home meter is covered for diabetes when the clinician attests that the member was taught to use it"
TRAINING = tree(TRAINING_TEXT, {"kind": "documentation", "span": "the clinician attests that the member was taught to use it",
                                "item": "device training"},
                {"kind": "condition", "span": "diabetes", "concept": "diabetes mellitus"})


@pytest.mark.parametrize("narrative, outcome", [
    # a spaced dash sets off a new clause: the "without" before it negates nothing after it
    ("Type 2 diabetes. She tested her own sugar without prompting - we are confident she can use the device.",
     "covered"),
    ("Type 2 diabetes. Meter teaching is booked for next week; she will be trained then.", "undecided"),
    ("Type 2 diabetes. Nothing in the referral says whether she was trained on the meter.", "undecided"),
    ("Type 2 diabetes. Not trained on the meter yet.", "not_covered"),
    # "not yet" before the fact denies it as plainly as after it (read as trained until 2026-12-02)
    ("Type 2 diabetes. Rx sent; she is not yet trained on the meter.", "not_covered"),
])
def test_device_teaching_is_read_with_its_status(narrative: str, outcome: str) -> None:
    assert judge(TRAINING, narrative).outcome == outcome
