"""An event a note describes without naming it: a level 3 hypoglycaemic event from the low, the altered
state and the help another person gave (cues.yaml `described_events`)."""

from __future__ import annotations

import pytest

from clauseguard.reading.facts import ConditionFact, read_facts


def _level3(narrative: str) -> list[ConditionFact]:
    facts = read_facts(narrative)
    return [f for f in facts.facts if isinstance(f, ConditionFact) and f.concept == "level 3 hypoglycemia"]


@pytest.mark.parametrize("narrative", [
    # a SOAP line, a referral letter's sentence, a handler's shorthand
    "In 02/2024 her daughter found her unresponsive; EMS measured BG 38 mg/dL and gave IV dextrose.",
    "Last month she was found unresponsive by her daughter with a glucose of 38 mg/dL and needed paramedics "
    "to give intravenous dextrose.",
    "Hypo with confusion at home, glucagon given by EMS.",
    "Glucose 2.4 mmol/L, unconscious, ambulance called.",
])
def test_a_described_severe_low_is_a_level_3_event(narrative: str) -> None:
    [fact] = _level3(narrative)
    assert fact.status == "present" and fact.history and fact.span is not None


@pytest.mark.parametrize("narrative", [
    "She has never been found unresponsive or needed EMS for a low.",  # denied
    "Possible hypoglycemia with confusion; EMS called.",  # hedged
    "Her mother has type 1 diabetes and was once found unresponsive with a glucose of 30 mg/dL; EMS gave glucagon.",
    "Glucose 60 mg/dL, confused, EMS called.",  # no low: 60 mg/dL is above the level's limit
    "Confused after a fall; EMS called.",  # an altered state and help, but no low
    "Hypoglycemia 48 mg/dL, treated with juice.",  # a low without another person's help
])
def test_no_level_3_event_without_every_part_affirmed(narrative: str) -> None:
    assert _level3(narrative) == []


def test_a_relative_named_beside_the_low_leaves_it_unread() -> None:
    # who had the low, the member or the relative, is not read: the event stays unstated (safe), never the member's
    assert _level3("Hypo with confusion at home, wife gave glucagon.") == []
