"""The PDF reader: pdfplumber words with positions and fonts, read column by column, tables as rows,
running headers, footers and page numbers out of the text (the printed number is the page label).
A page with no text layer is a CorpusError ("no text layer: OCR needed"), never empty text.
"""

from __future__ import annotations

import math
import re
import statistics
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from clauseguard.corpus.readers.blocks import Block, ReadDocument
from clauseguard.corpus.readers.headings import DOT_LEADER, LIST_MARKER, parse_heading
from clauseguard.errors import CorpusError, Problem

NAME: Final = "pdf"
SUFFIXES: Final = (".pdf",)

_BAND: Final = 0.1  # top and bottom tenth of the page: where running headers and footers sit
_RUNNING_SHARE: Final = 0.4  # a line repeated on at least this share of pages (and two) is running
_SET_OFF: Final = 1.8  # a running line is set off from the body by more than this many times its type size
_LABEL_SHAPE: Final = r"[0-9]{1,4}|[ivxlcdmIVXLCDM]{1,7}|[A-Z]{1,3}-?[0-9]{1,4}"
_PAGE_WORD = re.compile(rf"(?i:\bpage|\bp\.)\s*({_LABEL_SHAPE})\b")
_PAGE_ONLY = re.compile(rf"(?i:page\s+)?[-–—]?\s*({_LABEL_SHAPE})\s*[-–—]?(?:\s+(?i:of)\s+\d+)?")
_ROMAN = re.compile(r"^[ivxlcdm]{1,7}$", re.I)
_KEEP_HYPHEN: Final = frozenset(
    "self non co pre post anti multi semi sub re well long short full part cross in out over under inter".split()
)


@dataclass
class _Word:
    text: str
    x0: float
    x1: float
    top: float
    bottom: float
    size: float
    bold: bool


@dataclass
class _Line:
    """Words on one baseline with no wide gap between them (a column's line, or a whole row)."""

    words: list[_Word]

    @property
    def x0(self) -> float:
        return min(w.x0 for w in self.words)

    @property
    def x1(self) -> float:
        return max(w.x1 for w in self.words)

    @property
    def top(self) -> float:
        return min(w.top for w in self.words)

    @property
    def bottom(self) -> float:
        return max(w.bottom for w in self.words)

    @property
    def text(self) -> str:
        return " ".join(w.text for w in self.words)

    @property
    def size(self) -> float:
        return statistics.median(w.size for w in self.words)

    @property
    def bold(self) -> bool:
        chars = sum(len(w.text) for w in self.words)
        return sum(len(w.text) for w in self.words if w.bold) >= 0.8 * chars


@dataclass
class _Table:
    rows: tuple[tuple[str, ...], ...]
    x0: float
    x1: float
    top: float
    bottom: float


@dataclass
class _Page:
    number: int
    width: float
    height: float
    rows: list[_Line]  # whole rows, top to bottom (for running headers and footers)
    tables: list[_Table]
    has_images: bool  # images or many drawn curves: a page that shows text without a text layer
    removed: set[int] = field(default_factory=set)  # indices of rows that are running text
    label: str | None = None


def _words(page: Any) -> list[_Word]:
    raw = page.extract_words(x_tolerance=1.5, y_tolerance=2, keep_blank_chars=False, extra_attrs=["fontname", "size"])
    return [
        _Word(
            text=w["text"], x0=float(w["x0"]), x1=float(w["x1"]), top=float(w["top"]), bottom=float(w["bottom"]),
            size=round(float(w["size"]), 1),
            bold=any(mark in str(w["fontname"]).lower() for mark in ("bold", "black", "heavy", "semibold")),
        )
        for w in raw
        if w["text"].strip()
    ]


