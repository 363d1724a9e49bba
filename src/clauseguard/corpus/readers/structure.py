"""From blocks to draft clauses: one per article or heading, lists with their lead-in, table rows
with their header; overlapping sentence chunks when the text has no structure.
It never drops, reorders or rewrites text, and never decides a clause's kind or coverage.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Final

from clauseguard import text as toolkit
from clauseguard.corpus.readers.blocks import Block
from clauseguard.corpus.readers.headings import Heading, parse_heading, split_inline_heading

MAX_CLAUSE_CHARS: Final = 2400  # an article longer than this is split into parts at block boundaries
PART_CHARS: Final = 1200
CHUNK_CHARS: Final = 900
CHUNK_OVERLAP: Final = 200
PREAMBLE: Final = "Preamble"
_CHUNK_SECTION = re.compile(r"chunk \d+")


@dataclass(frozen=True)
class DraftClause:
    """A clause before it has an id prefix and metadata: `key` is unique within its version."""

    key: str
    section: str
    article: str | None
    text: str
    page: int | None
    page_label: str | None
    headings: tuple[str, ...] = ()  # the heading path, outermost first (what the classifier reads)
    chunk: bool = False


@dataclass(frozen=True)
class Structure:
    title: str | None
    clauses: tuple[DraftClause, ...]

    @property
    def chunked(self) -> bool:
        return any(c.chunk for c in self.clauses)


def chunk_section(n: int) -> str:
    """The section a fallback chunk carries ("chunk 3"): how a chunk is told apart in the corpus."""
    return f"chunk {n}"


def is_chunk_section(section: str) -> bool:
    return bool(_CHUNK_SECTION.fullmatch(section))


# -- blocks, cleaned ------------------------------------------------------------------------------


def _split_inline(blocks: Iterable[Block]) -> list[Block]:
    """"Article 12. The insurer ..." as one paragraph: its label becomes a heading."""
    out: list[Block] = []
    for b in blocks:
        found = split_inline_heading(b.text) if b.kind == "paragraph" else None
        if found is None:
            out.append(b)
            continue
        heading, body = found
        out.append(replace(b, kind="heading", text=heading.text, level=None))
        out.append(replace(b, text=body))
    return out


def _merge_continuations(blocks: Iterable[Block]) -> list[Block]:
    """A paragraph cut by a column or page break continues in the next one (no end mark, lowercase)."""
    out: list[Block] = []
    for b in blocks:
        prev = out[-1] if out else None
        if (
            prev is not None
            and prev.kind in ("paragraph", "list_item")
            and b.kind == "paragraph"
            and prev.text[-1:] not in ".:;!?)\"”’"
            and b.text[:1].islower()
        ):
            out[-1] = replace(prev, text=prev.text + " " + b.text)
        else:
            out.append(b)
    return out


@dataclass(frozen=True)
class _Head:
    block: Block
    level: int
    numbered: Heading | None


def _head(b: Block) -> _Head:
    numbered = parse_heading(b.text, strong=True)
    if b.level is not None:
        level = b.level
    else:
        level = numbered.level if numbered is not None else 2
    return _Head(b, level, numbered)


def _take_title(blocks: list[Block]) -> tuple[str | None, list[Block]]:
    """The first block is the document's title when it is an unnumbered heading above every other."""
    if not blocks or blocks[0].kind != "heading":
        return None, blocks
    first = _head(blocks[0])
    if first.numbered is not None:
        return None, blocks
    others = [_head(b).level for b in blocks[1:] if b.kind == "heading"]
    if blocks[0].level == 0 or all(level > first.level for level in others):
        return blocks[0].text, blocks[1:]
    return None, blocks


# -- rendering ------------------------------------------------------------------------------------


