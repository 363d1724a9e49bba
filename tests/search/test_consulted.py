"""A part left to a person still shows the passage it rests on (design: `status: refused` only when no
passage clears the threshold). Before, a passage above the threshold that spoke to the part without
settling it (two values that fit equally, a value under a condition, a grant held back) was dropped, and
the answer said "Not enough evidence found in policy documents." of terms that plainly speak to it."""

from __future__ import annotations

from pathlib import Path

from clauseguard.search.request import NO_EVIDENCE
from tests.search.asking import ask, engine_over, released

CORPUS = """
format: clauseguard.corpus/v1
payers: [{id: K, name: Payer K}]
plans: [{id: K-STD, payer: K, name: Standard}]
documents:
  - id: K-CS
    payer: K
    kind: medical_policy
    title: Continence supplies
    versions:
      - version: "2025"
        effective_start: 2025-01-01
        effective_end: null
        clauses:
          - {id: K-CS.2025.C2, section: Limits, article: "2 Limits", page: 2,
             text: "Usual supply: up to one hundred (100) absorbent pads and up to one hundred (100) barrier wipes each month."}
          - {id: K-CS.2025.C3, section: Coverage, article: "3 Coverage", page: 2,
             text: "Bed alarms for nocturnal enuresis are covered for members under eighteen (18) years of age."}
  - id: K-TH
    payer: K
    kind: medical_policy
    title: Outpatient therapies
    versions:
      - version: "2025"
        effective_start: 2025-01-01
        effective_end: null
        clauses:
          - {id: K-TH.2025.C1, section: Speech therapy, article: "1 Speech therapy", page: 1,
             text: "Speech therapy is approved for two (2) months, or for six (6) months after a documented reassessment."}
          - {id: K-TH.2025.C2, section: Occupational therapy, article: "2 Occupational therapy", page: 1,
             text: "Approval period: occupational therapy is approved for five (5) months."}
"""


def test_a_part_left_to_a_person_shows_the_passage_it_rests_on(tmp_path: Path) -> None:
    engine = engine_over(CORPUS, tmp_path)
    r = ask(engine, "K", "K-STD", "How many per month in the usual supply?")
    assert r["status"] == "answered" and r["action"] == "escalate to handler" and released(r) == []
    assert [(s["clause_id"], s["settles"]) for s in r["sources"]] == [("K-CS.2025.C2", False)]
    assert r["sources"][0]["excerpt"].startswith("Usual supply")
    assert NO_EVIDENCE not in r["answer"] and "\u201cHow many per month in the usual supply?\u201d is not settled" in r["answer"]
    assert r["unsettled"] == ["How many per month in the usual supply"]


def test_a_passage_that_settles_is_a_source_that_settles(tmp_path: Path) -> None:
    engine = engine_over(CORPUS, tmp_path)
    r = ask(engine, "K", "K-STD", "How many absorbent pads per month?")
    assert r["action"] == "none" and released(r) == ["100 pads"]
    assert [(s["clause_id"], s["settles"]) for s in r["sources"]] == [("K-CS.2025.C2", True)]


def test_nothing_above_the_threshold_is_still_a_refusal(tmp_path: Path) -> None:
    engine = engine_over(CORPUS, tmp_path)
    r = ask(engine, "K", "K-STD", "Are hearing aid batteries reimbursed?")
    assert r["status"] == "refused" and r["sources"] == [] and r["answer"] == NO_EVIDENCE


def test_a_weaker_passage_does_not_settle_what_a_better_one_leaves_open(tmp_path: Path) -> None:
    engine = engine_over(CORPUS, tmp_path)
    r = ask(engine, "K", "K-STD", "Speech therapy: approval period?")
    assert released(r) == [] and r["action"] == "escalate to handler"  # never the occupational therapy's 5 months
    assert [s["clause_id"] for s in r["sources"]] == ["K-TH.2025.C1"]
