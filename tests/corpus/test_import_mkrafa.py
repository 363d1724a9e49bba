"""The external mkrafa corpus imports into the v1 model whole, verbatim and strictly.

The real corpus is read in place from `<repo>/../shared` (skipped when absent); a small corpus in
the same format, written here, keeps the importer tested without it.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from clauseguard.corpus.importers import mkrafa
from clauseguard.corpus.loader import load_path
from clauseguard.corpus.model import Corpus
from clauseguard.errors import CorpusError

REPO = Path(__file__).resolve().parents[2]
MKRAFA_CORPUS = REPO / ".." / "shared" / "external" / "mkrafa" / "corpus.json"


@pytest.fixture
def mkrafa_path() -> Path:
    if not MKRAFA_CORPUS.exists():
        pytest.skip(f"external mkrafa corpus not found at {MKRAFA_CORPUS.resolve()} (put shared/ beside the repo)")
    return MKRAFA_CORPUS


@pytest.fixture
def mkrafa_data(mkrafa_path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(mkrafa_path.read_text(encoding="utf-8"))
    return data


def tiny() -> dict[str, Any]:
    """A made-up corpus in that format: one payer, two plans, a policy in two versions, a FAQ, a rider."""
    policy_clauses = {
        "v1": [
            {"clause_id": "HX-MP-7.v1.C1", "section": "Scope", "text": "Governs home oxygen concentrators."},
            {"clause_id": "HX-MP-7.v1.C2", "section": "Coverage Criteria",
             "text": "Covered when resting saturation is 88 percent or below."},
        ],
        "v2": [
            {"clause_id": "HX-MP-7.v2.C1", "section": "Coverage  criteria",
             "text": "Covered when resting saturation is 89 percent or below."},
            {"clause_id": "HX-MP-7.v2.C2", "section": "Exclusions", "text": "Portable units are excluded."},
        ],
    }
    faq_clauses = [
        {"clause_id": "HX-FAQ-7.v1.C1", "section": "Questions", "text": "Oxygen needs a recent test."},
    ]
    rider_clauses = [
        {"clause_id": "HX-RID-O2.C1", "section": "Rider", "text": "Portable units are covered on Gold."},
    ]
    data: dict[str, Any] = {
        "payers": [{"payer_id": "HX", "name": "Halden Health"}],
        "plans": [
            {"plan_id": "HX-GOLD", "payer_id": "HX", "name": "Halden Gold", "rider_ids": ["HX-RID-O2"]},
            {"plan_id": "HX-BASE", "payer_id": "HX", "name": "Halden Base", "rider_ids": []},
        ],
        "policies": [
            {
                "policy_id": "HX-MP-7", "payer_id": "HX", "title": "Home oxygen",
                "doc_type": "medical_policy_bulletin", "codes": ["E1390"],
                "notes": "generator remark: saturation threshold moved in v2",
                "versions": [
                    {"version": "v1", "effective_start": "2023-01-01", "effective_end": "2023-12-31",
                     "clauses": policy_clauses["v1"]},
                    {"version": "v2", "effective_start": "2024-01-01", "effective_end": None,
                     "clauses": policy_clauses["v2"]},
                ],
            },
            {
                "policy_id": "HX-FAQ-7", "payer_id": "HX", "title": "Oxygen questions",
                "doc_type": "provider_faq", "codes": [], "notes": "",
                "versions": [{"version": "v1", "effective_start": "2024-02-01", "effective_end": None,
                              "clauses": faq_clauses}],
            },
        ],
        "riders": [
            {"rider_id": "HX-RID-O2", "payer_id": "HX", "plan_id": "HX-GOLD", "title": "Portable oxygen rider",
             "overrides_policy_ids": ["HX-MP-7"], "effective_start": "2024-03-01", "effective_end": None,
             "clauses": rider_clauses},
        ],
        "codes": [
            {"code": "E1390", "system": "HCPCS", "descriptor": "Oxygen concentrator"},
            {"code": "J96.11", "system": "ICD-10", "descriptor": "Chronic respiratory failure with hypoxia"},
        ],
    }
    flat = [
        {**c, "policy_id": "HX-MP-7", "version": label, "source": "policy"}
        for label, clauses in policy_clauses.items()
        for c in clauses
    ]
    flat += [{**c, "policy_id": "HX-FAQ-7", "version": "v1", "source": "policy"} for c in faq_clauses]
    flat += [{**c, "policy_id": "HX-RID-O2", "version": "v1", "source": "rider", "plan_id": "HX-GOLD"}
             for c in rider_clauses]
    data["clauses"] = flat
    return data


def write(tmp_path: Path, data: Any) -> Path:
    path = tmp_path / "corpus.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def clauses_of(corpus: Corpus) -> dict[str, Any]:
    return {c.id: (d, v, c) for d in corpus.documents for v in d.versions for c in v.clauses}


def load_error(tmp_path: Path, data: Any) -> str:
    with pytest.raises(CorpusError) as exc:
        load_path(write(tmp_path, data))
    return str(exc.value)


# -- the real corpus ------------------------------------------------------------------------------


def test_real_corpus_imports_whole(mkrafa_path: Path) -> None:
    corpus = load_path(mkrafa_path)
    assert (len(corpus.payers), len(corpus.plans), len(corpus.contracts), len(corpus.codes)) == (3, 5, 0, 26)
    assert len(corpus.documents) == 12
    assert Counter(d.kind for d in corpus.documents) == {"medical_policy": 8, "faq": 1, "rider": 3}
    assert sum(len(d.versions) for d in corpus.documents) == 14
    assert len(clauses_of(corpus)) == 40
    assert {c.system for c in corpus.codes} == {"CPT", "HCPCS", "ICD-10-CM"}


def test_clause_text_and_period_are_kept(mkrafa_path: Path, mkrafa_data: dict[str, Any]) -> None:
    written = next(c for c in mkrafa_data["clauses"] if c["clause_id"] == "MHP-MP-0142.v1.C2")
    document, version, clause = clauses_of(load_path(mkrafa_path))["MHP-MP-0142.v1.C2"]
    assert clause.text == written["text"]
    assert (document.id, document.kind, document.plans) == ("MHP-MP-0142", "medical_policy", ())
    assert version.version == "v1"
    assert (version.effective_start.isoformat(), version.effective_end.isoformat()) == ("2023-01-01", "2024-06-30")


def test_riders_keep_their_clause_ids_plan_and_overrides(mkrafa_path: Path, mkrafa_data: dict[str, Any]) -> None:
    corpus = load_path(mkrafa_path)
    riders = {d.id: d for d in corpus.documents if d.kind == "rider"}
    assert set(riders) == {r["rider_id"] for r in mkrafa_data["riders"]}
    for raw in mkrafa_data["riders"]:
        rider = riders[raw["rider_id"]]
        assert rider.plans == (raw["plan_id"],)
        assert rider.overrides == tuple(sorted(raw["overrides_policy_ids"]))
        assert [v.version for v in rider.versions] == ["v1"]
        assert [c.id for c in rider.versions[0].clauses] == [c["clause_id"] for c in raw["clauses"]]


def test_notes_are_not_carried_into_the_corpus(mkrafa_path: Path, mkrafa_data: dict[str, Any]) -> None:
    dumped = json.dumps(load_path(mkrafa_path).model_dump(mode="json"), ensure_ascii=False)
    notes = [p["notes"] for p in mkrafa_data["policies"] if p.get("notes")]
    assert notes
    for note in notes:
        assert note not in dumped


def test_fingerprint_is_stable_across_loads(mkrafa_path: Path) -> None:
    assert load_path(mkrafa_path).fingerprint() == load_path(mkrafa_path).fingerprint()


@pytest.mark.parametrize(
    ("mutate", "path", "words"),
    [
        (lambda d: d["payers"][0].pop("payer_id"), "payers[0].payer_id", "required key is missing"),
        (lambda d: d["policies"][0].update(doc_type="bulletin"), "policies[0].doc_type",
         "medical_policy_bulletin, provider_faq"),
        (lambda d: d["clauses"][1].update(text=d["clauses"][1]["text"] + " (edited)"), "clauses[1].text",
         "disagrees with policies[0].versions[0].clauses[1]"),
        (lambda d: d["clauses"].pop(), "clauses", "missing from the flattened clauses list"),
        (lambda d: d["policies"][0].update(summary="x"), "policies[0].summary", "unknown key 'summary'"),
        (lambda d: d["policies"][0]["versions"][0].update(effective_start="01/01/2023"),
         "policies[0].versions[0].effective_start", "YYYY-MM-DD"),
        (lambda d: d["riders"][0].update(plan_id=["A", "B"]), "riders[0].plan_id", "valid string"),
        (lambda d: d.update(plans={"plan_id": "X"}), "plans", "expected a list"),
    ],
    ids=["missing-payer-id", "unknown-doc-type", "flat-text-differs", "flat-clause-missing", "unknown-key",
         "bad-date", "plan-id-not-text", "plans-not-a-list"],
)
def test_malformed_real_corpus_names_the_path(
    tmp_path: Path, mkrafa_data: dict[str, Any], mutate: Any, path: str, words: str
) -> None:
    data = copy.deepcopy(mkrafa_data)
    mutate(data)
    message = load_error(tmp_path, data)
    assert f"corpus.json: {path}: " in message
    assert words in message


# -- a small corpus in that format, written here (runs without ../shared) --------------------------


def test_tiny_corpus_imports_without_shared(tmp_path: Path) -> None:
    corpus = load_path(write(tmp_path, tiny()))
    assert Counter(d.kind for d in corpus.documents) == {"medical_policy": 1, "faq": 1, "rider": 1}
    placed = clauses_of(corpus)
    assert len(placed) == 6
    document, version, clause = placed["HX-MP-7.v2.C1"]
    assert clause.text == "Covered when resting saturation is 89 percent or below."
    assert (version.version, version.effective_end) == ("v2", None)
    assert document.codes == ("E1390",) and document.plans == ()
    rider, rider_version, rider_clause = placed["HX-RID-O2.C1"]
    assert (rider.kind, rider.plans, rider.overrides, rider.title) == (
        "rider", ("HX-GOLD",), ("HX-MP-7",), "Portable oxygen rider")
    assert (rider_version.version, rider_version.effective_start.isoformat()) == ("v1", "2024-03-01")
    assert {p.id: p.riders for p in corpus.plans} == {"HX-BASE": (), "HX-GOLD": ("HX-RID-O2",)}
    assert {c.code: c.system for c in corpus.codes} == {"E1390": "HCPCS", "J96.11": "ICD-10-CM"}
    assert "generator remark" not in corpus.canonical_json()


def test_section_headings_give_general_clause_kinds(tmp_path: Path) -> None:
    kinds = {cid: c.kind for cid, (_, _, c) in clauses_of(load_path(write(tmp_path, tiny()))).items()}
    assert kinds == {
        "HX-MP-7.v1.C1": "scope",
        "HX-MP-7.v1.C2": "criteria",
        "HX-MP-7.v2.C1": "criteria",
        "HX-MP-7.v2.C2": "exclusion",
        "HX-FAQ-7.v1.C1": None,
        "HX-RID-O2.C1": None,
    }
    assert mkrafa.clause_kind("Limitations") == "limit"
    assert mkrafa.clause_kind("Step Therapy") is None


def test_tiny_corpus_imports_the_same_without_its_flattened_copy(tmp_path: Path) -> None:
    data = tiny()
    with_copy = load_path(write(tmp_path, data)).fingerprint()
    del data["clauses"]
    assert load_path(write(tmp_path, data)).fingerprint() == with_copy


@pytest.mark.parametrize(
    ("mutate", "path", "words"),
    [
        (lambda d: d["payers"][0].pop("payer_id"), "payers[0].payer_id", "required key is missing"),
        (lambda d: d["policies"][1].update(doc_type="faq"), "policies[1].doc_type",
         "unknown doc_type 'faq'; valid values: medical_policy_bulletin, provider_faq"),
        (lambda d: d["clauses"][1].update(text="Covered always."), "clauses[1].text",
         "disagrees with policies[0].versions[0].clauses[1]"),
        (lambda d: d["clauses"][0].update(version="v2"), "clauses[0].version", "'v2' here, 'v1' there"),
        (lambda d: d["clauses"].append({**d["clauses"][0], "clause_id": "HX-MP-7.v9.C1"}),
         "clauses[6].clause_id", "in no policy or rider"),
        (lambda d: d["clauses"].append(dict(d["clauses"][0])), "clauses[6].clause_id", "already listed at clauses[0]"),
        (lambda d: d["clauses"][0].update(extra=1), "clauses[0].extra", "unknown key 'extra'"),
        (lambda d: d["riders"][0]["clauses"][0].pop("text"), "riders[0].clauses[0].text", "required key is missing"),
        (lambda d: d["riders"][0].update(clauses="none"), "riders[0].clauses", "expected a list, got str"),
        (lambda d: d["policies"][0].update(versions=[42]), "policies[0].versions[0]",
         "expected a version object"),
        (lambda d: d["policies"][0]["versions"][1]["clauses"][0].update(clause_id=True),
         "policies[0].versions[1].clauses[0].clause_id", "quote it"),
        (lambda d: d["policies"][0].update(codes=["E1390", 7.5]), "policies[0].codes[1]", "quote it"),
        (lambda d: d["codes"][1].update(system="ICD-9"), "codes[1].system", "not a code system"),
        (lambda d: d["plans"][0].update(payer_id="ZZ"), "plans[0].payer", "unknown payer 'ZZ'"),
    ],
    ids=["missing-payer-id", "unknown-doc-type", "flat-text-differs", "flat-version-differs", "flat-extra-id",
         "flat-duplicate", "flat-unknown-key", "rider-clause-text-missing", "clauses-not-a-list",
         "version-not-an-object", "clause-id-bool", "code-float", "unknown-code-system", "cross-reference"],
)
def test_malformed_tiny_corpus_names_the_path(tmp_path: Path, mutate: Any, path: str, words: str) -> None:
    data = tiny()
    mutate(data)
    message = load_error(tmp_path, data)
    assert f"corpus.json: {path}: " in message
    assert words in message


def test_every_problem_is_reported_at_once(tmp_path: Path) -> None:
    data = tiny()
    data["payers"][0].pop("name")
    data["policies"][0]["notes"] = None
    data["riders"][0]["rating"] = "A"
    message = load_error(tmp_path, data)
    assert "payers[0].name: required key is missing" in message
    assert "riders[0].rating: unknown key 'rating'" in message
    assert "notes" not in message


def test_import_corpus_refuses_what_is_not_an_object() -> None:
    with pytest.raises(CorpusError, match="expected a corpus object"):
        mkrafa.import_corpus("x.json", [1, 2])


# -- detection --------------------------------------------------------------------------------------


def test_detection_is_specific() -> None:
    v1 = {
        "format": "clauseguard.corpus/v1",
        "payers": [{"id": "HX", "name": "Halden Health"}],
        "policies": [],
    }
    assert mkrafa.detect(tiny())
    assert not mkrafa.detect(v1)
    assert not mkrafa.detect({"payers": [], "documents": []})
    assert not mkrafa.detect({"description": "cases", "cases": []})
    assert not mkrafa.detect([{"payers": [], "policies": []}])


def test_a_v1_corpus_still_loads_as_v1(tmp_path: Path) -> None:
    v1 = {
        "format": "clauseguard.corpus/v1",
        "payers": [{"id": "HX", "name": "Halden Health"}],
        "documents": [
            {"id": "HX-MP-1", "payer": "HX", "kind": "medical_policy", "title": "Oxygen",
             "versions": [{"version": "v1", "effective_start": "2024-01-01",
                           "clauses": [{"id": "HX-MP-1.C1", "section": "Scope", "text": "Oxygen."}]}]}
        ],
    }
    assert not mkrafa.detect(v1)
    corpus = load_path(write(tmp_path, v1))
    assert corpus.documents[0].versions[0].clauses[0].kind is None  # v1 is never re-read by the importer
