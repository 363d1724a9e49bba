"""Text runs into printed lines, by glyph geometry: runs on one baseline with no gutter between them
are one line; small capitals (full-size and reduced capitals on one baseline) and letter-spaced runs
are rejoined into words, small capitals back into mixed case; two-column pages read column by column.

Typographic rules only: it never decides what a line is (heading, item, footer).
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np

from clauseguard.corpus.readers.pdf_page import Run

_SAME_BASELINE: Final = 0.4  # runs whose baselines differ by less than this share of the type size share a line
_WORD_GAP: Final = 0.17  # a gap wider than this share of the type size between runs is a space
_SPLIT_GAP: Final = 3.0  # a gap wider than this many type sizes on one baseline separates two lines
_SMALL_CAPS: Final = (0.6, 0.9)  # reduced capitals are this share of the full capitals' size
_TRACKED: Final = 0.8  # capitals wider than this share of their size per character are letter-spaced


@dataclass(eq=False)
class Line:
    """One printed line: its runs left to right, its text, box, baseline and typography."""

    runs: list[Run]
    text: str = ""
    x0: float = 0.0
    x1: float = 0.0
    top: float = 0.0
    bottom: float = 0.0
    baseline: float = 0.0
    size: float = 0.0  # the size of its largest letters (small capitals count as their capitals)
    bold: bool = False
    italic: bool = False
    small_caps: bool = False
    tracked: bool = False
    marker: str | None = None  # a list marker set as its own run ("1.", "a.", a bullet), else None
    text_x0: float = 0.0  # where the text after the marker starts (a hanging indent)
    page: int = 0
    indent: float = 0.0  # x0 from the left edge of its column's text (set once the page's columns are known)
    text_indent: float = 0.0  # text_x0 likewise

    @property
    def body(self) -> str:
        """The text after the marker run, when the marker is a run of its own."""
        if self.marker is None:
            return self.text
        return self.text[len(self.marker):].lstrip()


def _letters(text: str) -> str:
    return "".join(c for c in text if c.isalpha())


def _small_caps(runs: Sequence[Run]) -> set[int]:
    """Indices of the runs that are reduced capitals beside full-size capitals on the same line."""
    full = max(r.size for r in runs)
    reduced = {
        i for i, r in enumerate(runs)
        if _letters(r.text) and _letters(r.text).isupper() and _SMALL_CAPS[0] <= r.size / full <= _SMALL_CAPS[1]
    }
    if not reduced:
        return set()
    capitals = [r for i, r in enumerate(runs) if i not in reduced and _letters(r.text)]
    if not capitals or not all(_letters(r.text).isupper() and r.size >= 0.95 * full for r in capitals):
        return set()
    return reduced


def _glue(runs: Sequence[Run]) -> str:
    """The runs' texts joined: a space where the gap between two runs is as wide as a space."""
    text = ""
    for k, run in enumerate(runs):
        if k:
            prev = runs[k - 1]
            gap = run.x0 - prev.x1
            if gap > _WORD_GAP * max(prev.size, run.size) and not text.endswith(" ") and not run.text.startswith(" "):
                text += " "
        text += run.text
    return " ".join(text.split())


def _restore_case(runs: Sequence[Run], reduced: set[int]) -> list[Run]:
    """Small capitals back to mixed case: reduced capitals are lower-case letters as printed."""
    out = []
    for i, r in enumerate(runs):
        if i in reduced:
            out.append(Run(r.text.lower(), r.x0, r.x1, r.top, r.bottom, r.baseline, r.size, r.bold, r.italic))
        else:
            out.append(r)
    return out


_MARKER_RUN = re.compile(
    r"(?:\(?[0-9]{1,2}[.)]|\(?[a-zA-Z][.)]|\(?(?:[ivxlc]{1,6}|[IVXLC]{1,6})[.)]|\([0-9a-zA-Z]{1,5}\))"
)


def _tracked(run: Run) -> bool:
    if (run.x1 - run.x0) / max(len(run.text.strip()), 1) <= _TRACKED * run.size:
        return False
    letters = _letters(run.text)
    return len(letters) >= 4 and letters.isupper()


def make_line(runs: list[Run], page: int = 0) -> Line:
    """A line from runs on one baseline (given left to right)."""
    runs = sorted(runs, key=lambda r: r.x0)
    reduced = _small_caps(runs) if len({r.size for r in runs}) > 1 else set()
    shown = _restore_case(runs, reduced) if reduced else runs
    text = _glue(shown)
    chars = [(len(r.text.strip()), r) for r in runs if r.text.strip()]
    total = sum(n for n, _ in chars) or 1
    full = max(r.size for r in runs)
    line = Line(
        runs=shown, text=text, x0=min(r.x0 for r in runs), x1=max(r.x1 for r in runs),
        top=min(r.top for r in runs), bottom=max(r.bottom for r in runs),
        baseline=max(runs, key=lambda r: r.size).baseline, size=full,
        bold=sum(n for n, r in chars if r.bold) >= 0.8 * total,
        italic=sum(n for n, r in chars if r.italic) >= 0.8 * total,
        small_caps=bool(reduced), tracked=any(_tracked(r) for r in runs), page=page,
    )
    line.text_x0 = line.x0
    first = shown[0].text.strip()
    if len(shown) > 1 and (first in ("o", "-", "–", "*") or _MARKER_RUN.fullmatch(first) or _is_bullet(first)):
        gap = shown[1].x0 - shown[0].x1
        if gap >= 0.25 * shown[0].size or shown[0].text.endswith(" "):
            line.marker = first
            line.text_x0 = shown[1].x0
    return line


