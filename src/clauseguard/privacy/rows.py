"""Dates of birth in tabular demographics rows, where no label stands before the date:
"HOFFMANN, KÄTHE    F    2000-09-09    MRN 1657004" (a lab header, a registration line, a census row).

A line is read as cells (split at tabs or runs of two spaces or more). A date that fills a cell is a
date of birth when the row describes a person: another cell is a sex (M, F, Male, ...) or the cell
before it holds a name. Linear: one RE2 split per line, one full match per cell. It finds regions only.
"""

from __future__ import annotations

from bisect import bisect_left
from functools import cache
from typing import Any, Final

import re2

from clauseguard.privacy.patterns import Region, fragment

_CELL_BREAK: Final = re2.compile(r"\t+| {2,}")
_SEX: Final = re2.compile(r"(?i)(?:(?:sex|gender)\s*:?\s*)?(?:m|f|x|u|male|female|man|woman|non-binary)")
MIN_CELLS: Final = 3


@cache
def _date() -> Any:
    return re2.compile(r"(?i)" + fragment("date"))


def _cells(text: str, start: int, end: int) -> list[tuple[int, int]]:
    out, pos = [], start
    for m in _CELL_BREAK.finditer(text[start:end]):
        if start + m.start() > pos:
            out.append((pos, start + m.start()))
        pos = start + m.end()
    if pos < end:
        out.append((pos, end))
    return [(a, b) for a, b in out if text[a:b].strip()]


def row_dates_of_birth(text: str, names: list[tuple[int, int]]) -> list[Region]:
    """DOB regions for dates that fill a cell of a row about a person (a sex cell, or a name cell
    just before the date)."""
    if "  " not in text and "\t" not in text:
        return []
    name_starts = [a for a, _ in names]
    out: list[Region] = []
    line_start = 0
    while line_start <= len(text):
        line_end = text.find("\n", line_start)
        line_end = len(text) if line_end < 0 else line_end
        cells = _cells(text, line_start, line_end)
        if len(cells) >= MIN_CELLS:
            sex = any(_SEX.fullmatch(text[a:b].strip()) for a, b in cells)
            for k, (a, b) in enumerate(cells):
                value = text[a:b].strip()
                if not _date().fullmatch(value):
                    continue
                prev = cells[k - 1] if k else None
                named = prev is not None and _holds_name(name_starts, names, prev)
                if sex or named:
                    lead = len(text[a:b]) - len(text[a:b].lstrip())
                    out.append((a + lead, a + lead + len(value), "DOB"))
        line_start = line_end + 1
    return out


def _holds_name(starts: list[int], names: list[tuple[int, int]], cell: tuple[int, int]) -> bool:
    k = bisect_left(starts, cell[0])
    return k < len(names) and names[k][0] < cell[1]
