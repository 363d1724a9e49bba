"""From blocks to draft clauses: one per criteria block under each heading (a paragraph with the list
it leads into, the joiner lines between the items, and the paragraph that closes the list), one per
table (unless a lead-in introduces it); overlapping sentence chunks when the text has no headings.
It never drops, reorders or rewrites text, and never decides a clause's kind or coverage.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Final

from clauseguard.corpus.readers.blocks import Block
from clauseguard.corpus.readers.chunks import (
    CHUNK_CHARS,
    CHUNK_OVERLAP,
    chunk_pieces,
    chunk_section,
    is_chunk_section,
    sentences,
)
from clauseguard.corpus.readers.headings import Heading, parse_heading, split_inline_heading
from clauseguard.corpus.readers.markers import text_marker

MAX_CLAUSE_CHARS: Final = 2400  # a clause longer than this is reported as unusually long (never cut)
PREAMBLE: Final = "Preamble"
INDENT: Final = "  "  # per level of list nesting below the first, in clause text

__all__ = [
    "CHUNK_CHARS", "CHUNK_OVERLAP", "MAX_CLAUSE_CHARS", "PREAMBLE", "DraftClause", "HeadingNote", "Structure",
    "chunk_blocks", "chunk_section", "is_chunk_section", "sentences", "structure", "table_lines",
]


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
    page_end: int | None = None  # the last page, when the clause runs onto later pages
    page_end_label: str | None = None
    lists: tuple[tuple[str, int], ...] = ()  # (marker, depth) of each list item, in order
    joiners: tuple[str, ...] = ()  # the joiner lines ("-AND-") as printed, in order
    table: bool = False  # the clause is a table's rows


@dataclass(frozen=True)
class HeadingNote:
    text: str
    level: int
    page: int | None


@dataclass(frozen=True)
class Structure:
    title: str | None
    clauses: tuple[DraftClause, ...]
    headings: tuple[HeadingNote, ...] = ()
    warnings: tuple[str, ...] = ()

    @property
    def chunked(self) -> bool:
        return any(c.chunk for c in self.clauses)


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
        out.append(replace(b, kind="heading", text=heading.text, level=None, page_end=None, page_end_label=None))
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
            end, label = (b.last_page, b.last_label) if b.last_page != prev.page else (prev.page_end, prev.page_end_label)
            out[-1] = replace(prev, text=prev.text + " " + b.text, page_end=end, page_end_label=label)
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


def _take_title(blocks: list[Block], guess: bool = True) -> tuple[str | None, list[Block]]:
    """The first block is the document's title when it is a title (level 0) or, when `guess`, an
    unnumbered heading above every other. A reader that marks its title itself (the PDF reader, by
    type) passes guess=False: a lone top-level section is not a title there."""
    if not blocks or blocks[0].kind != "heading":
        return None, blocks
    if not guess:
        return (blocks[0].text, blocks[1:]) if blocks[0].level == 0 else (None, blocks)
    first = _head(blocks[0])
    if first.numbered is not None:
        return None, blocks
    others = [_head(b).level for b in blocks[1:] if b.kind == "heading"]
    if blocks[0].level == 0 or all(level > first.level for level in others):
        return blocks[0].text, blocks[1:]
    return None, blocks


# -- rendering ------------------------------------------------------------------------------------


def table_lines(rows: Sequence[Sequence[str]], header: bool = True) -> list[str]:
    """Each body row as "Header: value; Header: value" so that a row read alone stays readable; a
    table without a header row as its cells ("Key: value" for a two-column key-value table)."""
    if not rows:
        return []
    if not header:
        lines = []
        for row in rows:
            cells = [c for c in row if c]
            if len(row) == 2 and row[0] and row[1]:
                lines.append(f"{row[0]}: {row[1]}")
            elif cells:
                lines.append("; ".join(cells))
        return lines
    head, body = list(rows[0]), rows[1:]
    if not body:
        return [" | ".join(c for c in head if c)]
    lines = []
    for row in body:
        cells = []
        for i, value in enumerate(row):
            if not value:
                continue
            name = head[i] if i < len(head) else ""
            cells.append(f"{name}: {value}" if name and name != value else value)
        if cells:
            lines.append("; ".join(cells))
    return lines


def _shown(b: Block) -> list[str]:
    """A block as clause text lines: list items and joiners indented by their nesting."""
    if b.kind == "table":
        return table_lines(b.rows, b.header)
    if b.kind in ("list_item", "joiner") and b.depth is not None:
        return [INDENT * (b.depth - 1) + b.text]
    return [b.text]


@dataclass
class _Group:
    """One criteria block: its blocks in order (a table alone, or text blocks)."""

    blocks: list[Block]

    @property
    def table(self) -> bool:
        return self.blocks[0].kind == "table"

    @property
    def unmarked_list(self) -> bool:
        """A lead-in ending ':' followed by paragraphs only: a list whose items carry no marker, so
        where it ends is not printed; it runs to the next heading."""
        lead = self.blocks[0]
        return lead.kind == "paragraph" and lead.text.rstrip().endswith(":") and all(
            b.kind == "paragraph" for b in self.blocks[1:])

    @property
    def lines(self) -> list[str]:
        if self.table and len(self.blocks) > 1:  # one table continued over pages: one header
            first = self.blocks[0]
            rows = [*first.rows]
            for more in self.blocks[1:]:
                rows += more.rows[1:] if first.header and more.rows[:1] == first.rows[:1] else more.rows
            return table_lines(rows, first.header)
        return [line for b in self.blocks for line in _shown(b)]


def _continues_table(group: _Group, b: Block) -> bool:
    """A table on a later page with as many columns, not opening with another header: the same table
    (readers that do not join tables over page breaks themselves)."""
    last = group.blocks[-1]
    return (
        group.table and b.page is not None and last.last_page is not None and b.page > last.last_page
        and bool(b.rows) and bool(last.rows) and len(b.rows[0]) == len(last.rows[0])
    )


def groups(body: Sequence[Block]) -> list[_Group]:
    """The body as criteria blocks: a paragraph starts one, unless it continues a lead-in (ending
    ':', with the unmarked paragraphs after it) or closes the list before it; list items and joiners
    belong to the block they follow; a table is a block of its own unless a lead-in introduces it."""
    out: list[_Group] = []
    for b in body:
        last = out[-1].blocks[-1] if out else None
        text_group = bool(out) and not out[-1].table
        lead_in = last is not None and last.kind != "table" and last.text.rstrip().endswith(":")
        if b.kind == "table":
            if (text_group and lead_in) or (out and _continues_table(out[-1], b)):
                out[-1].blocks.append(b)
            else:
                out.append(_Group([b]))
        elif b.kind in ("list_item", "joiner") and text_group:
            out[-1].blocks.append(b)
        elif b.kind == "paragraph" and text_group and last is not None and (
            lead_in or last.kind in ("list_item", "joiner") or out[-1].unmarked_list
        ):
            out[-1].blocks.append(b)
        else:
            out.append(_Group([b]))
    return out


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


def _hand_down_lead_ins(units: list[_Unit]) -> None:
    """A paragraph ending ':' that closes a unit leads into the sub-heading after it ("... based on the
    following guidelines:" above "Usual Utilization"): it opens that sub-heading's first clause."""
    for unit, following in zip(units, units[1:], strict=False):
        if not unit.body or not following.body or len(following.path) <= len(unit.path):
            continue
        if following.path[: len(unit.path)] != unit.path:
            continue
        last = unit.body[-1]
        tail = groups(unit.body)[-1]
        if last.kind == "paragraph" and len(tail.blocks) == 1 and last.text.rstrip().endswith(":") and len(unit.body) > 1:
            following.body.insert(0, unit.body.pop())


def _article(heads: Sequence[_Head]) -> str | None:
    """The last numbered heading ("7.3 Dental, implantology"); else the headings below the section."""
    numbered = [h for h in heads if h.numbered is not None]
    if numbered:
        return numbered[-1].block.text
    return ": ".join(h.block.text for h in heads[1:]) or None


def _draft(
    key: str, group: _Group, section: str, article: str | None, heads: Sequence[_Head], start: Block | None
) -> DraftClause:
    """A group as a clause; `start` is the heading it opens with (its page is where the clause starts)."""
    blocks = group.blocks
    first = start if start is not None and start.page is not None else blocks[0]
    last_page = max((b.last_page for b in blocks if b.last_page is not None), default=None)
    end = last_page if last_page is not None and first.page is not None and last_page > first.page else None
    end_label = next((b.last_label for b in reversed(blocks) if b.last_page == end), None) if end else None
    items = tuple(
        (b.marker if b.marker is not None else (text_marker(b.text) or ""), b.depth or 1)
        for b in blocks if b.kind == "list_item"
    )
    return DraftClause(
        key=key, section=section, article=article, text="\n".join(group.lines), page=first.page,
        page_label=first.page_label, headings=tuple(h.block.text for h in heads), page_end=end,
        page_end_label=end_label, lists=items, joiners=tuple(b.text for b in blocks if b.kind == "joiner"),
        table=group.table,
    )


def structure(blocks: Sequence[Block], *, guess_title: bool = True) -> Structure:
    """Draft clauses that follow the document's headings, or chunks when it has none. `guess_title`:
    see `_take_title` (ReadDocument.marks_title says which a reader needs)."""
    cleaned = _merge_continuations(_split_inline([b for b in blocks if b.text.strip() or b.rows]))
    title, cleaned = _take_title(cleaned, guess_title)
    headings = tuple(HeadingNote(b.text, _head(b).level, b.page) for b in cleaned if b.kind == "heading")
    if not headings:
        return Structure(title, tuple(chunk_blocks(cleaned)))
    drafts: list[DraftClause] = []
    warnings: list[str] = []
    used: set[str] = set()
    units = _units(cleaned)
    _hand_down_lead_ins(units)
    unnumbered = 0
    for i, unit in enumerate(units):
        following = units[i + 1] if i + 1 < len(units) else None
        body = unit.body
        if not body:
            if not unit.path or _is_container(unit, following):
                continue
            body = [replace(unit.path[-1].block, kind="paragraph")]  # never drop a heading's text
        heads = unit.path
        numbered = [h for h in heads if h.numbered is not None]
        section = heads[0].block.text if heads else (title or PREAMBLE)
        if numbered and numbered[-1].numbered is not None:
            base = numbered[-1].numbered.key
        else:
            unnumbered += 1
            base = f"C{unnumbered}"
        if not heads and any(b.kind != "table" for b in body):
            where = f" (page {body[0].page})" if body[0].page else ""
            warnings.append(f"text with no heading{where} is kept under section {section!r}: check that no heading was missed")
        for n, group in enumerate(groups(body), 1):
            key = base if n == 1 else f"{base}p{n}"
            unique, suffix = key, 2
            while unique in used:
                unique = f"{key}-{suffix}"
                suffix += 1
            used.add(unique)
            opening = heads[-1].block if heads and n == 1 else None
            if opening is not None and group.blocks[0].page is not None and opening.page is not None:
                opening = opening if opening.page <= group.blocks[0].page else group.blocks[0]  # a handed-down lead-in
            draft = _draft(unique, group, section, _article(heads), heads, opening)
            if len(draft.text) > MAX_CLAUSE_CHARS and not draft.table:
                warnings.append(
                    f"clause {unique} is unusually long ({len(draft.text)} characters): check that no heading was missed"
                )
            drafts.append(draft)
    return Structure(title, tuple(drafts), headings, tuple(warnings))


# -- fallback chunking ----------------------------------------------------------------------------


def _chunk_groups(blocks: Sequence[Block]) -> list[tuple[Block, list[str]]]:
    return [(g.blocks[0], g.lines if g.table or len(g.blocks) > 1 else [g.blocks[0].text]) for g in groups(blocks)]


def chunk_blocks(blocks: Sequence[Block], size: int = CHUNK_CHARS, overlap: int = CHUNK_OVERLAP) -> list[DraftClause]:
    """About `size` characters per chunk, cut at sentence ends, each starting with the last
    sentences (up to `overlap` characters) of the one before; lists stay with their lead-in."""
    return [
        DraftClause(
            key=f"chunk{n}", section=chunk_section(n), article=None, text=c.text, page=c.page,
            page_label=c.page_label, chunk=True, page_end=c.page_end, page_end_label=c.page_end_label,
        )
        for n, c in enumerate(chunk_pieces(blocks, _chunk_groups, size, overlap), 1)
    ]
