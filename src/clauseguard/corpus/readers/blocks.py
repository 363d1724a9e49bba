"""What every document reader produces: the document's text as ordered blocks with their pages.

Blocks carry text as printed and where it was printed, never a judgement about its meaning.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal

BlockKind = Literal["heading", "paragraph", "list_item", "table"]


@dataclass(frozen=True)
class Block:
    """One heading, paragraph, list item or table, in reading order.

    `level` is the heading level the format states (HTML h2 -> 2, a Word "Heading 2" -> 2, 0 for a
    title); None lets the structure be read from the heading's numbering. `page` is the physical
    page (1-based, None when the format has no pages) and `page_label` the number printed on it.
    A table's `rows` start with its header row.
    """

    kind: BlockKind
    text: str
    page: int | None = None
    page_label: str | None = None
    level: int | None = None
    rows: tuple[tuple[str, ...], ...] = ()

    def on_page(self, offset: int) -> Block:
        """The same block with its physical page moved by `offset` (files after the first)."""
        return self if self.page is None else replace(self, page=self.page + offset)


@dataclass(frozen=True)
class ReadDocument:
    """A file as read: its blocks, the title it states (if any), how many physical pages it has."""

    reader: str  # "pdf", "docx", "html", "markdown", "text"
    blocks: tuple[Block, ...]
    title: str | None = None
    pages: int = 0
    notes: tuple[str, ...] = field(default=())
