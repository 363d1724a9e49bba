"""The status of a step a policy asks the record to show (training, an evaluation, attempts to adjust a
treatment): counted changes read from how notes count them, and the forms that leave a step open —
"to be completed", a hedged form answer, a question answered "Unknown", a writer who cannot confirm it.
Sentences are in the styles of the two blind dev phrasebooks (evals/notes/dev/phrasebook-step-status.yaml,
phrasebook-cgm-documentation.yaml), reworded."""

from __future__ import annotations

from pathlib import Path

import pytest

from clauseguard.evals.note_phrasebook import counts, judge_phrasebook, load_phrasebook
from clauseguard.reading.facts import ConditionFact, TherapyFact, read_facts

ATTEMPTS = "more than one attempt to adjust medication or the treatment plan"
ROOT = Path(__file__).resolve().parents[2]


def _concept(narrative: str, concept: str) -> list[ConditionFact]:
    return [f for f in read_facts(narrative).facts if isinstance(f, ConditionFact) and f.concept == concept]


def _gaps(narrative: str) -> set[str]:
    return {g.item for g in read_facts(narrative).gaps}


@pytest.mark.parametrize("narrative", [
    "A: lows persist although her glipizide has been reduced twice since spring.",  # SOAP assessment
    "Over the past year we have titrated his insulin down on three occasions.",  # referral letter
    "Despite multiple attempts to adjust her basal insulin, lows continue.",  # letter
    "Pt has had two dose reductions of glargine.",  # handler shorthand
    "Regimen changed twice since 1/2024.",  # form answer
])
def test_changes_counted_more_than_once_state_the_attempts(narrative: str) -> None:
    [fact] = _concept(narrative, ATTEMPTS)
    assert fact.status == "present"


@pytest.mark.parametrize("narrative", [
    "BG dropped below 54 twice this week.",  # a reading, not a treatment
    "Sensor changed twice before the rash settled.",  # a device, not a dose
    "Insulin reduced and BG checked twice daily.",  # the count belongs to another statement
    "Glipizide was reduced last month.",  # one change says nothing of a second
])
def test_a_count_that_is_not_of_changes_to_a_treatment_states_nothing(narrative: str) -> None:
    assert _concept(narrative, ATTEMPTS) == []


def test_planned_changes_are_not_attempts_made() -> None:
    facts = _concept("Plan: will reduce glipizide twice more if lows recur.", ATTEMPTS)
    assert all(f.status != "present" for f in facts)


def test_a_wording_keeps_the_therapy_inside_it() -> None:
    facts = read_facts("We have adjusted his methotrexate three times this year.").facts
    assert any(isinstance(f, TherapyFact) and f.therapy == "methotrexate" for f in facts)
    assert any(isinstance(f, ConditionFact) and f.concept == ATTEMPTS for f in facts)


@pytest.mark.parametrize("narrative", [
    "I cannot confirm whether she received device teaching before the pump was started.",
    "I am unable to confirm whether he was trained on the meter at the pharmacy.",
    "There is no record that she was trained on the pump.",
    "We do not know if she was trained on the sensor.",
    "It is not documented that device training occurred.",
])
def test_a_writer_who_cannot_vouch_for_a_step_leaves_it_undocumented(narrative: str) -> None:
    assert all(f.status != "present" for f in _concept(narrative, "device training"))
    assert all(f.status != "absent" for f in _concept(narrative, "device training"))  # never a failed step
    assert "device training" in _gaps(narrative)


@pytest.mark.parametrize("narrative", [
    "Device training: to be completed by the supplier at delivery.",
    "Pump training: sched 7/10.",
    "Sensor training - to be arranged after approval.",
])
def test_a_step_still_to_come_is_not_done(narrative: str) -> None:
    facts = _concept(narrative, "device training")
    assert facts and all(f.status == "unknown" for f in facts)


@pytest.mark.parametrize("narrative", [
    "Psych evaluation: probably done at an outside program.",
    "Device training - possibly provided by the supplier.",
])
def test_a_hedged_form_answer_leaves_the_step_open(narrative: str) -> None:
    facts = [f for f in read_facts(narrative).facts if isinstance(f, ConditionFact)]
    assert facts and all(f.status == "unknown" or f.certainty == "suspected" for f in facts)


@pytest.mark.parametrize(("narrative", "status"), [
    ("Has member been trained on device? Unknown.", None),
    ("Oral steroids tried? Unclear.", None),
    ("Prior PT? No.", "absent"),
])
def test_a_question_answered_at_once_takes_its_answer(narrative: str, status: str | None) -> None:
    facts = read_facts(narrative).facts
    if status is None:
        assert not any(f.status == "present" for f in facts)  # left open, never done
    else:
        assert facts and all(f.status == status for f in facts)


