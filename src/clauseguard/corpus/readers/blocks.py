"""What every document reader produces: the document's text as ordered blocks with their pages, and
a report of what it left out and why.

Blocks carry text as printed and where it was printed, never a judgement about its meaning.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Literal

BlockKind = Literal["heading", "paragraph", "list_item", "joiner", "table"]
PageProgress = Callable[[int, int], None]  # (pages read, pages in the file): told by readers with pages


@dataclass(frozen=True)
class Block:
    """One heading, paragraph, list item, joiner line or table, in reading order.

    `level` is the heading level the format states (HTML h2 -> 2, a Word "Heading 2" -> 2, a PDF
    heading by its type, 0 for a title); None lets the structure be read from the heading's
    numbering. `page` is the physical page (1-based, None when the format has no pages) and
    `page_label` the number printed on it; `page_end` / `page_end_label` the last page when the
    block runs over a page break. A list item's `depth` is its nesting (1 = top level; None when
    the format does not say) and `marker` its marker as shown ("" for an indented item without
    one). A table's `rows` start with its header row when `header` is true.
    """

    kind: BlockKind
    text: str
    page: int | None = None
    page_label: str | None = None
    level: int | None = None
    rows: tuple[tuple[str, ...], ...] = ()
    page_end: int | None = None
    page_end_label: str | None = None
    depth: int | None = None
    marker: str | None = None
    header: bool = True

    def on_page(self, offset: int) -> Block:
        """The same block with its physical pages moved by `offset` (files after the first)."""
        if self.page is None:
            return self
        end = None if self.page_end is None else self.page_end + offset
        return replace(self, page=self.page + offset, page_end=end)

    @property
    def last_page(self) -> int | None:
        return self.page_end if self.page_end is not None else self.page

    @property
    def last_label(self) -> str | None:
        return self.page_end_label if self.page_end is not None else self.page_label


@dataclass(frozen=True)
class TableNote:
    """A table as read, for the ingest report: where, its header (() when none) and row count."""

    page: int | None
    page_end: int | None
    header: tuple[str, ...]
    rows: int
    keys: tuple[str, ...] = ()  # a key-value table's labels
    revision_dates: tuple[date, ...] = ()  # a revision history's dates, newest first


@dataclass(frozen=True)
class ReadReport:
    """What a reader left out of the text and what a person should check."""

    dropped: tuple[tuple[str, str, tuple[int, ...]], ...] = ()  # (what, example text, pages)
    tables: tuple[TableNote, ...] = ()
    warnings: tuple[str, ...] = ()
    page_labels: tuple[str | None, ...] = ()  # the label printed (or declared) on each physical page


@dataclass(frozen=True)
class ReadDocument:
    """A file as read: its blocks, the title it states (if any), how many physical pages it has."""

    reader: str  # "pdf", "docx", "html", "markdown", "text"
    blocks: tuple[Block, ...]
    title: str | None = None
    pages: int = 0
    notes: tuple[str, ...] = field(default=())
    report: ReadReport = field(default_factory=ReadReport)
    marks_title: bool = False  # the reader gives its title level 0 itself (no other heading is guessed to be it)
