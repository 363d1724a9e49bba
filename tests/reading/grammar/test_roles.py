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


@pytest.mark.parametrize(("headings", "role"), [
    (("Definitions",), "definition"),
    (("Chapter 1. Definitions", "1.1 Definitions"), "definition"),
    (("Policy History",), "framing"),
    (("Background",), "framing"),
    (("Coverage Indications", "Summary of Evidence"), "framing"),
])
def test_a_section_heading_naming_a_role_that_decides_nothing_gives_it(headings: tuple[str, ...], role: str) -> None:
    # the text alone would decide ("must", a limit): the heading says what the clause is for
    text = "Revision 3: conservative therapy must include two modalities; each trial is limited to ten days."
    assert read_clause(text).role in DECIDING
    assert read_clause(text, None, None, headings).role == role


@pytest.mark.parametrize("headings", [("Criteria and Definitions",), ("Medical Necessity",), ("Exclusions",)])
def test_a_heading_that_only_mentions_such_a_word_names_no_role(headings: tuple[str, ...]) -> None:
    assert read_clause("The device is covered when the member has diabetes.", None, None, headings).role in DECIDING


def test_what_studies_show_is_framing_unless_the_sentence_states_cover() -> None:
    assert read_clause("Published trials show that nightly therapy lowers the index.").role == "framing"
    assert read_clause("Small randomized studies have reported pain reduction after treatment.").role == "framing"
    ruled = read_clause("A device is covered for an initial 12-week trial when the sleep test shows 30 events.")
    assert ruled.role in DECIDING
    assert read_clause("Care given within a clinical trial is not covered.").role in DECIDING


@pytest.mark.parametrize("text", [
    "Requests for a trial must include the office notes and the evaluation report.",
    "For supplies dispensed on a periodic basis, the order must state the item and the quantity.",
    "If the supplier separately bills for accessories without a signed order, the claim shall be denied.",
])
def test_what_a_request_or_order_holds_and_a_supplier_bills_is_administrative(text: str) -> None:
    assert read_clause(text).role == "administrative"


def test_an_faq_answer_the_reader_sets_aside_keeps_the_entry_deciding() -> None:
    # the question's own words name no role of what its answer decides
    text = "Q: Can sessions start before the first visit?\nA: They are paid once a doctor prescribed them beforehand."
    assert read_clause(text).role in DECIDING


def test_the_engine_reads_a_definitions_clause_as_deciding_nothing_whichever_reader_runs() -> None:
    from types import SimpleNamespace

    from clauseguard.corpus.criteria import Criteria
    from clauseguard.reading import clause_criteria

    text = "Conservative therapy: non-surgical treatment for at least 6 weeks is required before surgery."
    clause = SimpleNamespace(id="X.1", text=text, kind=None, criteria=None, section="Definitions", article=None)
    assert clause_criteria(clause) == Criteria()
    under_criteria = SimpleNamespace(**{**vars(clause), "section": "Medical Necessity Criteria"})
    assert clause_criteria(under_criteria) != Criteria()
