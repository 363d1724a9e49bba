"""Every way a corpus file can be wrong gets a message naming the file, the key path and what is valid."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from clauseguard.corpus.loader import load_path
from clauseguard.corpus.model import corpus_json_schema
from clauseguard.errors import CorpusError


def base() -> dict[str, Any]:
    return {
        "format": "clauseguard.corpus/v1",
        "payers": [{"id": "HX", "name": "Halden Health"}],
        "plans": [
            {"id": "HX-GOLD", "payer": "HX", "name": "Gold", "riders": ["HX-RID-1"]},
            {"id": "HX-BASE", "payer": "HX", "name": "Base"},
        ],
        "contracts": [
            {"id": "CT-1", "plan": "HX-GOLD", "holder": "Acme", "effective_date": "2022-06-01",
             "end_date": None, "terms_anchor": "contract_date"}
        ],
        "codes": [
            {"code": "99213", "system": "CPT", "descriptor": "office visit"},
            {"code": "E0784", "system": "HCPCS", "descriptor": "insulin pump"},
            {"code": "S83.511D", "system": "ICD-10-CM", "descriptor": "knee sprain, subsequent"},
            {"code": "T58.11XA", "system": "ICD-10-CM", "descriptor": "carbon monoxide, initial"},
        ],
        "documents": [
            {
                "id": "HX-MP-1", "payer": "HX", "kind": "medical_policy", "title": "Insulin pumps",
                "codes": ["E0784"],
                "versions": [
                    {"version": "v1", "effective_start": "2022-01-01", "effective_end": "2023-12-31",
                     "clauses": [{"id": "HX-MP-1.v1.C1", "section": "Criteria", "text": "Pumps are covered when ..."}]},
                    {"version": "v2", "effective_start": "2024-01-01", "effective_end": None,
                     "clauses": [{"id": "HX-MP-1.v2.C1", "section": "Criteria", "text": "Pumps are covered."}]},
                ],
            },
            {
                "id": "HX-RID-1", "payer": "HX", "kind": "rider", "title": "Gold rider", "plans": ["HX-GOLD"],
                "overrides": ["HX-MP-1"],
                "versions": [{"version": "v1", "effective_start": "2023-01-01",
                              "clauses": [{"id": "HX-RID-1.C1", "section": "Rider", "text": "Waives the log."}]}],
            },
        ],
    }


def write(tmp_path: Path, data: Any, name: str = "corpus.yaml") -> Path:
    path = tmp_path / name
    if name.endswith(".json"):
        path.write_text(json.dumps(data))
    else:
        path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def problems(tmp_path: Path, data: Any, name: str = "corpus.yaml") -> list[str]:
    path = write(tmp_path, data, name)
    with pytest.raises(CorpusError) as info:
        load_path(path)
    return [str(p) for p in info.value.problems]


def only(tmp_path: Path, data: Any, name: str = "corpus.yaml") -> str:
    found = problems(tmp_path, data, name)
    assert len(found) == 1, found
    return found[0]


def test_base_corpus_loads_with_icd10cm_codes(tmp_path: Path) -> None:
    corpus = load_path(write(tmp_path, base()))
    assert {c.code for c in corpus.codes} >= {"S83.511D", "T58.11XA"}
    assert corpus.fingerprint().startswith("sha256:")


def test_optional_keys_may_be_omitted_or_null(tmp_path: Path) -> None:
    data = {
        "format": "clauseguard.corpus/v1", "payers": None, "plans": None, "contracts": None, "codes": None,
        "documents": None,
    }
    corpus = load_path(write(tmp_path, data))
    assert corpus.documents == ()
    data = base()
    doc = data["documents"][0]
    del doc["codes"]
    data["codes"] = []
    doc["plans"] = None
    doc["overrides"] = None
    del doc["versions"][1]["effective_end"]
    corpus = load_path(write(tmp_path, data))
    assert corpus.documents[0].versions[1].effective_end is None


def test_yaml_scalars_stay_as_written(tmp_path: Path) -> None:
    text = """
