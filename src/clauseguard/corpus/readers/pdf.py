"""The PDF reader: pdfium's text runs and ruling lines, read as a person reads the page. Tables out of
the text flow, running headers, footers and page numbers out wherever they fall, cover and contents
pages out, the rest into headings, paragraphs, list items, joiners and tables (`pdf_blocks.py`).

A file that is empty, truncated, encrypted, not a PDF or without a text layer is a CorpusError that
says so and what would be valid, never empty text.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final

from clauseguard.corpus.readers.blocks import Block, PageProgress, ReadDocument, ReadReport, TableNote
from clauseguard.corpus.readers.frontmatter import front_matter
from clauseguard.corpus.readers.layout import Line, page_lines
from clauseguard.corpus.readers.markers import clean_glyphs
from clauseguard.corpus.readers.pdf_blocks import BodyPage, page_blocks
from clauseguard.corpus.readers.pdf_page import RawPage, read_pages
from clauseguard.corpus.readers.revisions import revision_dates
from clauseguard.corpus.readers.running import find_running
from clauseguard.corpus.readers.tables import Table, find_tables, join_continued, settle_header
from clauseguard.errors import CorpusError, Problem

NAME: Final = "pdf"
SUFFIXES: Final = (".pdf",)
_SCANNED: Final = 0.2  # a page with no text whose images cover this share of it needs OCR
_TAIL: Final = 2048  # bytes at the end of a file where "%%EOF" must be


def _problem(path: Path, message: str) -> CorpusError:
    return CorpusError([Problem(str(path), "", message)])


def check_file(path: Path) -> None:
    """An empty, truncated or non-PDF file, named for what it is."""
    size = path.stat().st_size
    if size == 0:
        raise _problem(path, "is empty (0 bytes); give the complete PDF file")
    with path.open("rb") as handle:
        head = handle.read(1024)
        handle.seek(max(0, size - _TAIL))
        tail = handle.read()
    if b"%PDF-" not in head:
        raise _problem(path, "cannot be read as a PDF: it does not start with %PDF- (is it another kind of file renamed?); "
                             "give a PDF, or a file with the suffix of its real kind")
    if b"%%EOF" not in tail:
        raise _problem(path, "is truncated (no %%EOF at its end: the file was cut short); give the complete PDF file")


def _open(path: Path) -> Any:
    import pypdfium2 as pdfium

    try:
        return pdfium.PdfDocument(str(path))
    except pdfium.PdfiumError as exc:
        text = str(exc).lower()
        if "password" in text:
            raise _problem(path, "is encrypted (password-protected); save an unencrypted copy (e.g. `qpdf --decrypt`) "
                                 "and ingest that") from exc
        raise _problem(path, f"cannot be read as a PDF ({exc}); give an undamaged PDF file") from exc


def _no_text_layer(path: Path, pages: Sequence[int], total: int) -> CorpusError:
    shown = ", ".join(str(p) for p in pages)
    which = f"page {shown} has" if len(pages) == 1 else f"pages {shown} have"
    if len(pages) == total:
        which = "it has only images: every page is" if total > 1 else "its page is"
        which += " a picture of text"
    return _problem(
        path,
        f"no text layer: OCR needed ({which} no text, only images; run OCR on the file, e.g. `ocrmypdf`, and ingest "
        "the result)",
    )


@dataclass
class _Page:
    raw: RawPage
    lines: list[Line]
    tables: list[Table]
    gutter: float | None
    kept: list[Line] = field(default_factory=list)
    label: str | None = None


def _read_page(raw: RawPage) -> _Page:
    tables = find_tables(raw.runs, raw.edges, raw.number)
    taken = {id(r) for t in tables for r in t.runs}
    layout = page_lines([r for r in raw.runs if id(r) not in taken], raw.width, raw.number)
    return _Page(raw, layout.lines, tables, layout.gutter)


def _margin(lines: Sequence[Line]) -> float:
    """The x most lines start at: the left edge of the text."""
    counts = Counter(round(line.x0) for line in lines)
    return float(counts.most_common(1)[0][0]) if counts else 0.0


def _set_indents(page: _Page, margin: float) -> None:
    right = [ln for ln in page.kept if page.gutter is not None and ln.x0 >= page.gutter]
    right_margin = _margin(right) if right else 0.0
    on_right = {id(ln) for ln in right}
    for line in page.kept:
        origin = right_margin if id(line) in on_right else margin
        line.indent = line.x0 - origin
        line.text_indent = line.text_x0 - origin


def _items(page: _Page) -> list[Line | Table]:
    """Lines and tables in reading order: each table before the first line below its top."""
    items: list[Line | Table] = list(page.kept)
    for table in sorted(page.tables, key=lambda t: t.top):
        at = next(
            (i for i, it in enumerate(items) if isinstance(it, Line) and it.top > table.top and it.x0 < table.x1),
            len(items),
        )
        items.insert(at, table)
    return items


def _join_tables(body: Sequence[BodyPage]) -> None:
    """A table that ends one page and one that opens the next with the same columns are one table
    (over as many pages as it runs)."""
    carry: Table | None = None
    for page in body:
        first = page.items[0] if page.items else None
        if carry is not None and isinstance(first, Table) and join_continued(carry, first):
            page.items.pop(0)
            if not page.items:
                continue
        last = page.items[-1] if page.items else None
        carry = last if isinstance(last, Table) else None


def _notes(blocks: Sequence[Block], tables: Sequence[Table]) -> tuple[TableNote, ...]:
    notes = []
    heading = ""
    by_place = {(t.page, tuple(tuple(c.text for c in row) for row in t.rows)): t for t in tables}
    for b in blocks:
        if b.kind == "heading":
            heading = b.text
        if b.kind != "table":
            continue
        table = by_place.get((b.page or 0, b.rows))
        header = table.header if table else (b.rows[0] if b.header and b.rows else ())
        body = [list(r) for r in (b.rows[1:] if b.header else b.rows)]
        keys = tuple(r[0] for r in body) if table is not None and table.key_value else ()
        dates = revision_dates(header, body, heading) or []
        notes.append(TableNote(b.page, b.page_end, tuple(header), len(body), keys, tuple(dates)))
    return tuple(notes)


def read(path: Path, on_page: PageProgress | None = None) -> ReadDocument:
    """Read a PDF into blocks, with a report of what was left out; `on_page` is told of each page read."""
    check_file(path)
    document = _open(path)
    try:
        title = (document.get_metadata_dict().get("Title") or "").strip() or None
        total = len(document)
        pages = []
        for raw in read_pages(document):
            pages.append(_read_page(raw))
            if on_page is not None:
                on_page(raw.number, total)
    finally:
        document.close()
    if not pages:
        raise _problem(path, "has no pages; give a PDF with at least one page of text")
    running = find_running([(p.raw.number, p.raw.height, p.lines) for p in pages])
    for p in pages:
        gone = running.removed.get(p.raw.number, set())
        p.kept = [ln for i, ln in enumerate(p.lines) if i not in gone]
        p.label = running.labels.get(p.raw.number) or p.raw.declared_label
    scanned = [p.raw.number for p in pages if not p.kept and not p.tables and p.raw.image_share >= _SCANNED]
    if scanned or not any(p.kept or p.tables for p in pages):
        raise _no_text_layer(path, scanned or [p.raw.number for p in pages], len(pages))
    front = front_matter([(p.raw.number, p.raw.width, p.kept, bool(p.tables)) for p in pages])
    body_pages = [p for p in pages if p.raw.number not in front]
    margin = _margin([ln for p in body_pages for ln in p.kept])
    body = []
    for p in body_pages:
        _set_indents(p, margin)
        body.append(BodyPage(p.raw.number, p.label, p.raw.width, p.gutter, _items(p)))
    _join_tables(body)
    tables = [it for page in body for it in page.items if isinstance(it, Table)]
    for table in tables:
        settle_header(table)
    blocks, removed = _clean(page_blocks(body))
    dropped = [*running.dropped, *((what, "", (n,)) for n, what in sorted(front.items()))]
    warnings = [f"{removed} private-use glyph(s) with no Unicode meaning removed from the text"] if removed else []
    labels = tuple(p.label for p in pages)
    report = ReadReport(tuple(dropped), _notes(blocks, tables), tuple(warnings), labels)
    return ReadDocument(NAME, tuple(blocks), title, len(pages), report=report, marks_title=True)


def _clean(blocks: Sequence[Block]) -> tuple[list[Block], int]:
    out, removed = [], 0
    for b in blocks:
        text, n = clean_glyphs(b.text)
        rows = tuple(tuple(clean_glyphs(c)[0] for c in row) for row in b.rows)
        removed += n
        out.append(replace(b, text=" ".join(text.split()), rows=rows))
    return out, removed
