"""A figure answers only what it measures (issue 14: wrong_answer_released): a span of time in the unit asked
or a whole multiple of it, a count of days per week only for a part asking per a span, days of the thing
the part counts, and a change only for a part about a change. Every passage here is our own wording."""

from __future__ import annotations

from typing import Any

import pytest

from clauseguard.engine import Engine
from clauseguard.reading.measured import asked_unit, in_unit_asked, is_change
from clauseguard.reading.stated import stated_values
from tests.search.asking import ask, engine_over, released

CORPUS = """
format: clauseguard.corpus/v1
payers: [{id: M, name: Payer M}]
plans: [{id: M-STD, payer: M, name: Standard}]
documents:
  - id: M-RX-7
    payer: M
    kind: medical_policy
    title: Biologics for severe asthma
    versions:
      - version: "2025"
        effective_start: 2025-01-01
        effective_end: null
        clauses:
          - {id: M-RX-7.2025.C1, section: Initial authorization, article: "1 Initial authorization",
             text: "An asthma biologic is authorized for six (6) months for a member who has symptoms on at least four (4) days per week, who has used a high-dose inhaled corticosteroid for at least twelve (12) weeks, and who had two (2) or more exacerbations needing oral steroids in the last year."}
          - {id: M-RX-7.2025.C2, section: Renewal, article: "2 Renewal",
             text: "Renewal is authorized for twelve (12) months when exacerbations needing oral steroids have decreased by at least 50% from the year before the biologic."}
"""


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Engine:
    return engine_over(CORPUS, tmp_path_factory.mktemp("measured"))


def _ask(engine: Engine, question: str) -> dict[str, Any]:
    return ask(engine, "M", "M-STD", question)


def _values(text: str) -> dict[str, Any]:
    return {v.value: v for v in stated_values(text)}


def test_a_span_answers_in_the_unit_asked_or_a_whole_multiple_of_it() -> None:
    found = _values("Approve for 12 months after at least eight (8) weeks of therapy.")
    assert asked_unit("How many days must therapy have lasted?") == "day"
    assert in_unit_asked(found["8 weeks"], "day")  # 56 days
    assert not in_unit_asked(found["12 months"], "day")  # no whole number of days: a person converts it
    assert in_unit_asked(found["12 months"], "month")
    assert asked_unit("What is the approval period?") is None


def test_a_change_is_read_as_one_written_before_or_after_its_figure() -> None:
    assert is_change(_values("Renew when attacks have decreased by at least 50% from baseline.")["50%"])
    assert is_change(_values("a reduction in pain of at least 60 percent on the diary")["60%"])
    assert is_change(_values("with a 30% drop in airflow from baseline")["30%"])
    assert not is_change(_values("The plan pays 80% of the allowed amount.")["80%"])


def test_a_count_of_days_per_week_does_not_answer_how_long_a_drug_was_used(engine: Engine) -> None:
    r = _ask(engine, "How many days must the member have used a high-dose inhaled corticosteroid?")
    assert "4 days" not in released(r)
    assert released(r) in ([], ["12 weeks"])


def test_an_approval_period_is_no_count_of_months_of_another_thing(engine: Engine) -> None:
    r = _ask(engine, "How many months of inhaled corticosteroid use are required before an asthma biologic?")
    assert not {"6 months", "12 months"} & set(released(r))


def test_a_span_in_another_unit_is_not_released_for_days(engine: Engine) -> None:
    r = _ask(engine, "Asthma biologic renewal: how many days is it authorized for?")
    assert "12 months" not in released(r)


def test_days_of_another_thing_do_not_answer(engine: Engine) -> None:
    r = _ask(engine, "How many days on oral steroids per week does an asthma biologic need?")
    assert "4 days" not in released(r)
    r = _ask(engine, "How many days per week with symptoms are needed for an asthma biologic?")
    assert released(r) in ([], ["4 days"])


def test_a_change_answers_only_a_part_about_a_change(engine: Engine) -> None:
    r = _ask(engine, "What percentage of the asthma biologic's cost does the plan pay at renewal?")
    assert "50%" not in released(r)
    r = _ask(engine, "By how much must exacerbations fall for an asthma biologic renewal?")
    assert "12 months" not in released(r)


RIDER_CORPUS = """
format: clauseguard.corpus/v1
payers: [{id: R, name: Payer R}]
plans: [{id: R-PLUS, payer: R, name: Plus, riders: [R-RID-1]}]
documents:
  - id: R-MP-3
    payer: R
    kind: medical_policy
    title: Home nebulizer supplies
    versions:
      - version: "2025"
        effective_start: 2025-01-01
        effective_end: null
        clauses:
          - {id: R-MP-3.2025.C1, section: Limits, article: "1 Supply limits",
             text: "Nebulizer supplies are limited to two (2) medication cups per month and one (1) filter kit per three (3) months."}
  - id: R-RID-1
    payer: R
    kind: rider
    title: Plus respiratory rider
    overrides: [R-MP-3]
    versions:
      - version: "2025"
        effective_start: 2025-01-01
        effective_end: null
        clauses:
          - {id: R-RID-1.2025.A1, section: Rider, article: "1 Medication cups",
             text: "For Plus members, up to four (4) nebulizer medication cups per month are covered instead of two (2). The filter kit allowance is not changed by this rider."}
"""


def test_a_rider_that_says_it_leaves_a_limit_unchanged_does_not_answer_for_it(tmp_path) -> None:  # type: ignore[no-untyped-def]
    engine = engine_over(RIDER_CORPUS, tmp_path)
    for question in ("Plus member on a home nebulizer - filter kits per month?", "Nebulizer filter kits for a Plus member: limit?"):
        assert not {"4 cups", "2 cups"} & set(released(ask(engine, "R", "R-PLUS", question)))
    r = ask(engine, "R", "R-PLUS", "Plus member: nebulizer medication cups per month?")
    assert released(r) in ([], ["4 cups"])
