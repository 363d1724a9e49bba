"""The PDF reader on PDFs the tests write: articles, two columns, tables, running text, page labels."""

from __future__ import annotations

from pathlib import Path

import pytest
from fpdf import FPDF

from clauseguard.corpus.readers import pdf, read_files, structure
from clauseguard.corpus.readers.structure import DraftClause
from clauseguard.errors import CorpusError
from tests.corpus.readers.documents import TITLE, Edition, write_plain_pdf, write_scanned_pdf, write_terms_pdf


@pytest.fixture
def terms(tmp_path: Path) -> dict[str, DraftClause]:
    path = write_terms_pdf(tmp_path / "terms.pdf", Edition("CG-2021-09", first_page=31))
    result = structure(pdf.read(path).blocks)
    assert result.title == TITLE
    return {c.key: c for c in result.clauses}


def test_numbered_articles_become_clauses_with_chapter_and_article(terms: dict[str, DraftClause]) -> None:
    assert list(terms) == ["A1.2", "A4.2", "A7.1", "A7.2", "A7.3", "A7.4", "A11.1", "A12.4"]
    implant = terms["A7.3"]
    assert implant.section == "Chapter 7. Dental care"
    assert implant.article == "7.3 Dental, implantology"
    assert implant.headings == ("Chapter 7. Dental care", "7.3 Dental, implantology")


def test_pages_keep_physical_number_and_printed_label(terms: dict[str, DraftClause]) -> None:
    assert [(terms[k].page, terms[k].page_label) for k in ("A1.2", "A7.3", "A12.4")] == [(1, "31"), (2, "32"), (3, "33")]


def test_running_header_footer_and_page_numbers_are_not_clause_text(terms: dict[str, DraftClause]) -> None:
    for clause in terms.values():
        assert "Alder Mutual Assurance" not in clause.text and "Page 3" not in clause.text


def test_two_column_page_is_read_column_by_column(terms: dict[str, DraftClause]) -> None:
    assert terms["A7.1"].text.startswith("Check-ups, fillings") and terms["A7.1"].text.endswith("annual dental allowance.")
    assert terms["A7.2"].text.endswith("can no longer be restored by a filling.")
    assert "Check-ups" not in terms["A7.3"].text


def test_list_stays_with_its_lead_in(terms: dict[str, DraftClause]) -> None:
    lines = terms["A7.3"].text.splitlines()
    assert lines[0].endswith("provided that all of the following are met:")
    assert lines[1:] == [
        "(a) the insurer approved the treatment quote before the first surgical stage;",
        "(b) the tooth was lost after the insured person joined the contract.",
    ]


def test_table_rows_keep_their_header(terms: dict[str, DraftClause]) -> None:
    assert terms["A12.4"].text.splitlines()[1:] == [
        "Benefit: Dental implants; Annual cap: GBP 1,000; Waiting period: twelve (12) months",
        "Benefit: Crowns and bridges; Annual cap: GBP 800; Waiting period: twelve (12) months",
    ]


def test_page_without_text_layer_needs_ocr(tmp_path: Path) -> None:
    path = write_scanned_pdf(tmp_path / "scanned.pdf")
    with pytest.raises(CorpusError) as caught:
        pdf.read(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: no text layer: OCR needed") and "page 2" in message


def test_a_pdf_that_is_not_a_pdf(tmp_path: Path) -> None:
    path = tmp_path / "broken.pdf"
    path.write_bytes(b"not a pdf at all")
    with pytest.raises(CorpusError, match="cannot be read as a PDF"):
        pdf.read(path)


def test_declared_page_labels_are_used_when_none_is_printed(tmp_path: Path) -> None:
    from pypdf import PdfReader, PdfWriter
    from pypdf.constants import PageLabelStyle

    plain = tmp_path / "plain.pdf"
    doc = FPDF(format="A4")
    for n in range(2):
        doc.add_page()
        doc.set_font("Helvetica", "B", 11)
        doc.multi_cell(0, 6, f"Article {n + 1} Scope", new_x="LMARGIN", new_y="NEXT")
        doc.set_font("Helvetica", "", 10)
        doc.multi_cell(0, 5, "This article describes the cover the policy gives to insured members.")
    doc.output(str(plain))
    writer = PdfWriter(clone_from=PdfReader(str(plain)))
    writer.set_page_label(0, 1, style=PageLabelStyle.LOWERCASE_ROMAN)
    labelled = tmp_path / "labelled.pdf"
    writer.write(str(labelled))
    clauses = structure(pdf.read(labelled).blocks).clauses
    assert [(c.article, c.page, c.page_label) for c in clauses] == [("Article 1 Scope", 1, "i"), ("Article 2 Scope", 2, "ii")]


def test_pages_continue_across_the_files_of_one_version(tmp_path: Path) -> None:
    first = write_terms_pdf(tmp_path / "part1.pdf", Edition("CG-2021-09", first_page=1))
    second = write_plain_pdf(tmp_path / "part2.pdf", "Annex. The schedule of benefits forms part of these conditions.")
    read = read_files([first, second])
    assert read.pages == 4 and read.reader == "pdf"
    assert read.blocks[-1].page == 4 and read.blocks[-1].text.startswith("Annex.")


def test_text_with_no_structure_is_chunked(tmp_path: Path) -> None:
    text = " ".join(
        f"Paragraph {i}: the insurer reimburses eligible treatment at the agreed tariff when the member is insured."
        for i in range(40)
    )
    clauses = structure(pdf.read(write_plain_pdf(tmp_path / "plain.pdf", text)).blocks).clauses
    assert len(clauses) > 3 and all(c.chunk and c.section == f"chunk {n}" for n, c in enumerate(clauses, 1))
    assert all(c.page == 1 for c in clauses)


def test_chapter_running_heads_with_page_numbers_are_removed(tmp_path: Path) -> None:
    class Book(FPDF):
        chapter = ""

        def header(self) -> None:
            self.set_font("Helvetica", "I", 9)
            self.cell(0, 5, f"{self.chapter}    {self.page_no() + 100}", align="R")
            self.ln(14)

    doc = Book(format="A4")
    for n, name in enumerate(("Scope", "Criteria", "Exclusions"), 1):
        doc.chapter = f"Chapter {n}: {name}"
        for part in (1, 2):
            doc.add_page()
            doc.set_font("Helvetica", "B", 12)
            doc.multi_cell(0, 7, f"{n}.{part} {name} rules", new_x="LMARGIN", new_y="NEXT")
            doc.set_font("Helvetica", "", 10)
            doc.multi_cell(0, 5, f"Article {n}.{part} sets out the {name.lower()} that apply to every insured member.")
    path = tmp_path / "book.pdf"
    doc.output(str(path))
    clauses = structure(pdf.read(path).blocks).clauses
    assert [c.article for c in clauses] == ["1.1 Scope rules", "1.2 Scope rules", "2.1 Criteria rules",
                                            "2.2 Criteria rules", "3.1 Exclusions rules", "3.2 Exclusions rules"]
    assert [c.page_label for c in clauses] == ["101", "102", "103", "104", "105", "106"]
    assert not any("Chapter" in c.text or "Chapter" in c.section for c in clauses)
