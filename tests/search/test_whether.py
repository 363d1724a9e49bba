"""What a part asks, and when a bare yes, a bare no or a refusal answers it (issue 14: wrong_answer_released).

A part that asks for a term, a level or a number is never answered by "covered"; a refusal of one case
of a benefit answers no amount of another case; a yes to a question that states its own figure goes to
a person; a count of days is no count of the things asked. Every passage here is our own wording."""

from __future__ import annotations

from typing import Any

import pytest

from clauseguard.engine import Engine
from clauseguard.retrieval.parts import asks_open, asks_whether, split_question
from tests.search.asking import ask, engine_over, released

CORPUS = """
format: clauseguard.corpus/v1
payers: [{id: W, name: Payer W}]
plans: [{id: W-STD, payer: W, name: Standard}]
documents:
  - id: W-TERMS
    payer: W
    kind: policy_terms
    title: Standard benefit terms
    versions:
      - version: "2025"
        effective_start: 2025-01-01
        effective_end: null
        clauses:
          - {id: W-TERMS.2025.A1, section: Travel, article: "1 Trip cancellation",
             text: "Prepaid travel costs of a trip cancelled because the insured person falls seriously ill are refunded up to the amount printed on the insurance certificate. Cancellation for business reasons is not covered."}
          - {id: W-TERMS.2025.A2, section: Wellness, article: "2 Spa stays",
             text: "Spa stays are not covered."}
          - {id: W-TERMS.2025.A3, section: Devices, article: "3 Home oxygen",
             text: "Home oxygen concentrators are covered for a member whose resting saturation is recorded below 88%."}
          - {id: W-TERMS.2025.A4, section: Devices, article: "4 Oxygen rental term",
             text: "Approval of a home oxygen concentrator runs for twelve (12) months and is renewed on a new saturation test."}
          - {id: W-TERMS.2025.A5, section: Drugs, article: "5 Migraine prevention",
             text: "Preventive migraine injections are covered for a member with at least eight (8) headache days a month."}
          - {id: W-TERMS.2025.A6, section: Supplies, article: "6 Incontinence pads",
             text: "Incontinence pads are covered for a member with documented incontinence. Pads used at the same time as an indwelling catheter in the bladder are not covered."}
          - {id: W-TERMS.2025.A7, section: Hearing, article: "7 Hearing aid batteries",
             text: "Hearing aid batteries are covered."}
          - {id: W-TERMS.2025.A8, section: Dental, article: "8 Braces",
             text: "Braces are reimbursed at 80% provided the dentist's plan is approved before treatment. Braces are reimbursed up to a total of EUR 1,800 per child. Braces started after the eighteenth birthday are reimbursed only where they are needed as the direct consequence of an accident, and then up to EUR 700 in total."}
          - {id: W-TERMS.2025.A9, section: Therapy, article: "9 Speech therapy",
             text: "Speech therapy is reimbursed up to EUR 400 a year per child."}
"""


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Engine:
    return engine_over(CORPUS, tmp_path_factory.mktemp("whether"))


def _ask(engine: Engine, question: str) -> dict[str, Any]:
    return ask(engine, "W", "W-STD", question)


@pytest.mark.parametrize("label", [
    "Oxygen concentrator approved in March - good for how many months",
    "Renewal of the pump approved today - valid until when",
    "Kits approved after two infections - approved through what point",
    "A sleep recording counts as failed below how many hours of data",
    "Cruise cover - trips covered up to",
    "Humidifier chamber for a nightly user - next one due when",
])
def test_a_question_word_in_place_makes_an_open_question(label: str) -> None:
    assert asks_open(label)


@pytest.mark.parametrize("question", [
    "home oxygen: coverage term once the member qualifies",
    "sleep study: out-of-network coverage level for the member, coverage",
])
def test_a_part_naming_a_term_or_a_level_of_its_own_asks_more_than_whether(question: str) -> None:
    first = split_question(question)[0]
    assert not asks_whether(first)


@pytest.mark.parametrize("question", [
    "dental implant: coverage, annual cap",
    "incontinence pads: monthly quantity, covered together with a catheter",
    "Is home oxygen covered when the member travels abroad?",
])
def test_coverage_alone_an_opening_predicate_or_an_auxiliary_asks_whether(question: str) -> None:
    whether = [p for p in split_question(question) if p.aspect in ("coverage", "exclusion")]
    assert whether and all(asks_whether(p) for p in whether)


def test_an_open_question_in_place_is_never_answered_by_a_grant(engine: Engine) -> None:
    r = _ask(engine, "Hearing aid batteries - covered until when?")
    assert "yes" not in released(r), r["parts"]


def test_a_refusal_of_another_case_answers_no_amount(engine: Engine) -> None:
    # the only refusal in the article is for business reasons; the amount for an illness is on the certificate
    r = _ask(engine, "What is the refund limit when a trip is cancelled because of a serious illness?")
    assert "no" not in released(r), r["parts"]


def test_a_refusal_of_the_benefit_itself_still_answers_its_amounts(engine: Engine) -> None:
    r = _ask(engine, "Spa stays: annual limit")
    assert released(r) == ["no"], r["parts"]


def test_a_no_for_a_case_one_part_names_settles_no_sibling_part(engine: Engine) -> None:
    r = _ask(engine, "incontinence pads: monthly quantity, covered together with an indwelling catheter")
    quantity = next(p for p in r["parts"] if p["part"] == "monthly quantity")
    assert quantity["status"] == "unsettled", r["parts"]


def test_a_yes_to_a_question_stating_its_own_figure_goes_to_a_person(engine: Engine) -> None:
    # the grant weighs no span; the twelve-month term stands in another article
    r = _ask(engine, "Home oxygen concentrator for a member with a low resting saturation, used for 14 months - covered?")
    assert "yes" not in released(r), r["parts"]
    assert any("figure" in str(p.get("why")) for p in r["parts"]), r["parts"]


def test_an_age_written_as_a_year_old_is_no_figure_to_weigh(engine: Engine) -> None:
    assert released(_ask(engine, "Are hearing aid batteries covered for a 70-year-old?")) == ["yes"]


def test_a_count_of_days_is_no_answer_to_how_many_are_allowed(engine: Engine) -> None:
    r = _ask(engine, "Preventive migraine injections: how many per month?")
    assert "8 days" not in released(r), r["parts"]


def test_a_value_per_child_never_answers_for_a_member_whose_age_the_question_states_as_adult(engine: Engine) -> None:
    r = _ask(engine, "What is the total braces limit for a member aged 40 who needs them after a skiing accident?")
    assert "EUR 1,800" not in released(r), r["parts"]


def test_a_value_per_child_answers_a_question_stating_no_age_and_no_adult(engine: Engine) -> None:
    assert released(_ask(engine, "Speech therapy: yearly limit")) == ["EUR 400"]
    assert released(_ask(engine, "Speech therapy for a child aged 7: yearly limit")) == ["EUR 400"]
    assert "EUR 400" not in released(_ask(engine, "Speech therapy for an employee aged 52: yearly limit"))
