"""Label validation: each kind of invalid label is caught with its reason; valid labels pass."""

from __future__ import annotations

import pytest

from clauseguard.evals.corpus_facts import CorpusFacts
from clauseguard.evals.validate import determination_problems, search_problems, validate_cases
from tests.evals.conftest import det, search


def reasons(facts: CorpusFacts, **fields: object) -> list[str]:
    return determination_problems(det("c", **fields), facts)


def test_a_sound_label_passes(facts: CorpusFacts) -> None:
    assert reasons(facts) == []
    # a rider attached to the plan, in effect, overriding the document that governs the code
    assert reasons(facts, plan_id="PA-GOLD", as_of_date="2023-07-01", gold_clause_ids=["PA-RID-1.r1.A1"]) == []


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"gold_clause_ids": ["PA-MP-1.v9.C2"]}, "gold clause PA-MP-1.v9.C2 does not exist"),
        ({"gold_clause_ids": ["PA-MP-1.v2.C2"]}, "is not in effect on 2023-06-15"),
        ({"gold_clause_ids": ["PA-MP-1.v1.C1"]}, "is a scope clause"),
        ({"gold_clause_ids": ["PA-RID-1.r1.A1"], "as_of_date": "2023-07-01"}, "not attached to plan PA-BASIC"),
        ({"gold_clause_ids": ["PA-MP-2.v1.C1"]}, "does not govern 99213"),
        ({"gold_clause_ids": ["PA-TERMS.T-2023.A1"], "plan_id": "PA-GOLD"}, "does not govern 99213"),
        ({"gold_clause_ids": ["PA-MP-2.v1.C1"], "procedure_codes": ["99214"], "plan_id": "PA-GOLD"},
         "does not apply to plan PA-GOLD"),
        ({"gold_clause_ids": ["PB-MP-9.v1.C1"]}, "belongs to payer PB"),
        ({"gold_clause_ids": ["PA-RID-1.r1.A1"], "plan_id": "PA-GOLD", "procedure_codes": ["99215"], "as_of_date": "2023-07-01",
          "expected_gate": "REFUSE", "expected_outcome": "INSUFFICIENT_EVIDENCE"},
         "overrides no document governing 99215"),
        ({"expected_gate": "HALT", "expected_outcome": "INSUFFICIENT_EVIDENCE", "gold_clause_ids": []},
         "expected HALT is unreachable"),
        ({"expected_gate": "REFUSE"}, "carries outcome INSUFFICIENT_EVIDENCE"),
        ({"expected_outcome": "INSUFFICIENT_EVIDENCE"}, "DETERMINE needs outcome COVERED or NOT_COVERED"),
        ({"procedure_codes": ["99215"], "gold_clause_ids": []}, "no document of payer PA governs 99215"),
        ({"as_of_date": "2022-06-01", "gold_clause_ids": []}, "no document of payer PA governs 99213 on plan PA-BASIC on 2022-06-01"),
        ({"as_of_date": "2024-13-01", "gold_clause_ids": []}, "preflight HALTs this request"),
        ({"payer_id": "", "expected_gate": "HALT", "expected_outcome": "INSUFFICIENT_EVIDENCE"}, "no gold clauses"),
    ],
)
def test_each_invalid_label_kind_is_named(facts: CorpusFacts, fields: dict[str, object], expected: str) -> None:
    found = reasons(facts, **fields)
    assert any(expected in r for r in found), found


@pytest.mark.parametrize(
    ("fields", "rule"),
    [
        ({"payer_id": ""}, "payer_id is empty"),
        ({"payer_id": "ZZ"}, "not a payer"),
        ({"plan_id": ""}, "plan_id is empty"),
        ({"plan_id": "PA-NOPE"}, "not a plan"),
        ({"plan_id": "PB-ONE"}, "belongs to payer PB"),
        ({"as_of_date": "03/15/2024"}, "does not parse"),
        ({"as_of_date": "2024-02-30"}, "does not parse"),
        ({"procedure_codes": []}, "procedure_codes is empty"),
        ({"procedure_codes": ["9921"]}, "no CPT or HCPCS shape"),
        ({"procedure_codes": ["99213", "a1234"]}, "no CPT or HCPCS shape"),
        ({"diagnosis_codes": ["E1065"]}, "no ICD-10-CM shape"),
    ],
)
def test_every_preflight_rule_makes_an_expected_halt_reachable(facts: CorpusFacts, fields: dict[str, object], rule: str) -> None:
    halt = {"expected_gate": "HALT", "expected_outcome": "INSUFFICIENT_EVIDENCE", "gold_clause_ids": []}
    assert reasons(facts, **fields, **halt) == []
    not_halt = reasons(facts, **fields, gold_clause_ids=[])
    assert any("preflight HALTs this request" in r and rule in r for r in not_halt), not_halt


