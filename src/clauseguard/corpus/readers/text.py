"""The plain-text reader (.txt): paragraphs between blank lines, pages between form feeds.

A line is a heading only when its numbering says so; everything else stays as written.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from clauseguard.corpus.readers.blocks import Block, BlockKind, PageProgress, ReadDocument
from clauseguard.corpus.readers.headings import LIST_MARKER, parse_heading
from clauseguard.errors import CorpusError, Problem

NAME: Final = "text"
SUFFIXES: Final = (".txt",)


def _page_blocks(page_text: str, page: int | None) -> list[Block]:
    blocks: list[Block] = []
    current: list[str] = []
    kind: BlockKind = "paragraph"
    for raw in [*page_text.splitlines(), ""]:
        line = " ".join(raw.split())
        if current and (not line or LIST_MARKER.match(line)):
            blocks.append(Block(kind, " ".join(current), page))
            current, kind = [], "paragraph"
        if not line:
            continue
        if not current and parse_heading(line) is not None:
            blocks.append(Block("heading", line, page))
        elif LIST_MARKER.match(line):
            current, kind = [line], "list_item"
        else:
            current.append(line)
    return blocks


def read(path: Path, on_page: PageProgress | None = None) -> ReadDocument:
    """Read a UTF-8 text file into blocks; a form feed starts a new page."""
    try:
        content = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise CorpusError([Problem(str(path), "", f"cannot be read as UTF-8 text: {exc}")]) from exc
    pages = content.split("\f")
    paged = len(pages) > 1
    blocks: list[Block] = []
    for number, page_text in enumerate(pages, 1):
        blocks += _page_blocks(page_text, number if paged else None)
    return ReadDocument(NAME, tuple(blocks), None, len(pages) if paged else 0)
