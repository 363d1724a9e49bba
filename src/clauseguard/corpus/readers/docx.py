"""The Word (.docx) reader: paragraphs and tables in body order, headings by style or outline level.

Pages come from the breaks Word recorded; it never invents a page number (no break, no page).
"""

from __future__ import annotations

import re
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

from clauseguard.corpus.readers.blocks import Block, PageProgress, ReadDocument
from clauseguard.corpus.readers.headings import LIST_MARKER, parse_heading
from clauseguard.errors import CorpusError, Problem

NAME: Final = "docx"
SUFFIXES: Final = (".docx",)

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_HEADING_STYLE = re.compile(r"heading\s*(\d)", re.I)


def _style_level(paragraph: Any) -> int | None:
    """0 for Title, N for "Heading N" or an outline level N-1, else None (not a heading style)."""
    style = paragraph.style
    seen = 0
    while style is not None and seen < 10:
        name = (style.name or "").strip()
        if name.lower() == "title":
            return 0
        m = _HEADING_STYLE.fullmatch(name)
        if m:
            return int(m.group(1))
        outline = style.element.find(f"{_W}pPr/{_W}outlineLvl")
        if outline is not None:
            return int(outline.get(f"{_W}val", "9")) + 1
        style = style.base_style
        seen += 1
    outline = paragraph._p.find(f"{_W}pPr/{_W}outlineLvl")
    if outline is not None and outline.get(f"{_W}val", "9") != "9":
        return int(outline.get(f"{_W}val", "9")) + 1
    return None


def _is_list(paragraph: Any) -> bool:
    if paragraph._p.find(f"{_W}pPr/{_W}numPr") is not None:
        return True
    name = (paragraph.style.name or "").lower() if paragraph.style is not None else ""
    return name.startswith("list")


def _all_bold(paragraph: Any) -> bool:
    runs = [r for r in paragraph.runs if r.text.strip()]
    return bool(runs) and all(r.bold or (r.style is not None and r.style.font.bold) for r in runs)


def _breaks(element: Any, rendered: bool) -> tuple[int, int]:
    """(page breaks before the paragraph's first text, page breaks after it)."""
    before = after = 0
    seen_text = False
    ppr = element.find(f"{_W}pPr")
    if not rendered and ppr is not None and ppr.find(f"{_W}pageBreakBefore") is not None:
        before += 1
    for node in element.iter():
        tag = node.tag
        if tag == f"{_W}t" and (node.text or "").strip():
            seen_text = True
        elif (rendered and tag == f"{_W}lastRenderedPageBreak") or (
            not rendered and tag == f"{_W}br" and node.get(f"{_W}type") == "page"
        ):
            if seen_text:
                after += 1
            else:
                before += 1
    if not rendered and ppr is not None and ppr.find(f"{_W}sectPr") is not None:
        after += 1  # a section break in Word's default layout starts a new page
    return before, after


def _cells(row: Any) -> tuple[str, ...]:
    out: list[str] = []
    seen: set[int] = set()
    for cell in row.cells:
        if id(cell._tc) in seen:  # a merged cell is returned once per grid column it spans
            continue
        seen.add(id(cell._tc))
        out.append(" ".join(cell.text.split()))
    return tuple(out)


def _bold_cell(cell: Any) -> bool:
    runs = [r for p in cell.paragraphs for r in p.runs if r.text.strip()]
    return bool(runs) and all(r.bold for r in runs)


def _has_header(table: Any) -> bool:
    """Whether the first row is a header: Word marks it as one (repeat as header row), or the table
    is not a key-value table (labels in bold down the first column, values beside them)."""
    rows = list(table.rows)
    if rows and rows[0]._tr.find(f"{_W}trPr/{_W}tblHeader") is not None:
        return True
    cells = [list(r.cells) for r in rows]
    key_value = len(cells) >= 2 and all(len(r) == 2 for r in cells) and all(_bold_cell(r[0]) for r in cells) and not any(
        _bold_cell(r[1]) for r in cells)
    return not key_value


def _body_items(element: Any) -> Iterator[Any]:
    """Paragraphs and tables in body order, including those inside content controls (w:sdt)."""
    for child in element.iterchildren():
        if child.tag in (f"{_W}p", f"{_W}tbl"):
            yield child
        elif child.tag in (f"{_W}sdt", f"{_W}sdtContent", f"{_W}customXml"):
            yield from _body_items(child)


def read(path: Path, on_page: PageProgress | None = None) -> ReadDocument:
    """Read a .docx into blocks; CorpusError when it is not a Word document."""
    import docx
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    try:
        document = docx.Document(str(path))
    except zipfile.BadZipFile as exc:
        raise CorpusError([Problem(str(path), "", "cannot be read as a Word .docx file: it is not a ZIP package "
                                                  "(a .docx is one); give a .docx saved by Word or LibreOffice")]) from exc
    except (KeyError, ValueError) as exc:
        raise CorpusError([Problem(str(path), "", f"cannot be read as a Word .docx file: it is a ZIP archive but not a Word "
                                                  f"document ({exc}); give a .docx saved by Word or LibreOffice, or the "
                                                  "file with the suffix of its real kind")]) from exc
    except OSError as exc:
        raise CorpusError([Problem(str(path), "", f"cannot be read as a Word .docx file: {exc}")]) from exc
    except Exception as exc:  # noqa: BLE001 - python-docx raises its own kinds for broken packages
        raise CorpusError([Problem(str(path), "", f"cannot be read as a Word .docx file: {type(exc).__name__}: {exc}")]) from exc
    body = document.element.body
    rendered = any(True for _ in body.iter(f"{_W}lastRenderedPageBreak"))
    explicit = rendered or any(
        node.get(f"{_W}type") == "page" for node in body.iter(f"{_W}br")
    ) or any(True for _ in body.iter(f"{_W}pageBreakBefore"))
    page = 1
    blocks: list[Block] = []
    for child in _body_items(body):
        if child.tag == f"{_W}p":
            paragraph = Paragraph(child, document)
            before, after = _breaks(child, rendered)
            page += before
            text = " ".join(paragraph.text.split())
            where = page if explicit else None
            if text:
                level = _style_level(paragraph)
                if level is None and _all_bold(paragraph) and parse_heading(text, strong=True) is not None:
                    blocks.append(Block("heading", text, where))  # a bold numbered line: level from its number
                elif level is not None:
                    blocks.append(Block("heading", text, where, level=level))
                elif _is_list(paragraph) and not LIST_MARKER.match(text):
                    blocks.append(Block("list_item", f"- {text}", where))
                else:
                    blocks.append(Block("list_item" if LIST_MARKER.match(text) else "paragraph", text, where))
            page += after
        elif child.tag == f"{_W}tbl":
            table = Table(child, document)
            rows = tuple(r for r in (_cells(row) for row in table.rows) if any(r))
            if rows:
                blocks.append(Block("table", "", page if explicit else None, rows=rows, header=_has_header(table)))
    title = (document.core_properties.title or "").strip() or None
    return ReadDocument(NAME, tuple(blocks), title, page if explicit else 0)