format: clauseguard.corpus/v1
payers: [{id: NO, name: Norway Mutual}]
plans: [{id: 0012, payer: NO, name: Plan 12}]
codes: [{code: 95249, system: CPT, descriptor: cgm}]
documents:
  - id: 2024
    payer: NO
    kind: medical_policy
    title: yes
    codes: [95249]
    versions:
      - version: 1.10
        effective_start: 2024-01-01
        clauses: [{id: 1.10.1, section: on, text: off}]
"""
    path = tmp_path / "c.yaml"
    path.write_text(text)
    corpus = load_path(path)
    assert corpus.payers[0].id == "NO"
    assert corpus.plans[0].id == "0012"
    assert corpus.codes[0].code == "95249"
    doc = corpus.documents[0]
    assert (doc.id, doc.title, doc.codes) == ("2024", "yes", ("95249",))
    assert doc.versions[0].version == "1.10"
    assert doc.versions[0].clauses[0].section == "on"


def test_json_integer_id_is_its_digits_but_bool_is_refused(tmp_path: Path) -> None:
    data = base()
    data["codes"][0]["code"] = 99213
    data["documents"][0]["codes"].append(99213)
    corpus = load_path(write(tmp_path, data, "c.json"))
    assert corpus.documents[0].codes == ("99213", "E0784")
    data = base()
    data["payers"][0]["name"] = False
    msg = only(tmp_path, data, "c.json")
    assert "payers[0].name" in msg and "quote it" in msg


@pytest.mark.parametrize(
    ("where", "key"),
    [
        (lambda d: d, "colour"),
        (lambda d: d["plans"][0], "tier"),
        (lambda d: d["contracts"][0], "broker"),
        (lambda d: d["documents"][0], "owner"),
        (lambda d: d["documents"][0]["versions"][1], "status"),
        (lambda d: d["documents"][0]["versions"][1]["clauses"][0], "bogus"),
    ],
)
def test_unknown_keys_are_errors_naming_path_and_valid_keys(tmp_path: Path, where: Any, key: str) -> None:
    data = base()
    where(data)[key] = "x"
    msg = only(tmp_path, data)
    assert f"unknown key '{key}'" in msg
    assert "valid keys here:" in msg
    assert str(tmp_path / "corpus.yaml") in msg


def test_unknown_clause_key_path_is_exact(tmp_path: Path) -> None:
    data = base()
    data["documents"][0]["versions"][1]["clauses"][0]["bogus"] = 1
    assert "documents[0].versions[1].clauses[0].bogus" in only(tmp_path, data)


def test_overlapping_versions_name_document_both_versions_and_dates(tmp_path: Path) -> None:
    data = base()
    data["documents"][0]["versions"][0]["effective_end"] = "2024-01-01"
    msg = only(tmp_path, data)
    assert "HX-MP-1" in msg and "v1 (2022-01-01 to 2024-01-01)" in msg and "v2 (2024-01-01 to open-ended)" in msg


def test_open_ended_earlier_version_overlaps_in_a_file(tmp_path: Path) -> None:
    data = base()
    data["documents"][0]["versions"][0]["effective_end"] = None
    assert "overlap" in only(tmp_path, data)


def test_clause_id_used_twice(tmp_path: Path) -> None:
    data = base()
    data["documents"][0]["versions"][1]["clauses"][0]["id"] = "HX-MP-1.v1.C1"
    msg = only(tmp_path, data)
    assert "documents[0].versions[1].clauses[0].id" in msg and "never reused" in msg


def test_plan_naming_unknown_rider(tmp_path: Path) -> None:
    data = base()
    data["plans"][1]["riders"] = ["HX-RID-9"]
    msg = only(tmp_path, data)
    assert "plans[1].riders[0]" in msg and "unknown rider 'HX-RID-9'" in msg and "HX-RID-1" in msg


def test_plan_naming_a_non_rider_as_rider(tmp_path: Path) -> None:
    data = base()
    data["plans"][1]["riders"] = ["HX-MP-1"]
    assert "is a medical_policy, not a rider" in only(tmp_path, data)


def test_rider_plans_disagreeing_with_plan_lists(tmp_path: Path) -> None:
    data = base()
    data["documents"][1]["plans"] = ["HX-BASE"]
    msg = only(tmp_path, data)
    assert "documents[1].plans" in msg and "HX-GOLD" in msg and "agree" in msg


@pytest.mark.parametrize("bad", ["2024-13-01", "2024-02-30", "01/02/2024", "2024-1-5", "2024-01-01T00:00:00", "soon"])
def test_unparseable_dates(tmp_path: Path, bad: str) -> None:
    data = base()
    data["documents"][0]["versions"][1]["effective_start"] = bad
    msg = only(tmp_path, data)
    assert "documents[0].versions[1].effective_start" in msg and "YYYY-MM-DD" in msg


def test_unparseable_contract_date(tmp_path: Path) -> None:
    data = base()
    data["contracts"][0]["effective_date"] = "June 2022"
    assert "contracts[0].effective_date" in only(tmp_path, data)


def test_end_before_start(tmp_path: Path) -> None:
    data = base()
    data["documents"][0]["versions"][0]["effective_end"] = "2021-12-31"
    assert "documents[0].versions[0].effective_end" in only(tmp_path, data)
    data = base()
    data["contracts"][0]["end_date"] = "2022-05-31"
    assert "contracts[0].end_date" in only(tmp_path, data)


def test_rider_overriding_unknown_document(tmp_path: Path) -> None:
    data = base()
    data["documents"][1]["overrides"] = ["HX-MP-404"]
    msg = only(tmp_path, data)
    assert "documents[1].overrides[0]" in msg and "unknown document 'HX-MP-404'" in msg


def test_only_riders_override(tmp_path: Path) -> None:
    data = base()
    data["documents"][0]["overrides"] = ["HX-RID-1"]
    assert "only riders override" in only(tmp_path, data)


def test_code_governed_but_absent_from_codes(tmp_path: Path) -> None:
    data = base()
    data["documents"][0]["codes"].append("E0785")
    msg = only(tmp_path, data)
    assert "documents[0].codes[1]" in msg and "absent from the top-level codes" in msg


@pytest.mark.parametrize(
    ("system", "code"),
    [("CPT", "9921"), ("CPT", "A9276"), ("HCPCS", "99213"), ("HCPCS", "AB123"), ("ICD-10-CM", "E1"),
     ("ICD-10-CM", "E10.12345"), ("ICD-10-CM", "10.9")],
)
def test_code_shapes(tmp_path: Path, system: str, code: str) -> None:
    data = base()
    data["codes"].append({"code": code, "system": system, "descriptor": "x"})
    msg = only(tmp_path, data)
    assert "codes[4]" in msg and f"{system} shape" in msg


@pytest.mark.parametrize(
    ("system", "code"),
    [("CPT", "0501T"), ("HCPCS", "A9276"), ("ICD-10-CM", "I10"), ("ICD-10-CM", "E10.9"), ("ICD-10", "E11.65")],
)
def test_code_shapes_accepted(tmp_path: Path, system: str, code: str) -> None:
    data = base()
    data["codes"].append({"code": code, "system": system, "descriptor": "x"})
    corpus = load_path(write(tmp_path, data))
    assert any(c.code == code and c.system in ("CPT", "HCPCS", "ICD-10-CM") for c in corpus.codes)


def test_icd10_alias_and_unknown_system(tmp_path: Path) -> None:
    data = base()
    data["codes"][2]["system"] = "ICD-10"
    corpus = load_path(write(tmp_path, data))
    assert {c.system for c in corpus.codes} == {"CPT", "HCPCS", "ICD-10-CM"}
    data["codes"][2]["system"] = "SNOMED"
    msg = only(tmp_path, data)
    assert "codes[2].system" in msg and "CPT, HCPCS, ICD-10-CM" in msg


@pytest.mark.parametrize(
    ("path", "value", "expect"),
    [
        (("documents", 0, "kind"), "brochure", "documents[0].kind"),
        (("documents", 0, "versions", 1, "clauses", 0, "kind"), "rule", "clauses[0].kind"),
        (("documents", 0, "versions", 1, "clauses", 0, "coverage_type"), "maybe", "coverage_type"),
        (("documents", 0, "versions", 1, "clauses", 0, "page"), "thirty", "clauses[0].page"),
        (("documents", 0, "versions", 1, "clauses", 0, "page"), 0, "clauses[0].page"),
        (("contracts", 0, "terms_anchor"), "signature_date", "contracts[0].terms_anchor"),
        (("documents", 0, "versions", 1, "clauses", 0, "text"), "  ", "clauses[0].text"),
        (("payers", 0, "id"), " HX", "payers[0].id"),
    ],
)
def test_bad_field_values(tmp_path: Path, path: tuple[Any, ...], value: Any, expect: str) -> None:
    data = base()
    target = data
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = value
    assert expect in " ".join(problems(tmp_path, data))


def test_missing_required_keys(tmp_path: Path) -> None:
    data = base()
    del data["documents"][0]["versions"][1]["clauses"][0]["text"]
    msg = only(tmp_path, data)
    assert "documents[0].versions[1].clauses[0].text" in msg and "required" in msg


def test_duplicates_and_unknown_references(tmp_path: Path) -> None:
    data = base()
    data["payers"].append({"id": "HX", "name": "again"})
    data["contracts"][0]["plan"] = "HX-PLATINUM"
    data["documents"][0]["payer"] = "ZZ"
    found = " | ".join(problems(tmp_path, data))
    assert "payers[1].id" in found and "already defined" in found
    assert "contracts[0].plan" in found and "unknown plan 'HX-PLATINUM'" in found
    assert "documents[0].payer" in found and "unknown payer 'ZZ'" in found


def test_document_plans_of_another_payer(tmp_path: Path) -> None:
    data = base()
    data["payers"].append({"id": "QZ", "name": "Other"})
    data["plans"].append({"id": "QZ-1", "payer": "QZ", "name": "Q"})
    data["documents"][0]["plans"] = ["QZ-1"]
    assert "belongs to payer QZ" in only(tmp_path, data)


def test_document_without_versions_and_version_without_clauses(tmp_path: Path) -> None:
    data = base()
    data["documents"][0]["versions"][1]["clauses"] = []
    assert "documents[0].versions[1].clauses" in only(tmp_path, data)
    data = base()
    data["documents"][0]["versions"] = []
    data["documents"][1]["overrides"] = []
    assert "documents[0].versions" in only(tmp_path, data)


def test_duplicate_version_label(tmp_path: Path) -> None:
    data = base()
    data["documents"][0]["versions"][1]["version"] = "v1"
    assert "version label 'v1' is used twice" in only(tmp_path, data)


def test_wrong_format_and_not_a_mapping(tmp_path: Path) -> None:
    data = base()
    data["format"] = "clauseguard.corpus/v2"
    assert "expected 'clauseguard.corpus/v1'" in only(tmp_path, data)
    assert "not a corpus" in only(tmp_path, ["a", "list"])


def test_duplicate_yaml_and_json_keys(tmp_path: Path) -> None:
    path = tmp_path / "dup.yaml"
    path.write_text("format: clauseguard.corpus/v1\npayers: []\npayers: []\n")
    with pytest.raises(CorpusError, match="appears twice"):
        load_path(path)
    path = tmp_path / "dup.json"
    path.write_text('{"format": "clauseguard.corpus/v1", "payers": [], "payers": []}')
    with pytest.raises(CorpusError, match="appears twice"):
        load_path(path)


def test_syntax_errors(tmp_path: Path) -> None:
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(CorpusError, match="not valid JSON"):
        load_path(tmp_path / "bad.json")
    (tmp_path / "bad.yaml").write_text("a: [1, 2\n")
    with pytest.raises(CorpusError, match="not valid YAML"):
        load_path(tmp_path / "bad.yaml")


def test_folder_is_merged_and_cross_checked_across_files(tmp_path: Path) -> None:
    data = base()
    parties = {k: data[k] for k in ("format", "payers", "plans", "contracts", "codes")}
    docs = {"format": data["format"], "documents": data["documents"]}
    write(tmp_path, parties, "00-parties.yaml")
    write(tmp_path, docs, "10-docs.json")
    (tmp_path / "README.md").write_text("not a corpus file")
    merged = load_path(tmp_path)
    assert merged.fingerprint() == load_path(write(tmp_path / "..", base(), "single.yaml")).fingerprint()
    bad = copy.deepcopy(docs)
    bad["documents"][0]["codes"] = ["E9999"]
    write(tmp_path, bad, "10-docs.json")
    with pytest.raises(CorpusError) as info:
        load_path(tmp_path)
    assert "10-docs.json: documents[0].codes[0]" in str(info.value)


def test_fingerprint_ignores_order_of_records(tmp_path: Path) -> None:
    data = base()
    first = load_path(write(tmp_path, data, "a.yaml")).fingerprint()
    data["payers"].reverse()
    data["plans"].reverse()
    data["codes"].reverse()
    data["documents"].reverse()
    data["documents"][1]["versions"].reverse()
    assert load_path(write(tmp_path, data, "b.yaml")).fingerprint() == first


def test_every_problem_is_reported_at_once(tmp_path: Path) -> None:
    data = base()
    data["plans"][1]["riders"] = ["NOPE"]
    data["documents"][0]["codes"] = ["E0785"]
    data["documents"][1]["overrides"] = ["GONE"]
    assert len(problems(tmp_path, data)) == 3


def test_missing_path_and_empty_folder(tmp_path: Path) -> None:
    with pytest.raises(CorpusError, match="no such file"):
        load_path(tmp_path / "nope.yaml")
    (tmp_path / "empty").mkdir()
    with pytest.raises(CorpusError, match="holds no"):
        load_path(tmp_path / "empty")


def test_schema_is_a_json_schema_of_the_format() -> None:
    schema = corpus_json_schema()
    assert schema["$schema"].startswith("https://json-schema.org/")
    defs = schema["$defs"]
    assert set(defs["Clause"]["properties"]) == {
        "id", "section", "text", "kind", "article", "page", "page_label", "page_end", "page_end_label", "benefit",
        "coverage_type", "criteria",
    }
    assert defs["Clause"]["additionalProperties"] is False
    assert set(defs["Clause"]["required"]) == {"id", "section", "text"}
    assert set(defs["Document"]["required"]) == {"id", "payer", "kind", "title"}


def test_policy_as_code_is_checked_and_kept_canonical(tmp_path: Path) -> None:
    data = base()
    clause = data["documents"][0]["versions"][1]["clauses"][0]
    clause["text"] = "Pumps are covered for members aged 18 or older."
    clause["criteria"] = {"rules": [{"effect": "covered", "span": "Pumps are covered for members aged 18 or older",
                                     "when": {"kind": "age", "id": "a1", "span": "aged 18 or older",
                                              "comparator": ">=", "value": "18"}}]}
    corpus = load_path(write(tmp_path, data))
    kept = corpus.documents[0].versions[1].clauses[0].criteria
    assert kept["rules"][0]["when"]["value"] == 18.0  # YAML text "18" read as the number it is
    assert kept["rules"][0]["when"]["span"] == {"start": 30, "end": 46, "text": "aged 18 or older"}
    clause["criteria"]["rules"][0]["when"]["span"] = "aged eighteen or more"
    msg = only(tmp_path, data)
    assert "documents[0].versions[1].clauses[0]" in msg and "criteria" in msg


def test_a_clause_over_a_page_break_gives_its_last_page_after_its_first(tmp_path: Path) -> None:
    data = base()
    clause = data["documents"][0]["versions"][0]["clauses"][0]
    clause.update({"page": 4, "page_label": "2", "page_end": 5, "page_end_label": "3"})
    assert load_path(write(tmp_path, data)).documents[0].versions[0].clauses[0].page_end_label == "3"
    clause.update({"page_end": 4})
    assert "page_end 4 needs a page before it" in only(tmp_path, data)
    clause.update({"page_end": None})
    assert "page_end_label is the label of page_end; give page_end too" in only(tmp_path, data)


def test_the_page_range_fields_leave_old_fingerprints_alone(tmp_path: Path) -> None:
    data = base()
    plain = load_path(write(tmp_path, data)).fingerprint()
    data["documents"][0]["versions"][0]["clauses"][0].update({"page": 4})
    with_page = load_path(write(tmp_path, data)).fingerprint()
    data["documents"][0]["versions"][0]["clauses"][0].update({"page_end": 5})
    assert plain != with_page != load_path(write(tmp_path, data)).fingerprint()
    data["documents"][0]["versions"][0]["clauses"][0].update({"page_end": None})
    assert load_path(write(tmp_path, data)).fingerprint() == with_page
