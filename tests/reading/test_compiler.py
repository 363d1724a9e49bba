"""The rule compiler beyond the phrasebook: honest refusals, the criteria field first, determinism,
and sentences changed just enough that a careless reader would compile them wrong."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from clauseguard.corpus.criteria import Criteria, Measure, Routing, Waiver, all_atoms, criteria_to_json
from clauseguard.reading.compiler import Refusal, compile_clause, criteria_for_clause, refusal_reasons

BASE = "Home oxygen therapy is considered medically necessary when the member has a resting oxygen saturation of 88 percent or less."


def only_atom(criteria: Criteria | Refusal) -> object:
    assert isinstance(criteria, Criteria)
    [atom] = [a for a in all_atoms(criteria) if a.kind != "service"]
    return atom


def test_a_refusal_names_what_it_could_not_read() -> None:
    result = compile_clause(BASE + " Portable concentrators require a separate prescription from a pulmonologist.")
    assert isinstance(result, Refusal)
    assert "Portable concentrators" in result.unread[0].span.text
    assert result.partial is not None and len(result.partial.rules) == 1
    assert refusal_reasons(result)[0].startswith("could not read")


def test_text_with_no_coverage_statement_is_refused() -> None:
    for text in ("", "See the schedule of benefits.", "Claims are paid in pounds sterling."):
        assert isinstance(compile_clause(text), Refusal)


def test_the_clause_criteria_field_comes_before_the_compiler() -> None:
    text = "Hearing aids are covered when the hearing threshold is 40 dB or greater."
    authored = {"rules": [{"effect": "covered", "span": text[:-1],
                           "when": {"kind": "measure", "span": "40 dB or greater", "quantity": "hearing threshold",
                                    "comparator": ">=", "value": 45, "unit": "dB"}}]}
    clause = SimpleNamespace(text=text, criteria=authored)
    from_field = criteria_for_clause(clause)
    assert isinstance(from_field, Criteria)
    assert isinstance(only_atom(from_field), Measure) and only_atom(from_field).value == 45  # type: ignore[attr-defined]
    compiled = criteria_for_clause(SimpleNamespace(text=text, criteria=None))
    assert only_atom(compiled).value == 40  # type: ignore[attr-defined]


def test_compilation_is_deterministic() -> None:
    assert criteria_to_json(compile_clause(BASE)) == criteria_to_json(compile_clause(BASE))  # type: ignore[arg-type]


@pytest.mark.parametrize(("text", "comparator", "value"), [
    (BASE, "<=", 88),
    (BASE.replace("88 percent or less", "at least 88 percent"), ">=", 88),
    (BASE.replace("88 percent or less", "below 90 percent"), "<", 90),
    (BASE.replace("88 percent or less", "eighty-eight (88) percent or lower"), "<=", 88),
])
def test_the_comparator_and_number_follow_the_words(text: str, comparator: str, value: float) -> None:
    atom = only_atom(compile_clause(text))
    assert isinstance(atom, Measure) and (atom.comparator, atom.value) == (comparator, value)


@pytest.mark.parametrize("text", [
    BASE.replace("88 percent", "eighty-nine (88) percent"),  # words and digits disagree
    BASE.replace(".", ", as determined by the plan's oxygen specialist."),  # an unreadable condition
    BASE.replace("when", "when, in the opinion of the reviewer,"),
    BASE.replace("the member has a resting oxygen saturation of 88 percent or less",
                 "the member has a resting oxygen saturation of 88 percent or less OR has cor pulmonale AND "
                 "a hematocrit above 56 percent"),
    "Supplemental oxygen is covered when the member has two of the following: (1) hypoxemia; (2) cor pulmonale; "
    "(3) erythrocytosis.",
    "Supplemental oxygen is covered when the member has the condition described in section 4.",
    "Brain MRI is covered when the radiologist agrees in writing.",  # a clause, not a condition
    "Genetic testing is covered when the member has a first-degree relative with breast cancer.",
    "Spinal fusion is excluded when performed for axial low back pain or spinal stenosis without instability.",
    "This rider does not waive the diagnosis, and it changes the limit of policy AB-100.",
])
def test_changed_sentences_are_refused_not_misread(text: str) -> None:
    assert isinstance(compile_clause(text), Refusal), text


def test_a_run_on_kept_requirement_is_two_kept_requirements() -> None:
    result = compile_clause("This rider does not waive the diagnosis, and it does not change the limit of policy AB-100.")
    assert isinstance(result, Criteria)
    assert [(a.action, a.requirement, a.targets) for a in result.amendments] == [
        ("keep", "diagnosis", ()), ("keep", "limit", ("AB-100",))]


def test_waiver_and_routing_are_told_apart_by_what_follows() -> None:
    waiver = compile_clause("An insulin pump is covered when the member has type 1 diabetes AND has used multiple "
                            "daily injections for at least six (6) months, UNLESS the member is pregnant, in which "
                            "case the injection requirement does not apply.")
    routing = compile_clause("An insulin pump is covered when the member has type 1 diabetes AND has used multiple "
                             "daily injections for at least six (6) months, UNLESS the member is pregnant, in which "
                             "case an insulin pump is required.")
    plain = compile_clause("An insulin pump is covered when the member has type 1 diabetes AND has used multiple "
                           "daily injections for at least six (6) months, UNLESS the member is pregnant.")
    assert isinstance(waiver, Criteria) and isinstance(waiver.rules[0].when, Waiver)
    assert isinstance(routing, Criteria) and isinstance(routing.rules[0].when, Routing)
    assert routing.rules[0].when.target is not None
    assert isinstance(plain, Criteria) and isinstance(plain.rules[0].when, Routing)
    assert plain.rules[0].when.target is None


def test_a_waiver_that_names_no_single_requirement_is_refused() -> None:
    text = ("An insulin pump is covered when the member has type 1 diabetes AND has used multiple daily injections "
            "for at least six (6) months, UNLESS the member is pregnant, in which case the vision requirement does "
            "not apply.")
    assert isinstance(compile_clause(text), Refusal)


def test_a_routing_target_must_be_a_known_service() -> None:
    text = ("Home sleep apnea testing is covered for members with suspected obstructive sleep apnea, UNLESS the "
            "member has documented neuromuscular disease, in which case a second opinion is required.")
    assert isinstance(compile_clause(text), Refusal)


def test_every_atom_quotes_its_clause() -> None:
    text = ("Lumbar decompression is medically necessary when the member has radiculopathy and has completed at "
            "least eight (8) weeks of conservative therapy, unless the member has cauda equina syndrome, in which "
            "case conservative therapy is not required.")
    result = compile_clause(text)
    assert isinstance(result, Criteria)
    for atom in all_atoms(result):
        assert text[atom.span.start:atom.span.end] == atom.span.text
    assert text[result.rules[0].span.start:result.rules[0].span.end] == result.rules[0].span.text
