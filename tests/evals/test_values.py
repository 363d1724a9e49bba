"""The expected-values judge: two wordings of one value agree, different values never do, and a
part answered with action none whose value contradicts the case is a wrong_answer_released."""

from __future__ import annotations

import pytest

from clauseguard.evals.values import judge_values, same_value


@pytest.mark.parametrize(("stated", "expected"), [
    ("EUR 1,500", "€1,500"), ("GBP 600", "600 pounds"), ("12 months", "1 year"), ("30 visits", "30 visits"),
    ("30 nights", "30 nights per year"), ("10%", "10.0%"), ("no", "No"), ("yes", "yes"), ("2 arrays", "2 arrays"),
    # a count in a window of time is a count: its window counts only when both sides give one
    ("100 billing units per 28 days", "100 billing units"), ("3 sessions per week", "3 sessions every 7 days"),
])
def test_two_wordings_of_one_value_agree(stated: str, expected: str) -> None:
    assert same_value(stated, expected)


@pytest.mark.parametrize(("stated", "expected"), [
    ("EUR 1,500", "EUR 1,000"), ("EUR 150", "GBP 150"), ("70%", "80%"), ("6 months", "6 weeks"),
    ("30 days", "1 month"), ("20 visits", "30 visits"), ("yes", "no"), ("12 sessions", "12 months"), (None, "yes"),
    # read as the duration "28 days", these had agreed; and a count is not its own window
    ("50 units per 28 days", "100 units per 28 days"), ("100 units per 56 days", "100 units per 28 days"),
    ("28 days", "100 billing units per 28 days"),
])
def test_different_values_never_agree(stated: str | None, expected: str) -> None:
    assert not same_value(stated, expected)


def parts(*rows: tuple[str, str, str | None]) -> list[dict[str, object]]:
    return [{"part": p, "status": s, **({"value": {"value": v}} if v is not None else {})} for p, s, v in rows]


def test_each_expected_value_is_judged_against_the_part_it_names() -> None:
    found = judge_values({"annual cap": "EUR 1,500", "waiting period": "6 months"},
                         parts(("annual cap", "answered", "EUR 1,000"), ("waiting period", "answered", "6 months")))
    assert [(j.part, j.matches, j.stated) for j in found] == [("annual cap", False, "EUR 1,000"),
                                                              ("waiting period", True, "6 months")]


def test_a_star_names_the_only_part_and_an_unsettled_part_states_nothing() -> None:
    (star,) = judge_values({"*": "no"}, parts(("Is IVF covered", "answered", "no")))
    assert star.matches
    (missing,) = judge_values({"*": "30 visits"}, parts(("how many visits", "unsettled", None)))
    assert not missing.answered and missing.stated is None and not missing.matches


def test_a_released_wrong_value_is_categorised_in_structural_words_only() -> None:
    from clauseguard.evals.cases import SearchCase
    from clauseguard.evals.runner import SearchRun
    from clauseguard.evals.scorecard import score_search

    case = SearchCase(case_id="c1", trap="", request={}, expected_status="answered", expected_applicable_version="v1",
                      must_include_clause_ids=("D.v1.C1",), must_exclude_clause_ids=(), expected_action="none",
                      expected_values={"*": "6 months"})
    response = {"status": "answered", "applicable_version": "v1", "action": "none",
                "sources": [{"clause_id": "D.v1.C2", "score": 0.9}],
                "parts": [{"part": "Secret words. How long is the approval", "status": "answered", "clause_id": "D.v1.C2",
                           "excerpt": "Approve for 12 months.",
                           "value": {"value": "12 months", "unit": "month", "period": None, "text": "Approve for 12 months."}}]}
    score = score_search(SearchRun(case, response, "answered", None, 0.0))
    assert score.wrong_answers_released == 1
    [kind] = score.released_kinds
    assert kind.startswith("duration expected, duration stated, other number; expected value not in the answering passage")
    assert "answered from another clause; an open question; one part; engine: aspect limit, asks duration" in kind
    assert "unit month, window no, condition no" in kind
    assert "Secret" not in kind and "Approve" not in kind  # never the case's or the corpus's text