def test_a_denied_dose_change_is_no_denial_of_the_drug() -> None:
    facts = read_facts("Tried duloxetine for 3 months. No dose adjustment of duloxetine attempted.").facts
    assert all(f.status == "present" for f in facts if isinstance(f, TherapyFact) and f.therapy == "duloxetine")


def test_a_denied_change_of_a_state_still_denies_it() -> None:
    """Only a dose's own words make a denied change no denial: a change can itself be the thing denied (a
    change in a member's status), so no pseudo-cue may be a bare "no change(s) in / to"."""
    from clauseguard.reading.facts.rules import default_rules

    pseudo = {c.literal for c in default_rules().cues if c.category == "PSEUDO" and c.literal}
    assert not {p for p in pseudo if p.split()[:2] in (["no", "change"], ["no", "changes"])}
    assert {"no dose change", "no dose adjustment of"} <= pseudo


@pytest.mark.parametrize("name", ["phrasebook-step-status.yaml", "phrasebook-cgm-documentation.yaml"])
def test_the_dev_step_phrasebooks_read_no_step_as_done_that_is_not(name: str) -> None:
    """The blind dev phrasebooks' documentation facts: a step the note leaves open (planned, hedged,
    unverifiable, denied) is never read as done. Other wrong reads are counted in the README."""
    entries = load_phrasebook(ROOT / "evals" / "notes" / "dev" / name)
    verdicts = judge_phrasebook(entries)
    opened = [v for v in verdicts if v.verdict == "wrong" and v.fact["type"] == "documentation"
              and v.fact["status"] in ("planned", "possible", "not_documented", "negated") and "affirmed" in v.why]
    assert opened == []
    assert counts(verdicts)["exact"] > 0


@pytest.mark.parametrize(("narrative", "status"), [
    ("CPAP teaching - completed 11/2023 by the DME therapist.", "present"),  # PA form
    ("Mr. K is competent with his glucometer and checks four times daily.", "present"),  # letter
    ("He was taught to insert and calibrate the sensor at the clinic.", "present"),  # SOAP
    ("Pt did a return demo of sensor insertion today.", "present"),  # shorthand
    ("Training: patient declined CGM teaching today.", "absent"),  # declined: not had
    ("He has not yet received instruction on the device.", "absent"),  # not yet given
    # a step named as a task under a plan is still to come
    ("Plan: Dexcom G7 ordered; CGM teaching with the diabetes educator scheduled for 4/22.", "unknown"),
    ("Plan: CPAP mask fitting and teaching with the DME supplier.", "unknown"),
    # one the plan's own words say was done is done
    ("P: Rx meter and strips. Trained by the diabetes educator, demonstrates correct technique.", "present"),
])
def test_teaching_on_a_device_takes_the_status_its_words_give(narrative: str, status: str) -> None:
    facts = _concept(narrative, "device training")
    assert facts and all(f.status == status for f in facts)


def test_a_dosing_schedule_is_no_plan() -> None:
    facts = read_facts("Meds: oxycodone 5 mg q6h PRN, acetaminophen 1 g q8h scheduled.").facts
    assert all(f.status == "present" for f in facts if isinstance(f, TherapyFact))


def test_device_training_is_the_training_a_clause_names() -> None:
    from clauseguard.reading.lexicon import default_lexicon

    assert default_lexicon().is_a("device training", "training")


@pytest.mark.parametrize("narrative", [
    "Medications: Glimepiride 4 mg daily - stopped 2/2024 for lows. Lantus then cut from 28 u to 20 u qHS.",
    "In March we discontinued glyburide and, when the lows continued, reduced her Tresiba.",
    "glipizide d/c'd then Levemir decreased",
])
def test_two_drugs_changed_one_by_one_are_more_than_one_attempt(narrative: str) -> None:
    [fact] = _concept(narrative, ATTEMPTS)
    assert fact.status == "present"


@pytest.mark.parametrize("narrative", [
    "Glipizide was stopped. Since glipizide was stopped, lows persist.",  # one drug, told twice
    "Will stop glipizide and reduce Lantus.",  # planned
    "Metformin 1000 mg BID. Glipizide 5 mg daily.",  # no change
    "Her husband's metformin was stopped and his glipizide reduced.",  # someone else's
])
def test_changes_that_are_not_two_made_count_nothing(narrative: str) -> None:
    assert all(f.status != "present" for f in _concept(narrative, ATTEMPTS))


def test_a_wording_for_a_concept_no_lexicon_defines_is_refused_by_name() -> None:
    from clauseguard.reading.facts.pipeline import Pipeline
    from clauseguard.reading.facts.rules import Rules, RulesError, default_rules
    from clauseguard.reading.lexicon import default_lexicon

    files = dict(default_rules().files)
    files["wordings.yaml"] = b"version: 1\npatterns:\n  no such concept:\n    - [{LOWER: twice}]\n"
    with pytest.raises(RulesError, match="wordings.yaml.*no such concept.*no lexicon file defines"):
        Pipeline(default_lexicon(), Rules(files))