def _tables(page: Any) -> list[_Table]:
    found = []
    for t in page.find_tables():
        rows = tuple(
            tuple(" ".join((cell or "").split()) for cell in row)
            for row in t.extract()
        )
        rows = tuple(r for r in rows if any(r))
        if len(rows) >= 2 and max(len(r) for r in rows) >= 2:
            x0, top, x1, bottom = (float(v) for v in t.bbox)
            found.append(_Table(rows, x0, x1, top, bottom))
    return found


def _inside(w: _Word, t: _Table) -> bool:
    cx, cy = (w.x0 + w.x1) / 2, (w.top + w.bottom) / 2
    return t.x0 <= cx <= t.x1 and t.top <= cy <= t.bottom


def _rows(words: Sequence[_Word]) -> list[_Line]:
    """Words grouped into rows by their vertical position, each row left to right."""
    rows: list[_Line] = []
    for w in sorted(words, key=lambda w: (w.top, w.x0)):
        if rows and abs(w.top - rows[-1].words[0].top) <= max(2.5, 0.3 * w.size):
            rows[-1].words.append(w)
        else:
            rows.append(_Line([w]))
    for r in rows:
        r.words.sort(key=lambda w: w.x0)
    return rows


def _split_at(row: _Line, gutter: float | None) -> list[_Line]:
    """A row as its left-column and right-column lines, or whole when a word crosses the gutter."""
    if gutter is None or any(w.x0 < gutter < w.x1 for w in row.words):
        return [row]
    left = [w for w in row.words if w.x1 <= gutter]
    right = [w for w in row.words if w.x0 >= gutter]
    return [_Line(side) for side in (left, right) if side]


def _read_page(page: Any, number: int) -> _Page:
    tables = _tables(page)
    words = [w for w in _words(page) if not any(_inside(w, t) for t in tables)]
    return _Page(
        number=number, width=float(page.width), height=float(page.height), rows=_rows(words),
        tables=tables, has_images=bool(page.images) or len(page.curves) >= 20,  # a scan, or text drawn as outlines
    )


# -- running headers, footers and page labels -------------------------------------------------------


def _shape(text: str) -> str:
    """A row's text with its numbers blanked: the same running header on every page has one shape."""
    tokens = ["#" if _ROMAN.match(t) else re.sub(r"\d+", "#", t) for t in text.lower().split()]
    return " ".join(tokens)


def _band_rows(page: _Page) -> list[tuple[str, int]]:
    """(band, row index) of the rows that may be running text: one or two rows in the top or bottom
    tenth of the page, set off from the body by a gap wider than the spacing between lines."""
    rows, out = page.rows, []
    for k in (1, 0):
        if len(rows) > k + 1 and all(r.bottom <= _BAND * page.height for r in rows[: k + 1]) and (
            rows[k + 1].top - rows[k].top >= _SET_OFF * rows[k].size
        ):
            out += [("top", j) for j in range(k + 1)]
            break
    n = len(rows)
    for k in (1, 0):
        first = n - 1 - k
        if first >= 1 and all(r.top >= (1 - _BAND) * page.height for r in rows[first:]) and (
            rows[first].top - rows[first - 1].top >= _SET_OFF * rows[first].size
        ) and all(("top", j) not in out for j in range(first, n)):
            out += [("bottom", j) for j in range(first, n)]
            break
    return out


def _page_number_rows(page: _Page) -> list[int]:
    """Rows in the margins that are only a page number ("12", "- 12 -", "Page 12 of 40")."""
    edge = [i for i in (0, 1, len(page.rows) - 2, len(page.rows) - 1) if 0 <= i < len(page.rows)]
    return sorted(
        {
            i for i in edge
            if (page.rows[i].bottom <= _BAND * page.height or page.rows[i].top >= (1 - _BAND) * page.height)
            and _PAGE_ONLY.fullmatch(page.rows[i].text.strip())
        }
    )


def _label_in(text: str) -> str | None:
    m = _PAGE_WORD.search(text)
    if m:
        return m.group(1)
    m = _PAGE_ONLY.fullmatch(text.strip())
    return m.group(1) if m else None


