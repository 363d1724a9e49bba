"""A form field whose label names a thing ("Insulin:") takes that thing's status from the field's answer,
never from the label alone (context.yaml `label_answer_negations`)."""

from __future__ import annotations

import pytest

from clauseguard.reading.facts import TherapyFact, read_facts


def _insulin(narrative: str) -> tuple[list[str], list[str]]:
    sheet = read_facts(narrative)
    statuses = [f.status for f in sheet.facts if isinstance(f, TherapyFact) and f.therapy == "insulin"]
    gaps = [g.item for g in sheet.gaps if g.item == "insulin"]
    return statuses, gaps


def test_an_answer_restating_the_label_carries_the_status() -> None:
    # a prior-authorization form and a SOAP template both restate the label in a sentence
    assert _insulin("Insulin: not currently treated with insulin.")[0] == ["absent"]
    assert _insulin("Diagnosis: E11.9.\nInsulin use: patient is not on insulin.\nPlan: strips.")[0] == ["absent"]


@pytest.mark.parametrize("narrative", [
    "Insulin: not currently treated.",
    "Insulin use: not applicable.",
    "Insulin:  no current use.",
])
def test_a_negated_answer_that_names_nothing_leaves_the_label_unread(narrative: str) -> None:
    statuses, gaps = _insulin(narrative)
    assert "present" not in statuses and "absent" not in statuses
    assert gaps == ["insulin"]


@pytest.mark.parametrize("narrative", ["Insulin: yes, glargine nightly.", "Insulin: none.", "Insulin: no."])
def test_answers_the_cues_read_keep_their_reading(narrative: str) -> None:
    statuses, _ = _insulin(narrative)
    assert statuses == (["present"] if "yes" in narrative else ["absent"])
