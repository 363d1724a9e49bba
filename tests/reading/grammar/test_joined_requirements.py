"""A requirement the grammar cannot place is refused, never dropped or split the wrong way (the policy
phrasebook's "wrong must stay 0"): a sentence joined to the rule above by a joiner line, and an "or" list
that belongs to a relative clause's object. Our own wording, in the layouts the house styles print."""

from __future__ import annotations

import pytest

from clauseguard.corpus.criteria import AnyOf, Criteria
from clauseguard.reading.grammar import Refusal, read_clause


@pytest.mark.parametrize("text", [
    # CMS layout: the second requirement after a joiner line, no list markers
    "A standing frame (E0638) is covered when the beneficiary cannot bear weight without support\n"
    "-AND-\n"
    "the treating practitioner documents a home exercise plan that uses the frame daily.",
    # a medical policy's "- OR -"
    "A bone-growth stimulator is considered medically necessary when the fracture has not healed after six months\n"
    "- OR -\n"
    "the member has failed a prior surgical fusion at the same level.",
])
def test_a_sentence_joined_by_a_joiner_line_is_never_a_note(text: str) -> None:
    result = read_clause(text).result
    assert isinstance(result, Refusal) or all(
        "daily" not in n.span.text and "surgical fusion" not in n.span.text for n in result.notes)


def test_an_or_list_inside_a_relative_clause_is_not_a_choice_of_criteria() -> None:
    text = ("A lift chair is covered when the member has arthritis that prevents rising from a kitchen chair, a sofa, "
            "or a bed without help.")
    result = read_clause(text).result
    criteria = result if isinstance(result, Criteria) else result.partial
    assert criteria is None or not any(isinstance(r.when, AnyOf) for r in criteria.rules)


@pytest.mark.parametrize(("text", "words"), [
    # a new subject with its own verb after ", and" (CMS style)
    ("A cervical traction device (E0849) is covered when at least six weeks have passed since the injury, as shown "
     "in the chart, and the device is ordered by a physiatrist.", ("six weeks", "physiatrist")),
    # a span of time opening the second clause (medical policy style)
    ("Intrathecal pump implantation is covered only when a pain psychologist has assessed the member and at least "
     "six (6) months of oral opioid therapy have failed.", ("pain psychologist", "six (6) months")),
])
def test_a_second_clause_joined_by_and_is_never_swallowed_by_the_first(text: str, words: tuple[str, ...]) -> None:
    result = read_clause(text).result
    if isinstance(result, Refusal):
        # left to a person, naming the clause it could not place: nothing is dropped from a rule read whole
        assert any(words[-1] in u.span.text for u in result.unread)
        return
    [rule] = result.rules
    atoms = [n for part in (rule.population, rule.when) for n in getattr(part, "children", (part,)) if n is not None]
    # each requirement is an atom of its own: no single atom's span holds both
    assert not any(all(w in a.span.text for w in words) for a in atoms)
    assert all(any(w in a.span.text for a in atoms) for w in words)
