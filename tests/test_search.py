"""The search request end to end on the bundled corpus: the dental implant case, refusal, and the
eligibility property (no ineligible clause ever becomes a source), checked against an oracle."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

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


# --- what the README's examples say, each checked against the documents -----------------------


def test_readme_physical_therapy_example_answers_the_riders_30_visits(engine: Engine) -> None:
    """KHP-RID-REHAB (in effect on PPO Plus from 2024-01-01) raises KHP-MP-0307's 20 visits to 30."""
    r = engine.search({"payer_id": "KHP", "plan_id": "KHP-PPO-PLUS", "effective_date": "2024-09-01",
                       "question": "physical therapy: how many visits per year"}).as_json()
    assert r["status"] == "answered" and r["action"] == "none"
    (part,) = r["parts"]
    assert part["value"]["value"] == "30 visits"
    assert part["clause_id"] == "KHP-RID-REHAB.R-2024-01.A1"
    assert [s["clause_id"] for s in r["sources"]][0] == "KHP-RID-REHAB.R-2024-01.A1"
    assert [(o["clause_id"], o["by"]) for o in r["overridden"]] == [
        ("KHP-MP-0307.v1.C3", "KHP-RID-REHAB.R-2024-01.A1")
    ]
    assert "KHP-MP-0307.v1.C3" not in {s["clause_id"] for s in r["sources"]}
    assert r["applicable_version"] == "v1"  # the policy the rider amends; a plan without a terms document


def test_without_the_rider_the_policys_20_visits_stand(engine: Engine) -> None:
    for plan, day in (("KHP-HMO-CORE", "2024-09-01"), ("KHP-PPO-PLUS", "2023-06-01")):
        r = engine.search({"payer_id": "KHP", "plan_id": plan, "effective_date": day,
                           "question": "physical therapy: how many visits per year"}).as_json()
        assert r["parts"][0]["value"]["value"] == "20 visits", plan
        assert r["overridden"] == []


def test_readme_dental_implant_example_states_each_value_and_the_unsettled_cap(engine: Engine) -> None:
    r = engine.search({"contract_id": "CT-48213", "question": DENTAL, "threshold": 0.62, "k": 3}).as_json()
    parts = {p["part"]: p for p in r["parts"]}
    assert parts["coverage"]["value"]["value"] == "yes"
    assert parts["waiting period"]["value"]["value"] == "12 months"
    assert parts["annual cap"]["status"] == "unsettled" and "value" not in parts["annual cap"]


def test_the_implant_cap_is_the_implant_amount_not_the_routine_dental_one(engine: Engine) -> None:
    """CG-2024-01 A13.2 states GBP 1,500 for implants and GBP 1,000 for routine care: the part about
    implants is answered with the implant tuple, quoting the sentence that states it."""
    r = engine.search({"contract_id": "CT-51877", "question": DENTAL}).as_json()
    cap = next(p for p in r["parts"] if p["part"] == "annual cap")
    assert cap["clause_id"] == "GRP-TERMS.CG-2024-01.A13.2"
    assert cap["value"]["value"] == "GBP 1,500"
    assert "implant" in cap["excerpt"] and cap["excerpt"] in engine.clause(cap["clause_id"])["text"]


def test_a_plan_search_shows_the_version_of_the_document_the_answer_comes_from(engine: Engine) -> None:
    r = engine.search({"payer_id": "KHP", "plan_id": "KHP-HMO-CORE", "effective_date": "2024-09-01",
                       "question": "physical therapy: how many visits per year"}).as_json()
    assert r["sources"][0]["document_id"] == "KHP-MP-0307"
    assert r["applicable_version"] == r["applicable_versions"]["KHP-MP-0307"]


# --- precedence, values, conditions on a corpus of our own -------------------------------------

