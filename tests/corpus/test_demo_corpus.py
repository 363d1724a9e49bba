"""The bundled demo corpus carries what the design asks of it (T1-T8), checked from its structure."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from clauseguard.corpus.loader import load_demo
from clauseguard.corpus.model import Corpus, Document
from clauseguard.versions import governing_terms, policy_terms_version, version_in_effect


@pytest.fixture(scope="module")
def demo() -> Corpus:
    return load_demo()


def doc(corpus: Corpus, ident: str) -> Document:
    return next(d for d in corpus.documents if d.id == ident)


def test_dental_implant_contract_case(demo: Corpus) -> None:
    contract = next(c for c in demo.contracts if c.id == "CT-48213")
    assert (contract.effective_date, contract.terms_anchor, contract.holder) == (
        date(2022, 6, 1), "contract_date", "Acme Ltd"
    )
    terms = doc(demo, "GRP-TERMS")
    assert terms.kind == "policy_terms"
    old, new = terms.versions
    assert (old.version, old.effective_start, old.effective_end) == ("CG-2021-09", date(2021, 9, 1), date(2023, 12, 31))
    assert (new.version, new.effective_start, new.effective_end) == ("CG-2024-01", date(2024, 1, 1), None)
    articles = {c.article: c.page for c in old.clauses}
    assert articles["7.3 Dental, implantology"] == 34
    assert articles["4.2 Waiting periods"] == 18
    assert articles["7.4 Supporting documents"] == 35
    assert articles["12.4 Annual caps on dental benefits"] == 58
    assert {c.article: c.page for c in new.clauses}["9.1 Implantology and periodontology"] == 41


def test_contracts_on_both_sides_and_one_no_version_covers(demo: Corpus) -> None:
    outcomes = {}
    for contract in demo.contracts:
        terms = governing_terms(demo, contract.id, None)
        outcomes[contract.id] = policy_terms_version(terms) or terms.uncovered
    assert outcomes["CT-48213"] == "CG-2021-09"
    assert "CG-2024-01" in outcomes.values()
    assert any(str(v).startswith("no version of the terms covers") for v in outcomes.values())
    assert {c.terms_anchor for c in demo.contracts} == {"contract_date", "service_date"}
    # A request date after 2024-01-01 stays on the signed version for the anchored contract.
    assert policy_terms_version(governing_terms(demo, "CT-48213", date(2024, 6, 1))) == "CG-2021-09"


def test_individual_and_group_wordings_of_one_rider(demo: Corpus) -> None:
    riders = [d for d in demo.documents if d.kind == "rider" and d.overrides and
              any(doc(demo, t).kind == "policy_terms" for t in d.overrides)]
    assert len(riders) >= 2
    by_kind = [
        {kind: sorted(c.text for v in r.versions for c in v.clauses if c.kind == kind)
         for kind in ("waiting_period", "limit", "exclusion")}
        for r in riders[:2]
    ]
    a, b = by_kind
    assert a["waiting_period"] and b["waiting_period"] and a["waiting_period"] != b["waiting_period"]
    assert a["limit"] and b["limit"] and a["limit"] != b["limit"]
    assert a["exclusion"] != b["exclusion"]


def test_traps_present(demo: Corpus) -> None:
    governed = {code for d in demo.documents for code in d.codes}
    assert any(c.code not in governed and c.system in ("CPT", "HCPCS") for c in demo.codes), "T6: an ungoverned code"
    assert any(d.kind == "faq" for d in demo.documents), "T5: a FAQ"
    policies = [d for d in demo.documents if d.kind == "medical_policy"]
    assert sum(len(d.versions) > 1 for d in policies) >= 2, "T1: versions that flip"
    titles = sorted(d.title for d in policies)
    assert any(a.split(":")[0] == b.split(":")[0] for a, b in zip(titles, titles[1:], strict=False)), "T3 look-alikes"
    for rider in (d for d in demo.documents if d.kind == "rider"):
        for target in rider.overrides:
            base = doc(demo, target)
            assert rider.versions[0].effective_start >= base.versions[0].effective_start
    text = " ".join(c.text.lower() for d in demo.documents for v in d.versions for c in v.clauses)
    for phrase in ("unless", "in which case", "one of the following", "all of the following", "investigational"):
        assert phrase in text, phrase
    assert {c.code for c in demo.codes} >= {"S83.511D", "T58.11XA"}


def test_every_version_has_something_in_effect_on_its_first_and_last_day(demo: Corpus) -> None:
    for d in demo.documents:
        for v in d.versions:
            assert version_in_effect(d, v.effective_start) == v
            if v.effective_end:
                assert version_in_effect(d, v.effective_end) == v


def test_no_id_or_sentence_from_the_external_suite(demo: Corpus, mkrafa: Path) -> None:
    external = json.loads((mkrafa / "corpus.json").read_text())
    their_ids = {c["clause_id"] for c in external["clauses"]} | {p["policy_id"] for p in external["policies"]}
    their_texts = {c["text"] for c in external["clauses"]}
    ours = [(c.id, c.text) for d in demo.documents for v in d.versions for c in v.clauses]
    assert not their_ids & ({i for i, _ in ours} | {d.id for d in demo.documents})
    assert not their_texts & {t for _, t in ours}
