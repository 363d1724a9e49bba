"""The mechanical checks, one rule at a time."""

from __future__ import annotations

import json

import pytest

from clauseguard.corpus.criteria import Condition, Measure, Period, Span
from clauseguard.models.checks import (
    OfferedCriterion,
    Rejected,
    accept_criteria,
    accept_facts,
    accept_phrasing,
    accept_verdicts,
    json_object,
)
from clauseguard.models.prompts import NarrativeView
from clauseguard.preflight import Redaction
from clauseguard.reading.facts import ConditionFact, MeasureFact
from clauseguard.responses import Checks, Citation, Claim

CLAUSE = "Sensors (A9276) are covered when the member performs at least four fingerstick tests per day."
NARRATIVE = "Name: Jane Doe. Type 1 diabetes.  Chart documents\nfive fingerstick tests per day. A1c 8.6 percent."


def view() -> NarrativeView:
    return NarrativeView.of(NARRATIVE, Redaction.of(NARRATIVE).regions)


def offered() -> list[OfferedCriterion]:
    measure = Measure("a3", Span(0, 1, "S"), "fingerstick tests", ">=", 4.0, per=Period(1, "day"))
    condition = Condition("a2", Span(0, 1, "S"), "type 1 diabetes mellitus")
    return [OfferedCriterion("C2", measure), OfferedCriterion("C2", condition)]


def test_json_object_unwraps_a_fence_and_rejects_the_rest() -> None:
    assert json_object('```json\n{"a": 1}\n```') == {"a": 1}
    with pytest.raises(Rejected, match="not JSON"):
        json_object('{"a": ')
    with pytest.raises(Rejected, match="not an object"):
        json_object("[1]")


def test_criteria_must_quote_the_clause() -> None:
    good = {"rules": [{"effect": "covered", "span": "Sensors (A9276) are covered",
                       "when": {"kind": "measure", "span": "at least four fingerstick tests per day",
                                "quantity": "fingerstick tests", "comparator": ">=", "value": 4}}]}
    assert accept_criteria(json.dumps(good), CLAUSE).rules[0].effect == "covered"
    paraphrased = json.loads(json.dumps(good))
    paraphrased["rules"][0]["when"]["span"] = "four or more fingersticks daily"
    with pytest.raises(Rejected, match="not a verbatim part of the clause"):
        accept_criteria(json.dumps(paraphrased), CLAUSE)
    with pytest.raises(Rejected, match="states no rule"):
        accept_criteria("{}", CLAUSE)
    invented_code = {"rules": [{"effect": "covered", "span": "Sensors (A9276) are covered",
                                "subject": {"kind": "service", "span": "Sensors", "concept": "sensor",
                                            "codes": ["E0607"]}}]}
    with pytest.raises(Rejected, match="E0607 is not written in the clause"):
        accept_criteria(json.dumps(invented_code), CLAUSE)


def test_the_model_sees_the_narrative_redacted_and_spans_map_back() -> None:
    v = view()
    assert "Jane Doe" not in v.text and "[NAME]" in v.text
    found = v.locate("Chart documents five fingerstick tests per day.")  # whitespace may differ
    assert found is not None and NARRATIVE[found[0]:found[1]] == "Chart documents\nfive fingerstick tests per day."
    assert v.locate("Name: [NAME]") is None  # a placeholder is not narrative
    assert v.locate("six fingerstick tests") is None


def test_facts_are_checked_one_by_one() -> None:
    answer = {"facts": [
        {"criterion": "C2#a3", "status": "present", "value": 5, "span": "five fingerstick tests per day"},
        {"criterion": "C2#a2", "status": "present", "span": "Type 1 diabetes."},
        {"criterion": "C2#a9", "status": "present", "span": "Type 1 diabetes."},
        {"criterion": "C2#a3", "status": "present", "value": 5, "span": "five fingerstick tests per day"},
    ]}
    accepted, rejected = accept_facts(json.dumps(answer), offered(), view(), NARRATIVE)
    assert [type(a.fact) for a in accepted] == [MeasureFact, ConditionFact]
    measure = accepted[0].fact
    assert isinstance(measure, MeasureFact) and (measure.quantity, measure.value, measure.source) == (
        "fingerstick tests", 5.0, "model")
    assert NARRATIVE[accepted[0].span.start:accepted[0].span.end] == "five fingerstick tests per day"
    assert rejected == [("C2#a9", "names a criterion that was not offered"),
                        ("C2#a3", "a second fact for the same criterion")]


