"""Tokens, stems and the exact-reference patterns."""

from __future__ import annotations

import pytest

from clauseguard.retrieval.tokens import article_number, article_references, code_references, stem, tokens


@pytest.mark.parametrize(
    ("words", "stem_"),
    [
        (["implant", "implants"], "implant"),
        (["cover", "covers", "covered", "covering"], "cover"),
        (["reimburse", "reimbursed", "reimbursement"], None),
        (["cap", "caps", "capped"], "cap"),
        (["document", "documents", "documentation"], None),
    ],
)
def test_word_forms_meet_one_stem(words: list[str], stem_: str | None) -> None:
    stems = {stem(w) for w in words}
    assert len(stems) == 1
    if stem_:
        assert stems == {stem_}


def test_tokens_drop_stop_words_and_keep_codes_and_numbers() -> None:
    assert tokens("What does article 7.3 say about the E10.9 code?") == ["articl", "7.3", "e10.9", "code"]


def test_article_numbers() -> None:
    assert article_number("7.3 Dental, implantology") == "7.3"
    assert article_number("12. Exclusions") == "12"
    assert article_number("Exclusions") is None
    assert article_number(None) is None


@pytest.mark.parametrize(
    ("question", "refs"),
    [
        ("what does 7.3 say", ("7.3",)),
        ("article 12 and section 4.2", ("12", "4.2")),
        ("art. 9.1?", ("9.1",)),
        ("is 50% reimbursed up to GBP 1,500", ()),
        ("a bare 12 is a quantity", ()),
        ("on 2024-01-01", ()),
    ],
)
def test_article_references(question: str, refs: tuple[str, ...]) -> None:
    assert article_references(question) == tuple(sorted(refs))


def test_code_references() -> None:
    assert code_references("Is A9276 covered with 95249 and e10.9, or 0501T?") == (
        "0501T",
        "95249",
        "A9276",
        "E10.9",
    )
    assert code_references("GBP 1,500 per year") == ()
