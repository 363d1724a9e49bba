"""When a value may go out without a handler (issue 14: wrong_answer_released must be 0 on every suite).

Each rule here closed a class of released wrong value the blind holdouts count; every passage is our own
wording. A part the rules hold back is escalated with the reason named, never answered with a guess."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from clauseguard.corpus.sources import open_corpus
from clauseguard.engine import Engine
from clauseguard.reading.extract import quantity_asked
from clauseguard.retrieval.parts import asks_open

CORPUS = """
format: clauseguard.corpus/v1
payers: [{id: R, name: Payer R}]
plans: [{id: R-STD, payer: R, name: Standard}]
documents:
  - id: R-FLARE
    payer: R
    kind: medical_policy
    title: Colchicine for the Treatment of Acute Gout Flares
    versions:
      - version: "2025"
        effective_start: 2025-01-01
        effective_end: null
        clauses:
          - {id: R-FLARE.2025.C1, section: Coverage,
             text: "Colchicine is covered for an acute gout flare confirmed by the treating physician. Taking it every day to prevent flares is outside this policy."}
          - {id: R-FLARE.2025.C2, section: Quantity Limits,
             text: "Colchicine 0.6 mg tablets, flare use: six (6) tablets per 30 days."}
  - id: R-PREVENT
    payer: R
    kind: medical_policy
    title: Colchicine for the Prevention of Gout Flares
    versions:
      - version: "2025"
        effective_start: 2025-01-01
        effective_end: null
        clauses:
          - {id: R-PREVENT.2025.C1, section: Coverage,
             text: "Daily colchicine to prevent flares is covered while urate-lowering therapy is started, for up to six (6) months."}
          - {id: R-PREVENT.2025.C2, section: Limits,
             text: "For prevention, sixty (60) tablets may be dispensed for each 60-day period."}
  - id: R-TERMS
    payer: R
    kind: policy_terms
    title: Standard benefit terms
    versions:
      - version: "2025"
        effective_start: 2025-01-01
        effective_end: null
        clauses:
          - {id: R-TERMS.2025.A1, section: Hearing, article: "1 Hearing",
             text: "Hearing aids are reimbursed up to a maximum of EUR 700 per ear. Replacement batteries are reimbursed up to EUR 40 a year."}
"""


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Engine:
    path: Path = tmp_path_factory.mktemp("release") / "corpus.yaml"
    path.write_text(CORPUS, encoding="utf-8")
    return Engine(open_corpus(str(path), None))


def _ask(engine: Engine, question: str) -> dict[str, Any]:
    return engine.search({"payer_id": "R", "plan_id": "R-STD", "effective_date": "2025-06-01", "question": question,
                          "threshold": 0.3}).as_json()


def _released(r: dict[str, Any]) -> list[str | None]:
    """The values that went out without a handler (none when the answer is escalated)."""
    if r["action"] != "none":
        return []
    return [(p.get("value") or {}).get("value") for p in r["parts"] if p["status"] == "answered"]


def test_a_look_alike_policy_whose_title_fits_the_question_worse_never_answers_it(engine: Engine) -> None:
    # the flare policy's quantity line scores best on the words of the question, but the question is about
    # prevention, which the other policy's title names: which policy governs is for a person (trap T3)
    r = _ask(engine, "How many colchicine tablets per 30 days for gout flare prevention?")
    assert "6 tablets" not in _released(r), r["parts"]
    held = [p for p in r["parts"] if p["status"] == "unsettled"]
    assert not held or any("R-PREVENT" in str(p.get("why")) for p in held), r["parts"]


def test_the_policy_the_question_names_still_answers(engine: Engine) -> None:
    r = _ask(engine, "How many colchicine tablets per 30 days for an acute gout flare?")
    assert _released(r) == ["6 tablets"], r["parts"]


def test_a_value_is_told_apart_only_when_the_parts_words_around_it_include_the_rivals(engine: Engine) -> None:
    # "maximum" and "hearing aid" stand around EUR 700, "batteries" around EUR 40: neither holds all of the
    # part's words the other has, so the part is left to a person with both values named
    r = _ask(engine, "What is the maximum paid for hearing aid batteries?")
    assert "EUR 700" not in _released(r), r["parts"]


def test_a_value_the_part_marks_out_on_every_count_is_still_released(engine: Engine) -> None:
    r = _ask(engine, "What is the maximum paid for hearing aids per ear?")
    assert _released(r) == ["EUR 700"], r["parts"]


@pytest.mark.parametrize("label", [
    "The member had an attended study approved today. Until when is the approval good",
    "For how long is the prior authorization for an attended sleep study good",
    "And up to what age are hearing aids paid",
])
def test_an_open_question_is_open_after_a_preamble_or_a_leading_preposition(label: str) -> None:
    assert asks_open(label)


@pytest.mark.parametrize("label", ["attended sleep study authorization validity", "face-to-face evaluation window"])
def test_a_window_or_a_validity_asks_for_a_span(label: str) -> None:
    assert quantity_asked(label, None) == "duration"
