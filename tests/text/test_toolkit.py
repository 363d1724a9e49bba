"""The one text toolkit: sentences keep offsets and do not split after abbreviations, initials,
decimals or list numbers; fold keeps every offset; stems come from Snowball."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from clauseguard.text import fold, normalise, pieces, sentences, stem, terms, tokenize


def test_sentences_quote_the_source_and_skip_abbreviations() -> None:
    text = ("Pt is 67 yo on metformin 500 mg b.i.d. since 11/2023. A1c 8.2% on review, e.g. twice. "
            "Dr. Lee agreed. The member meets criteria (1)-(2); and,\n-AND-\nJ. Smith signed.")
    found = sentences(text)
    assert [text[s.start:s.end] for s in found] == [s.text for s in found]
    assert [s.text for s in found] == [
        "Pt is 67 yo on metformin 500 mg b.i.d. since 11/2023.",
        "A1c 8.2% on review, e.g. twice.",
        "Dr. Lee agreed.",
        "The member meets criteria (1)-(2); and,",
        "-AND-",
        "J. Smith signed.",
    ]


def test_numbered_items_on_one_line_are_sentences_but_their_numbers_are_not_ends() -> None:
    found = [s.text for s in sentences("All of the following: 1. The member has asthma. 2. The member smokes.")]
    assert found == ["All of the following: 1. The member has asthma.", "2. The member smokes."]


def test_pieces_cut_after_semicolons_with_offsets() -> None:
    text = "Up to 12 visits per year; more visits need approval. Nothing else."
    assert [(p.text, text[p.start:p.end]) for p in pieces(text)] == [
        ("Up to 12 visits per year;", "Up to 12 visits per year;"),
        ("more visits need approval.", "more visits need approval."),
        ("Nothing else.", "Nothing else."),
    ]


@given(st.text())
def test_fold_is_the_fold_of_each_character(text: str) -> None:
    from clauseguard.text.normalise import _fold_char

    assert fold(text) == "".join(_fold_char(c) for c in text)
    assert fold(text + "Σ İx") == "".join(_fold_char(c) for c in text + "Σ İx")


@given(st.text())
def test_fold_keeps_length_and_sentences_cover_only_source_text(text: str) -> None:
    assert len(fold(text)) == len(text)
    for s in sentences(text):
        assert text[s.start:s.end] == s.text and s.text.strip() == s.text


def test_tokens_terms_and_stems() -> None:
    assert [t.text for t in tokenize("Crohn\u2019s non-insulin E10.9 8.2% HbA1c")] == [
        "crohn's", "non-insulin", "e10.9", "8.2", "hba1c"]
    assert terms("non-insulin Crohn's") == ["non", "insulin", "crohn", "s"]
    assert stem("injections") == stem("injection") and stem("documented") == stem("documentation")
    assert normalise("  Type\u00a02 \u2013 DIABETES ") == "type 2 - diabetes"