OWN = """
format: clauseguard.corpus/v1
payers: [{id: P, name: Payer P}]
plans:
  - {id: P-PLUS, payer: P, name: Plus, riders: [P-RIDER]}
  - {id: P-BASE, payer: P, name: Base}
contracts:
  - {id: CT-1, plan: P-PLUS, holder: Acme, effective_date: 2024-01-01, end_date: null, terms_anchor: contract_date}
  - {id: CT-2, plan: P-BASE, holder: Beta, effective_date: 2024-01-01, end_date: null, terms_anchor: contract_date}
documents:
  - id: P-TERMS
    payer: P
    kind: policy_terms
    title: General conditions
    versions:
      - version: T-2024
        effective_start: 2024-01-01
        effective_end: null
        clauses:
          - {id: P-TERMS.T-2024.A1, section: Outpatient care, article: "1 Physiotherapy",
             text: "Physiotherapy sessions are reimbursed at 70% of the agreed tariff, up to twelve (12) physiotherapy sessions per contract year."}
          - {id: P-TERMS.T-2024.A2, section: Dental care, article: "2 Dental care after an accident",
             text: "Dental care is covered only where it is needed because of an accident. Treatment of natural teeth damaged in an accident is reimbursed up to EUR 1,000 per accident."}
          - {id: P-TERMS.T-2024.A3, section: Optical care, article: "3 Glasses",
             text: "Glasses are reimbursed up to EUR 200 once every twenty-four (24) months. For insured persons under 16 years of age, glasses may be claimed once every twelve (12) months."}
          - {id: P-TERMS.T-2024.A4, section: Hospital, article: "4 Private room",
             text: "A private room is reimbursed up to EUR 60 per night, within a limit of thirty (30) nights per contract year."}
  - id: P-RIDER
    payer: P
    kind: rider
    title: Physiotherapy rider
    plans: [P-PLUS]
    overrides: [P-TERMS]
    versions:
      - version: R-2024
        effective_start: 2024-01-01
        effective_end: null
        clauses:
          - {id: P-RIDER.R-2024.A1, section: Rider, article: "1 Physiotherapy sessions",
             text: "The maximum number of physiotherapy sessions reimbursed per contract year is raised to twenty (20)."}
  - id: P-FAQ
    payer: P
    kind: faq
    title: Questions members ask
    versions:
      - version: F-2024
        effective_start: 2024-01-01
        effective_end: null
        clauses:
          - {id: P-FAQ.F-2024.Q1, section: Questions, text: "How many physiotherapy sessions are paid? The scheme pays for fifteen (15) physiotherapy sessions per contract year."}
"""


@pytest.fixture(scope="module")
def own(tmp_path_factory: pytest.TempPathFactory) -> Engine:
    path = tmp_path_factory.mktemp("own") / "corpus.yaml"
    path.write_text(OWN, encoding="utf-8")
    return Engine(open_corpus(str(path), None))


def ask(engine: Engine, contract: str, question: str) -> dict[str, Any]:
    return engine.search({"contract_id": contract, "question": question, "threshold": 0.05, "k": 3}).as_json()


def part(r: dict[str, Any], label: str | None = None) -> dict[str, Any]:
    return next(p for p in r["parts"] if label is None or p["part"] == label)


def test_a_rider_replaces_the_policy_value_and_a_faq_never_does(own: Engine) -> None:
    r = ask(own, "CT-1", "physiotherapy: reimbursement rate, sessions per contract year")
    assert part(r, "reimbursement rate")["value"]["value"] == "70%"  # the rider says nothing of the rate
    sessions = part(r, "sessions per contract year")
    assert sessions["value"]["value"] == "20 sessions" and sessions["clause_id"] == "P-RIDER.R-2024.A1"
    assert [(o["clause_id"], o["by"]) for o in r["overridden"]] == [("P-TERMS.T-2024.A1", "P-RIDER.R-2024.A1")]
    assert "P-FAQ.F-2024.Q1" not in {s["clause_id"] for s in r["sources"]}


def test_a_faq_that_disagrees_with_the_policy_is_a_conflict_not_the_answer(own: Engine) -> None:
    r = ask(own, "CT-2", "physiotherapy: sessions per contract year")
    assert part(r)["value"]["value"] == "12 sessions" and part(r)["clause_id"] == "P-TERMS.T-2024.A1"
    assert [(c["clause_id"], c["overridden_by"], c["precedence"]) for c in r["conflicts"]] == [
        ("P-FAQ.F-2024.Q1", "P-TERMS.T-2024.A1", "rider > policy > FAQ")
    ]
    assert r["overridden"] == []


def test_a_part_is_answered_with_the_tuple_whose_item_it_asks(own: Engine) -> None:
    r = ask(own, "CT-2", "private room: supplement per night, maximum nights per year")
    assert part(r, "supplement per night")["value"]["value"] == "EUR 60"
    assert part(r, "maximum nights per year")["value"]["value"] == "30 nights"
    assert part(r, "supplement per night")["excerpt"].startswith("A private room is reimbursed")


def test_a_restricted_benefit_answers_no_for_the_general_case(own: Engine) -> None:
    r = ask(own, "CT-2", "Is routine dental care covered?")
    assert part(r)["value"]["value"] == "no"
    assert part(r)["condition"] and "accident" in part(r)["condition"]
    assert r["action"] == "none"


def test_the_case_the_question_names_is_answered_from_its_own_value(own: Engine) -> None:
    r = ask(own, "CT-2", "dental treatment after an accident: covered, limit per accident")
    assert part(r, "limit per accident")["value"]["value"] == "EUR 1,000"


def test_an_age_the_question_states_picks_the_value_for_that_age(own: Engine) -> None:
    child = ask(own, "CT-2", "How often can glasses be reimbursed for a child aged 10?")
    assert part(child)["value"]["value"] == "12 months"
    adult = ask(own, "CT-2", "How often can glasses be reimbursed for an employee aged 40?")
    assert part(adult)["value"]["value"] == "24 months"


