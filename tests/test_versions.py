"""Version rules: boundaries of every rule, then a day-by-day oracle that shares no code with them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clauseguard.corpus.model import Corpus, Document
from clauseguard.corpus.validate import check_corpus
from clauseguard.errors import CorpusError, NotFoundError, RequestError
from clauseguard.versions import (
    Eligibility,
    attached_riders,
    eligibility,
    eligibility_under_terms,
    governing_documents_for_code,
    governing_terms,
    plan_documents,
    policy_terms_version,
    riders_in_effect,
    version_in_effect,
    version_index,
)

D = date.fromisoformat


def version(doc_id: str, label: str, start: str, end: str | None, clauses: int = 1) -> dict[str, Any]:
    return {
        "version": label,
        "effective_start": start,
        "effective_end": end,
        "clauses": [
            {"id": f"{doc_id}.{label}.C{i}", "section": "Coverage", "text": f"{doc_id} {label} clause {i}"}
            for i in range(1, clauses + 1)
        ],
    }


def document(doc_id: str, kind: str, versions: list[tuple[str, str, str | None]], **extra: Any) -> dict[str, Any]:
    return {
        "id": doc_id,
        "payer": extra.pop("payer", "MHP"),
        "kind": kind,
        "title": doc_id,
        "versions": [version(doc_id, *v) for v in versions],
        **extra,
    }


def base_data() -> dict[str, Any]:
    return {
        "format": "clauseguard.corpus/v1",
        "payers": [{"id": "MHP", "name": "Meridian"}, {"id": "OTH", "name": "Other"}],
        "plans": [
            {"id": "MHP-BASE", "payer": "MHP", "name": "Base", "riders": ["RID-A"]},
            {"id": "MHP-GOLD", "payer": "MHP", "name": "Gold"},
            {"id": "OTH-PLAN", "payer": "OTH", "name": "Other plan"},
        ],
        "contracts": [
            {"id": "CT-ANCH", "plan": "MHP-BASE", "effective_date": "2022-06-01",
             "end_date": "2025-05-31", "terms_anchor": "contract_date"},
            {"id": "CT-SVC", "plan": "MHP-BASE", "effective_date": "2022-06-01", "terms_anchor": "service_date"},
            {"id": "CT-GAP", "plan": "MHP-GOLD", "effective_date": "2019-03-01", "terms_anchor": "contract_date"},
        ],
        "codes": [
            {"code": "A9276", "system": "HCPCS"},
            {"code": "99213", "system": "CPT"},
            {"code": "E1399", "system": "HCPCS"},
        ],
        "documents": [
            document("MHP-TERMS", "policy_terms",
                     [("CG-2021-09", "2021-09-01", "2023-12-31"), ("CG-2024-01", "2024-01-01", None)],
                     codes=["99213"]),
            document("MHP-MP", "medical_policy",
                     [("v1", "2023-01-01", "2024-06-30"), ("v2", "2024-07-01", None)], codes=["A9276"]),
            document("GOLD-SOB", "schedule_of_benefits", [("s1", "2021-01-01", None)],
                     codes=["A9276"], plans=["MHP-GOLD"]),
            document("RID-A", "rider", [("r1", "2024-03-01", None)], codes=["A9276"], overrides=["MHP-MP"]),
            document("RID-B", "rider", [("r1", "2020-01-01", None)], codes=["A9276"], overrides=["MHP-MP"]),
            document("OTH-MP", "medical_policy", [("v1", "2020-01-01", None)], codes=["A9276"], payer="OTH"),
        ],
    }


@pytest.fixture
def corpus() -> Corpus:
    c = Corpus.model_validate(base_data())
    assert check_corpus([("fixture.yaml", c)]) == []
    return c


def doc(corpus: Corpus, doc_id: str) -> Document:
    return next(d for d in corpus.documents if d.id == doc_id)


def label(v: Any) -> str | None:
    return None if v is None else v.version


# --- version_in_effect -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("day", "expected"),
    [
        ("2021-08-31", None),  # day before the first version
        ("2021-09-01", "CG-2021-09"),  # first day
        ("2023-12-31", "CG-2021-09"),  # last day
        ("2024-01-01", "CG-2024-01"),  # day after: the next version
        ("2099-12-31", "CG-2024-01"),  # open-ended
    ],
)
def test_version_in_effect_boundaries(corpus: Corpus, day: str, expected: str | None) -> None:
    assert label(version_in_effect(doc(corpus, "MHP-TERMS"), D(day))) == expected


def test_version_in_effect_gap_and_single_day() -> None:
    d = Document.model_validate(
        document("X", "faq", [("a", "2024-01-01", "2024-01-10"), ("b", "2024-01-20", "2024-01-20")])
    )
    assert label(version_in_effect(d, D("2024-01-10"))) == "a"
    assert version_in_effect(d, D("2024-01-11")) is None  # gap
    assert version_in_effect(d, D("2024-01-19")) is None
    assert label(version_in_effect(d, D("2024-01-20"))) == "b"  # start == end
    assert version_in_effect(d, D("2024-01-21")) is None  # closed last version


def test_version_in_effect_overlap_latest_start_wins() -> None:
    # the validator refuses overlaps; the rule still answers the same way whatever the order
    d = Document.model_validate(
        document("X", "faq", [("late", "2024-03-01", None), ("early", "2024-01-01", None)])
    )
    assert label(version_in_effect(d, D("2024-02-01"))) == "early"
    assert label(version_in_effect(d, D("2024-03-01"))) == "late"


# --- plans, riders, codes ----------------------------------------------------------------------


def ids(docs: Any) -> list[str]:
    return [d.id for d in docs]


def test_plan_documents(corpus: Corpus) -> None:
    assert ids(plan_documents(corpus, "MHP-BASE")) == ["MHP-MP", "MHP-TERMS"]  # riders and GOLD-SOB out
    assert ids(plan_documents(corpus, "MHP-GOLD")) == ["GOLD-SOB", "MHP-MP", "MHP-TERMS"]
    assert ids(plan_documents(corpus, "OTH-PLAN")) == ["OTH-MP"]
    with pytest.raises(NotFoundError) as err:
        plan_documents(corpus, "NOPE")
    assert err.value.kind == "plan" and "'NOPE'" in str(err.value)


def test_riders_attached_and_in_effect(corpus: Corpus) -> None:
    assert ids(attached_riders(corpus, "MHP-BASE")) == ["RID-A"]
    assert attached_riders(corpus, "MHP-GOLD") == []
    assert riders_in_effect(corpus, "MHP-BASE", D("2024-02-29")) == []  # day before the rider starts
    first = riders_in_effect(corpus, "MHP-BASE", D("2024-03-01"))  # first day
    assert [(r.document.id, r.version.version) for r in first] == [("RID-A", "r1")]
    document_, version_ = first[0]  # still a plain pair
    assert document_.id == "RID-A" and version_.version == "r1"
    assert riders_in_effect(corpus, "MHP-GOLD", D("2024-03-01")) == []  # RID-B is in effect but not attached


def test_plan_naming_a_missing_rider_is_a_corpus_error() -> None:
    data = base_data()
    data["plans"][0]["riders"] = ["RID-GONE"]
    with pytest.raises(CorpusError, match="RID-GONE"):
        attached_riders(Corpus.model_validate(data), "MHP-BASE")


def test_governing_documents_for_code(corpus: Corpus) -> None:
    assert ids(governing_documents_for_code(corpus, "MHP", "A9276")) == ["GOLD-SOB", "MHP-MP", "RID-A", "RID-B"]
    assert ids(governing_documents_for_code(corpus, "MHP", "A9276", "MHP-BASE")) == ["MHP-MP", "RID-A"]
    assert ids(governing_documents_for_code(corpus, "MHP", "A9276", "MHP-GOLD")) == ["GOLD-SOB", "MHP-MP"]
    assert ids(governing_documents_for_code(corpus, "OTH", "A9276")) == ["OTH-MP"]
    assert governing_documents_for_code(corpus, "MHP", "E1399", "MHP-BASE") == []
    assert governing_documents_for_code(corpus, "NOBODY", "A9276") == []
    with pytest.raises(RequestError, match="belongs to payer OTH"):
        governing_documents_for_code(corpus, "MHP", "A9276", "OTH-PLAN")


# --- governing terms ---------------------------------------------------------------------------


def test_contract_anchor_without_request_date(corpus: Corpus) -> None:
    t = governing_terms(corpus, "CT-ANCH", None)
    assert (t.anchor, t.effective_date, t.requested_date, t.uncovered) == ("contract_date", D("2022-06-01"), None, None)
    assert {k: label(v) for k, v in t.versions.items()} == {"MHP-MP": None, "MHP-TERMS": "CG-2021-09"}
    assert {k: label(v) for k, v in t.riders.items()} == {"RID-A": None}
    assert t.applicable_versions == {"MHP-TERMS": "CG-2021-09"}
    assert policy_terms_version(t) == "CG-2021-09"


@pytest.mark.parametrize("day", ["2022-06-01", "2023-12-31", "2024-01-01", "2024-06-15", "2025-05-31"])
def test_contract_anchor_stays_on_the_signed_version_for_the_whole_term(corpus: Corpus, day: str) -> None:
    t = governing_terms(corpus, "CT-ANCH", D(day))
    assert t.effective_date == D("2022-06-01")
    assert t.requested_date == (None if day == "2022-06-01" else D(day))
    assert label(t.versions["MHP-TERMS"]) == "CG-2021-09"  # never CG-2024-01, though it is in effect that day
    assert t.riders == {"RID-A": None}  # the rider starts after the contract was signed
    assert t.uncovered is None and t.within_term


@pytest.mark.parametrize(
    ("contract", "day", "sentence"),
    [
        ("CT-ANCH", "2022-05-31", "the contract's term (2022-06-01 to 2025-05-31) does not cover 2022-05-31"),
        ("CT-ANCH", "2025-06-01", "the contract's term (2022-06-01 to 2025-05-31) does not cover 2025-06-01"),
        ("CT-SVC", "2022-05-31", "the contract's term (2022-06-01 to open-ended) does not cover 2022-05-31"),
    ],
)
def test_request_date_outside_the_term(corpus: Corpus, contract: str, day: str, sentence: str) -> None:
    t = governing_terms(corpus, contract, D(day))
    assert t.uncovered == sentence and not t.within_term
    assert all(v is None for v in [*t.versions.values(), *t.riders.values()])
    assert t.applicable_versions is None and policy_terms_version(t) is None


@pytest.mark.parametrize(
    ("day", "terms", "policy", "rider"),
    [
        (None, "CG-2021-09", None, None),  # no date in the request: the contract's own date
        ("2022-06-01", "CG-2021-09", None, None),  # contract's first day
        ("2023-12-31", "CG-2021-09", "v1", None),
        ("2024-01-01", "CG-2024-01", "v1", None),
        ("2024-02-29", "CG-2024-01", "v1", None),  # day before the rider starts
        ("2024-03-01", "CG-2024-01", "v1", "r1"),  # rider's first day
        ("2024-06-30", "CG-2024-01", "v1", "r1"),
        ("2024-07-01", "CG-2024-01", "v2", "r1"),
        ("2090-01-01", "CG-2024-01", "v2", "r1"),  # open-ended contract and versions
    ],
)
def test_service_dated_contract(
    corpus: Corpus, day: str | None, terms: str, policy: str | None, rider: str | None
) -> None:
    t = governing_terms(corpus, "CT-SVC", D(day) if day else None)
    assert t.effective_date == (D(day) if day else D("2022-06-01"))
    assert t.requested_date is None
    assert (label(t.versions["MHP-TERMS"]), label(t.versions["MHP-MP"]), label(t.riders["RID-A"])) == (
        terms, policy, rider,
    )
    assert policy_terms_version(t) == terms


def test_no_version_covers_the_contract_date(corpus: Corpus) -> None:
    for request in (None, D("2024-01-01")):  # contract-anchored: the request date changes nothing
        t = governing_terms(corpus, "CT-GAP", request)
        assert t.uncovered == "no version of the terms covers 2019-03-01"
        assert t.within_term and t.effective_date == D("2019-03-01")
        assert set(t.versions) == {"GOLD-SOB", "MHP-MP", "MHP-TERMS"}
        assert all(v is None for v in t.versions.values())
        assert t.applicable_versions is None and policy_terms_version(t) is None


def test_rider_alone_does_not_cover_the_terms() -> None:
    data = base_data()
    data["contracts"] = [{"id": "CT", "plan": "MHP-BASE", "effective_date": "2021-01-01"}]
    data["documents"] = [d for d in data["documents"] if d["id"] in {"MHP-TERMS", "RID-A"}]
    data["documents"][1]["overrides"] = []
    t = governing_terms(Corpus.model_validate(data), "CT", D("2021-06-01"))
    assert t.uncovered == "no version of the terms covers 2021-06-01"
    data["documents"][1]["versions"][0]["effective_start"] = "2021-01-01"
    t = governing_terms(Corpus.model_validate(data), "CT", D("2021-06-01"))
    assert label(t.riders["RID-A"]) == "r1"
    assert t.uncovered == "no version of the terms covers 2021-06-01"


def test_unknown_contract_is_named_never_guessed(corpus: Corpus) -> None:
    with pytest.raises(NotFoundError) as err:
        governing_terms(corpus, "CT-ANCH2", None)
    assert (err.value.kind, err.value.ident) == ("contract", "CT-ANCH2")
    assert str(err.value).startswith("unknown contract 'CT-ANCH2'")


def test_policy_terms_version_falls_back_to_first_governing_document() -> None:
    data = base_data()
    data["documents"][0]["kind"] = "faq"  # no policy_terms document left
    t = governing_terms(Corpus.model_validate(data), "CT-SVC", D("2024-01-15"))
    assert policy_terms_version(t) == "v1"  # MHP-MP precedes MHP-TERMS by id
    data = base_data()
    data["documents"][0]["versions"][0]["effective_start"] = "2023-06-01"  # terms start later
    t = governing_terms(Corpus.model_validate(data), "CT-SVC", D("2023-03-01"))
    assert policy_terms_version(t) == "v1"


# --- eligibility -------------------------------------------------------------------------------

BASE_REASONS_2024_03_15 = {
    "GOLD-SOB.s1.C1": "not a document of plan MHP-BASE",
    "MHP-MP.v1.C1": None,
    "MHP-MP.v2.C1": "not in effect on 2024-03-15",
    "MHP-TERMS.CG-2021-09.C1": "not in effect on 2024-03-15",
    "MHP-TERMS.CG-2024-01.C1": None,
    "OTH-MP.v1.C1": "other payer",
    "RID-A.r1.C1": None,  # attached and in effect; its base policy MHP-MP.v1 stays eligible
    "RID-B.r1.C1": "rider not attached to plan MHP-BASE",
}


def test_eligibility_for_a_plan_and_day(corpus: Corpus) -> None:
    e = eligibility(corpus, plan_id="MHP-BASE", day=D("2024-03-15"), payer_id="MHP")
    assert e.reasons == BASE_REASONS_2024_03_15
    assert list(e.reasons) == sorted(BASE_REASONS_2024_03_15)  # documents by id, deterministic
    assert e.eligible == ("MHP-MP.v1.C1", "MHP-TERMS.CG-2024-01.C1", "RID-A.r1.C1")


@pytest.mark.parametrize(
    ("day", "rider"),
    [("2024-02-29", "not in effect on 2024-02-29"), ("2024-03-01", None), ("2030-01-01", None)],
)
def test_eligibility_rider_dates(corpus: Corpus, day: str, rider: str | None) -> None:
    e = eligibility(corpus, plan_id="MHP-BASE", day=D(day))
    assert e.reason("RID-A.r1.C1") == rider
    assert e.reason("RID-B.r1.C1") == "rider not attached to plan MHP-BASE"  # in effect, not attached


def test_eligibility_other_plan_and_payer(corpus: Corpus) -> None:
    gold = eligibility(corpus, plan_id="MHP-GOLD", day=D("2024-03-15"))
    assert gold.reason("GOLD-SOB.s1.C1") is None
    assert gold.reason("RID-A.r1.C1") == "rider not attached to plan MHP-GOLD"
    other = eligibility(corpus, plan_id="OTH-PLAN", day=D("2024-03-15"))
    assert other.eligible == ("OTH-MP.v1.C1",)
    assert {r for c, r in other.reasons.items() if c != "OTH-MP.v1.C1"} == {"other payer"}


def test_eligibility_refuses_bad_ids(corpus: Corpus) -> None:
    with pytest.raises(NotFoundError):
        eligibility(corpus, plan_id="NOPE", day=D("2024-01-01"))
    with pytest.raises(RequestError, match="plan_id"):
        eligibility(corpus, plan_id="OTH-PLAN", day=D("2024-01-01"), payer_id="MHP")
    e = eligibility(corpus, plan_id="MHP-BASE", day=D("2024-01-01"))
    with pytest.raises(NotFoundError):
        e.reason("NO-SUCH-CLAUSE")


def test_eligibility_under_contract_anchored_terms(corpus: Corpus) -> None:
    e = eligibility_under_terms(corpus, governing_terms(corpus, "CT-ANCH", D("2024-06-15")))
    assert e.day == D("2022-06-01") and e.anchor == "contract_date"
    assert e.reasons == {
        "GOLD-SOB.s1.C1": "not a document of plan MHP-BASE",
        "MHP-MP.v1.C1": "outside the contract period",  # MHP-MP had no version on the signing date
        "MHP-MP.v2.C1": "outside the contract period",
        "MHP-TERMS.CG-2021-09.C1": None,
        "MHP-TERMS.CG-2024-01.C1": "outside the contract period",  # in effect on 2024-06-15, not signed
        "OTH-MP.v1.C1": "other payer",
        "RID-A.r1.C1": "outside the contract period",
        "RID-B.r1.C1": "rider not attached to plan MHP-BASE",
    }


def test_eligibility_under_service_dated_terms_matches_plan_and_day(corpus: Corpus) -> None:
    for day in ("2022-06-01", "2024-02-29", "2024-03-15", "2024-07-01"):
        under_terms = eligibility_under_terms(corpus, governing_terms(corpus, "CT-SVC", D(day)))
        assert under_terms.reasons == eligibility(corpus, plan_id="MHP-BASE", day=D(day)).reasons
    assert eligibility_under_terms(corpus, governing_terms(corpus, "CT-SVC", D("2024-03-15"))).reasons == (
        BASE_REASONS_2024_03_15
    )


def test_eligibility_outside_the_term(corpus: Corpus) -> None:
    e = eligibility_under_terms(corpus, governing_terms(corpus, "CT-ANCH", D("2025-06-01")))
    assert e.eligible == ()
    assert e.reasons["MHP-TERMS.CG-2021-09.C1"] == "outside the contract period"
    assert e.reasons["RID-A.r1.C1"] == "outside the contract period"
    assert e.reasons["GOLD-SOB.s1.C1"] == "not a document of plan MHP-BASE"
    assert e.reasons["OTH-MP.v1.C1"] == "other payer"


def test_rider_of_another_payer_is_other_payer(corpus: Corpus) -> None:
    e = eligibility(corpus, plan_id="OTH-PLAN", day=D("2024-03-15"))
    assert e.reason("RID-A.r1.C1") == "other payer"


def test_deterministic_whatever_the_file_order(corpus: Corpus) -> None:
    data = base_data()
    data["documents"].reverse()
    for d in data["documents"]:
        d["versions"].reverse()
    shuffled = Corpus.model_validate(data)
    for c in (corpus, shuffled):
        assert version_index(c) is version_index(c)
    a = eligibility(corpus, plan_id="MHP-BASE", day=D("2024-03-15"))
    b = eligibility(shuffled, plan_id="MHP-BASE", day=D("2024-03-15"))
    assert list(a.reasons.items()) == list(b.reasons.items())
    assert a.eligible == b.eligible


# --- the oracle: expand every period into days, answer by set membership -----------------------

BASE = date(2024, 1, 1)
HORIZON = 400  # days after BASE that stand for "open-ended"; every query falls well inside


def days_of(start: date, end: date | None) -> frozenset[date]:
    """Every day a period covers, walking one day at a time up to the horizon."""
    last = end if end is not None else BASE + timedelta(days=HORIZON)
    out = set()
    day = start
    while day <= last:
        out.add(day)
        day += timedelta(days=1)
    return frozenset(out)


@dataclass(frozen=True)
class Period:
    label: str
    start: date
    end: date | None

    @property
    def days(self) -> frozenset[date]:
        return days_of(self.start, self.end)


def oracle_label(periods: list[Period], day: date) -> str | None:
    hits = [p.label for p in periods if day in p.days]
    assert len(hits) <= 1, "generated periods overlap"
    return hits[0] if hits else None


@st.composite
def periods(draw: st.DrawFn, max_versions: int = 4) -> list[Period]:
    n = draw(st.integers(0, max_versions))
    out = []
    cursor = BASE + timedelta(days=draw(st.integers(-20, 20)))
    for i in range(n):
        cursor += timedelta(days=draw(st.integers(0, 10)))  # 0: adjacent to the previous version
        length = draw(st.integers(1, 20))
        open_ended = i == n - 1 and draw(st.booleans())
        end = None if open_ended else cursor + timedelta(days=length - 1)
        out.append(Period(f"v{i}", cursor, end))
        if end is not None:
            cursor = end + timedelta(days=1)
    return draw(st.permutations(out))


query_days = st.integers(-40, 200).map(lambda n: BASE + timedelta(days=n))


def versions_data(doc_id: str, ps: list[Period]) -> list[dict[str, Any]]:
    return [
        version(doc_id, p.label, p.start.isoformat(), p.end.isoformat() if p.end else None) for p in ps
    ]


@settings(max_examples=300, deadline=None)
@given(periods(), query_days)
def test_version_in_effect_matches_oracle(ps: list[Period], day: date) -> None:
    d = Document.model_validate(
        {"id": "X", "payer": "P", "kind": "medical_policy", "title": "X", "versions": versions_data("X", ps)}
    )
    assert label(version_in_effect(d, day)) == oracle_label(ps, day)


@dataclass(frozen=True)
class DocSpec:
    id: str
    kind: str
    periods: list[Period]
    role: str  # "plan" (applies to PL), "other-plan" (limited to PL2), "rider", "loose-rider", "other-payer"


KINDS = ["policy_terms", "medical_policy", "faq", "schedule_of_benefits"]


@st.composite
def scenario(draw: st.DrawFn) -> tuple[list[DocSpec], dict[str, Any], date | None]:
    specs = []
    roles = draw(st.lists(st.sampled_from(["plan", "other-plan", "rider", "loose-rider", "other-payer"]),
                          min_size=1, max_size=5))
    for i, role in enumerate(["plan", *roles]):
        kind = "rider" if "rider" in role else draw(st.sampled_from(KINDS))
        specs.append(DocSpec(f"D{i}", kind, draw(periods(3)), role))
    start = BASE + timedelta(days=draw(st.integers(-20, 60)))
    length = draw(st.none() | st.integers(0, 120))
    contract = {
        "id": "CT",
        "plan": "PL",
        "effective_date": start.isoformat(),
        "end_date": None if length is None else (start + timedelta(days=length)).isoformat(),
        "terms_anchor": draw(st.sampled_from(["contract_date", "service_date"])),
    }
    request = draw(st.none() | query_days)
    return specs, contract, request


def scenario_corpus(specs: list[DocSpec], contract: dict[str, Any]) -> Corpus:
    docs = []
    for s in specs:
        payer = "Q" if s.role == "other-payer" else "P"
        plans = ["PL2"] if s.role == "other-plan" else []
        docs.append({"id": s.id, "payer": payer, "kind": s.kind, "title": s.id, "plans": plans,
                     "versions": versions_data(s.id, s.periods)})
    return Corpus.model_validate({
        "format": "clauseguard.corpus/v1",
        "payers": [{"id": "P", "name": "P"}, {"id": "Q", "name": "Q"}],
        "plans": [
            {"id": "PL", "payer": "P", "name": "PL", "riders": [s.id for s in specs if s.role == "rider"]},
            {"id": "PL2", "payer": "P", "name": "PL2"},
        ],
        "contracts": [contract],
        "documents": docs,
    })


@settings(max_examples=400, deadline=None)
@given(scenario())
def test_governing_terms_and_eligibility_match_oracle(case: tuple[list[DocSpec], dict[str, Any], date | None]) -> None:
    specs, contract, request = case
    corpus = scenario_corpus(specs, contract)
    start = D(contract["effective_date"])
    end = D(contract["end_date"]) if contract["end_date"] else None
    anchored = contract["terms_anchor"] == "contract_date"

    # the oracle, from the rules as the design states them
    term = days_of(start, end)
    in_term = request is None or request in term
    selecting = start if anchored or request is None else request
    plan_docs = sorted(s.id for s in specs if s.role == "plan")
    riders = sorted(s.id for s in specs if s.role == "rider")
    expected = {s.id: (oracle_label(s.periods, selecting) if in_term else None) for s in specs}
    if not in_term:
        assert request is not None
        uncovered: str | None = (
            f"the contract's term ({start.isoformat()} to {end.isoformat() if end else 'open-ended'}) "
            f"does not cover {request.isoformat()}"
        )
    elif all(expected[d] is None for d in plan_docs):
        uncovered = f"no version of the terms covers {selecting.isoformat()}"
    else:
        uncovered = None

    t = governing_terms(corpus, "CT", request)
    assert t.anchor == contract["terms_anchor"]
    assert t.effective_date == selecting
    assert t.requested_date == (request if request is not None and request != selecting else None)
    assert {k: label(v) for k, v in t.versions.items()} == {d: expected[d] for d in plan_docs}
    assert {k: label(v) for k, v in t.riders.items()} == {r: expected[r] for r in riders}
    assert t.uncovered == uncovered

    # eligibility under those terms, clause by clause
    other_version = "outside the contract period" if anchored else f"not in effect on {selecting.isoformat()}"
    want: dict[str, str | None] = {}
    for s in specs:
        for p in s.periods:
            if s.role == "other-payer":
                reason: str | None = "other payer"
            elif s.role == "other-plan":
                reason = "not a document of plan PL"
            elif s.role == "loose-rider":
                reason = "rider not attached to plan PL"
            elif not in_term:
                reason = "outside the contract period"
            else:
                reason = None if expected[s.id] == p.label else other_version
            want[f"{s.id}.{p.label}.C1"] = reason
    e: Eligibility = eligibility_under_terms(corpus, t)
    assert e.reasons == want
    assert set(e.eligible) == {c for c, r in want.items() if r is None}
