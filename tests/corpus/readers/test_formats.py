"""The Word, HTML, Markdown and text readers, and picking a reader by suffix."""

from __future__ import annotations

from pathlib import Path

import pytest

from clauseguard.corpus.readers import docx, html, markdown, read_file, structure, text
from clauseguard.errors import CorpusError
from tests.corpus.readers.documents import HTML_PAGE, MARKDOWN_PAGE, write_terms_docx


def test_docx_headings_lists_tables_and_page_breaks(tmp_path: Path) -> None:
    read = docx.read(write_terms_docx(tmp_path / "rider.docx", "PR-2022"))
    assert read.title == "Physiotherapy Rider" and read.pages == 2
    result = structure(read.blocks)
    assert result.title == "Physiotherapy Rider"
    by_key = {c.key: c for c in result.clauses}
    # a table is a clause of its own (its rows under their header), unless a lead-in ending ':' introduces it
    assert list(by_key) == ["C1", "A1", "A2", "A3", "A3p2", "A4"]
    assert by_key["C1"].section == "Physiotherapy Rider"  # the text before the first article
    assert by_key["A2"].text.splitlines() == [
        "Physiotherapy is reimbursed provided that all of the following are met:",
        "- the treatment is prescribed before it starts;",
        "- the physiotherapist is registered with the national register.",
    ]
    assert (by_key["A1"].page, by_key["A3"].page, by_key["A3p2"].page) == (1, 2, 2)
    assert by_key["A3"].text == "The insurer pays for up to ten (10) sessions per insured person per contract year."
    assert by_key["A3p2"].table and by_key["A3p2"].article == "Article 3 Limits"
    assert by_key["A3p2"].text.splitlines() == [
        "Benefit: Physiotherapy; Annual cap: GBP 500",
        "Benefit: Hydrotherapy; Annual cap: GBP 200",
    ]


def test_docx_without_page_breaks_has_no_pages(tmp_path: Path) -> None:
    import docx as python_docx

    document = python_docx.Document()
    document.add_heading("Article 1 Scope", 1)
    document.add_paragraph("This rider covers hearing aids.")
    path = tmp_path / "short.docx"
    document.save(str(path))
    clause = structure(docx.read(path).blocks).clauses[0]
    assert clause.page is None and clause.article == "Article 1 Scope"


def test_html_reads_content_not_page_chrome(tmp_path: Path) -> None:
    path = tmp_path / "hearing.html"
    path.write_text(HTML_PAGE, encoding="utf-8")
    read = html.read(path)
    result = structure(read.blocks)
    assert result.title == "Hearing Aids Policy"
    texts = "\n".join(c.text for c in result.clauses)
    for chrome in ("member site", "Home", "Copyright", "tracking", "color: red"):
        assert chrome not in texts
    by_key = {c.key: c for c in result.clauses}
    assert by_key["S2"].text.splitlines() == [
        "Hearing aids are covered when all of the following are documented:",
        "1. a hearing loss of 40 dB or more in the better ear;",
        "2. an audiogram dated within six months.",
    ]
    assert by_key["S3"].text.splitlines() == [
        "Device: Hearing aid; Limit: one per ear every 36 months",
        "Device: Batteries; Limit: GBP 50 per year",
    ]
    assert all(c.page is None for c in result.clauses)


def test_markdown_headings_lists_tables_and_front_matter(tmp_path: Path) -> None:
    path = tmp_path / "oxygen.md"
    path.write_text(MARKDOWN_PAGE, encoding="utf-8")
    read = markdown.read(path)
    assert read.title == "Home Oxygen Policy"
    by_key = {c.key: c for c in structure(read.blocks).clauses}
    assert list(by_key) == ["A1", "A2", "A3", "A4"]
    assert by_key["A2"].text.splitlines()[1:] == [
        "1. a resting oxygen saturation of 88% or less;",
        "2. a physician's prescription stating the flow rate.",
    ]
    assert by_key["A3"].text.splitlines() == [
        "Item: Concentrator; Limit: one per member every five years",
        "Item: Portable system; Limit: one per member",
    ]
    assert by_key["A4"].text == "Oxygen used only as needed for comfort is not covered."
    assert "title:" not in "\n".join(c.text for c in by_key.values())


def test_text_pages_split_at_form_feeds(tmp_path: Path) -> None:
    path = tmp_path / "terms.txt"
    path.write_text("Article 1 Scope\nThis policy covers physiotherapy.\n\fArticle 2 Exclusions\nMassage is excluded.\n", encoding="utf-8")
    clauses = structure(text.read(path).blocks).clauses
    assert [(c.article, c.page, c.text) for c in clauses] == [
        ("Article 1 Scope", 1, "This policy covers physiotherapy."),
        ("Article 2 Exclusions", 2, "Massage is excluded."),
    ]


@pytest.mark.parametrize(("name", "message"), [("terms.rtf", "cannot ingest a .rtf file"), ("missing.pdf", "no such file")])
def test_unreadable_files_are_named(tmp_path: Path, name: str, message: str) -> None:
    path = tmp_path / name
    if name.endswith(".rtf"):
        path.write_text("{\\rtf1}")
    with pytest.raises(CorpusError, match=message) as caught:
        read_file(path)
    assert str(path) in str(caught.value)


def test_a_docx_that_is_not_one(tmp_path: Path) -> None:
    path = tmp_path / "fake.docx"
    path.write_text("plain text")
    with pytest.raises(CorpusError, match="cannot be read as a Word .docx file"):
        docx.read(path)


def test_docx_paragraphs_inside_content_controls_are_read(tmp_path: Path) -> None:
    import docx as python_docx
    from docx.oxml.ns import qn
    from docx.oxml.parser import OxmlElement

    document = python_docx.Document()
    document.add_heading("Article 1 Scope", 1)
    inner = document.add_paragraph("This rider covers hearing aids for insured members.")
    sdt, content = OxmlElement("w:sdt"), OxmlElement("w:sdtContent")
    inner._p.addprevious(sdt)
    sdt.append(content)
    content.append(inner._p)
    assert inner._p.getparent().tag == qn("w:sdtContent")
    path = tmp_path / "controls.docx"
    document.save(str(path))
    assert structure(docx.read(path).blocks).clauses[0].text == "This rider covers hearing aids for insured members."
