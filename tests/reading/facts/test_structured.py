"""The structured fields of a prior-authorization form: counted as stated facts, checked like every
field (a value that cannot be read is a HALT naming it; a wrong type is a request error), governed by the
narrative's explicit statement when they disagree, and a date of birth never logged."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from clauseguard.corpus.sources import open_corpus
from clauseguard.engine import Engine
from clauseguard.errors import RequestError
from clauseguard.evals.cases import parse_case_file
from clauseguard.reading.facts import (
    AgeFact,
    PlaceFact,
    PrescriberFact,
    QuantityFact,
    SexFact,
    Structured,
    read_facts,
)
from clauseguard.requests import DeterminationRequest, parse_request

BASE = {"payer_id": "KHP", "plan_id": "KHP-HMO-CORE", "procedure_codes": ["E0784"], "diagnosis_codes": ["E10.9"],
        "as_of_date": "2024-03-15", "narrative": "Type 1 diabetes.", "question": "Is an insulin pump covered?"}


def structured(**fields: object) -> Structured | None:
    req = parse_request(DeterminationRequest, {**BASE, **fields})
    return Structured.of(req, date(2024, 3, 15))


def test_the_fields_are_stated_facts() -> None:
    fields = structured(member={"date_of_birth": "1957-03-02", "sex": "F"}, quantity=30, period="30 days",
                        prescriber_specialty="Endocrinologist", place_of_service="12")
    sheet = read_facts("Type 1 diabetes.", structured=fields)
    [age] = sheet.of(AgeFact)
    assert (age.value, age.source) == (67, "structured:member")  # the age on the request's date, never the date
    assert [f.sex for f in sheet.of(SexFact)] == ["female"]
    [quantity] = sheet.of(QuantityFact)
    assert (quantity.value, quantity.per.length, quantity.per.unit, quantity.assertion) == (30, 30, "day", "planned")
    assert [f.specialty for f in sheet.of(PrescriberFact)] == ["endocrinology"]
    assert [f.place for f in sheet.of(PlaceFact)] == ["home"]


def test_the_narrative_governs_a_field_it_contradicts_and_the_disagreement_is_flagged() -> None:
    sheet = read_facts("Age: 58. Requested: 400 strips per 90 days.",
                       structured=structured(member={"age": 48}, quantity=300, period="90 days"))
    assert [a.value for a in sheet.of(AgeFact)] == [58]
    assert [q.value for q in sheet.of(QuantityFact)] == [400]
    assert sum(f.kind == "discrepancy" for f in sheet.flags) == 2


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Engine:
    """One engine for the module, its store cached in a home of its own (never the user's)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CLAUSEGUARD_HOME", str(tmp_path_factory.mktemp("engine-home")))
        return Engine(open_corpus("demo", None), log=False).warm_up()


@pytest.mark.parametrize(("fields", "code"), [
    ({"member": {"age": 200}}, "halt_member_age"),
    ({"member": {"sex": "Q"}}, "halt_member_sex"),
    ({"member": {"date_of_birth": "2030-01-01"}}, "halt_member_date_of_birth"),
    ({"member": {"date_of_birth": "03/02/1957"}}, "halt_member_date_of_birth"),
    ({"member": {"date_of_birth": "1957-03-02", "age": 40}}, "halt_member_age"),
    ({"quantity": 30}, "halt_period"),
    ({"quantity": 0, "period": "30 days"}, "halt_quantity"),
    ({"quantity": 30, "period": "a fortnight"}, "halt_period"),
    ({"prescriber_specialty": "   "}, "halt_prescriber_specialty"),
    ({"place_of_service": "<script>"}, "halt_place_of_service"),
    ({"contract_id": "CT-NOPE"}, "halt_contract_id"),
])
def test_a_value_that_cannot_be_read_is_a_halt_naming_the_field(engine: Engine, fields: dict, code: str) -> None:
    answer = engine.determine({**BASE, **fields})
    assert answer.gate == "HALT"
    assert code in [r.code for r in answer.reasons]


@pytest.mark.parametrize("fields", [{"member": {"age": "67"}}, {"member": {"dob": "1957-03-02"}}, {"quantity": "30"}])
def test_a_field_of_the_wrong_type_is_a_request_error_naming_it(fields: dict) -> None:
    with pytest.raises(RequestError) as error:
        parse_request(DeterminationRequest, {**BASE, **fields})
    assert error.value.field.split(".")[0] in fields


def test_a_date_of_birth_is_never_logged(isolated_home: Path) -> None:
    answer = Engine(open_corpus("demo", None)).determine({**BASE, "member": {"date_of_birth": "1957-03-02", "sex": "F"}})
    home = isolated_home
    logged = (home / "audit.sqlite").read_bytes() + (home / "traces.jsonl").read_bytes()
    assert b"1957-03-02" not in logged and b"date_of_birth" not in logged
    # Timing fields are floats that can hold any four digits ("0.019579"): only the answer proper is checked.
    shown = {key: value for key, value in answer.as_json().items() if key != "timings"}
    assert "1957" not in json.dumps(shown)


def test_the_case_loader_hands_the_fields_to_the_engine() -> None:
    case = {**BASE, "case_id": "c1", "expected_outcome": "COVERED", "expected_gate": "DETERMINE",
            "member": {"age": 34, "sex": "M"}, "quantity": 30, "period": "30 days", "place_of_service": "home"}
    [parsed] = parse_case_file("cases.json", {"cases": [case]}).cases
    request = parsed.engine_request()
    assert request["member"] == {"age": 34, "sex": "M"} and request["quantity"] == 30
    assert request["place_of_service"] == "home"
