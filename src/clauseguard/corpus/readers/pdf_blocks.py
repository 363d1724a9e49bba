"""A PDF's lines into blocks by their typography: headings by size, weight, small capitals and letter
spacing (levels ranked by how prominent their type is, the title above them all); paragraphs by
line spacing; list items by their marker, nested by where the marker stands; joiner lines on their
own; a paragraph or item cut by a page or column break joined to its start.

It reads the page as set; it never drops, reorders or rewords text.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Final

from clauseguard.corpus.readers.blocks import Block, BlockKind
from clauseguard.corpus.readers.layout import Line
from clauseguard.corpus.readers.markers import ends_with_joiner, joiner_line, normal_marker, text_marker
from clauseguard.corpus.readers.tables import Table

_MAX_HEADING: Final = 150
_PARA_GAP: Final = 1.15  # a line further below the last than this many times the leading starts a new block
_SAME_X: Final = 2.5  # points: markers this close stand at one depth
_TERMINAL = re.compile(r"[.!?:;]['\")\]”’]*$")
_KEEP_HYPHEN: Final = frozenset(
    "self non co pre post anti multi semi sub re well long short full part cross in out over under inter".split()
)


@dataclass
class BodyPage:
    """A page's body, in reading order: lines and tables, with its physical number and label."""

    number: int
    label: str | None
    width: float
    gutter: float | None
    items: list[Line | Table]


Style = tuple[float, bool, bool, bool]  # (size, bold, italic, small capitals)


def _style(line: Line) -> Style:
    return (round(line.size * 2) / 2, line.bold, line.italic, line.small_caps)


@dataclass(frozen=True)
class Typography:
    """The document's body type and the heading level of each heading style (0: the title)."""

    body: float
    leading: dict[float, float]
    levels: dict[Style, int]

    def strong(self, line: Line) -> bool:
        return line.bold or line.size >= self.body + 1.0 or line.small_caps or line.tracked

    def gap(self, size: float) -> float:
        return self.leading.get(round(size * 2) / 2, 1.2 * size) * _PARA_GAP + 0.3


def heading_candidate(line: Line, typo: Typography) -> bool:
    text = line.text
    return (
        typo.strong(line) and len(text) <= _MAX_HEADING and text[-1:] not in ".,;" and any(c.isalpha() for c in text)
        and joiner_line(text) is None and line.marker is None
    )


def _lines(pages: Sequence[BodyPage]) -> list[Line]:
    return [it for p in pages for it in p.items if isinstance(it, Line)]


def typography(pages: Sequence[BodyPage]) -> Typography:
    """Body size (most text), leading per size, and heading levels from the heading styles."""
    lines = _lines(pages)
    sizes: Counter[float] = Counter()
    for line in lines:
        sizes[round(line.size * 2) / 2] += len(line.text)
    body = sizes.most_common(1)[0][0] if sizes else 10.0
    deltas: dict[float, Counter[float]] = {}
    for a, b in zip(lines, lines[1:], strict=False):
        delta = b.baseline - a.baseline
        if a.page == b.page and abs(a.size - b.size) < 0.5 and 0 < delta < 2.5 * a.size:
            deltas.setdefault(round(a.size * 2) / 2, Counter())[round(delta * 2) / 2] += 1
    leading = {size: c.most_common(1)[0][0] for size, c in deltas.items()}
    base = Typography(body, leading, {})
    candidates = [line for line in lines if heading_candidate(line, base)]
    return Typography(body, leading, _levels(candidates, pages))


def _prominence(style: Style) -> tuple[float, bool, bool, bool]:
    size, bold, italic, decorated = style
    return (-size, not decorated, not bold, italic)