def _mark_running(pages: list[_Page]) -> None:
    """Remove running headers and footers (repeated rows in the margins) and page numbers; keep the
    number printed on each page as its label."""
    seen: dict[tuple[str, str], list[tuple[_Page, int]]] = defaultdict(list)
    for page in pages:
        for band, i in _band_rows(page):
            seen[(band, _shape(page.rows[i].text))].append((page, i))
    needed = max(2, math.ceil(_RUNNING_SHARE * len(pages)))
    for page in pages:
        for i in _page_number_rows(page):
            page.removed.add(i)
            page.label = page.label or _label_in(page.rows[i].text)
    for (_band, _), where in sorted(seen.items(), key=lambda item: item[0]):
        pages_with = len({p.number for p, _ in where})
        labels = _varying_labels(where)
        # Running: on a good share of the pages, or on two or more carrying the page number (a
        # chapter's running head: "Chapter 2: Structure 3", "Chapter 2: Structure 4").
        if pages_with < 2 or (pages_with < needed and not _counts_pages(labels)):
            continue
        for page, i in where:
            page.removed.add(i)
            page.label = page.label or _label_in(page.rows[i].text) or labels.get(page.number)


def _varying_labels(where: list[tuple[_Page, int]]) -> dict[int, str]:
    """page -> label, for rows of one shape whose only changing token is a number ("Conditions | 34")."""
    tokens = [(page, page.rows[i].text.split()) for page, i in where]
    lengths = {len(t) for _, t in tokens}
    if len(tokens) < 2 or len(lengths) != 1:
        return {}
    width = lengths.pop()
    for k in reversed(range(width)):
        values = [t[k] for _, t in tokens]
        if len(set(values)) > 1 and all(re.fullmatch(_LABEL_SHAPE, v) for v in values):
            return {page.number: t[k] for page, t in tokens}
    return {}


def _counts_pages(labels: dict[int, str]) -> bool:
    """The labels are page numbers: numbers that step with the physical pages."""
    if len(labels) < 2 or not all(v.isdigit() for v in labels.values()):
        return False
    return len({int(v) - page for page, v in labels.items()}) == 1


# -- reading order ------------------------------------------------------------------------------------


_Item = _Line | _Table


