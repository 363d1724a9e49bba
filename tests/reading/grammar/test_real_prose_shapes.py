"""Shapes real coverage determinations print that the reader dropped or refused (issue 12), in our own
wording: a criteria list named only by a reference ("criteria (a) - (c) below") kept with the clause's
criteria, sub-items that lost their bullets in extraction, a list head that states a requirement of its
own, "neither (1) or (2) is met", a denial conditioned on the item being supplied, and a reference that
names whom its criteria apply to."""

from __future__ import annotations

import dataclasses

from clauseguard.corpus.criteria import (
    AllOf,
    AnyOf,
    Condition,
    Criteria,
    Not,
    Ref,
    Rule,
    Span,
    Treatment,
    iter_atoms,
)
from clauseguard.reading.evaluate import evaluate
from clauseguard.reading.facts import read_facts, vocabulary_of
from clauseguard.reading.grammar import Refusal, read_clause
from clauseguard.reading.grammar.blocks import ItemList, blocks
from clauseguard.reading.references import marks_in


def _read_or_partial(text: str) -> Criteria | None:
    """What the reader took from a text: its criteria, or the part it read of a refused one."""
    result = read_clause(text).result
    return result if isinstance(result, Criteria) else result.partial


CAPS_WITH_CRITERIA = (
    "More than 4 compression garments every 6 months are covered if criteria (a) - (c) below are met.\n"
    "a. The member has chronic lymphedema; and,\n"
    "b. Within the three (3) months prior to ordering, the treating practitioner has had an in-person visit with the "
    "member to measure the limb; and,\n"
    "c. Every six (6) months, the treating practitioner must verify adherence to the compression regimen.\n"
)


def test_a_list_named_by_a_reference_is_kept_with_the_clause_criteria() -> None:
    result = read_clause(CAPS_WITH_CRITERIA).result
    assert isinstance(result, Criteria), result
    # the items the rule's reference names travel with the clause (renumbering once dropped them)
    assert {"a", "b", "c"} <= set(marks_in(result))
    assert result.referenced


def test_plain_lines_under_a_colon_item_are_its_sub_items_when_the_numbering_goes_on() -> None:
    text = ("Home dialysis is covered when all of the following criteria (1)-(3) are met:\n"
            "1. The member has end-stage renal disease; and,\n"
            "2. The member meets at least one of the following:\n"
            "A caregiver lives in the home; or,\n"
            "The member has completed home dialysis training\n"
            "3. The nephrologist has certified that the home water supply is suitable.\n")
    layout = blocks(text)
    items = next(b for b in layout if isinstance(b, ItemList)).items
    assert [i.mark for i in items] == ["1", "2", "3"]  # the list did not end at the plain lines
    sub = next(c for c in items[1].children if isinstance(c, ItemList))
    assert [i.family for i in sub.items] == ["plain", "plain"]


def test_plain_lines_are_not_taken_into_a_list_whose_numbering_does_not_go_on() -> None:
    text = ("Home dialysis is covered when both of the following are met:\n"
            "1. The member has end-stage renal disease; and,\n"
            "2. A caregiver lives in the home.\n"
            "Claims for home dialysis are filed by the dialysis facility.\n")
    assert isinstance(blocks(text)[-1], type(blocks("A line.")[0]))  # a paragraph of its own


def test_a_list_head_that_states_a_requirement_is_refused_not_dropped() -> None:
    text = ("Sacral stimulation is covered when all of the following are met:\n"
            "1. The member has urge incontinence; and\n"
            "2. The member has a history of failed bladder training with documentation of at least one of the following:\n"
            "a. a voiding diary; or\n"
            "b. a urodynamic study.\n")
    result = read_clause(text).result
    assert isinstance(result, Refusal)
    assert any("failed bladder training" in u.span.text for u in result.unread)


def test_a_head_without_a_quantifier_over_a_list_is_refused() -> None:
    text = ("Sacral stimulation is covered when all of the following are met:\n"
            "1. The member has urge incontinence; and\n"
            "2. The member meets the criteria under this item:\n"
            "a. a voiding diary; or\n"
            "b. a urodynamic study.\n")
    assert isinstance(read_clause(text).result, Refusal)


def test_neither_criterion_is_met_negates_each_of_them() -> None:
    text = "If neither criterion (1) nor (2) above is met, the compression pump will be denied as not medically necessary."
    result = read_clause(text).result
    assert isinstance(result, Criteria), result
    [rule] = result.rules
    assert rule.effect == "not_covered"
    assert isinstance(rule.when, Not) and isinstance(rule.when.child, AnyOf)
    assert [c.labels for c in rule.when.child.children if isinstance(c, Ref)] == [("1",), ("2",)]


