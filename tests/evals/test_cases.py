"""Case files: the two formats detected per file, the request split from the answer key, clear errors, the hash."""

from __future__ import annotations

from pathlib import Path

import pytest

from clauseguard.evals.cases import (
    DETERMINATION_INPUTS,
    CaseFileError,
    DeterminationCase,
    SearchCase,
    case_set_hash,
    load_case_file,
    load_suite,
    parse_case_file,
)
from clauseguard.requests import STRUCTURED_FIELDS
from tests.evals.conftest import det, det_raw, search_raw, write_suite


def test_determination_file_keeps_extra_fields_and_splits_the_request(tmp_path: Path) -> None:
    raw = det_raw("c1", generated_by="deterministic-expansion", date_rationale="first day in force")
    loaded = load_case_file(write_suite(tmp_path / "d.json", [raw]))
    assert loaded.kind == "determination"
    case = loaded.cases[0]
    assert isinstance(case, DeterminationCase)
    # the seven inputs every case has; the optional structured fields only when the case gives them
    assert set(case.request) == set(DETERMINATION_INPUTS) - set(STRUCTURED_FIELDS)
    assert case.extra == {"generated_by": "deterministic-expansion", "date_rationale": "first day in force"}
    assert "expected_outcome" not in case.engine_request() and "case_id" not in case.engine_request()


def test_engine_request_is_a_fresh_copy() -> None:
    case = det("c1")
    request = case.engine_request()
    request["procedure_codes"].append("99999")
    assert case.engine_request()["procedure_codes"] == ["99213"]


def test_search_file_is_detected(tmp_path: Path) -> None:
    loaded = load_case_file(write_suite(tmp_path / "s.json", [search_raw("s1")]))
    assert loaded.kind == "search"
    case = loaded.cases[0]
    assert isinstance(case, SearchCase)
    assert case.request == {"contract_id": "CT-1", "question": "question of s1", "threshold": 0.62, "k": 3}


def test_a_file_mixing_kinds_is_refused(tmp_path: Path) -> None:
    path = write_suite(tmp_path / "mixed.json", [det_raw("c1"), search_raw("s1")])
    with pytest.raises(CaseFileError, match="mixed.json.*one kind"):
        load_case_file(path)


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        ({"expected_gate": "APPROVE"}, "expected_gate", "not valid"),
        ({"expected_outcome": None}, "expected_outcome", "not valid"),
        ({"procedure_codes": "99213"}, "procedure_codes", "list"),
        ({"as_of_date": 20240315}, "as_of_date", ""),
        ({"gold_clause_ids": "PA-MP-1.v1.C2"}, "gold_clause_ids", "list of clause ids"),
        ({"case_id": 7}, "case_id", "text"),
    ],
)
def test_a_malformed_case_names_file_case_and_field(tmp_path: Path, change: dict[str, object], field: str, words: str) -> None:
    broken = det_raw("broken")
    broken.update(change)
    path = write_suite(tmp_path / "bad.json", [det_raw("ok"), broken])
    with pytest.raises(CaseFileError) as caught:
        load_case_file(path)
    message = str(caught.value)
    assert "bad.json" in message and "cases[1]" in message and field in message and words in message


def test_a_missing_answer_key_is_named(tmp_path: Path) -> None:
    raw = det_raw("c1")
    del raw["expected_outcome"]
    with pytest.raises(CaseFileError, match=r"case 'c1' \(cases\[0\]\)\.expected_outcome: required"):
        load_case_file(write_suite(tmp_path / "d.json", [raw]))


def test_search_cases_need_version_and_action_unless_an_error_is_expected(tmp_path: Path) -> None:
    raw = search_raw("s1")
    del raw["expected_applicable_version"]
    with pytest.raises(CaseFileError, match="expected_applicable_version"):
        parse_case_file("s.json", {"cases": [raw]})
    error_case = search_raw(
        "s2", expected_status="error", expected_applicable_version=None, expected_action=None, effective_date="2024-13-45"
    )
    parsed = parse_case_file("s.json", {"cases": [error_case]}).cases[0]
    assert isinstance(parsed, SearchCase) and parsed.expected_status == "error"
    with pytest.raises(CaseFileError, match="effective_date"):
        parse_case_file("s.json", {"cases": [search_raw("s3", effective_date="2024-13-45")]})


def test_not_json_and_not_a_suite(tmp_path: Path) -> None:
    (tmp_path / "x.json").write_text("{not json")
    with pytest.raises(CaseFileError, match="x.json: not valid JSON"):
        load_case_file(tmp_path / "x.json")
    with pytest.raises(CaseFileError, match="no such case file"):
        load_case_file(tmp_path / "absent.json")
    with pytest.raises(CaseFileError, match="cases"):
        parse_case_file("e.json", {"description": "empty", "cases": []})
    with pytest.raises(CaseFileError, match="cannot tell the kind"):
        parse_case_file("k.json", {"cases": [{"case_id": "x"}]})


def test_case_ids_are_unique_within_and_across_files(tmp_path: Path) -> None:
    with pytest.raises(CaseFileError, match="already used by cases"):
        parse_case_file("d.json", {"cases": [det_raw("c1"), det_raw("c1")]})
    a = write_suite(tmp_path / "a.json", [det_raw("c1")])
    b = write_suite(tmp_path / "b.json", [det_raw("c1")])
    with pytest.raises(CaseFileError, match="already used in"):
        load_suite([a, b])


def test_case_set_hash_covers_ids_and_inputs_only() -> None:
    a, b = det("a"), det("b")
    assert case_set_hash([a, b]) == case_set_hash([b, a])
    relabelled = det("a", expected_outcome="NOT_COVERED", rationale="other words", gold_clause_ids=[])
    assert case_set_hash([relabelled, b]) == case_set_hash([a, b])
    assert case_set_hash([det("a", narrative="changed"), b]) != case_set_hash([a, b])
    assert case_set_hash([det("renamed"), b]) != case_set_hash([a, b])
    assert case_set_hash([a]).startswith("sha256:")