@pytest.mark.parametrize(
    ("fact", "why"),
    [
        ({"status": "present", "value": 6, "span": "five fingerstick tests per day"}, "the value is not written"),
        ({"status": "present", "span": "five fingerstick tests per day"}, "a number is needed"),
        ({"status": "present", "value": 5, "span": "5 fingersticks daily"}, "not verbatim"),
        ({"status": "maybe", "value": 5, "span": "five fingerstick tests per day"}, "neither 'present' nor 'absent'"),
        ({"status": "present", "value": 5, "span": ""}, "no span"),
    ],
)
def test_a_fact_that_fails_a_check_is_discarded_with_the_reason(fact: dict[str, object], why: str) -> None:
    answer = {"facts": [{"criterion": "C2#a3", **fact}]}
    accepted, rejected = accept_facts(json.dumps(answer), offered(), view(), NARRATIVE)
    assert accepted == [] and why in rejected[0][1]


CITATIONS = [
    Citation(clause_id="C2", quote="q", statement="s", claim=Claim(kind="criteria"),
             checks=Checks(exists=True, verbatim=True, in_effect=True, applicable=True, supports=True)),
    Citation(clause_id="C9", quote="q", statement="s", claim=Claim(kind="criteria"),
             checks=Checks(exists=True, verbatim=True, in_effect=True, applicable=True, supports=False)),
]


@pytest.mark.parametrize(
    ("sentences", "why"),
    [
        ([{"text": "The criteria are met.", "cites": []}], "carries no citation"),
        ([{"text": "The criteria are met.", "cites": ["C7"]}], "C7, which it was not given"),
        ([{"text": "See [C7] too.", "cites": ["C2"]}], "C7, which it was not given"),
        ([{"text": "The criteria are met.", "cites": ["C9"]}], "did not pass the verifier"),
        ([{"text": "The service is not covered.", "cites": ["C2"]}], "opposite of the outcome"),
        ([{"text": "This claim is approved.", "cites": ["C2"]}], "only the gate decides"),
        ([], "no `sentences`"),
    ],
)
def test_a_phrasing_that_fails_a_check_is_rejected_whole(sentences: list[dict[str, object]], why: str) -> None:
    with pytest.raises(Rejected, match=why.replace("[", r"\[").replace("`", "`")):
        accept_phrasing(json.dumps({"sentences": sentences}), CITATIONS, "COVERED")


def test_an_accepted_phrasing_shows_its_citations() -> None:
    (sentence,) = accept_phrasing(json.dumps({"sentences": [{"text": "The member meets the test count", "cites": ["C2"]}]}),
                                  CITATIONS, "COVERED")
    assert sentence.rendered() == "The member meets the test count [C2]."


def test_verdicts_only_on_citations_given() -> None:
    answer = {"verdicts": [{"clause_id": "C2", "supports": False, "reason": "  the quote\nis about something else "},
                           {"clause_id": "C7", "supports": True}, {"clause_id": "C2", "supports": True},
                           {"clause_id": "C9", "supports": "yes"}]}
    verdicts, rejected = accept_verdicts(json.dumps(answer), ["C2", "C9"])
    assert [(v.clause_id, v.supports, v.reason) for v in verdicts] == [
        ("C2", False, "the quote is about something else")]
    assert [why for _, why in rejected] == ["a verdict on a clause it was not given",
                                            "a second verdict on the same clause", "`supports` is not true or false"]