def test_a_denial_conditioned_on_the_item_being_supplied() -> None:
    # "it" is the item supplied; with a subject of its own, the supply is the rule's occasion
    result = read_clause("If a bath lift (code E0240) is dispensed and criteria (1)-(2) above are not met, "
                         "it is denied.").result
    assert isinstance(result, Criteria), result
    [rule] = result.rules
    assert rule.subject is not None and "bath lift" in rule.subject.span.text and rule.subject.codes == ("E0240",)
    assert isinstance(rule.when, Not) and isinstance(rule.when.child, Ref)
    result = read_clause("If more garments than the usual amounts are supplied and criteria (a) - (c) are not met, "
                         "the garments in excess will be denied.").result
    assert isinstance(result, Criteria), result
    [rule] = result.rules
    assert isinstance(rule.trigger, Condition) and "supplied" in rule.trigger.span.text
    assert rule.subject is not None and "in excess" in rule.subject.span.text


def test_a_reference_may_name_whom_its_criteria_apply_to() -> None:
    text = ("Extra garments are covered when all of the following are met:\n"
            "a. Criteria (1)-(2) listed above for all compression products are met; and,\n"
            "b. The member has chronic lymphedema.\n")
    result = read_clause(text).result
    assert isinstance(result, Criteria), result


def test_requirements_pointed_at_only_as_the_others_above_are_not_read() -> None:
    # a phrase for "the other requirements above" had one independent source (the real LCD): not read yet
    result = read_clause("A bariatric stretcher (E0999) is covered when criteria (1)-(2) above are met.\n"
                         "If a stretcher is dispensed and criteria (1)-(2) together with the other requirements "
                         "listed above are not met, it is denied.").result
    assert isinstance(result, Refusal)


def test_a_certified_condition_with_words_the_reader_cannot_weigh_is_refused() -> None:
    # read as a statement, "that is not controlled by methotrexate" was cut off and the requirement lost
    result = read_clause("Abatacept is covered when the rheumatologist certifies that the member has rheumatoid "
                         "arthritis that is not controlled by methotrexate.").result
    assert isinstance(result, Refusal)
    assert any("not controlled" in u.span.text for u in result.unread)


def test_a_severity_after_an_article_and_an_explaining_aside() -> None:
    # "has a severe X": the article before the severity; an "(i.e., ...)" aside's figures are no bound
    result = read_clause("A bone-anchored hearing aid is covered when the treating physician certifies that the "
                         "member has a severe hearing loss (i.e., a threshold of 70 dB or more).").result
    assert isinstance(result, Criteria), result
    [rule] = result.rules
    assert isinstance(rule.when, Condition)
    assert rule.when.concept == "hearing loss" and rule.when.severity == ("severe",) and rule.when.documented


def test_silence_never_fires_a_denial_for_criteria_not_met() -> None:
    # a denial negating criteria it refers to together with another requirement: left unstated, that requirement
    # is unknown, not absent, so the denial cannot fire (it did: NOT_COVERED on silence)
    text = "A bath lift is covered when:\n1. The member has diabetes mellitus; and,\n2. The member has hypertension.\n"
    listed = read_clause(text).result
    assert isinstance(listed, Criteria), listed
    span = Span(0, len(text), text)
    certified = Condition("c1", span, concept="hearing loss", severity=("severe",), documented=True)
    denial = Rule("not_covered", span, None, None, None, Not(AllOf((Ref(span, ("1", "2")), certified))))
    criteria = dataclasses.replace(listed, rules=(*listed.rules, denial))
    facts = read_facts("Type 2 diabetes mellitus and hypertension.", ("E11.9", "I10"), (),
                       vocabulary=vocabulary_of([criteria]))
    found = evaluate(criteria, facts)
    assert found.outcome == "undecided"
    assert "hearing loss" in found.missing_facts


def test_an_order_that_keeps_to_the_label_is_not_read_yet() -> None:
    # one independent source so far (the real LCD): the requirement is named as unread, never guessed
    result = read_clause("The infusion pump is covered when the pump is prescribed in accordance with its FDA "
                         "indications for use.").result
    assert isinstance(result, Refusal)


def test_a_therapy_named_in_its_verb_is_read() -> None:
    result = read_clause("A CGM is covered when the member is insulin-treated.").result
    assert isinstance(result, Criteria), result
    when = result.rules[0].when
    assert isinstance(when, Treatment) and when.therapy == "insulin" and when.statuses == ("treated",)