def _levels(candidates: Sequence[Line], pages: Sequence[BodyPage]) -> dict[Style, int]:
    """Level per heading style: the title's styles 0, then by prominence (size, small capitals,
    weight, upright before italic)."""
    styles: list[Style] = []
    for line in candidates:
        if _style(line) not in styles:
            styles.append(_style(line))

    def canonical(st: Style) -> Style:
        return st

    by_style: dict[Style, list[Line]] = {}
    for line in candidates:
        by_style.setdefault(canonical(_style(line)), []).append(line)
    # The title: the heading lines that open the first page, before any text or table, each in a
    # type used nowhere else and larger than every other heading's.
    first = pages[0] if pages else None
    opening: list[Line] = []
    strong = {id(line) for line in candidates}
    for item in first.items if first is not None else []:
        if not isinstance(item, Line) or id(item) not in strong:
            break
        opening.append(item)
    title: set[Style] = set()
    for line in opening:
        st = canonical(_style(line))
        uses = by_style[st]
        others = [s for s in styles if s != st and s not in title]
        if all(u.page == line.page for u in uses) and len(uses) <= 2 and others and all(st[0] > s[0] for s in others):
            title.add(st)
        else:
            break
    ranked = sorted((s for s in styles if s not in title), key=_prominence)
    levels = {s: 0 for s in title}
    levels.update({s: n for n, s in enumerate(ranked, 1)})
    return {st: levels[canonical(st)] for line in candidates for st in [_style(line)]}


# -- blocks -------------------------------------------------------------------------------------------


def join_lines(text: str, more: str) -> str:
    """Two lines of one paragraph, undoing a line-end hyphenation ("implanto-" + "logy")."""
    if not text:
        return more
    if text.endswith("-") and more[:1].islower():
        stem = re.split(r"[^A-Za-z]", text[:-1])[-1]
        if len(stem) >= 3 and stem.lower() not in _KEEP_HYPHEN:
            return text[:-1] + more
        return text + more
    return f"{text} {more}"


@dataclass
class _Open:
    kind: BlockKind
    lines: list[Line]
    level: int | None = None
    depth: int | None = None
    marker: str | None = None
    text_x0: float = 0.0
    text: str = ""
    pages: list[int] = field(default_factory=list)


