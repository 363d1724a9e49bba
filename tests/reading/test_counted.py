"""A count answers "how many X" only when it counts X (or a word of X's kind): a stated count of other
things is no answer, whatever else in its sentence the question names."""

from __future__ import annotations

import pytest

from clauseguard.reading.counted import counted_thing
from clauseguard.reading.extract import Asking, quantity_asked, read_passage

QUANTITY_LIMITS = ("Approvals are limited to: induction, 100 mg at Week 0 and Week 4; maintenance, 100 mg every "
                   "8 weeks (100 billing units per 56 days).")
STEP = "Patient has tried at least two different nonsteroidal anti-inflammatory drugs (NSAIDs), each for 2 weeks."
AGENT = "The patient has tried at least one traditional systemic agent for at least 3 months."


def ask(label: str) -> Asking:
    return Asking(asked=quantity_asked(label, None), asks_quantity=True, terms=(), words=label, question=label)


@pytest.mark.parametrize(("label", "thing"), [
    ("How many billing units of J1628 are allowed per infusion?", "unit"),
    ("How many TNF inhibitors must be tried first?", "inhibitor"),
    ("number of NSAIDs required", "nsaid"),
    ("How many of the listed warning signs must the member show?", "sign"),  # the thing after "of the listed"
    ("how many of these criteria must be met", "criteria"),
    ("my sessions have run out - how many does the scheme pay for in a year?", None),  # nothing named
    ("How many times a year is it paid?", None),  # occasions: a frequency
    ("Is physiotherapy covered?", None),
])
def test_the_thing_a_part_counts(label: str, thing: str | None) -> None:
    assert counted_thing(label) == thing


def test_a_count_of_other_things_does_not_answer() -> None:
    reading = read_passage(QUANTITY_LIMITS, ask("How many injections are allowed during induction?"))
    assert reading.value is None and not reading.settled
    assert read_passage(QUANTITY_LIMITS, ask("How many billing units are allowed per 56 days?")).value == "100 units"


def test_a_count_names_its_thing_by_its_abbreviation_or_its_kind() -> None:
    assert read_passage(STEP, ask("How many NSAIDs must be tried?")).value == "2 drugs"
    assert read_passage(AGENT, ask("how many conventional systemic drugs have to fail?")).value == "1 agent"


@pytest.mark.parametrize(("label", "thing"), [
    ("How many Aimovig 70 mg autoinjectors are allowed per 28 days?", "autoinjector"),  # a strength inside
    ("How many sterile catheter kits (A4353) per month are covered?", "kit"),  # a code inside
    ("How many psychotherapy sessions a year are reimbursed?", "session"),  # "a year" is the window
])
def test_a_strength_a_code_or_a_window_is_not_the_thing_counted(label: str, thing: str) -> None:
    assert counted_thing(label) == thing


def test_a_test_is_counted_by_its_studies() -> None:
    text = "Up to two (2) home sleep studies are covered in any 12-month period."
    assert read_passage(text, ask("How many home sleep apnea tests are covered per 12 months?")).value == "2 studies"