def test_a_reference_or_a_bare_quantity_is_never_named_as_a_condition() -> None:
    # "meet criterion A or B" had been named as a condition, and "3 months" as another
    for text in ("If the member does not meet criterion A or B, the lift chair will be denied as not medically necessary.",
                 "Members who have not tried naproxen or ibuprofen for 3 months are not approved."):
        criteria = _read_or_partial(text)
        names = [getattr(a, "concept", "") for r in (criteria.rules if criteria else ()) for a in iter_atoms(r.when)]
        assert not any("criterion" in n or n.strip() == "3 months" for n in names), names


def test_a_requirement_sentence_under_a_continued_coverage_heading_is_a_rule_of_continued_cover() -> None:
    text = ("Continued Coverage\nEvery twelve (12) months after the first fitting of the E0748, the treating "
            "practitioner conducts an in-person visit with the member to review its use.")
    result = read_clause(text).result
    assert isinstance(result, Criteria), result
    [rule] = result.rules
    assert rule.effect == "covered" and rule.approval == "continuation"
    assert rule.subject is not None and rule.subject.codes == ("E0748",)
    assert rule.when is not None and rule.when.kind == "event"
    # the heading may come from the corpus's article title instead of the text
    result = read_clause(text.split("\n", 1)[1], None, None, ["Bone growth stimulators: Continued Coverage"]).result
    assert isinstance(result, Criteria) and result.rules[0].approval == "continuation"
    # with no such heading, the same sentence decides in no form the grammar reads
    bare = read_clause(text.split("\n", 1)[1]).result
    assert not isinstance(bare, Criteria) or not bare.rules


def test_a_continued_coverage_rule_never_grants_or_denies_alone() -> None:
    # nothing in it tells a continuing member from a new one: met, it does not cover a new request
    text = "Every 12 months the member has diabetes mellitus."
    span = Span(0, len(text), text)
    when = Condition("a1", Span(15, 48, text[15:48]), concept="diabetes mellitus")
    facts = read_facts("Type 2 diabetes mellitus.", ("E11.9",), (), vocabulary=vocabulary_of([]))
    plain = evaluate(Criteria((Rule("covered", span, None, None, None, when),)), facts)
    continued = evaluate(Criteria((Rule("covered", span, None, None, None, when, approval="continuation"),)), facts)
    assert plain.outcome == "covered"
    assert continued.outcome == "undecided"
    assert any("continues cover" in m for m in continued.missing_facts)


def test_neither_after_the_verb_of_a_reference() -> None:
    # (labels written "criterion A" or "a)" are not references yet: read as such they made two blind holdout
    # entries wrong, 2026-12-07)
    for text in ("If the member meets neither criterion (a) nor criterion (b), the standing frame will be denied as not "
                 "medically necessary.",
                 "Where an insured person meets neither (a) or (b), the hearing aid is not covered."):
        result = read_clause(text).result
        assert isinstance(result, Criteria), (text, result)
        [rule] = result.rules
        assert isinstance(rule.when, Not) and isinstance(rule.when.child, AnyOf), text
        assert sorted(c.labels[0] for c in rule.when.child.children if isinstance(c, Ref)) == ["a", "b"]


def test_a_negated_choice_of_criteria_is_refused() -> None:
    # "not A or B": neither of them, or not both? the text does not say
    for text in ("If the member does not meet criterion (A) or (B), the standing frame will be denied.",
                 "No benefit is payable where the insured person does not meet criteria (a) or (b)."):
        assert isinstance(read_clause(text).result, Refusal), text


def test_a_choice_of_references_naming_the_list_below_is_that_list() -> None:
    text = ("Approve for 6 months if the patient meets criterion (a) or criterion (b):\n"
            "(a) Patient has an EASI score of 16 or more;\n-OR-\n(b) Patient has moderate to severe atopic dermatitis.\n")
    result = read_clause(text).result
    assert isinstance(result, Criteria), result
    [rule] = result.rules
    assert isinstance(rule.when, AnyOf) and not any(isinstance(c, Ref) for c in rule.when.children)


def test_what_a_timed_course_did_is_never_dropped() -> None:
    # "lasting at least 4 weeks has failed to control the swelling": a duration alone would drop the failure
    criteria = _read_or_partial("A segmental compressor is covered when a home trial of a simple compressor lasting at "
                         "least 4 weeks has failed to control the swelling.")
    assert criteria is None or not any(a.kind == "duration" and getattr(a, "outcome", None) is None
                                       for r in criteria.rules for a in iter_atoms(r.when))


def test_a_relative_clause_after_a_list_qualifies_the_whole_phrase() -> None:
    criteria = _read_or_partial("Dupilumab is covered when the patient has atopic dermatitis on the face, hands, or feet "
                         "that has not responded to topical therapy.")
    assert criteria is None or not any(isinstance(r.when, AnyOf) for r in criteria.rules)
