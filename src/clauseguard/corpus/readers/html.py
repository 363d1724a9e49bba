"""The HTML reader (stdlib html.parser): headings h1-h6, paragraphs, list items, tables by rows.

Scripts, styles, navigation, page header/footer and hidden elements never reach the text; no pages.
"""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path
from typing import Final

from clauseguard.corpus.readers.blocks import Block, PageProgress, ReadDocument
from clauseguard.errors import CorpusError, Problem

NAME: Final = "html"
SUFFIXES: Final = (".html", ".htm", ".xhtml")

_SKIP: Final = frozenset({"script", "style", "nav", "aside", "noscript", "template", "svg", "head", "button", "form"})
_PAGE_CHROME: Final = frozenset({"header", "footer"})  # skipped unless inside the content (article, main, section)
_CONTENT: Final = frozenset({"article", "main", "section"})
_VOID: Final = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
)
_BLOCK: Final = frozenset(
    {"p", "div", "blockquote", "dd", "dt", "pre", "address", "figcaption", "caption", "center", "dl", "ul", "ol",
     "table", "li", "body", "article", "main", "section", "hr", "br", "summary", "details"}
)
_HEADINGS: Final = {f"h{n}": n for n in range(1, 7)}


class _Blocks(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: list[Block] = []
        self.title: str | None = None
        self._stack: list[str] = []
        self._skip_depth = 0
        self._text: list[str] = []
        self._heading: int | None = None
        self._in_title = False
        self._title_text: list[str] = []
        self._lists: list[list[int]] = []  # per open list: [ordered (0/1), next number]
        self._item_prefix: str | None = None
        self._table: list[list[str]] | None = None
        self._cell: list[str] | None = None
        self.scripts = 0  # <script> elements seen (their text is never read)
        self._heads: list[tuple[int, bool]] = []  # (row, is a <th>) of each cell of the open table

    # -- helpers --
    def _flush(self) -> None:
        text = " ".join("".join(self._text).split())
        self._text = []
        if not text:
            return
        if self._heading is not None:
            self.blocks.append(Block("heading", text, level=self._heading))
        elif self._item_prefix is not None:
            self.blocks.append(Block("list_item", f"{self._item_prefix}{text}"))
            self._item_prefix = ""
        else:
            self.blocks.append(Block("paragraph", text))

    def _skipping(self, tag: str, attrs: dict[str, str | None]) -> bool:
        if tag in _SKIP or "hidden" in attrs or attrs.get("aria-hidden") == "true":
            return True
        return tag in _PAGE_CHROME and not any(t in _CONTENT for t in self._stack)

    # -- parser callbacks --
    def handle_starttag(self, tag: str, attr_list: list[tuple[str, str | None]]) -> None:
        attrs = dict(attr_list)
        self.scripts += tag == "script"
        if tag == "title":
            self._in_title = True
            return
        if self._skip_depth:
            if tag not in _VOID:
                self._skip_depth += 1
            return
        if self._skipping(tag, attrs):
            if tag not in _VOID:
                self._skip_depth = 1
            return
        if tag in _VOID:
            if tag == "br":
                self._sink().append(" ")
            return
        if self._table is not None and tag in ("td", "th"):
            self._cell = []
            if not self._table:
                self._table.append([])
            self._heads.append((len(self._table) - 1, tag == "th"))
        elif tag == "tr" and self._table is not None:
            self._table.append([])
        elif tag == "table":
            self._flush()
            self._table = []
            self._heads = []
        elif tag in _HEADINGS:
            self._flush()
            self._heading = _HEADINGS[tag]
        elif tag in ("ul", "ol"):
            self._flush()
            start = attrs.get("start") or "1"
            self._lists.append([1 if tag == "ol" else 0, int(start) if start.isdigit() else 1])
        elif tag == "li":
            self._flush()
            if self._lists and self._lists[-1][0]:
                self._item_prefix = f"{self._lists[-1][1]}. "
                self._lists[-1][1] += 1
            else:
                self._item_prefix = "- "
        elif tag in _BLOCK:
            self._flush()
        self._stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
            self.title = " ".join("".join(self._title_text).split()) or None
            return
        if self._skip_depth:
            if tag not in _VOID:
                self._skip_depth -= 1
            return
        if tag in self._stack:
            while self._stack and self._stack.pop() != tag:
                pass
        if tag in ("td", "th") and self._table is not None and self._cell is not None:
            if not self._table:
                self._table.append([])
            self._table[-1].append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "table" and self._table is not None:
            first = [th for row, th in self._heads if row == 0]
            header = bool(first) and all(first)  # a header row is marked up as one: <th> cells
            rows = tuple(tuple(r) for r in self._table if any(r))
            self._table = None
            if rows:
                self.blocks.append(Block("table", "", rows=rows, header=header))
        elif tag in _HEADINGS:
            self._flush()
            self._heading = None
        elif tag == "li":
            self._flush()
            self._item_prefix = None
        elif tag in ("ul", "ol"):
            self._flush()
            if self._lists:
                self._lists.pop()
        elif tag in _BLOCK:
            self._flush()

    def _sink(self) -> list[str]:
        if self._in_title:
            return self._title_text
        if self._cell is not None:
            return self._cell
        return self._text

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self._title_text.append(data)
        elif not self._skip_depth:
            if self._table is not None and self._cell is None:
                return  # whitespace between cells
            self._sink().append(data)


def read(path: Path, on_page: PageProgress | None = None) -> ReadDocument:
    """Read an HTML page into blocks (no pages)."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise CorpusError([Problem(str(path), "", f"cannot be read: {exc}")]) from exc
    text = raw.decode("utf-8", errors="replace")
    parser = _Blocks()
    parser.feed(text)
    parser.close()
    parser._flush()
    if not parser.blocks:
        made_by = (f"its content is made by scripts ({parser.scripts} <script> element(s), no text outside them); "
                   "save the page as the browser shows it (e.g. print it to PDF) and ingest that") if parser.scripts else (
                   "it has no text in its body; give the policy page itself")
        raise CorpusError([Problem(str(path), "", f"cannot be read as a policy page: {made_by}")])
    return ReadDocument(NAME, tuple(parser.blocks), parser.title, 0)
