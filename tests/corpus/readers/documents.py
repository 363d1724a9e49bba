"""Policy documents made by the tests (fpdf2, python-docx, plain HTML and Markdown) into tmp_path.

Each builder writes a small but realistic document: numbered chapters and articles, a two-column
page, a limits table, running headers and footers, printed page numbers that differ from the
physical pages. Nothing here is read from the network or from the repository's data.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from fpdf import FPDF

TITLE = "Group Health and Dental Insurance: General Conditions"


@dataclass(frozen=True)
class Edition:
    """One version of the group terms: what differs between versions, and where its pages start."""

    label: str
    implant_rate: str = "50%"
    implant_cap: str = "GBP 1,000"
    waiting: str = "twelve (12) months"
    first_page: int = 31  # the number printed on physical page 1


class _TermsPdf(FPDF):
    def __init__(self, edition: Edition) -> None:
        super().__init__(format="A4")
        self.edition = edition
        self.set_auto_page_break(True, 22)
        self.set_margins(12, 12, 12)

    def header(self) -> None:
        self.set_font("Helvetica", "", 8)
        self.cell(0, 5, f"Alder Mutual Assurance - Group General Conditions {self.edition.label}", align="C")
        self.ln(12)

    def footer(self) -> None:
        self.set_y(-15)
        self.set_font("Helvetica", "", 8)
        self.cell(0, 10, f"Page {self.edition.first_page + self.page_no() - 1}", align="C")

    def heading(self, text: str, size: float = 11) -> None:
        self.set_font("Helvetica", "B", size)
        self.multi_cell(0, 6, text)
        self.ln(2)

    def paragraph(self, text: str) -> None:
        self.set_font("Helvetica", "", 10)
        self.multi_cell(0, 5, text)
        self.ln(3)


def _column(pdf: _TermsPdf, x: float, y: float, items: list[tuple[str, str]]) -> None:
    pdf.set_xy(x, y)
    for kind, text in items:
        pdf.set_x(x)
        if kind == "h":
            pdf.set_font("Helvetica", "B", 11)
            pdf.multi_cell(88, 6, text, new_x="LEFT")
            pdf.ln(2)
        else:
            pdf.set_font("Helvetica", "", 10)
            pdf.multi_cell(88, 5, text, new_x="LEFT")
            pdf.ln(3)


def implant_text(edition: Edition) -> str:
    return (
        f"Dental implants, including the placement of the implant and the crown fitted on it, are covered "
        f"at {edition.implant_rate} of the agreed tariff. Cover applies provided that all of the following are met:"
    )


def write_terms_pdf(path: Path, edition: Edition) -> Path:
    """Three pages: definitions and waiting periods; a two-column dental chapter; exclusions and a limits table."""
    pdf = _TermsPdf(edition)
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 16)
    pdf.multi_cell(0, 8, TITLE)
    pdf.ln(4)
    pdf.heading("Chapter 1. Definitions", 12)
    pdf.heading("1.2 Definitions")
    pdf.paragraph(
        "In these conditions, 'contract year' means each period of twelve months that begins on the effective date "
        "of the group contract, and 'insured person' means an employee of the contract holder who has been "
        "registered for cover and for whom the premium has been paid."
    )
    pdf.heading("Chapter 4. Start of cover", 12)
    pdf.heading("4.2 Waiting periods")
    pdf.paragraph(
        f"Benefits for dental prosthetics, including crowns, bridges and implants, become payable only after a "
        f"waiting period of {edition.waiting} from the date on which the insured person joined the contract."
    )
    pdf.add_page()
    pdf.heading("Chapter 7. Dental care", 12)
    top = pdf.get_y()
    _column(pdf, 12, top, [
        ("h", "7.1 Dental, conservative care"),
        ("p", "Check-ups, fillings, root canal treatment and scaling carried out by a registered dentist are "
              "reimbursed at 80% of the agreed tariff, within the annual dental allowance."),
        ("h", "7.2 Dental prosthetics"),
        ("p", "Crowns, bridges and removable dentures are reimbursed at 60% of the agreed tariff, provided that the "
              "tooth concerned can no longer be restored by a filling."),
    ])
    _column(pdf, 110, top, [
        ("h", "7.3 Dental, implantology"),
        ("p", implant_text(edition)),
        ("p", "(a) the insurer approved the treatment quote before the first surgical stage;"),
        ("p", "(b) the tooth was lost after the insured person joined the contract."),
        ("h", "7.4 Supporting documents"),
        ("p", "Before implant treatment begins, the insured person must send the insurer the dentist's detailed "
              "treatment quote and a recent panoramic x-ray of the jaw."),
    ])
    pdf.add_page()
    pdf.heading("Chapter 11. Exclusions", 12)
    pdf.heading("11.1 General exclusions")
    pdf.paragraph(
        "The contract does not cover treatment undertaken for cosmetic reasons or injuries arising from taking part "
        "in professional sport."
    )
    pdf.heading("Chapter 12. Limits of benefits", 12)
    pdf.heading("12.4 Annual caps on dental benefits")
    pdf.paragraph("The annual amounts payable for each category of dental care are set out in the following table:")
    pdf.set_font("Helvetica", "", 10)
    with pdf.table() as table:
        for row in (
            ("Benefit", "Annual cap", "Waiting period"),
            ("Dental implants", edition.implant_cap, edition.waiting),
            ("Crowns and bridges", "GBP 800", edition.waiting),
        ):
            cells = table.row()
            for value in row:
                cells.cell(value)
    pdf.output(str(path))
    return path


def write_scanned_pdf(path: Path) -> Path:
    """A first page with text and a second page that is only an image (a scan without OCR)."""
    from PIL import Image

    pdf = FPDF(format="A4")
    pdf.add_page()
    pdf.set_font("Helvetica", "", 11)
    pdf.multi_cell(0, 6, "Article 1 Scope. This policy covers outpatient physiotherapy for insured members.")
    pdf.add_page()
    pdf.image(Image.new("RGB", (600, 800), "white"), x=10, y=10, w=180)
    pdf.output(str(path))
    return path


def write_plain_pdf(path: Path, text: str) -> Path:
    """One or more pages of running text with no headings."""
    pdf = FPDF(format="A4")
    pdf.add_page()
    pdf.set_font("Helvetica", "", 10)
    pdf.multi_cell(0, 5, text)
    pdf.output(str(path))
    return path


def write_terms_docx(path: Path, label: str, physio_sessions: str = "ten (10)", cap: str = "GBP 500") -> Path:
    """A Word rider: title, numbered articles in heading styles, a bullet list, a page break, a table."""
    import docx

    document = docx.Document()
    document.core_properties.title = "Physiotherapy Rider"
    document.add_heading("Physiotherapy Rider", 0)
    document.add_paragraph(f"Edition {label}. This rider forms part of the group contract.")
    document.add_heading("Article 1 Scope", 1)
    document.add_paragraph("This rider covers outpatient physiotherapy prescribed by a physician.")
    document.add_heading("Article 2 Conditions", 1)
    document.add_paragraph("Physiotherapy is reimbursed provided that all of the following are met:")
    document.add_paragraph("the treatment is prescribed before it starts;", style="List Bullet")
    document.add_paragraph("the physiotherapist is registered with the national register.", style="List Bullet")
    document.add_page_break()
    document.add_heading("Article 3 Limits", 1)
    document.add_paragraph(f"The insurer pays for up to {physio_sessions} sessions per insured person per contract year.")
    table = document.add_table(rows=3, cols=2)
    for r, (a, b) in enumerate((("Benefit", "Annual cap"), ("Physiotherapy", cap), ("Hydrotherapy", "GBP 200"))):
        table.cell(r, 0).text = a
        table.cell(r, 1).text = b
    document.add_heading("Article 4 Exclusions", 1)
    document.add_paragraph("Wellness massage is excluded, except as provided in Article 2.")
    document.save(str(path))
    return path


HTML_PAGE = """<!doctype html>
<html><head><title>Hearing Aids Policy</title><style>p { color: red }</style></head>
<body>
<header><p>Kestrel Health Plan - member site</p></header>
<nav><ul><li>Home</li><li>Policies</li></ul></nav>
<main>
<h1>Hearing Aids Policy</h1>
<h2>Section 1 Scope</h2>
<p>This policy applies to air-conduction hearing aids (V5256) for members aged eighteen or older.</p>
<h2>Section 2 Coverage criteria</h2>
<p>Hearing aids are covered when all of the following are documented:</p>
<ol><li>a hearing loss of 40 dB or more in the better ear;</li><li>an audiogram dated within six months.</li></ol>
<h2>Section 3 Limits</h2>
<table><thead><tr><th>Device</th><th>Limit</th></tr></thead>
<tbody><tr><td>Hearing aid</td><td>one per ear every 36 months</td></tr>
<tr><td>Batteries</td><td>GBP 50 per year</td></tr></tbody></table>
<script>var tracking = "not policy text";</script>
</main>
<footer><p>Copyright Kestrel Health Plan</p></footer>
</body></html>
"""

MARKDOWN_PAGE = """---
title: Home Oxygen Policy
---
# Home Oxygen Policy

## 1. Scope

This policy applies to stationary oxygen concentrators (E1390).

## 2. Coverage criteria

Home oxygen is covered only when both of the following are documented:

1. a resting oxygen saturation of 88% or less;
2. a physician's prescription stating the flow rate.

## 3. Limits

| Item | Limit |
|------|-------|
| Concentrator | one per member every five years |
| Portable system | one per member |

## 4. Exclusions

Oxygen used only as needed for comfort is **not covered**.
"""