def _is_bullet(text: str) -> bool:
    from clauseguard.corpus.readers.markers import is_bullet

    return is_bullet(text)


# -- rows and columns ---------------------------------------------------------------------------------


def baseline_rows(runs: Sequence[Run]) -> list[list[Run]]:
    """Runs grouped by baseline, top to bottom, each row left to right."""
    rows: list[list[Run]] = []
    anchor: list[tuple[float, float]] = []  # (baseline, size) of each row's largest run
    for run in sorted(runs, key=lambda r: (round(r.baseline, 1), r.x0)):
        if rows:
            base, size = anchor[-1]
            if abs(run.baseline - base) <= _SAME_BASELINE * max(size, run.size):
                rows[-1].append(run)
                if run.size > size:
                    anchor[-1] = (run.baseline, run.size)
                continue
        rows.append([run])
        anchor.append((run.baseline, run.size))
    for row in rows:
        row.sort(key=lambda r: r.x0)
    return rows


def gutter(rows: Sequence[Sequence[Run]], width: float) -> float | None:
    """The x of an empty vertical band between two columns of text, or None for one column.

    Few rows have a run across it; at least three rows (three times as many as cross it) have text
    on both sides with a clear gap; and the text on each side is wide (a label and its value are not
    two columns). A short column beside a long one is still a column."""
    lo, hi = 0.3 * width, 0.7 * width
    gapped = [row for row in rows if any(b.x0 - a.x1 >= 6 and a.x1 < hi and b.x0 > lo for a, b in zip(row, row[1:], strict=False))]
    if len(rows) < 6 or len(gapped) < 3:  # no three rows with a gap in the middle: one column
        return None
    xs = np.arange(int(lo), int(hi), 2, dtype=float)
    crossed = np.zeros(len(xs), dtype=int)
    split = np.zeros(len(xs), dtype=int)
    for row in rows:
        cover = np.zeros(len(xs), dtype=bool)
        for r in row:
            cover |= (xs > r.x0) & (xs < r.x1)
        crossed += cover
        split += ~cover & (xs - 3 >= min(r.x1 for r in row)) & (xs + 3 <= max(r.x0 for r in row))
    ok = (crossed <= 0.25 * len(rows)) & (split >= np.maximum(3, 3 * crossed))
    best: tuple[int, int, float] | None = None
    for band in _bands(xs, ok):
        if len(band) < 3:  # a gutter is wider than the space justified text leaves between words
            continue
        x = band[len(band) // 2]
        both = [row for row in rows if not any(r.x0 < x < r.x1 for r in row)]
        left = [max(r.x1 for r in row if r.x1 <= x) - min(r.x0 for r in row) for row in both if any(r.x1 <= x for r in row)]
        right = [max(r.x1 for r in row) - min(r.x0 for r in row if r.x0 >= x) for row in both if any(r.x0 >= x for r in row)]
        if not left or not right or min(statistics.median(left), statistics.median(right)) < 0.2 * width:
            continue
        sides = sum(1 for row in both if any(r.x1 <= x for r in row) and any(r.x0 >= x for r in row))
        if best is None or (sides, len(band), x) > best:
            best = (sides, len(band), x)
    return None if best is None else best[2]


def _bands(xs: np.ndarray, ok: np.ndarray) -> list[list[float]]:
    """Runs of consecutive scan positions that pass."""
    bands: list[list[float]] = []
    for x, good in zip(xs.tolist(), ok.tolist(), strict=True):
        if not good:
            continue
        if bands and bands[-1][-1] == x - 2:
            bands[-1].append(x)
        else:
            bands.append([x])
    return bands


def _pieces(row: list[Run], cut: float | None) -> list[list[Run]]:
    """A baseline row as lines: split at the gutter and at gaps too wide to be within one line."""
    sides = [row] if cut is None or any(r.x0 < cut < r.x1 for r in row) else [
        [r for r in row if r.x1 <= cut], [r for r in row if r.x0 >= cut]]
    out: list[list[Run]] = []
    for side in sides:
        if not side:
            continue
        current = [side[0]]
        for run in side[1:]:
            if run.x0 - current[-1].x1 > _SPLIT_GAP * max(run.size, current[-1].size):
                out.append(current)
                current = [run]
            else:
                current.append(run)
        out.append(current)
    return out


@dataclass
class PageLines:
    """A page's lines in reading order, and the x of its column gutter (None: one column)."""

    lines: list[Line]
    gutter: float | None


def page_lines(runs: Sequence[Run], width: float, page: int) -> PageLines:
    """Lines top to bottom; on a two-column page the left column before the right one, in each band
    between lines that span both columns."""
    rows = baseline_rows(runs)
    cut = gutter(rows, width)
    lines = [make_line(piece, page) for row in rows for piece in _pieces(row, cut)]
    if cut is None:
        return PageLines(sorted(lines, key=lambda ln: (round(ln.baseline, 1), ln.x0)), None)
    ordered: list[Line] = []
    left: list[Line] = []
    right: list[Line] = []
    for line in sorted(lines, key=lambda ln: (round(ln.baseline, 1), ln.x0)):
        if line.x1 <= cut:
            left.append(line)
        elif line.x0 >= cut:
            right.append(line)
        else:
            ordered += left + right + [line]
            left, right = [], []
    return PageLines(ordered + left + right, cut)
