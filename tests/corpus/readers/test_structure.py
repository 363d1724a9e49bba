"""Blocks into clauses: numbered headings, lists with their lead-in, tables, titles, chunks."""

from __future__ import annotations

import pytest

from clauseguard.corpus.readers.blocks import Block
from clauseguard.corpus.readers.headings import parse_heading, split_inline_heading
from clauseguard.corpus.readers.structure import (
    CHUNK_CHARS,
    CHUNK_OVERLAP,
    MAX_CLAUSE_CHARS,
    chunk_blocks,
    is_chunk_section,
    sentences,
    structure,
    table_lines,
)


def h(text: str, level: int | None = None, page: int | None = None) -> Block:
    return Block("heading", text, page, level=level)


def p(text: str, page: int | None = None, label: str | None = None) -> Block:
    return Block("paragraph", text, page, label)


@pytest.mark.parametrize(
    ("line", "number", "level", "key"),
    [
        ("7.3 Dental, implantology", "7.3", 2, "A7.3"),
        ("Article 12", "12", 2, "A12"),
        ("Section 4.2(b)", "4.2(b)", 4, "S4.2b"),
        ("Chapter 7. Dental care", "7", 1, "CH7"),
        ("ARTICLE 5 - EXCLUSIONS", "5", 2, "A5"),
        ("Part II Exclusions", "II", 1, "PII"),
    ],
)
def test_numbered_headings(line: str, number: str, level: int, key: str) -> None:
    found = parse_heading(line)
    assert found is not None and (found.number, found.level, found.key) == (number, level, key)


@pytest.mark.parametrize(
    "line",
    ["Article 12 applies to every insured person", "1. The member must", "7.3 The member must be enrolled.",
     "7 Dental care", "Article 12b", "7.3 Dental, implantology . . . . . . . 34"],
)
def test_sentences_and_list_items_are_not_headings(line: str) -> None:
    assert parse_heading(line) is None


def test_single_number_is_a_heading_only_with_type_evidence() -> None:
    assert parse_heading("7 Dental care", strong=True) is not None


def test_inline_article_label_opens_a_paragraph() -> None:
    found = split_inline_heading("Article 12. The insurer pays the costs described in this article.")
    assert found is not None and found[0].text == "Article 12" and found[1].startswith("The insurer pays")


def test_clauses_follow_chapters_and_articles() -> None:
    blocks = [
        h("Group conditions", level=0, page=1),
        h("Chapter 7. Dental care", page=1),
        h("7.3 Dental, implantology", page=1),
        p("Implants are covered provided that all of the following are met:", page=2, label="34"),
        Block("list_item", "(a) the quote was approved;", 2, "34"),
        Block("list_item", "(b) the tooth was lost after joining.", 2, "34"),
        h("Article 12", page=3),
        p("No benefit is payable unless the claim is made in time.", page=3),
    ]
    result = structure(blocks)
    assert result.title == "Group conditions"
    first, second = result.clauses
    assert (first.key, first.section, first.article, first.page) == ("A7.3", "Chapter 7. Dental care", "7.3 Dental, implantology", 1)
    assert first.text.splitlines() == [
        "Implants are covered provided that all of the following are met:",
        "(a) the quote was approved;",
        "(b) the tooth was lost after joining.",
    ]
    assert (second.key, second.section, second.article) == ("A12", "Chapter 7. Dental care", "Article 12")
    assert not result.chunked


def test_a_heading_without_body_or_sub_headings_is_kept_as_text() -> None:
    result = structure([h("1. Scope", level=2), h("2. Exclusions", level=2), p("Cosmetic surgery is excluded.")])
    assert [c.text for c in result.clauses] == ["1. Scope", "Cosmetic surgery is excluded."]


def test_repeated_article_numbers_get_unique_keys() -> None:
    result = structure([h("Article 1 Scope"), p("First."), h("Schedule A", level=1), h("Article 1 Scope"), p("Second.")])
    assert [c.key for c in result.clauses] == ["A1", "A1-2"]


def test_paragraph_cut_by_a_page_break_is_joined() -> None:
    result = structure([h("4.2 Waiting periods"), p("Benefits become payable only after", page=1), p("a waiting period of six months.", page=2)])
    assert result.clauses[0].text == "Benefits become payable only after a waiting period of six months."


def test_table_rows_carry_their_header() -> None:
    assert table_lines([("Benefit", "Annual cap"), ("Implants", "GBP 1,000"), ("Crowns", "")]) == [
        "Benefit: Implants; Annual cap: GBP 1,000",
        "Benefit: Crowns",
    ]


def test_table_continued_on_the_next_page_keeps_the_header() -> None:
    blocks = [
        h("12.4 Annual caps"),
        Block("table", "", 1, rows=(("Benefit", "Cap"), ("Implants", "GBP 1,000"))),
        Block("table", "", 2, rows=(("Crowns", "GBP 800"),)),
    ]
    blocks[2] = Block("table", "", 2, rows=(("Crowns", "GBP 800"), ("Bridges", "GBP 700")))
    text = structure(blocks).clauses[0].text
    assert "Benefit: Crowns; Cap: GBP 800" in text and "Benefit: Bridges; Cap: GBP 700" in text


def test_long_article_is_split_into_parts_that_keep_the_article() -> None:
    body = [p(f"Sentence number {i} of a long article that goes on and on about the cover it gives.") for i in range(60)]
    result = structure([h("9.1 Implantology"), *body])
    assert len(result.clauses) > 1
    assert all(c.article == "9.1 Implantology" and len(c.text) <= MAX_CLAUSE_CHARS for c in result.clauses)
    assert [c.key for c in result.clauses][:2] == ["A9.1", "A9.1p2"]
    assert "\n".join(c.text for c in result.clauses) == "\n".join(b.text for b in body)


def test_sentences_do_not_split_after_abbreviations() -> None:
    assert sentences("Cover applies, e.g. for implants. See Art. 7 for limits. It ends here.") == [
        "Cover applies, e.g. for implants.",
        "See Art. 7 for limits.",
        "It ends here.",
    ]


def test_text_without_structure_is_chunked_with_overlap() -> None:
    text = " ".join(f"Sentence {i} says something about the policy and its cover for members." for i in range(80))
    chunks = chunk_blocks([p(text, page=1, label="7")])
    assert len(chunks) > 3
    for c in chunks:
        assert c.chunk and is_chunk_section(c.section) and c.article is None
        assert len(c.text) <= CHUNK_CHARS and c.page == 1 and c.page_label == "7"
    for a, b in zip(chunks, chunks[1:], strict=False):
        tail = a.text[-CHUNK_OVERLAP:]
        first_sentence = b.text.split(". ")[0]
        assert first_sentence in tail, "each chunk starts with the last sentences of the one before"
        assert 0 < len(a.text) - a.text.index(first_sentence) <= CHUNK_OVERLAP + 1
    assert [c.key for c in chunks][:2] == ["chunk1", "chunk2"]


def test_structure_falls_back_to_chunks_and_keeps_lists_whole() -> None:
    blocks = [p("Members must show all of the following:"), Block("list_item", "- a referral;"), Block("list_item", "- an invoice.")]
    result = structure(blocks)
    assert result.chunked and result.clauses[0].text == "Members must show all of the following:\n- a referral;\n- an invoice."
