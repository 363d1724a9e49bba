"""The design's reading rules, one test each: strong Kleene logic, what unstated facts mean by role,
hedges, populations, severity ranges, documentation stated absent, waiver versus routing UNLESS,
code-narrative conflicts, and rider overrides."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from clauseguard.corpus.criteria import Criteria, criteria_from_json, iter_atoms
from clauseguard.corpus.loader import load_demo
from clauseguard.reading.amend import resolve_amendment
from clauseguard.reading.compiler import Refusal, compile_clause, criteria_for_clause
from clauseguard.reading.evaluate import (
    ClauseReading,
    Evaluation,
    Value,
    compare,
    decide,
    evaluate,
    k_and,
    k_not,
    k_or,
)
from clauseguard.reading.facts import read_facts, vocabulary_of
from clauseguard.reading.references import References


def compiled(text: str) -> Criteria:
    result = compile_clause(text)
    assert not isinstance(result, Refusal), result.message
    return result


def judge(clause: str | Criteria, narrative: str, dx: tuple[str, ...] = (), px: tuple[str, ...] = (),
          **kwargs: Any) -> Evaluation:
    criteria = compiled(clause) if isinstance(clause, str) else clause
    facts = read_facts(narrative, dx, px, vocabulary=vocabulary_of([criteria]))
    return evaluate(criteria, facts, **kwargs)


def atom(ev: Evaluation, label_part: str) -> Any:
    found = [a for a in ev.atoms if label_part in a.label]
    assert found, [a.label for a in ev.atoms]
    return found[0]


# --- Kleene ------------------------------------------------------------------------------------

VALUES: tuple[Value, ...] = ("met", "not_met", "unknown")


def test_strong_kleene_tables() -> None:
    for a, b in itertools.product(VALUES, VALUES):
        both = {a, b}
        assert k_and([a, b]) == ("not_met" if "not_met" in both else "unknown" if "unknown" in both else "met")
        assert k_or([a, b]) == ("met" if "met" in both else "unknown" if "unknown" in both else "not_met")
    assert [k_not(v) for v in VALUES] == ["not_met", "met", "unknown"]


@pytest.mark.parametrize(("fact", "value", "op", "threshold", "expected"), [
    ("==", 4, ">=", 4, "met"), ("==", 3, ">=", 4, "not_met"), (">=", 4, ">=", 3, "met"),
    (">=", 2, ">=", 3, "unknown"), (">=", 5, "<=", 4, "not_met"), ("==", 8.0, ">=", 8.0, "met"),
    ("==", 7.9, ">=", 8.0, "not_met"), ("==", 30, "<", 30, "not_met"), ("<", 5, "<=", 5, "met"),
])
def test_comparisons_over_what_a_fact_allows(fact: str, value: float, op: str, threshold: float, expected: str) -> None:
    assert compare(fact, value, op, threshold) == expected


# --- the design's rules ------------------------------------------------------------------------

PUMP = ("An insulin pump is considered medically necessary when the member has type 1 diabetes AND has an HbA1c "
        "above 7.0 percent AND performs at least four (4) blood glucose checks per day.")


def test_a_false_conjunct_decides_even_with_an_unknown_one() -> None:
    ev = judge(PUMP, "Type 1 diabetes. Two blood glucose checks per day.", ("E10.9",))
    assert ev.outcome == "not_covered"
    assert atom(ev, "hemoglobin a1c").status == "unknown"
    assert atom(ev, "fingerstick tests").status == "not_met"


def test_only_unknowns_leave_the_clause_undecided_naming_them() -> None:
    ev = judge(PUMP, "Type 1 diabetes. Referred for pump assessment.", ("E10.9",))
    assert ev.outcome == "undecided"
    assert ev.missing_facts == ("hemoglobin a1c", "fingerstick tests")
    assert atom(ev, "hemoglobin a1c").missing == "hemoglobin a1c"


def test_every_criterion_is_mapped_to_its_fact_and_span() -> None:
    narrative = "Type 1 diabetes. HbA1c 8.2 percent. Performs five blood glucose checks per day."
    ev = judge(PUMP, narrative, ("E10.9",))
    assert ev.outcome == "covered"
    for result in ev.atoms:
        assert result.status == "met"
        assert result.narrative_span is not None
        assert narrative[result.narrative_span.start:result.narrative_span.end] == result.narrative_span.text
        assert PUMP[result.clause_span.start:result.clause_span.end] == result.clause_span.text


COMORBID = ("Bariatric surgery is medically necessary when the member has a body mass index of 35 or higher "
            "together with one of the following: (1) type 2 diabetes; (2) hypertension; or (3) obstructive sleep apnea.")


def test_an_alternative_the_request_does_not_present_is_absent() -> None:
    ev = judge(COMORBID, "BMI 38. Type 2 diabetes on metformin.")
    assert ev.outcome == "covered"
    assert atom(ev, "hypertension").status == "not_met"
    assert atom(ev, "hypertension").role == "alternative"
    ev = judge(COMORBID, "BMI 38. No other conditions reported.")
    assert ev.outcome == "not_covered"


def test_an_unstated_requirement_is_unknown() -> None:
    ev = judge(COMORBID, "Type 2 diabetes on metformin.")
    assert ev.outcome == "undecided"
    assert ev.missing_facts == ("body mass index",)


EXCLUSION = "Knee arthroscopy is considered not medically necessary for osteoarthritis of the knee in the absence of mechanical symptoms."


def test_an_unstated_exception_is_absent() -> None:
    assert judge(EXCLUSION, "Osteoarthritis of the knee, pain on stairs.").outcome == "not_covered"
    assert judge(EXCLUSION, "Osteoarthritis of the knee with locking.").outcome == "not_applicable"
    assert judge(EXCLUSION, "Meniscal tear after a fall.").outcome == "not_applicable"


def test_a_hedged_fact_is_unknown() -> None:
    clause = "Biologic therapy is covered for members with a confirmed diagnosis of psoriatic arthritis."
    assert judge(clause, "Psoriatic arthritis confirmed by rheumatology.").outcome == "covered"
    ev = judge(clause, "Possible psoriatic arthritis, awaiting imaging.")
    assert ev.outcome == "undecided"
    assert "psoriatic arthritis" in ev.missing_facts[0]


def test_an_unhedged_stated_diagnosis_counts_as_confirmed() -> None:
    clause = "Biologic therapy is covered for members with a confirmed diagnosis of psoriatic arthritis."
    assert judge(clause, "Psoriatic arthritis.").outcome == "covered"
    assert judge(clause, "", ("L40.50",)).outcome == "covered"


RA = ("Tocilizumab is medically necessary when the member has a confirmed diagnosis of moderate to severe rheumatoid "
      "arthritis and has received methotrexate for a period of not less than 3 months.")


def test_a_severity_inside_the_range_counts() -> None:
    assert judge(RA, "Moderate rheumatoid arthritis. Methotrexate for 4 months.").outcome == "covered"
    assert judge(RA, "Severe rheumatoid arthritis. Methotrexate for 4 months.").outcome == "covered"


def test_a_severity_outside_the_range_takes_the_member_out_of_the_population() -> None:
    ev = judge(RA, "Mild rheumatoid arthritis. Methotrexate for 4 months.")
    assert ev.outcome == "not_applicable"


def test_an_unknown_population_cannot_decide_even_when_a_requirement_is_false() -> None:
    ev = judge(RA, "Rheumatoid arthritis, severity not yet characterised. No methotrexate so far.", ("M06.9",))
    assert ev.outcome == "undecided"
    assert ev.missing_facts == ("severity of rheumatoid arthritis",)
    assert atom(ev, "methotrexate").status == "not_met"


def test_a_suspicion_satisfies_a_requirement_that_is_itself_a_suspicion() -> None:
    clause = "Home sleep apnea testing is covered for members with suspected obstructive sleep apnea."
    assert judge(clause, "Suspected obstructive sleep apnea, loud snoring.").outcome == "covered"
    assert judge(clause, "Obstructive sleep apnea diagnosed last year.").outcome == "covered"
    strict = "Home sleep apnea testing is covered for members with a high pre-test probability of obstructive sleep apnea."
    assert judge(strict, "Possible obstructive sleep apnea.").outcome == "undecided"


def test_documentation_the_request_states_is_absent_is_false_not_unknown() -> None:
    clause = "Quantities in excess of 60 strips per 30-day period require additional documentation."
    ev = judge(clause, "Pharmacy billed 75 test strips for a 30-day period without additional documentation.")
    assert ev.outcome == "not_covered"
    ev = judge(clause, "Pharmacy billed 75 test strips for a 30-day period.")
    assert ev.outcome == "undecided"
    assert judge(clause, "Pharmacy billed 50 test strips for a 30-day period.").outcome == "not_applicable"


WAIVER = ("Lumbar decompression is medically necessary when the member has radiculopathy and has completed at least "
          "eight (8) weeks of conservative therapy, unless the member has cauda equina syndrome, in which case "
          "conservative therapy is not required.")
ROUTING = ("Home sleep apnea testing is covered for members with suspected obstructive sleep apnea, UNLESS the member "
           "has documented neuromuscular disease, in which case attended polysomnography is required.")


def test_a_waiver_lifts_only_the_requirement_it_names() -> None:
    ev = judge(WAIVER, "Radiculopathy with cauda equina syndrome. No conservative therapy.")
    assert ev.outcome == "covered"
    assert atom(ev, "conservative therapy").waived
    ev = judge(WAIVER, "No conservative therapy; progressive symptoms.")
    assert ev.outcome == "undecided" and ev.missing_facts == ("radiculopathy",)


def test_a_population_the_request_does_not_present_is_another_clause_s() -> None:
    """When the request presents its diagnoses and the rule's is not among them, the rule is for
    another population; with no diagnosis stated at all, the population is unknown."""
    assert judge(WAIVER, "Cauda equina syndrome. No conservative therapy.").outcome == "not_applicable"
    assert judge(RA, "Moderate Crohn's disease. Methotrexate for 4 months.").outcome == "not_applicable"
    assert judge(RA, "Methotrexate for 4 months.").outcome == "undecided"


def test_without_its_condition_a_waiver_changes_nothing() -> None:
    ev = judge(WAIVER, "Radiculopathy. Three weeks of physical therapy. No cauda equina syndrome.")
    assert ev.outcome == "not_covered"


def test_a_routing_exception_never_discharges_the_requirements() -> None:
    ev = judge(ROUTING, "Suspected obstructive sleep apnea. Documented neuromuscular disease.", px=("95806",))
    assert ev.outcome == "not_covered"
    assert ev.rules[0].routed_to == "attended polysomnography"
    assert judge(ROUTING, "Suspected obstructive sleep apnea.", px=("95806",)).outcome == "covered"


def test_the_routed_to_service_is_covered_when_the_exception_applies() -> None:
    ev = judge(ROUTING, "Suspected obstructive sleep apnea. Documented neuromuscular disease.", px=("95810",))
    assert ev.outcome == "covered"
    assert judge(ROUTING, "Suspected obstructive sleep apnea.", px=("95810",)).outcome == "not_applicable"


def test_a_rule_about_another_service_does_not_apply() -> None:
    assert judge(ROUTING, "Suspected obstructive sleep apnea.", px=("63030",)).outcome == "not_applicable"


def test_the_narrative_governs_a_conflicting_code() -> None:
    clause = "Continuous glucose monitoring is medically necessary for members with type 2 diabetes who are on an intensive insulin regimen."
    ev = judge(clause, "Type 1 diabetes on a basal-bolus regimen.", ("E11.9",))
    assert ev.outcome == "undecided"  # the codes and the narrative disagree on the population
    ev = judge(clause, "No diabetes. Multiple daily injections for cystic fibrosis related hyperglycemia.", ("E11.9",))
    assert ev.outcome == "not_applicable"


def test_withheld_and_designations_give_not_covered() -> None:
    assert judge("Miscellaneous durable medical equipment requires individual consideration.", "",
                 px=("E1399",)).outcome == "not_covered"
    clause = compiled("Services designated as experimental or investigational are excluded from coverage. "
                      "FFR-CT (0501T) is considered investigational.")
    assert judge(clause, "Stable chest pain.", px=("0501T",)).outcome == "not_covered"
    assert judge(clause, "Stable chest pain.", px=("70553",)).outcome == "not_applicable"


def test_counts_include_the_requested_service() -> None:
    clause = "Screening mammography is covered once per calendar year for members aged 40 years and older."
    assert judge(clause, "Aged 55. No screening in the past calendar year.", px=("77067",)).outcome == "covered"
    assert judge(clause, "Aged 55, already received a screening mammogram earlier this calendar year.",
                 px=("77067",)).outcome == "not_covered"
    assert judge(clause, "Aged 35. No screening in the past calendar year.", px=("77067",)).outcome == "not_covered"


def test_a_limit_over_a_longer_window_scales() -> None:
    clause = "Test strips are limited to four (4) strips per day."
    assert judge(clause, "Billed 150 strips for a 30-day period.").outcome == "not_covered"
    assert judge(clause, "Billed 100 strips for a 30-day period.").outcome == "covered"


def test_a_therapy_the_lexicon_does_not_know_is_unknown_not_false() -> None:
    ev = judge(RA, "Moderate rheumatoid arthritis. Six months of zorbalimab.")
    assert ev.outcome == "undecided"
    assert "zorbalimab" in ev.missing_facts[0]


def test_a_rider_waiver_leaves_the_other_requirements_standing() -> None:
    base = compiled(RA)
    rider = compiled("For members enrolled in the Silver plan, the methotrexate requirement described in policy "
                     "RX-220 is waived.")
    override = resolve_amendment(base, rider.amendments[0], rider_clause="RX-R1.C1")
    assert override is not None and len(override.atom_ids) == 1
    ev = judge(base, "Moderate rheumatoid arthritis. No methotrexate.", overrides=[override])
    assert ev.outcome == "covered"
    assert atom(ev, "methotrexate").waived and "RX-R1.C1" in atom(ev, "methotrexate").note
    ev = judge(base, "Mild rheumatoid arthritis. No methotrexate.", overrides=[override])
    assert ev.outcome == "not_applicable"


def test_a_rider_replacing_a_limit_is_judged_by_the_rider() -> None:
    base = compiled("Test strips are limited to one hundred (100) strips per month. Quantities in excess of "
                    "100 strips per 30-day period require additional documentation.")
    rider = compiled("For members on the Gold plan, the test strip limitation in policy DM-114 is increased to "
                     "allow up to 150 strips per 30-day period.")
    override = resolve_amendment(base, rider.amendments[0])
    assert override is not None
    narrative = "Billed 130 strips for a 30-day period with no additional documentation."
    assert judge(base, narrative).outcome == "not_covered"
    assert judge(base, narrative, overrides=[override]).outcome == "covered"


def test_policy_as_code_is_evaluated_like_compiled_prose() -> None:
    text = "Hearing aids are covered when the hearing threshold is 40 dB or greater."
    authored = criteria_from_json({"rules": [{
        "effect": "covered", "span": text[:-1],
        "when": {"kind": "measure", "span": "the hearing threshold is 40 dB or greater",
                 "quantity": "hearing threshold", "comparator": ">=", "value": 40, "unit": "dB"}}]}, text)
    assert judge(authored, "Hearing threshold 55 dB.").outcome == "covered"
    assert judge(authored, "Hearing threshold 30 dB.").outcome == "not_covered"


def test_decide_lets_an_exclusion_beat_criteria_and_names_unreadable_clauses() -> None:
    criteria = compiled("Brain MRI is medically necessary for headache with onset after age 50.")
    exclusion = compiled("Brain MRI is considered not medically necessary for tension-type headache.")
    refused = compile_clause("Brain MRI is covered when the radiologist agrees in writing.")
    assert isinstance(refused, Refusal)
    facts = read_facts("Tension-type headache, onset at age 62.", (), ("70553",))
    readings = [ClauseReading("P.C1", evaluate(criteria, facts)), ClauseReading("P.C2", evaluate(exclusion, facts))]
    decision = decide(readings, facts)
    assert (decision.outcome, decision.deciding) == ("not_covered", ("P.C2",))
    decision = decide([*readings, ClauseReading("P.C3", refused)], facts)
    assert decision.unreadable == ("P.C3",)
    other = compile_clause("Knee MRI is covered when the surgeon documents instability in writing.")
    assert isinstance(other, Refusal)
    assert decide([*readings, ClauseReading("P.C4", other)], facts).unreadable == ()


def test_decide_reads_criteria_clauses_as_alternative_paths() -> None:
    t1 = compiled("Continuous glucose monitoring is covered for members with type 1 diabetes.")
    t2 = compiled("Continuous glucose monitoring is covered for members with type 2 diabetes who are on an "
                  "intensive insulin regimen.")
    for narrative, expected in (("Type 2 diabetes on a basal-bolus regimen.", "covered"),
                                ("Type 2 diabetes on metformin alone. No insulin.", "not_covered"),
                                ("Type 2 diabetes.", "undecided"),
                                ("Cystic fibrosis.", "no_clause")):
        facts = read_facts(narrative, (), ("A9276",))
        readings = [ClauseReading("C1", evaluate(t1, facts)), ClauseReading("C2", evaluate(t2, facts))]
        assert decide(readings, facts).outcome == expected, narrative


GENERAL = ("Insulin pumps and their supplies are covered when the member (1) has diabetes and (2) completed a "
           "structured diabetes education course.")
NARROW = ("A tubeless patch pump is covered only when criteria (1) and (2) above are met and the member also has "
          "hypoglycemia unawareness.")


def _pump_trees() -> list[tuple[str, Criteria]]:
    general = criteria_from_json({"rules": [{"effect": "covered", "span": GENERAL,
        "subject": {"kind": "service", "span": "Insulin pumps and their supplies", "concept": "insulin pump",
                    "codes": ["E0784", "A9274"]},
        "when": {"kind": "all", "children": [
            {"kind": "condition", "span": "has diabetes", "concept": "diabetes mellitus", "mark": "1"},
            {"kind": "treatment", "span": "completed a structured diabetes education course",
             "therapy": "diabetes self-management education", "statuses": ["treated"], "mark": "2"}]}}]}, GENERAL)
    narrow = criteria_from_json({"rules": [{"effect": "covered", "span": NARROW,
        "subject": {"kind": "service", "span": "A tubeless patch pump", "concept": "tubeless patch pump",
                    "codes": ["A9274"]},
        "when": {"kind": "all", "children": [
            {"kind": "ref", "span": "criteria (1) and (2) above", "labels": ["1", "2"], "clause": "G"},
            {"kind": "condition", "span": "hypoglycemia unawareness", "concept": "hypoglycemia unawareness"}]}}]},
        NARROW)
    return [("G", general), ("N", narrow)]


@pytest.mark.parametrize(("code", "narrative", "expected"), [
    # the narrower clause restates the general one by reference and adds to it: for its own code the
    # general clause's "covered" is not the answer
    ("A9274", "Type 1 diabetes. Completed a structured diabetes education course.", "undecided"),
    ("A9274", "Type 1 diabetes. Completed a structured diabetes education course. Denies hypoglycemia unawareness.",
     "not_covered"),
    ("A9274", "Type 1 diabetes. Completed a structured diabetes education course. Hypoglycemia unawareness.",
     "covered"),
    # for a code only the general clause names, it decides as before
    ("E0784", "Type 1 diabetes. Completed a structured diabetes education course.", "covered"),
])
def test_a_clause_restated_by_a_narrower_one_does_not_cover_its_service_alone(code: str, narrative: str,
                                                                                expected: str) -> None:
    trees = _pump_trees()
    refs = References.of(trees)
    facts = read_facts(narrative, (), (code,), vocabulary=vocabulary_of([t for _, t in trees]))
    readings = [ClauseReading(cid, evaluate(t, facts, references=refs, here=cid)) for cid, t in trees]
    assert decide(readings, facts).outcome == expected


SENSOR = ("Sensors are covered for a member who (1) has diabetes and (2) is treated with insulin.")
SENSOR_LIMIT = ("Up to three sensor boxes every ninety days are allowed when criteria (1)-(2) above are met.")


def test_a_reference_carries_the_population_of_the_criteria_it_names() -> None:
    """A limit that restates another clause's criteria by reference decides only for that clause's
    population: hedged diabetes with insulin stated absent is a missing diagnosis, not a denial."""
    sensor = criteria_from_json({"rules": [{"effect": "covered", "span": SENSOR,
        "subject": {"kind": "service", "span": "Sensors", "concept": "continuous glucose monitoring", "codes": ["A9276"]},
        "population": {"kind": "condition", "span": "has diabetes", "concept": "diabetes mellitus", "mark": "1"},
        "when": {"kind": "treatment", "span": "is treated with insulin", "therapy": "insulin", "statuses": ["treated"],
                 "mark": "2"}}]}, SENSOR)
    limit = criteria_from_json({"rules": [{"effect": "limit", "span": SENSOR_LIMIT,
        "subject": {"kind": "service", "span": "sensor boxes", "concept": "continuous glucose monitoring",
                    "codes": ["A9276"]},
        "trigger": {"kind": "service", "span": "sensor boxes", "concept": "continuous glucose monitoring",
                    "codes": ["A9276"]},
        "when": {"kind": "all", "children": [
            {"kind": "count", "span": "Up to three sensor boxes every ninety days", "item": "sensor boxes",
             "comparator": "<=", "value": 3, "per": {"length": 90, "unit": "day"}},
            {"kind": "ref", "span": "criteria (1)-(2) above", "labels": ["1", "2"], "clause": "S"}]}}]}, SENSOR_LIMIT)
    trees = [("S", sensor), ("L", limit)]
    refs = References.of(trees)
    facts = read_facts("Possible diabetes, awaiting a repeat A1c to confirm. Never on insulin.", (), ("A9276",),
                       vocabulary=vocabulary_of([t for _, t in trees]))
    readings = [ClauseReading(cid, evaluate(t, facts, references=refs, here=cid)) for cid, t in trees]
    assert decide(readings, facts).outcome == "undecided"


LANCET_LIMIT = "Up to one hundred lancets every quarter (three months) are covered."
LANCET_BEYOND = ("More than one hundred lancets every three months are covered only when the prescriber documents a "
                 "visit within the last six months that found the extra testing needed.")


def _lancet_trees() -> list[tuple[str, Criteria]]:
    subject = {"kind": "service", "span": "lancets", "concept": "lancets", "codes": ["A4259"]}
    limit = criteria_from_json({"rules": [{"effect": "limit", "span": LANCET_LIMIT, "subject": subject,
        "trigger": subject, "when": {"kind": "count", "span": "Up to one hundred lancets every quarter (three months)",
                                     "item": "lancets", "comparator": "<=", "value": 100,
                                     "per": {"length": 3, "unit": "month"}}}]}, LANCET_LIMIT)
    beyond = criteria_from_json({"rules": [{"effect": "covered", "span": LANCET_BEYOND,
        "subject": {**subject, "span": "lancets"},
        "trigger": {"kind": "count", "span": "More than one hundred lancets every three months", "item": "lancets",
                    "comparator": ">", "value": 100, "per": {"length": 3, "unit": "month"}},
        "when": {"kind": "event", "span": "a visit within the last six months that found the extra testing needed",
                 "item": "visit", "within": {"length": 6, "unit": "month"}}}]}, LANCET_BEYOND)
    return [("L", limit), ("B", beyond)]


@pytest.mark.parametrize(("narrative", "expected"), [
    # "per 90 days" is the policy's "every three months"; a second amount shares the period written after it
    ("Rx: test four times a day, #400 strips and #400 lancets per 90 days.", "undecided"),
    ("Rx: #400 lancets per 90 days. Office visit two months ago found the extra testing needed.", "covered"),
    ("Rx: #400 lancets per 90 days. Office visit eleven months ago; none since.", "not_covered"),
    ("Rx: #100 strips and #100 lancets per 90 days.", "covered"),
])
def test_the_conditions_for_exceeding_a_limit_decide_a_request_beyond_it(narrative: str, expected: str) -> None:
    trees = _lancet_trees()
    refs = References.of(trees)
    facts = read_facts(narrative, (), ("A4259",), vocabulary=vocabulary_of([t for _, t in trees]))
    readings = [ClauseReading(cid, evaluate(t, facts, references=refs, here=cid)) for cid, t in trees]
    assert decide(readings, facts, quantity_question=True).outcome == expected


def test_an_allowance_from_a_lower_count_never_lifts_a_higher_cap() -> None:
    """"Visits beyond ten need a progress note" speaks of visits eleven to twenty; it never covers the
    twenty-sixth against a cap of twenty."""
    cap_text = "Physiotherapy is limited to twenty visits per calendar year."
    more_text = "Visits beyond the tenth in a calendar year are covered when a current progress note shows gains."
    subject = {"kind": "service", "span": "Physiotherapy", "concept": "physical therapy", "codes": ["97110"]}
    cap = criteria_from_json({"rules": [{"effect": "limit", "span": cap_text, "subject": subject, "trigger": subject,
        "when": {"kind": "count", "span": "twenty visits per calendar year", "item": "visit", "comparator": "<=",
                 "value": 20, "per": {"length": 1, "unit": "calendar_year"}}}]}, cap_text)
    more = criteria_from_json({"rules": [{"effect": "covered", "span": more_text,
        "subject": {**subject, "span": "Visits"},
        "trigger": {"kind": "count", "span": "Visits beyond the tenth in a calendar year", "item": "visit",
                    "comparator": ">", "value": 10, "per": {"length": 1, "unit": "calendar_year"}},
        "when": {"kind": "documentation", "span": "a current progress note shows gains", "item": "progress note"}}]},
        more_text)
    trees = [("CAP", cap), ("MORE", more)]
    refs = References.of(trees)
    facts = read_facts("25 visits used this calendar year; the latest progress note shows measurable gains.", (),
                       ("97110",), vocabulary=vocabulary_of([t for _, t in trees]))
    readings = [ClauseReading(cid, evaluate(t, facts, references=refs, here=cid)) for cid, t in trees]
    assert decide(readings, facts, quantity_question=True).outcome == "not_covered"


def test_a_supply_is_counted_under_the_name_the_criteria_give_it() -> None:
    text = "Up to three hundred test strips every three months are covered."
    criteria = criteria_from_json({"rules": [{"effect": "covered", "span": text, "when": {
        "kind": "count", "span": "Up to three hundred test strips every three months", "item": "test strips",
        "comparator": "<=", "value": 300, "per": {"length": 3, "unit": "month"}}}]}, text)
    assert judge(criteria, "Qty: 250 strips / 3 months, checks three times a day.").outcome == "covered"
    assert judge(criteria, "Qty: 450 strips / 3 months, checks five times a day.").outcome == "not_covered"


def test_a_limit_with_no_stated_amount_is_left_to_billing_on_a_coverage_question() -> None:
    trees = _lancet_trees()
    refs = References.of(trees)
    facts = read_facts("Type 2 diabetes. Meter and lancets prescribed.", (), ("A4259",),
                       vocabulary=vocabulary_of([t for _, t in trees]))
    readings = [ClauseReading(cid, evaluate(t, facts, references=refs, here=cid)) for cid, t in trees]
    # the coverage question: no limit decides it (no other clause does either, here)
    assert decide(readings, facts).outcome == "no_clause"
    # a quantity question, or one that names a figure, still asks for the amount
    assert decide(readings, facts, quantity_question=True).outcome == "undecided"
    assert decide(readings, facts, amount_asked=True).outcome == "undecided"


def test_evaluation_is_deterministic() -> None:
    narrative = "Type 1 diabetes. HbA1c 8.2 percent. Performs five blood glucose checks per day."
    assert judge(PUMP, narrative, ("E10.9",)) == judge(PUMP, narrative, ("E10.9",))


# --- group terms, riders for a population, refusals about another population -----------------


def test_a_waiting_period_excludes_only_while_the_member_is_within_it() -> None:
    clause = "Benefits for dentures become payable only after a waiting period of six (6) months from joining the contract."
    early = judge(clause, "Joined the group scheme four months ago; needs a denture.", px=("D5110",))
    later = judge(clause, "Insured under the group contract for two years; needs a denture.", px=("D5110",))
    silent = judge(clause, "Needs a denture.", px=("D5110",))
    assert (early.outcome, later.outcome, silent.outcome) == ("not_covered", "not_applicable", "not_applicable")


def test_a_frequency_allowance_is_a_limit_not_a_coverage_criterion() -> None:
    from clauseguard.reading.evaluate import rule_role

    allowance, earlier = compiled("One insulin pump is covered per member every four (4) years. Earlier replacement "
                                  "is covered only when the pump is out of warranty and cannot be repaired.").rules
    assert rule_role(allowance) == rule_role(earlier) == "limit"
    # a first pump: the early-replacement rule's occasion does not arise
    ev = judge(Criteria(rules=(earlier,)), "Type 1 diabetes, first pump.", px=("E0784",))
    assert ev.outcome == "not_applicable"


def test_a_rider_for_one_population_reaches_only_that_population_s_rule() -> None:
    base = compiled("For members with type 1 diabetes, an insulin pump is covered when the member has used multiple "
                    "daily injections for at least three (3) months. For members with type 2 diabetes, an insulin "
                    "pump is covered when the member has used multiple daily injections for at least six (6) months.")
    rider = compiled("Under the Gold plan, a member with type 1 diabetes mellitus does not need the three months of "
                     "multiple daily injections that policy DM-100 requires before an insulin pump; that one "
                     "requirement is waived.")
    found = resolve_amendment(base, rider.amendments[0])
    assert found is not None
    first_rule_atoms = {a.id for a in iter_atoms(base.rules[0].when)}
    assert set(found.atom_ids) <= first_rule_atoms


def test_waiving_a_course_waives_the_details_written_inside_it() -> None:
    clause = ("An insulin pump is covered when the member has used multiple daily insulin injections, three or more per "
              "day with self-adjustment of doses, for at least three (3) months, UNLESS the member is pregnant, in which "
              "case the three-month injection requirement does not apply.")
    ev = judge(clause, "Ten weeks pregnant. Started multiple daily injections three weeks ago.", px=("E0784",))
    assert ev.outcome == "covered"
    assert {a.label for a in ev.atoms if a.waived} == {"intensive insulin regimen for >= 3 month(s)",
                                                        "insulin injections >= 3 per day", "insulin dose self-adjustment"}


def test_a_refused_sentence_for_another_population_does_not_bear_on_the_request() -> None:
    text = ("Members with type 2 diabetes mellitus qualify for an insulin pump only when their HbA1c stays above 8.0% "
            "after at least 3 months on that regimen.")
    refused = compile_clause(text)
    assert isinstance(refused, Refusal) and refused.unread[0].population is not None
    type1 = read_facts("Type 1 diabetes since childhood.", (), ("E0784",))
    type2 = read_facts("Type 2 diabetes for ten years.", (), ("E0784",))
    assert decide([ClauseReading("C3", refused)], type1).unreadable == ()
    assert decide([ClauseReading("C3", refused)], type2).unreadable == ("C3",)


def test_a_stated_rival_diagnosis_places_the_request_outside_a_population_despite_an_unplaced_code() -> None:
    clause = "For members with type 2 diabetes, an insulin pump is covered when the member has an HbA1c above 8 percent."
    ev = judge(clause, "Member with type 1 diabetes, A1c 9 percent.", dx=("Z99.89",), px=("E0784",))
    assert ev.outcome == "not_applicable"


# --- criteria about relatives ------------------------------------------------------------------

FAMILY = ("Genetic testing is covered for members with breast cancer, unless the member has a family history "
          "of ovarian cancer.")
# policy-as-code for a term the lexicon lacks: a routing UNLESS whose condition is about a relative
VARIANT_TEXT = ("Full gene analysis is covered for a member with breast cancer, UNLESS a pathogenic variant has been "
                "identified in a blood relative, in which case testing for that known variant is required.")
RELATIVE_VARIANT = criteria_from_json({"rules": [{
    "effect": "covered",
    "span": "Full gene analysis is covered for a member with breast cancer, UNLESS a pathogenic variant has been "
            "identified in a blood relative, in which case testing for that known variant is required",
    "subject": {"kind": "service", "span": "Full gene analysis", "concept": "genetic testing"},
    "population": {"kind": "condition", "span": "breast cancer", "concept": "breast cancer"},
    "when": {"kind": "routing",
             "span": "UNLESS a pathogenic variant has been identified in a blood relative, in which case testing "
                     "for that known variant is required",
             "condition": {"kind": "condition", "span": "a pathogenic variant has been identified in a blood relative",
                           "concept": "familial pathogenic variant"},
             "target": {"kind": "service", "span": "testing for that known variant", "concept": "known variant testing"}},
}]}, VARIANT_TEXT)


def test_an_exception_about_a_relative_the_request_states_is_unknown_not_absent() -> None:
    ev = judge(FAMILY, "Breast cancer. Her mother had ovarian cancer.", px=("81162",))
    assert ev.outcome == "undecided"
    found = atom(ev, "family history of ovarian cancer")
    assert (found.role, found.status) == ("exception", "unknown")
    assert found.narrative_span is not None and found.narrative_span.text == "mother had ovarian cancer"
    assert ev.missing_facts == ("whether what the request states about a relative is family history of ovarian cancer",)
    # a term the lexicon lacks, matched by the statement's words
    ev = judge(RELATIVE_VARIANT, "Breast cancer. Her sister carries a pathogenic BRCA2 variant.", px=("81162",))
    assert ev.outcome == "undecided"
    assert atom(ev, "familial pathogenic variant").status == "unknown"


def test_an_exception_about_a_relative_stays_absent_when_no_statement_about_a_relative_bears_on_it() -> None:
    for narrative in ("Breast cancer.", "Breast cancer. Mother has type 1 diabetes.",
                      "Breast cancer. No family history of ovarian cancer."):
        ev = judge(FAMILY, narrative, px=("81162",))
        assert ev.outcome == "covered", narrative
        assert atom(ev, "family history of ovarian cancer").status == "not_met", narrative
    ev = judge(RELATIVE_VARIANT, "Breast cancer. Her father has hypertension.", px=("81162",))
    assert ev.outcome == "covered"


def test_a_statement_that_names_the_relative_term_itself_is_read_as_usual() -> None:
    assert judge(FAMILY, "Breast cancer. Family history of ovarian cancer.", px=("81162",)).outcome == "not_covered"
    # a denial of the clause's own term does not cover another relative's statement
    ev = judge(FAMILY, "Breast cancer. No family history of ovarian cancer. Her sister had ovarian cancer.",
               px=("81162",))
    assert ev.outcome == "undecided"


def test_a_requirement_about_a_relative_is_never_met_by_the_member_s_own_condition() -> None:
    clause = "Genetic testing is covered for members with breast cancer who have a family history of ovarian cancer."
    ev = judge(clause, "Breast cancer. Ovarian cancer.", px=("81162",))
    assert atom(ev, "family history of ovarian cancer").status == "unknown"
    assert judge(clause, "Breast cancer. Her mother had ovarian cancer.", px=("81162",)).outcome == "undecided"


def test_a_relative_s_condition_never_gives_the_member_that_condition() -> None:
    clause = "Insulin pumps are covered for members with type 1 diabetes."
    for narrative in ("Mother has type 1 diabetes.", "Her father's type 1 diabetes is well controlled."):
        ev = judge(clause, narrative, px=("E0784",))
        assert ev.outcome != "covered", narrative
        assert atom(ev, "type 1 diabetes").status != "met", narrative
    ev = judge(clause, "Member has type 2 diabetes; mother has type 1 diabetes.", px=("E0784",))
    assert ev.outcome == "not_applicable"


def test_decide_refuses_when_a_relative_may_trigger_a_routing_exception() -> None:
    """The demo policy's routing UNLESS about a variant in a blood relative: stated, the full analysis
    cannot be determined covered under the clause."""
    corpus = load_demo()
    clauses = [c for d in corpus.documents if d.id == "KHP-MP-0940" for v in d.versions for c in v.clauses]
    criteria: dict[str, Criteria] = {}
    for clause in clauses:
        read = criteria_for_clause(clause)
        assert isinstance(read, Criteria), clause.id
        criteria[clause.id] = read
    base = "Breast cancer with onset at age 39. Pre-test genetic counselling completed."

    def decision(narrative: str) -> Any:
        facts = read_facts(narrative, ("C50.912",), ("81162",), vocabulary=vocabulary_of(criteria.values()))
        return decide([ClauseReading(cid, evaluate(c, facts)) for cid, c in criteria.items()], facts)

    assert decision(base).outcome == "covered"
    assert decision(base + " Her mother has type 1 diabetes.").outcome == "covered"
    refused = decision(base + " Her sister carries a pathogenic BRCA2 variant.")
    assert refused.outcome == "undecided"
    assert refused.deciding == ("KHP-MP-0940.v1.C2",)
    assert any("relative" in m and "familial pathogenic brca variant" in m for m in refused.missing_facts)


def demo_criteria(clause_id: str) -> Criteria:
    [clause] = [c for d in load_demo().documents for v in d.versions for c in v.clauses if c.id == clause_id]
    result = criteria_for_clause(clause)
    assert not isinstance(result, Refusal)
    return result


PT_LIMIT, PT_NOTE, PT_RIDER = "KHP-MP-0307.v1.C3", "KHP-MP-0307.v1.C4", "KHP-RID-REHAB.R-2024-01.A1"


def test_a_visit_count_in_the_narrative_is_judged_against_the_yearly_limit() -> None:
    assert judge(demo_criteria(PT_LIMIT), "25 visits used this calendar year.", px=("97110",)).outcome == "not_covered"
    assert judge(demo_criteria(PT_LIMIT), "This is the 15th visit this year.", px=("97110",)).outcome == "covered"
    assert judge(demo_criteria(PT_NOTE), "This is the 15th visit this year. No progress note has been written.",
                 px=("97110",)).outcome == "not_covered"


def test_a_rider_raising_a_limit_from_a_stated_value_leaves_other_counts_alone() -> None:
    [raise_limit] = demo_criteria(PT_RIDER).amendments
    limit = resolve_amendment(demo_criteria(PT_LIMIT), raise_limit)
    assert limit is not None and limit.atom_ids
    # the tenth visit that calls for a progress note is not the limit the rider raises
    note = resolve_amendment(demo_criteria(PT_NOTE), raise_limit)
    assert note is None or not note.atom_ids


def test_a_maintenance_course_meets_the_maintenance_exclusion() -> None:
    ev = judge(demo_criteria("KHP-MP-0307.v1.C5"),
               "Stable level of function reached; weekly sessions are proposed only to maintain function.",
               px=("97110",))
    assert ev.outcome == "not_covered"


def test_depression_is_a_mental_health_condition_and_a_clause_word_resolves_to_its_concept() -> None:
    from clauseguard.reading.lexicon import default_lexicon
    lex = default_lexicon()
    assert lex.is_a("major depressive disorder", "mental health condition")
    # the clause says "measurable goals", a term the lexicon lists for its concept
    ev = judge(demo_criteria("KHP-MP-0307.v1.C2"),
               "Physical therapy prescribed by the physician; a written plan of care with measurable goals was set "
               "at the initial evaluation; improvement is expected.", px=("97110",))
    assert atom(ev, "measurable functional goals").status == "met"


@pytest.mark.parametrize(("narrative", "outcome"), [
    ("Recurrent major depressive disorder. The treatment plan with measurable goals was reviewed 30 days ago.",
     "covered"),
    ("Recurrent major depressive disorder. The treatment plan with measurable goals was last reviewed seven months "
     "ago.", "not_covered"),
    ("Recurrent major depressive disorder. The treatment plan with measurable goals is on file.", "undecided"),
])
def test_a_document_required_within_a_window_is_judged_by_when_the_request_dates_it(narrative: str,
                                                                                     outcome: str) -> None:
    assert judge(demo_criteria("KHP-MP-0530.v1.C2"), narrative, dx=("F33.1",), px=("90837",)).outcome == outcome


@pytest.mark.parametrize(("narrative", "outcome"), [
    ("Acute carbon monoxide poisoning; five hyperbaric sessions completed in this episode.", "not_covered"),
    ("Acute carbon monoxide poisoning; the first hyperbaric session is requested.", "covered"),
    ("Acute carbon monoxide poisoning.", "undecided"),
])
def test_a_per_episode_session_limit_is_judged_by_the_sessions_stated_for_the_episode(narrative: str,
                                                                                      outcome: str) -> None:
    ev = judge(demo_criteria("KHP-MP-0805.v1.C3"), narrative, dx=("T58.91XA",), px=("G0277",))
    assert ev.outcome == outcome


def test_a_dated_progress_note_with_measurable_gains_meets_the_progress_note_requirement() -> None:
    ev = judge(demo_criteria("KHP-MP-0307.v1.C4"),
               "24 visits used this calendar year; the last progress note (two weeks ago) shows measurable gains.",
               px=("97110",))
    assert ev.outcome == "covered"
    ev = judge(demo_criteria("KHP-MP-0307.v1.C4"),
               "24 visits used this calendar year; the last progress note, three months ago, shows measurable gains.",
               px=("97110",))
    assert ev.outcome == "not_covered"


# A requirement whose ways of being met include a treatment received: a request silent on all of them
# is asked for the fact (unknown, named), never denied; a stated rival or denial still decides.
CGM_TEXT = ("CGM is covered when the member has diabetes mellitus and meets at least one of the following: "
            "the member takes insulin; or the member has a history of severe hypoglycaemic episodes.")
STEP_TEXT = ("Adalimumab is covered for rheumatoid arthritis after an inadequate response to one of the following: "
             "methotrexate, leflunomide.")


def _covered_for(text: str, population: dict[str, Any], alternatives: list[dict[str, Any]]) -> Criteria:
    """Covered when the population and any one of the alternatives hold, as policy-as-code."""
    return criteria_from_json({"rules": [{"effect": "covered", "span": text[:-1], "when": {
        "kind": "all", "children": [population, {"kind": "any", "children": alternatives}]}}]}, text)


def _alternatives_requirement() -> list[Criteria]:
    cgm = _covered_for(CGM_TEXT, {"kind": "condition", "span": "diabetes mellitus", "concept": "diabetes mellitus"}, [
        {"kind": "treatment", "span": "takes insulin", "therapy": "insulin", "statuses": ["treated"]},
        {"kind": "condition", "span": "history of severe hypoglycaemic episodes", "concept": "hypoglycemia",
         "history": True}])
    step = _covered_for(STEP_TEXT, {"kind": "condition", "span": "rheumatoid arthritis",
                                    "concept": "rheumatoid arthritis"}, [
        {"kind": "treatment", "span": therapy, "therapy": therapy, "statuses": ["failed"]}
        for therapy in ("methotrexate", "leflunomide")])
    return [cgm, step]


def test_a_requirement_met_by_a_treatment_that_the_request_is_silent_on_is_unknown_not_failed() -> None:
    cgm, step = _alternatives_requirement()
    ev = judge(cgm, "Type 2 diabetes mellitus, seen for glucose monitoring.")
    assert ev.outcome == "undecided"
    assert any("insulin" in m and "hypoglycemia" in m for m in ev.missing_facts), ev.missing_facts
    assert atom(ev, "insulin").status == "unknown"
    ev = judge(step, "Rheumatoid arthritis, seropositive, active disease.")
    assert ev.outcome == "undecided"
    assert any("methotrexate" in m for m in ev.missing_facts), ev.missing_facts


def test_a_stated_way_of_meeting_it_or_a_stated_denial_still_decides() -> None:
    cgm, step = _alternatives_requirement()
    assert judge(cgm, "Type 2 diabetes mellitus on basal insulin.").outcome == "covered"
    assert judge(cgm, "Type 2 diabetes mellitus. Has never used insulin. No history of hypoglycemia.").outcome \
        == "not_covered"
    assert judge(step, "Rheumatoid arthritis; inadequate response to methotrexate.").outcome == "covered"
    # conditions alone keep the design's rule: a listed comorbidity the request does not present is absent
    assert judge(COMORBID, "BMI 38. No other conditions reported.").outcome == "not_covered"