def table_lines(rows: Sequence[Sequence[str]]) -> list[str]:
    """Each body row as "Header: value; Header: value" so that a row read alone stays readable."""
    if not rows:
        return []
    header, body = list(rows[0]), rows[1:]
    if not body:
        return [" | ".join(c for c in header if c)]
    lines = []
    for row in body:
        cells = []
        for i, value in enumerate(row):
            if not value:
                continue
            name = header[i] if i < len(header) else ""
            cells.append(f"{name}: {value}" if name and name != value else value)
        if cells:
            lines.append("; ".join(cells))
    return lines


def _groups(body: Sequence[Block]) -> list[tuple[Block, list[str]]]:
    """Body blocks as unbreakable groups (first block, lines): a lead-in ending in ':' with its list."""
    groups: list[tuple[Block, list[str]]] = []
    open_list = False
    last_header: tuple[str, ...] | None = None
    prev: Block | None = None
    for b in body:
        prev_kind = prev.kind if prev is not None else ""
        if b.kind == "table":
            rows = b.rows
            continued = (
                prev is not None and prev.kind == "table" and prev.page != b.page and last_header is not None
                and bool(rows) and len(rows[0]) == len(last_header) and rows[0] != last_header
            )
            if continued and last_header is not None:
                rows = (last_header, *rows)  # a table continued on the next page keeps its header
            last_header = rows[0] if rows else None
            lines = table_lines(rows)
            if groups and open_list:
                groups[-1][1].extend(lines)
            else:
                groups.extend((b, [line]) for line in lines)
            open_list = False
        elif b.kind == "list_item" and groups and (open_list or prev_kind == "list_item"):
            groups[-1][1].append(b.text)
            open_list = True
        else:
            groups.append((b, [b.text]))
            open_list = b.text.rstrip().endswith(":") or b.kind == "list_item"
        prev = b
    return groups


def _parts(body: Sequence[Block]) -> list[tuple[Block, str]]:
    """The body as one text, or as parts of about PART_CHARS when it is longer than MAX_CLAUSE_CHARS."""
    groups = _groups(body)
    whole = "\n".join(line for _, lines in groups for line in lines)
    if len(whole) <= MAX_CLAUSE_CHARS:
        return [(groups[0][0], whole)] if groups else []
    parts: list[tuple[Block, list[str]]] = []
    size = 0
    for first, lines in groups:
        text_len = sum(len(x) + 1 for x in lines)
        if parts and size + text_len <= PART_CHARS:
            parts[-1][1].extend(lines)
            size += text_len
        else:
            parts.append((first, list(lines)))
            size = text_len
    return [(first, "\n".join(lines)) for first, lines in parts]


# -- structure ------------------------------------------------------------------------------------


@dataclass
class _Unit:
    path: tuple[_Head, ...]
    body: list[Block]


def _units(blocks: Sequence[Block]) -> list[_Unit]:
    units = [_Unit((), [])]
    stack: list[_Head] = []
    for b in blocks:
        if b.kind != "heading":
            units[-1].body.append(b)
            continue
        head = _head(b)
        while stack and stack[-1].level >= head.level:
            stack.pop()
        stack.append(head)
        units.append(_Unit(tuple(stack), []))
    return units


def _is_container(unit: _Unit, following: _Unit | None) -> bool:
    """A heading with no body whose next heading sits under it (a chapter over its articles)."""
    return following is not None and len(following.path) > len(unit.path) and following.path[: len(unit.path)] == unit.path


