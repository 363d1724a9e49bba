"""A negated list ends where a clause about what the member does begins, even when that clause's first
word is the start of a mention; and a count written with "daily" inside the name is a count a day."""

from __future__ import annotations

import pytest

from clauseguard.reading.facts import MeasureFact, read_facts


def _measure(narrative: str, quantity: str) -> list[MeasureFact]:
    return [f for f in read_facts(narrative).facts if isinstance(f, MeasureFact) and f.quantity == quantity]


@pytest.mark.parametrize("narrative", [
    # a referral letter's sentence and a handler's shorthand
    "She is treated with insulin degludec, without mealtime insulin or an insulin pump, and checks her glucose "
    "four times a day.",
    "No insulin and checks her glucose four times a day.",
])
def test_a_negated_list_does_not_reach_a_new_clause(narrative: str) -> None:
    [fact] = _measure(narrative, "fingerstick tests")
    assert fact.status == "present" and fact.value == 4.0 and fact.per is not None and fact.per.unit == "day"


def test_the_list_still_reaches_its_own_items() -> None:
    [fact] = _measure("Does not check her glucose, and no CGM.", "fingerstick tests") or [None]
    assert fact is None or fact.status != "present"


@pytest.mark.parametrize(("narrative", "count"), [
    ("Treated with a single daily injection of insulin degludec.", 1.0),  # referral prose
    ("On 1 daily insulin injection.", 1.0),  # handler shorthand
    ("Two daily injections of insulin.", 2.0),  # SOAP line
])
def test_a_count_with_daily_inside_the_name_is_a_count_a_day(narrative: str, count: float) -> None:
    [fact] = _measure(narrative, "insulin injections")
    assert fact.value == count and fact.per is not None and fact.per.unit == "day" and fact.per.length == 1.0


@pytest.mark.parametrize("narrative", [
    # the number belongs to the diagnosis, the count to "multiple": no injection count is written
    "Type 1 diabetes on multiple daily injections for two years.",  # handler summary
    "Pt with DM type 2 on multiple daily insulin injections.",  # SOAP shorthand
    "Diabetes mellitus type 1, managed with multiple daily injections since 2019.",  # referral letter
])
def test_a_number_inside_another_name_is_no_count(narrative: str) -> None:
    assert all(f.value is None or f.status != "present" for f in _measure(narrative, "insulin injections"))


def test_the_count_nearest_the_name_is_read_past_a_number_in_a_diagnosis() -> None:
    [fact] = _measure("Member with type 2 diabetes takes three insulin injections a day.", "insulin injections")
    assert fact.value == 3.0 and fact.span.text.startswith("three")
