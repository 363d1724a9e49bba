"""Question parts: splitting, the shared subject, the aspect each part asks about."""

from __future__ import annotations

import pytest

from clauseguard.retrieval import aspect_of, split_question


def test_colon_list_gives_one_part_per_item_sharing_the_subject() -> None:
    parts = split_question("dental implant: coverage, annual cap, waiting period")
    assert [p.label for p in parts] == ["coverage", "annual cap", "waiting period"]
    assert {p.subject for p in parts} == {"dental implant"}
    assert [p.text for p in parts] == [
        "dental implant coverage",
        "dental implant annual cap",
        "dental implant waiting period",
    ]
    assert [p.aspect for p in parts] == ["coverage", "limit", "waiting_period"]
    assert [p.asks_quantity for p in parts] == [False, True, True]


def test_x_and_y_question_splits_and_the_second_part_inherits_the_subject() -> None:
    parts = split_question("Is an implant covered and what is the waiting period?")
    assert [p.aspect for p in parts] == ["coverage", "waiting_period"]
    assert parts[1].subject == "implant"
    assert "implant" in parts[1].text
    assert parts[1].label == "what is the waiting period"


def test_what_is_paid_and_when() -> None:
    parts = split_question("implant crown: what is paid and when")
    assert [p.label for p in parts] == ["what is paid", "when"]
    assert [p.aspect for p in parts] == ["rate", "waiting_period"]
    assert all(p.subject == "implant crown" for p in parts)


@pytest.mark.parametrize(
    "question",
    [
        "is an implant reimbursed",
        "are crowns and bridges reimbursed",  # "and" inside the subject is not a split
        "crowns, bridges and implants: coverage",
        "what does 7.3 say",
        "what does art. 7.3 say?",
        "My member had an implant. Is it covered?",  # a sentence of context is not a part
    ],
)
def test_single_questions_stay_whole(question: str) -> None:
    assert len(split_question(question)) == 1


def test_semicolons_and_sentences_split_too() -> None:
    parts = split_question("hospital cash: waiting period; limits per night and surgical amounts; exclusions")
    assert [p.label for p in parts] == [
        "waiting period",
        "limits per night",
        "surgical amounts",
        "exclusions",
    ]
    assert [p.aspect for p in parts] == ["waiting_period", "limit", "limit", "exclusion"]


def test_empty_question_has_no_parts() -> None:
    assert split_question("   ") == []


@pytest.mark.parametrize(
    ("text", "aspect"),
    [
        ("annual cap", "limit"),
        ("how much is reimbursed", "rate"),
        ("number of sessions", "limit"),
        ("waiting period", "waiting_period"),
        ("which documents must be sent", "documents"),
        ("paperwork", "documents"),
        ("exclusions", "exclusion"),
        ("is it covered", "coverage"),
        ("what does 7.3 say", None),
    ],
)
def test_aspects(text: str, aspect: str | None) -> None:
    assert aspect_of(text) == aspect


def test_a_rate_is_its_own_aspect_and_asks_a_quantity() -> None:
    (part,) = split_question("What reimbursement rate applies to crowns?")
    assert (part.aspect, part.asks_quantity) == ("rate", True)
    (part,) = split_question("Are implants paid from the annual dental allowance?")
    assert part.aspect == "coverage"