def structure(blocks: Sequence[Block]) -> Structure:
    """Draft clauses that follow the document's headings, or chunks when it has none."""
    cleaned = _merge_continuations(_split_inline([b for b in blocks if b.text.strip() or b.rows]))
    title, cleaned = _take_title(cleaned)
    if not any(b.kind == "heading" for b in cleaned):
        return Structure(title, tuple(chunk_blocks(cleaned)))
    units = _units(cleaned)
    drafts: list[DraftClause] = []
    used: set[str] = set()
    for i, unit in enumerate(units):
        following = units[i + 1] if i + 1 < len(units) else None
        body = unit.body
        if not body:
            if not unit.path or _is_container(unit, following):
                continue
            body = [replace(unit.path[-1].block, kind="paragraph")]  # never drop a heading's text
        heads = unit.path
        numbered = [h for h in heads if h.numbered is not None]
        article = numbered[-1].block.text if numbered else None
        section = heads[0].block.text if heads else (title or PREAMBLE)
        start = heads[-1].block if heads else body[0]
        base = numbered[-1].numbered.key if numbered and numbered[-1].numbered else f"C{len(drafts) + 1}"
        for n, (first, text) in enumerate(_parts(body), 1):
            key = base if n == 1 else f"{base}p{n}"
            suffix = 2
            unique = key
            while unique in used:
                unique = f"{key}-{suffix}"
                suffix += 1
            used.add(unique)
            where = start if n == 1 else first
            drafts.append(
                DraftClause(
                    key=unique,
                    section=section,
                    article=article,
                    text=text,
                    page=where.page,
                    page_label=where.page_label,
                    headings=tuple(h.block.text for h in heads),
                )
            )
    return Structure(title, tuple(drafts))


# -- fallback chunking ----------------------------------------------------------------------------

def sentences(text: str) -> list[str]:
    """The sentences of a text, from the one splitter (clauseguard.text)."""
    return [s.text for s in toolkit.sentences(text)]


@dataclass(frozen=True)
class _Piece:
    text: str
    block: int
    page: int | None
    page_label: str | None


def _wrap(text: str, size: int) -> list[str]:
    """A sentence longer than a chunk, cut at word boundaries."""
    words, out, line = text.split(), [], ""
    for w in words:
        if line and len(line) + 1 + len(w) > size:
            out.append(line)
            line = w
        else:
            line = f"{line} {w}" if line else w
    return [*out, line] if line else out


def _pieces(blocks: Sequence[Block]) -> list[_Piece]:
    pieces: list[_Piece] = []
    for i, (first, lines) in enumerate(_groups(blocks)):
        if first.kind == "table" or len(lines) > 1:  # a list with its lead-in, a table row: kept whole
            pieces.append(_Piece("\n".join(lines), i, first.page, first.page_label))
            continue
        for s in sentences(lines[0]):
            pieces.extend(_Piece(part, i, first.page, first.page_label) for part in _wrap(s, CHUNK_CHARS))
    return pieces


def _join(pieces: Sequence[_Piece]) -> str:
    text = ""
    for k, p in enumerate(pieces):
        if k:
            text += " " if p.block == pieces[k - 1].block else "\n"
        text += p.text
    return text


def chunk_blocks(blocks: Sequence[Block], size: int = CHUNK_CHARS, overlap: int = CHUNK_OVERLAP) -> list[DraftClause]:
    """About `size` characters per chunk, cut at sentence ends, each starting with the last
    sentences (up to `overlap` characters) of the one before; lists stay with their lead-in."""
    pieces = _pieces(blocks)
    chunks: list[list[_Piece]] = []
    current: list[_Piece] = []
    fresh = False  # whether `current` holds anything beyond the overlap it started with
    i = 0
    while i < len(pieces):
        piece = pieces[i]
        length = len(_join(current))
        if current and fresh and length + 1 + len(piece.text) > size:
            chunks.append(current)
            tail: list[_Piece] = []
            for p in reversed(current):
                if len(_join([p, *tail])) > overlap:
                    break
                tail.insert(0, p)
            if len(_join(tail)) + 1 + len(piece.text) > size:
                tail = []
            current, fresh = tail, False
            continue
        current.append(piece)
        fresh = True
        i += 1
    if current and fresh:
        chunks.append(current)
    return [
        DraftClause(
            key=f"chunk{n}",
            section=chunk_section(n),
            article=None,
            text=_join(chunk),
            page=chunk[0].page,
            page_label=chunk[0].page_label,
            chunk=True,
        )
        for n, chunk in enumerate(chunks, 1)
    ]
