"""The Markdown reader (markdown-it-py, CommonMark with tables): headings, paragraphs, lists, tables.

Text comes out without markup; front matter is metadata, never clause text; no pages.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Final

from clauseguard.corpus.readers.blocks import Block, PageProgress, ReadDocument
from clauseguard.errors import CorpusError, Problem

NAME: Final = "markdown"
SUFFIXES: Final = (".md", ".markdown")

_FRONT_MATTER = re.compile(r"\A---\s*\n(.*?)\n---\s*\n", re.DOTALL)
_TITLE_LINE = re.compile(r"^title:\s*(.+?)\s*$", re.M)


def _inline(token: Any) -> str:
    parts: list[str] = []
    for child in token.children or ():
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif child.type == "image":
            parts.append(child.content)
    return " ".join("".join(parts).split())


def read(path: Path, on_page: PageProgress | None = None) -> ReadDocument:
    """Read a Markdown file into blocks (no pages)."""
    from markdown_it import MarkdownIt

    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise CorpusError([Problem(str(path), "", f"cannot be read as UTF-8 text: {exc}")]) from exc
    title: str | None = None
    front = _FRONT_MATTER.match(text)
    if front:
        found = _TITLE_LINE.search(front.group(1))
        title = found.group(1).strip("\"'") if found else None
        text = text[front.end():]
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    blocks: list[Block] = []
    lists: list[list[int]] = []  # per open list: [ordered (0/1), next number]
    item_prefix: str | None = None
    heading: int | None = None
    table: list[list[str]] | None = None
    for tok in tokens:
        kind = tok.type
        if kind == "heading_open":
            heading = int(tok.tag[1:])
        elif kind == "heading_close":
            heading = None
        elif kind in ("bullet_list_open", "ordered_list_open"):
            start = tok.attrGet("start")
            lists.append([1 if kind == "ordered_list_open" else 0, int(start) if start else 1])
        elif kind in ("bullet_list_close", "ordered_list_close"):
            lists.pop()
        elif kind == "list_item_open":
            if lists and lists[-1][0]:
                item_prefix = f"{lists[-1][1]}. "
                lists[-1][1] += 1
            else:
                item_prefix = "- "
        elif kind == "list_item_close":
            item_prefix = None
        elif kind == "table_open":
            table = []
        elif kind == "tr_open" and table is not None:
            table.append([])
        elif kind == "table_close" and table is not None:
            rows = tuple(tuple(r) for r in table if any(r))
            if rows:
                blocks.append(Block("table", "", rows=rows))
            table = None
        elif kind == "inline":
            content = _inline(tok)
            if table is not None:
                if table:
                    table[-1].append(content)
            elif not content:
                continue
            elif heading is not None:
                blocks.append(Block("heading", content, level=heading))
            elif item_prefix is not None:
                blocks.append(Block("list_item", f"{item_prefix}{content}"))
                item_prefix = ""
            else:
                blocks.append(Block("paragraph", content))
        elif kind in ("fence", "code_block"):
            content = " ".join(tok.content.split())
            if content:
                blocks.append(Block("paragraph", content))
    return ReadDocument(NAME, tuple(blocks), title, 0)
