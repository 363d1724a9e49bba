"""The search request end to end on the bundled corpus: the dental implant case, refusal, and the
eligibility property (no ineligible clause ever becomes a source), checked against an oracle."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clauseguard.corpus.sources import open_corpus
from clauseguard.engine import Engine
from clauseguard.errors import NotFoundError, RequestError

DENTAL = "dental implant: coverage, annual cap, waiting period"


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(open_corpus("demo", None))


def test_dental_implant_case(engine: Engine) -> None:
    r = engine.search({"contract_id": "CT-48213", "question": DENTAL, "threshold": 0.62, "k": 3}).as_json()
    assert r["applicable_version"] == "CG-2021-09"
    assert r["effective_date"] == "2022-06-01"
    assert r["status"] == "answered" and r["action"] == "escalate to handler"
    assert r["unsettled"] == ["annual cap"]
    assert r["sources"] and all(s["version"] == "CG-2021-09" and s["score"] >= 0.62 for s in r["sources"])
    assert {"GRP-TERMS.CG-2021-09.A7.3", "GRP-TERMS.CG-2021-09.A4.2"} <= {s["clause_id"] for s in r["sources"]}
    nine_one = [e for e in r["excluded"] if e["clause_id"] == "GRP-TERMS.CG-2024-01.A9.1"]
    assert nine_one and nine_one[0]["reason"] == "outside the contract period"
    assert len(r["excluded"]) <= 3
    # Every source's excerpt is verbatim in its clause, and the answer cites article, page and version.
    for s in r["sources"]:
        assert s["excerpt"] in engine.clause(s["clause_id"])["text"]
        assert f"page {s['page']}" in r["answer"] and s["version"] in r["answer"]


def test_a_request_date_after_2024_stays_on_the_signed_version(engine: Engine) -> None:
    r = engine.search({"contract_id": "CT-48213", "effective_date": "2024-06-01", "question": DENTAL}).as_json()
    assert r["effective_date"] == "2022-06-01" and r["requested_date"] == "2024-06-01"
    assert r["applicable_version"] == "CG-2021-09"
    assert all(s["version"] == "CG-2021-09" for s in r["sources"])


def test_the_2024_contract_reads_the_2024_terms(engine: Engine) -> None:
    r = engine.search({"contract_id": "CT-51877", "question": DENTAL}).as_json()
    assert r["applicable_version"] == "CG-2024-01"
    assert all(s["version"] == "CG-2024-01" for s in r["sources"])


def test_high_threshold_refuses_and_invents_nothing(engine: Engine) -> None:
    r = engine.search({"contract_id": "CT-48213", "question": DENTAL, "threshold": 0.99}).as_json()
    assert r["status"] == "refused" and r["sources"] == [] and r["action"] == "escalate to handler"
    assert r["answer"] == "Not enough evidence found in policy documents."
    assert r["reason"] == "no_evidence"
    assert r["applicable_version"] == "CG-2021-09"


def test_no_version_covers_the_contract_date(engine: Engine) -> None:
    r = engine.search({"contract_id": "CT-39007", "question": DENTAL}).as_json()
    assert r["status"] == "refused" and r["sources"] == []
    assert r["applicable_version"] is None and r["applicable_versions"] is None
    assert r["answer"].lower().startswith("no version of the terms covers 2020-01-15")


def test_unknown_contract_and_bad_date_are_errors(engine: Engine) -> None:
    with pytest.raises(NotFoundError, match="CT-00000"):
        engine.search({"contract_id": "CT-00000", "question": DENTAL}).as_json()
    with pytest.raises(RequestError, match="effective_date"):
        engine.search({"contract_id": "CT-48213", "question": DENTAL, "effective_date": "2022-13-45"}).as_json()


def test_search_is_deterministic(engine: Engine) -> None:
    a = engine.search({"contract_id": "CT-48213", "question": DENTAL}).as_json()
    b = engine.search({"contract_id": "CT-48213", "question": DENTAL}).as_json()
    a.pop("timings"), b.pop("timings")
    assert a == b


def _oracle_eligible(engine: Engine, contract_id: str, request_date: date | None) -> set[str]:
    """Eligible clause ids computed directly from the periods, without clauseguard.versions."""
    corpus = engine.corpus
    contract = next(c for c in corpus.contracts if c.id == contract_id)
    plan = next(p for p in corpus.plans if p.id == contract.plan)
    day = contract.effective_date if contract.terms_anchor == "contract_date" or request_date is None else request_date
    if request_date is not None and (
        request_date < contract.effective_date or (contract.end_date is not None and request_date > contract.end_date)
    ):
        return set()
    out: set[str] = set()
    for doc in corpus.documents:
        if doc.payer != plan.payer:
            continue
        if doc.kind == "rider" and doc.id not in plan.riders:
            continue
        if doc.kind != "rider" and doc.plans and plan.id not in doc.plans:
            continue
        for v in doc.versions:
            if v.effective_start <= day and (v.effective_end is None or day <= v.effective_end):
                out |= {c.id for c in v.clauses}
    return out


QUESTIONS = [DENTAL, "hospital cash per night", "optical glasses limit", "childbirth waiting period",
             "what is excluded", "claims deadline"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    contract=st.sampled_from(["CT-48213", "CT-51877", "CT-55120", "CT-60342"]),
    offset=st.one_of(st.none(), st.integers(min_value=-400, max_value=2000)),
    question=st.sampled_from(QUESTIONS),
    threshold=st.sampled_from([0.0, 0.3, 0.62]),
)
def test_no_ineligible_clause_is_ever_a_source(
    engine: Engine, contract: str, offset: int | None, question: str, threshold: float
) -> None:
    start = next(c for c in engine.corpus.contracts if c.id == contract).effective_date
    day = None if offset is None else start + timedelta(days=offset)
    request = {"contract_id": contract, "question": question, "threshold": threshold, "k": 5}
    if day is not None:
        request["effective_date"] = day.isoformat()
    r = engine.search(request).as_json()
    allowed = _oracle_eligible(engine, contract, day)
    assert {s["clause_id"] for s in r["sources"]} <= allowed
    assert {b["clause_id"] for b in r["below_threshold"]} <= allowed
    assert not {e["clause_id"] for e in r["excluded"]} & allowed


def test_codes_narrow_the_search_before_ranking(engine: Engine) -> None:
    request = {"payer_id": "KHP", "plan_id": "KHP-PPO-PLUS", "effective_date": "2024-09-01",
               "question": "what are the coverage criteria", "k": 5}
    narrowed = engine.search({**request, "codes": ["E0784"]}).as_json()
    governing = set(narrowed["governing_documents"])
    assert governing and all(s["document_id"] in governing for s in narrowed["sources"])
    assert all(b["document_id"] in governing for b in narrowed["below_threshold"])