def test_a_value_stated_only_for_a_case_the_question_does_not_name_is_escalated(own: Engine) -> None:
    r = ask(own, "CT-2", "How much is reimbursed per accident for natural teeth?")
    # the question names the accident: answered
    assert part(r)["status"] == "answered" and part(r)["value"]["value"] == "EUR 1,000"
    r = ask(own, "CT-2", "How often can glasses be claimed for young insured persons?")
    # no age stated: the general value holds, the under-16 one is not chosen
    assert part(r)["value"]["value"] == "24 months"


def test_requests_of_one_plan_and_date_interval_share_one_read_only_mask(engine: Engine) -> None:
    from clauseguard.search.request import scope_mask
    from clauseguard.versions import eligibility

    corpus, index = engine.corpus, engine.index
    a = scope_mask(index, eligibility(corpus, plan_id="KHP-PPO-PLUS", day=date(2024, 9, 1)))
    b = scope_mask(index, eligibility(corpus, plan_id="KHP-PPO-PLUS", day=date(2024, 9, 2)))
    other_plan = scope_mask(index, eligibility(corpus, plan_id="KHP-HMO-CORE", day=date(2024, 9, 1)))
    assert a is b and not a.flags.writeable  # shared, and nobody can change it under another request
    assert other_plan is not a


def _two_policies(tmp_path: Any, first: tuple[str, str], second: tuple[str, str]) -> Engine:
    """A plan with two policies of one payer: (title, text) each, one clause per policy."""
    import json

    def document(n: int, title: str, text: str) -> dict[str, Any]:
        return {"id": f"POL-{n}", "payer": "PAY", "kind": "medical_policy", "title": title, "versions": [
            {"version": f"P{n}", "effective_start": "2024-01-01", "effective_end": None,
             "clauses": [{"id": f"POL-{n}.P{n}.C1", "section": "Coverage", "text": text}]}]}

    corpus = {"format": "clauseguard.corpus/v1", "payers": [{"id": "PAY", "name": "Payer"}],
              "plans": [{"id": "PLAN", "payer": "PAY", "name": "Plan"}],
              "documents": [document(1, *first), document(2, *second)]}
    path = tmp_path / "corpus.json"
    path.write_text(json.dumps(corpus), encoding="utf-8")
    return Engine(open_corpus(str(path), None))


@pytest.mark.parametrize(
    ("named", "other"),
    [
        (("Interleukin-23 inhibitors", "Guselkumab (Tremfya) is approved for 3 months for moderately to severely "
          "active ulcerative colitis when the patient has tried one systemic therapy."),
         ("Interleukin-17A inhibitors", "Intravenous secukinumab is considered experimental, investigational, or "
          "unproven for the following: A. Plaque psoriasis. B. Crohn's disease or ulcerative colitis.")),
        (("Dental implants", "Implantology: implants placed by a dentist are reimbursed at 80% when the "
          "tooth was lost after the policy started."),
         ("Orthodontics", "Orthodontic treatment after the age of 18, and any treatment of a tooth lost "
          "before the policy started, is not reimbursed.")),
    ],
)
def test_another_documents_refusal_never_answers_for_the_thing_the_question_names(
    tmp_path: Any, named: tuple[str, str], other: tuple[str, str]
) -> None:
    """The question names a service only one policy names; a policy about something else that shares
    the rest of the words (the indication, the tooth) is never the answer."""
    question = ("Is Tremfya covered for ulcerative colitis?" if "Tremfya" in named[1]
                else "Is a dental implant covered for a tooth lost before the policy started?")
    r = _two_policies(tmp_path, named, other).search(
        {"payer_id": "PAY", "plan_id": "PLAN", "effective_date": "2024-06-01", "question": question,
         "threshold": 0.05}).as_json()
    assert "POL-2.P2.C1" not in {s["clause_id"] for s in r["sources"]}
    assert not (r["action"] == "none" and r["parts"] and r["parts"][0].get("value", {}).get("value") == "no")


def test_a_citation_names_printed_pages_and_a_clause_that_runs_over() -> None:
    """dev's page labels, carried into the search package: printed label beside the PDF page."""
    from types import SimpleNamespace

    from clauseguard.search.answers import cite

    def row(**pages: Any) -> Any:
        base = {"article": "7.3 Dental", "page": 6, "page_label": None, "page_end": None, "page_end_label": None,
                "version": "V1", "clause_id": "D.V1.C1"}
        return SimpleNamespace(**{**base, **pages})

    assert cite(row()) == "(article 7.3, page 6, V1; D.V1.C1)"
    assert cite(row(page_label="4")) == "(article 7.3, page 4 (printed), PDF page 6, V1; D.V1.C1)"
    assert cite(row(page_end=7)) == "(article 7.3, pages 6-7, V1; D.V1.C1)"
    assert cite(row(page_label="4", page_end=7, page_end_label="5")) == (
        "(article 7.3, pages 4-5 (printed), PDF pages 6-7, V1; D.V1.C1)")
