"""Ruled tables: the grid their lines draw, the text in each cell, the header row told per table
(bold over regular cells, or repeated after a page break; a bold first column is a key-value
table with no header), and a table continued on the next page joined to the one it continues.

It reads geometry and type weight only; what a table means (revision history) is `revisions.py`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

from clauseguard.corpus.readers.layout import baseline_rows, make_line
from clauseguard.corpus.readers.pdf_page import Edge, Run

_SNAP: Final = 2.0  # points: lines this close are one line; a line this close to another touches it


@dataclass
class Cell:
    text: str
    bold: bool


@dataclass
class Table:
    """A table on one page (or continued over several): its rows of cells, columns by x."""

    page: int
    x0: float
    top: float
    x1: float
    bottom: float
    columns: tuple[float, ...]  # x of each vertical rule, left to right
    rows: list[list[Cell]]
    page_end: int = 0
    header: tuple[str, ...] = ()  # the header row's texts; () when the table has none
    key_value: bool = False  # a first column of labels, each row a "key: value"
    repeated_headers: int = 0  # header rows dropped because a page break repeated them
    runs: list[Run] = field(default_factory=list, repr=False)

    @property
    def body(self) -> list[list[str]]:
        """The data rows as text, without the header row."""
        rows = [[c.text for c in row] for row in self.rows]
        return rows[1:] if self.header else rows


def _merge(values: list[tuple[float, float, float]]) -> list[tuple[float, float, float]]:
    """Collinear segments (position, start, end) that overlap or touch, as one."""
    out: list[tuple[float, float, float]] = []
    for pos, a, b in sorted(values):
        if out and abs(out[-1][0] - pos) <= _SNAP and a <= out[-1][2] + _SNAP:
            p, s, e = out[-1]
            out[-1] = (p, s, max(e, b))
        else:
            out.append((pos, a, b))
    return out


def _cluster(values: Sequence[float]) -> list[float]:
    out: list[float] = []
    for v in sorted(values):
        if not out or v - out[-1] > _SNAP:
            out.append(v)
    return out


def _grids(edges: Sequence[Edge]) -> list[tuple[list[float], list[float]]]:
    """(xs, ys) of each connected grid of horizontal and vertical rules."""
    hs = _merge([(e.y0, e.x0, e.x1) for e in edges if e.horizontal])
    vs = _merge([(e.x0, e.y0, e.y1) for e in edges if not e.horizontal])
    parent = list(range(len(hs) + len(vs)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, (y, hx0, hx1) in enumerate(hs):
        for j, (x, vy0, vy1) in enumerate(vs):
            if hx0 - _SNAP <= x <= hx1 + _SNAP and vy0 - _SNAP <= y <= vy1 + _SNAP:
                parent[root(i)] = root(len(hs) + j)
    groups: dict[int, tuple[list[float], list[float]]] = {}
    for i, (y, _, _) in enumerate(hs):
        groups.setdefault(root(i), ([], []))[1].append(y)
    for j, (x, _, _) in enumerate(vs):
        groups.setdefault(root(len(hs) + j), ([], []))[0].append(x)
    grids = []
    for xs, ys in groups.values():
        cols, rows = _cluster(xs), _cluster(ys)
        if len(cols) >= 3 and len(rows) >= 2:
            grids.append((cols, rows))
    return sorted(grids, key=lambda g: (g[1][0], g[0][0]))


def _cell_text(runs: list[Run]) -> Cell:
    lines = [make_line(row) for row in baseline_rows(runs)]
    text = ""
    for line in lines:
        if text.endswith("-") and line.text[:1].islower():
            text = text[:-1] + line.text
        else:
            text = f"{text} {line.text}".strip()
    bold = bool(lines) and all(line.bold for line in lines)
    return Cell(text, bold)


def find_tables(runs: Sequence[Run], edges: Sequence[Edge], page: int) -> list[Table]:
    """The ruled tables of one page, with the runs inside them (which are no longer body text)."""
    tables = []
    for xs, ys in _grids(edges):
        inside = [r for r in runs if xs[0] <= (r.x0 + r.x1) / 2 <= xs[-1] and ys[0] <= (r.top + r.bottom) / 2 <= ys[-1]]
        if not inside:
            continue
        grid: list[list[list[Run]]] = [[[] for _ in xs[1:]] for _ in ys[1:]]
        for r in inside:
            mid = (r.top + r.bottom) / 2
            row = max(0, min(len(ys) - 2, sum(1 for y in ys[1:-1] if mid > y)))
            col = max(0, min(len(xs) - 2, sum(1 for x in xs[1:-1] if r.x0 + 1 > x)))
            grid[row][col].append(r)
        rows = [[_cell_text(cell) for cell in row] for row in grid]
        rows = [row for row in rows if any(c.text for c in row)]
        if not rows:
            continue
        tables.append(Table(page, xs[0], ys[0], xs[-1], ys[-1], tuple(xs), rows, page_end=page, runs=inside))
    return tables


def _same_columns(a: Table, b: Table) -> bool:
    return len(a.columns) == len(b.columns) and all(abs(x - y) <= 3 * _SNAP for x, y in zip(a.columns, b.columns, strict=True))


def _texts(row: list[Cell]) -> list[str]:
    return [c.text for c in row]


def join_continued(first: Table, more: Table) -> bool:
    """Add `more` (at the top of the next page) to `first` when it continues it: the same columns.
    A repeated header row is dropped; a row cut by the break (its first cell empty) rejoins its
    start. Returns whether they were joined."""
    if not _same_columns(first, more) or more.page != first.page_end + 1:
        return False
    rows = list(more.rows)
    if rows and _texts(rows[0]) == _texts(first.rows[0]):
        rows = rows[1:]
        first.repeated_headers += 1
    if rows and not rows[0][0].text and first.rows:
        last = first.rows[-1]
        first.rows[-1] = [Cell(f"{a.text} {b.text}".strip(), a.bold and b.bold) for a, b in zip(last, rows[0], strict=True)]
        rows = rows[1:]
    first.rows.extend(rows)
    first.page_end = more.page
    return True


def settle_header(table: Table) -> None:
    """Decide the table's header: a bold first row over regular rows, or a first row a page break
    repeated; a bold first column over regular values is a key-value table with no header."""
    rows = table.rows
    if len(rows) < 2:
        return
    bold_row = [all(c.bold for c in row if c.text) and any(c.text for c in row) for row in rows]
    first_col_bold = all(row[0].bold for row in rows if row[0].text)
    values_regular = all(not c.bold for row in rows for c in row[1:] if c.text)
    if first_col_bold and values_regular and len(rows[0]) >= 2:
        table.key_value = len(rows[0]) == 2
        return
    if (bold_row[0] and not all(bold_row)) or table.repeated_headers:
        table.header = tuple(_texts(rows[0]))