def _gutter(rows: Sequence[_Line], width: float) -> float | None:
    """The x of an empty vertical band between two columns of text, or None for one column.

    Few rows have a word across it, at least three (a third of the rows, three times as many as
    cross it) have text on both sides with a clear gap, and the text on each side is wide (label-and-value rows are not columns).
    """
    if len(rows) < 6:
        return None
    runs: list[list[tuple[float, int]]] = []
    for step in range(int(0.3 * width), int(0.7 * width), 2):
        x = float(step)
        crossed = split = 0
        for row in rows:
            if any(w.x0 < x < w.x1 for w in row.words):
                crossed += 1
            elif any(w.x1 <= x - 3 for w in row.words) and any(w.x0 >= x + 3 for w in row.words):
                split += 1
        if crossed <= 0.25 * len(rows) and split >= max(3, len(rows) / 3, 3 * crossed):
            if runs and runs[-1][-1][0] == x - 2:
                runs[-1].append((x, split))
            else:
                runs.append([(x, split)])
    best: tuple[int, int, float] | None = None
    for run in runs:
        if len(run) < 3:  # a gutter is wider than the space justified text leaves between words
            continue
        x = run[len(run) // 2][0]
        both = [row for row in rows if not any(w.x0 < x < w.x1 for w in row.words)]
        left = [max(w.x1 for w in r.words if w.x1 <= x) - min(w.x0 for w in r.words) for r in both
                if any(w.x1 <= x for w in r.words)]
        right = [max(w.x1 for w in r.words) - min(w.x0 for w in r.words if w.x0 >= x) for r in both
                 if any(w.x0 >= x for w in r.words)]
        if not left or not right or min(statistics.median(left), statistics.median(right)) < 0.2 * width:
            continue
        score = (max(s for _, s in run), len(run), x)
        if best is None or score > best:
            best = score
    return None if best is None else best[2]


def _reading_order(rows: list[_Line], tables: list[_Table], width: float) -> list[_Item]:
    """Top to bottom; where the page has two columns, the left column before the right one, in each
    band between full-width lines."""
    gutter = _gutter(rows, width)
    items: list[_Item] = [*(line for row in rows for line in _split_at(row, gutter)), *tables]
    if gutter is None:
        return sorted(items, key=lambda it: (round(it.top, 1), it.x0))
    ordered: list[_Item] = []
    left: list[_Item] = []
    right: list[_Item] = []
    for it in sorted(items, key=lambda it: (round(it.top, 1), it.x0)):
        if it.x1 <= gutter:
            left.append(it)
        elif it.x0 >= gutter:
            right.append(it)
        else:
            ordered += left + right + [it]
            left, right = [], []
    return ordered + left + right


# -- lines to blocks ----------------------------------------------------------------------------------


def _join(text: str, more: str) -> str:
    """Join two lines of one paragraph, undoing a line-end hyphenation ("implanto-" + "logy")."""
    if text.endswith("-") and more[:1].islower():
        stem = re.split(r"[^A-Za-z]", text[:-1])[-1]
        if len(stem) >= 3 and stem.lower() not in _KEEP_HYPHEN:
            return text[:-1] + more
        return text + more
    return f"{text} {more}"


@dataclass
class _Fonts:
    body: float
    title_size: float | None  # the size of the document's title line, when one line is larger than all


def _strong(line: _Line, fonts: _Fonts) -> bool:
    return line.bold or line.size >= fonts.body + 1.0


def _numbered(line: _Line, strong: bool) -> bool:
    """A numbered heading: bold or larger, or a keyword or multi-level number even in body type."""
    found = parse_heading(line.text, strong=strong)
    return found is not None and (strong or found.keyword is not None or "." in found.number)


def _blocks_of(group: list[_Line], kind: str, page: _Page, fonts: _Fonts, first: bool) -> list[Block]:
    """One group of lines as a heading, a paragraph or a list item (or a heading and its text)."""
    text = group[0].text
    for line in group[1:]:
        text = _join(text, line.text)
    label = page.label
    strong = all(_strong(line, fonts) for line in group)
    if kind == "numbered":
        if strong and len(group) <= 2 and len(text) <= 150:
            return [Block("heading", text, page.number, label)]
        rest = group[1:]
        blocks = [Block("heading", group[0].text, page.number, label)]
        return blocks + (_blocks_of(rest, "plain", page, fonts, False) if rest else [])
    if (
        kind == "strong" and len(group) <= 2 and len(text) <= 120 and text[-1:] not in ".,;"
        and not LIST_MARKER.match(text) and not DOT_LEADER.search(text)
    ):
        size = group[0].size
        if first and fonts.title_size is not None and size >= fonts.title_size:
            level = 0
        else:
            level = 1 if size >= fonts.body + 2.0 else 2
        return [Block("heading", text, page.number, label, level)]
    return [Block("list_item" if LIST_MARKER.match(text) else "paragraph", text, page.number, label)]


def _page_blocks(page: _Page, items: list[_Item], fonts: _Fonts, first_page: bool) -> list[Block]:
    """Lines grouped by spacing and type into headings, paragraphs and list items; tables as they are."""
    text_lines = [it for it in items if isinstance(it, _Line)]
    gaps = [
        b.top - a.top for a, b in zip(text_lines, text_lines[1:], strict=False)
        if 0 < b.top - a.top < 3 * max(a.size, 1.0)
    ]
    leading = statistics.median(gaps) if gaps else 1.2 * fonts.body
    blocks: list[Block] = []
    group: list[_Line] = []
    kind = ""

    def flush() -> None:
        nonlocal group
        if group:
            blocks.extend(_blocks_of(group, kind, page, fonts, first_page and not blocks))
        group = []

    for it in items:
        if isinstance(it, _Table):
            flush()
            blocks.append(Block("table", "", page.number, page.label, rows=it.rows))
            continue
        strong = _strong(it, fonts)
        numbered = _numbered(it, strong)
        if group:
            prev = group[-1]
            gap = it.top - prev.top
            if (
                numbered or gap < 0 or gap > 1.45 * leading or LIST_MARKER.match(it.text)
                or strong != _strong(prev, fonts) or abs(it.size - prev.size) >= 1.0
                or (kind == "numbered" and not strong)
            ):
                flush()
        if not group:
            kind = "numbered" if numbered else ("strong" if strong else "plain")
        group.append(it)
    flush()
    return blocks


def _fonts(pages: list[_Page]) -> _Fonts:
    sizes: Counter[float] = Counter()
    for page in pages:
        for i, row in enumerate(page.rows):
            if i not in page.removed:
                for w in row.words:
                    sizes[w.size] += len(w.text)
    body = sizes.most_common(1)[0][0] if sizes else 10.0
    title_size = None
    if pages and pages[0].rows:
        kept = [r for i, r in enumerate(pages[0].rows) if i not in pages[0].removed]
        if kept:
            top = kept[0].size
            others = [w.size for p in pages for i, r in enumerate(p.rows) if i not in p.removed for w in r.words
                      if r is not kept[0]]
            if top >= body + 2.0 and all(s < top for s in others):
                title_size = top
    return _Fonts(body, title_size)


def _declared_labels(path: Path) -> dict[int, str]:
    """Page labels the PDF declares in its catalog (/PageLabels), when it declares any."""
    try:
        from pypdf import PdfReader

        reader = PdfReader(str(path))
        if "/PageLabels" not in reader.root_object:
            return {}
        return {i + 1: label for i, label in enumerate(reader.page_labels)}
    except Exception:  # noqa: BLE001 - labels are optional; the printed ones are read from the text anyway
        return {}


def _no_text_layer(path: Path, pages: Sequence[int]) -> CorpusError:
    shown = ", ".join(str(p) for p in pages)
    which = f"page {shown} has" if len(pages) == 1 else f"pages {shown} have"
    return CorpusError(
        [
            Problem(
                str(path), "",
                f"no text layer: OCR needed ({which} no text, only images; run OCR on the file, "
                "e.g. `ocrmypdf`, and ingest the result)",
            )
        ]
    )


def read(path: Path) -> ReadDocument:
    """Read a PDF into blocks: CorpusError when it cannot be opened or has a page without text."""
    import pdfplumber

    try:
        with pdfplumber.open(str(path)) as pdf:
            metadata_title = str(pdf.metadata.get("Title") or "").strip() or None
            pages = [_read_page(p, i) for i, p in enumerate(pdf.pages, 1)]
    except CorpusError:
        raise
    except Exception as exc:  # noqa: BLE001 - pdfminer raises many kinds for broken or encrypted files
        raise CorpusError([Problem(str(path), "", f"cannot be read as a PDF: {type(exc).__name__}: {exc}")]) from exc
    _mark_running(pages)
    scanned = [
        p.number for p in pages
        if p.has_images and not p.tables and all(i in p.removed for i in range(len(p.rows)))
    ]
    if scanned or not any(p.rows or p.tables for p in pages):
        raise _no_text_layer(path, scanned or [p.number for p in pages])
    declared = _declared_labels(path)
    fonts = _fonts(pages)
    blocks: list[Block] = []
    for page in pages:
        page.label = page.label or declared.get(page.number)
        kept = [r for i, r in enumerate(page.rows) if i not in page.removed]
        items = _reading_order(kept, page.tables, page.width)
        blocks += _page_blocks(page, items, fonts, first_page=page.number == 1)
    return ReadDocument(NAME, tuple(blocks), metadata_title, len(pages))
