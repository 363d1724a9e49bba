"""Visual acuity graded as visual impairment (cues.yaml `visual_acuity`, the WHO bands of the better eye),
and the impairments a special-feature glucose meter can require, named in their common wordings."""

from __future__ import annotations

import pytest

from clauseguard.corpus.criteria import criteria_from_json
from clauseguard.reading.evaluate import evaluate
from clauseguard.reading.facts import ConditionFact, read_facts, vocabulary_of


def _grades(narrative: str) -> list[tuple[str, ...]]:
    facts = read_facts(narrative)
    return [f.severity for f in facts.facts if isinstance(f, ConditionFact) and f.concept == "visual impairment"]


@pytest.mark.parametrize(("narrative", "grades"), [
    ("O: BCVA 20/400 OD, 20/300 OS.", [("severe",)]),  # the better eye, 20/300, is worse than 20/200
    ("Best corrected acuity 20/70 right and 20/80 left per ophthalmology.", [("moderate",)]),
    ("BCVA 6/60 and 6/36.", [("moderate",)]),  # metric Snellen: the better eye is 6/36
    ("Vision 20/30 both eyes.", []),  # no impairment
    ("VA 20/200 OU.", []),  # on the edge between two bands: graded as neither
    ("VA 20/400 OD.", []),  # one eye says nothing of the better one
    ("Her mother has VA 20/400 OU.", []),  # a relative's eyes
])
def test_the_better_eye_s_acuity_grades_the_impairment(narrative: str, grades: list[tuple[str, ...]]) -> None:
    assert _grades(narrative) == grades


SEVERE_VISION = "The beneficiary has a severe visual impairment."


@pytest.mark.parametrize(("narrative", "expected"), [
    ("BCVA 20/400 OD, 20/300 OS.", "met"),
    ("Bilateral cataracts: best corrected acuity 20/70 right and 20/80 left.", "not_met"),
    ("She is legally blind.", "unknown"),  # no severity is implied by the word
    ("Severe impairment of vision from retinopathy.", "met"),
])
def test_a_severe_visual_impairment_criterion_reads_acuity_and_words(narrative: str, expected: str) -> None:
    criteria = criteria_from_json({"rules": [{"effect": "covered", "span": SEVERE_VISION, "when": {
        "kind": "condition", "span": SEVERE_VISION, "concept": "visual impairment", "severity": ["severe"]}}]},
        SEVERE_VISION)
    facts = read_facts(narrative, vocabulary=vocabulary_of([criteria]))
    [result] = evaluate(criteria, facts).atoms
    assert result.status == expected


@pytest.mark.parametrize("narrative", [
    "Severe impairment of manual dexterity from rheumatoid arthritis.",
    "Poor manual dexterity after a stroke.",
    "Impaired dexterity in both hands.",
])
def test_a_manual_dexterity_impairment_is_read_in_its_common_wordings(narrative: str) -> None:
    facts = read_facts(narrative)
    assert [f.status for f in facts.facts if isinstance(f, ConditionFact)
            and f.concept == "manual dexterity impairment"] == ["present"]
