"""Clause roles from the reader (design: "Which clauses decide"), on clauses of our own wording.

A clause with no rule whose sentences are each named by a non-deciding cue, or set aside as a note
with no deciding word and no figure, takes the role its cues name: it never forces REVIEW. A sentence
the reader is not sure of (a deciding word, a figure with a unit or a bound) keeps the clause deciding.
"""

from __future__ import annotations

import pytest

from clauseguard.reading.grammar import read_clause
from clauseguard.reading.roles import DECIDING


@pytest.mark.parametrize("text", [
    # framing, then pointers and the list of documents they point to (the list's lines are notes)
    "The purpose of this policy is to describe the payment rules for home oxygen.\n"
    "The following documents also apply:\n"
    "The supplier manual, published on the payer's web site.\n"
    "Refer to the billing article for the codes.",
    # a reference and a note on where a table is kept
    "Refer to the fee schedule for the allowed amounts.\nThe schedule is published each January.",
])
def test_a_clause_of_framing_references_and_notes_decides_nothing(text: str) -> None:
    assert read_clause(text).role not in DECIDING


@pytest.mark.parametrize("text", [
    # the answer states a threshold in no form the cues read: not sure, so it decides
    "Q: How much improvement must the trial show? A: Send the diary. A gain of 40 percent or more over the "
    "baseline score is enough for the permanent device.",
    # a sentence nothing names, with no cue at all, next to a reference
    "Refer to the billing article for the codes.\nNo more than two pairs are supplied in any six months.",
])
def test_a_clause_with_a_sentence_the_reader_is_not_sure_of_still_decides(text: str) -> None:
    assert read_clause(text).role in DECIDING