def test_well_formed_codes_and_dates_do_not_halt(facts: CorpusFacts) -> None:
    halt = {"expected_gate": "HALT", "expected_outcome": "INSUFFICIENT_EVIDENCE", "gold_clause_ids": []}
    assert "expected HALT is unreachable" in " ".join(reasons(facts, diagnosis_codes=["E10.9", "S83.511D", "T58.11XA"], **halt))
    # a well-formed code no document governs is a REFUSE, never a HALT
    refuse = {"expected_gate": "REFUSE", "expected_outcome": "INSUFFICIENT_EVIDENCE", "gold_clause_ids": []}
    assert reasons(facts, procedure_codes=["99215"], **refuse) == []


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"must_include_clause_ids": ["PA-TERMS.T-2099.A1"]}, "must_include clause PA-TERMS.T-2099.A1 does not exist"),
        ({"must_exclude_clause_ids": ["NOPE.1"]}, "must_exclude clause NOPE.1 does not exist"),
        ({"must_exclude_clause_ids": ["PA-TERMS.T-2023.A1"]}, "both must and must not"),
        ({"expected_applicable_version": "T-2099"}, "'T-2099' is not a version that governs"),
        ({"expected_applicable_version": "T-2024"}, "'T-2024' is not a version that governs"),
        ({"expected_applicable_version": None}, "cannot be null"),
        ({"must_include_clause_ids": ["PA-TERMS.T-2024.A1"], "must_exclude_clause_ids": []},
         "not eligible for this request (outside the contract period)"),
        ({"must_include_clause_ids": ["PA-MP-2.v1.C1"]}, "not eligible"),
        ({"contract_id": "CT-404"}, "contract 'CT-404' does not exist"),
        ({"contract_id": "CT-OLD", "expected_status": "answered"}, "that is a refusal"),
        ({"contract_id": "CT-OLD", "expected_status": "refused", "must_include_clause_ids": []}, "expected_applicable_version is null"),
    ],
)
def test_each_invalid_search_label_kind_is_named(facts: CorpusFacts, fields: dict[str, object], expected: str) -> None:
    found = search_problems(search("s", **fields), facts)
    assert any(expected in r for r in found), found


def test_sound_search_labels_pass(facts: CorpusFacts) -> None:
    assert search_problems(search("s"), facts) == []
    assert search_problems(search("s", effective_date="2024-05-01"), facts) == []  # inside the term: still T-2023
    uncovered = search(
        "s", contract_id="CT-OLD", expected_status="refused", expected_applicable_version=None,
        must_include_clause_ids=[], expected_action="escalate to handler",
    )
    assert search_problems(uncovered, facts) == []
    by_plan = search(
        "s", contract_id=None, payer_id="PA", plan_id="PA-GOLD", effective_date="2024-02-01",
        expected_applicable_version="T-2024", must_include_clause_ids=["PA-TERMS.T-2024.A1"],
        must_exclude_clause_ids=["PA-TERMS.T-2023.A1"],
    )
    assert search_problems(by_plan, facts) == []
    unknown = search("s", contract_id="CT-404", expected_status="error", expected_applicable_version=None, expected_action=None)
    assert search_problems(unknown, facts) == []


def test_validate_cases_lists_only_the_invalid_with_every_reason(facts: CorpusFacts) -> None:
    good = det("good")
    bad = det("bad", gold_clause_ids=["PA-MP-1.v1.C1", "GHOST"])
    invalid = validate_cases([good, bad], facts)
    assert [i.case_id for i in invalid] == ["bad"]
    assert len(invalid[0].reasons) == 2
    assert invalid[0].as_json() == {"case_id": "bad", "file": "test.json", "reasons": list(invalid[0].reasons)}