class _Builder:
    def __init__(self, typo: Typography, labels: dict[int, str | None]) -> None:
        self.typo = typo
        self.labels = labels
        self.blocks: list[Block] = []
        self.open: _Open | None = None
        self.stack: list[float] = []  # x of the markers of the open list, outermost first
        self.prev: Line | None = None

    # -- emitting --
    def flush(self) -> None:
        o, self.open = self.open, None
        if o is None or not o.text.strip():
            return
        first, last = o.pages[0], o.pages[-1]
        end = last if last != first else None
        self.blocks.append(Block(
            o.kind, o.text, first, self.labels.get(first), o.level, page_end=end,
            page_end_label=self.labels.get(end) if end is not None else None, depth=o.depth, marker=o.marker,
        ))

    def start(self, kind: BlockKind, line: Line, text: str, **more: object) -> None:
        self.flush()
        self.open = _Open(kind, [line], text=text, pages=[line.page], **more)  # type: ignore[arg-type]

    def extend(self, line: Line, text: str | None = None) -> None:
        assert self.open is not None
        self.open.lines.append(line)
        self.open.text = join_lines(self.open.text, line.text if text is None else text)
        if line.page != self.open.pages[-1]:
            self.open.pages.append(line.page)

    def table(self, t: Table) -> None:
        self.flush()
        self.stack = []
        rows = tuple(tuple(c.text for c in row) for row in t.rows)
        end = t.page_end if t.page_end != t.page else None
        self.blocks.append(Block(
            "table", "", t.page, self.labels.get(t.page), rows=rows, page_end=end,
            page_end_label=self.labels.get(end) if end is not None else None, header=bool(t.header),
        ))
        self.prev = None

    # -- reading --
    def _depth(self, x: float) -> int:
        while self.stack and self.stack[-1] > x + _SAME_X:
            self.stack.pop()
        if not self.stack or abs(self.stack[-1] - x) > _SAME_X:
            self.stack.append(x)
        return len(self.stack)

    def _broken(self, line: Line) -> bool:
        """The line is not directly below the last one: a new page or a new column."""
        prev = self.prev
        return prev is None or prev.page != line.page or line.baseline <= prev.baseline

    def _new_column(self, line: Line) -> bool:
        prev = self.prev
        return prev is not None and prev.page == line.page and line.baseline <= prev.baseline

    def _gap(self, line: Line) -> bool:
        prev = self.prev
        assert prev is not None
        return line.baseline - prev.baseline > self.typo.gap(max(prev.size, line.size))

    def _continues(self, line: Line) -> bool:
        """Across a page or column break: the open paragraph or item has not ended."""
        o = self.open
        if o is None or o.kind not in ("paragraph", "list_item"):
            return False
        return not _TERMINAL.search(o.text) or line.text[:1].islower()

    def _marker_of(self, line: Line, broken: bool) -> tuple[str, str] | None:
        if line.marker is not None:
            return line.marker, line.body
        found = text_marker(line.text)
        if found is None:
            return None
        o = self.open
        after_end = o is None or o.kind in ("heading", "joiner") or bool(_TERMINAL.search(o.text)) or ends_with_joiner(o.text)
        if broken or after_end or self._gap(line):
            return found, line.text[len(found):].lstrip()
        return None

    def line(self, line: Line, page: BodyPage) -> None:
        broken = self._broken(line)
        o = self.open
        joiner = joiner_line(line.text)
        if joiner is not None:
            self.start("joiner", line, joiner)
            self.flush()
        elif heading_candidate(line, self.typo):
            level = self.typo.levels.get(_style(line))
            if (
                o is not None and o.kind == "heading" and o.level == level and len(o.lines) == 1 and not broken
                and not self._gap(line) and o.lines[0].x1 - o.lines[0].x0 >= 0.55 * page.width
            ):
                self.extend(line)
            elif o is not None and o.kind == "heading" and o.level == level and len(o.lines) == 2 and not broken and not self._gap(line):
                o.kind, o.level = "paragraph", None  # three lines in heading type: a paragraph set in bold
                self.extend(line)
            else:
                self.stack = []
                self.start("heading", line, line.text, level=level)
        elif (marked := self._marker_of(line, broken)) is not None:
            marker, body = marked
            shown = normal_marker(marker)
            self.start("list_item", line, f"{shown} {body}", depth=self._depth(line.indent), marker=shown,
                       text_x0=line.text_indent if line.marker is not None else line.indent + 1.5 * line.size)
        elif o is not None and not broken and not self._gap(line) and o.kind in ("paragraph", "list_item"):
            self.extend(line)
        elif o is not None and broken and self._continues(line):
            self.extend(line)
        elif (o is not None and o.kind == "list_item" and self.stack and not self._new_column(line)
              and line.indent > o.text_x0 - _SAME_X):
            depth = (o.depth or 1) + 1 if o.marker else (o.depth or 1)
            self.start("list_item", line, line.text, depth=depth, marker="", text_x0=line.indent)
        else:
            if self.stack and (line.indent <= self.stack[0] + _SAME_X or self._new_column(line)):
                self.stack = []
            self.start("paragraph", line, line.text)
        self.prev = line


def page_blocks(pages: Sequence[BodyPage]) -> list[Block]:
    """The blocks of the document's body pages, in reading order."""
    typo = typography(pages)
    builder = _Builder(typo, {p.number: p.label for p in pages})
    for page in pages:
        for item in page.items:
            if isinstance(item, Table):
                builder.table(item)
            else:
                builder.line(item, page)
    builder.flush()
    return _joiner_depths(_titles(builder.blocks))


def _joiner_depths(blocks: list[Block]) -> list[Block]:
    """A joiner stands between two items: its depth is the shallower of theirs (after "ii." of item
    "a.", an "-OR-" before "b." joins "a." and "b.")."""
    out = list(blocks)
    for i, b in enumerate(out):
        if b.kind != "joiner":
            continue
        around = []
        for step in (-1, 1):
            k = i + step
            while 0 <= k < len(out) and out[k].kind == "joiner":
                k += step
            if 0 <= k < len(out) and out[k].kind == "list_item" and out[k].depth is not None:
                around.append(out[k].depth or 1)
        if around:
            out[i] = replace(b, depth=min(around))
    return out


def _titles(blocks: list[Block]) -> list[Block]:
    """Consecutive title lines (level 0) as one title."""
    out: list[Block] = []
    for b in blocks:
        if out and b.kind == "heading" and b.level == 0 and out[-1].kind == "heading" and out[-1].level == 0:
            prev = out[-1]
            out[-1] = Block("heading", f"{prev.text}: {b.text}", prev.page, prev.page_label, 0)
        else:
            out.append(b)
    return out
