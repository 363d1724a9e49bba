"""Running headers, footers and page numbers: lines set off in the page margins and repeated at the
same place on two or more pages (numbers blanked), taken out wherever they fall, mid-sentence
included; the number printed among them is the page's label ("Page 4 of 12" -> "4", "ii").

It removes only what repeats (or is a bare page number); body text is never dropped for its place.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

from clauseguard.corpus.readers.layout import Line
from clauseguard.corpus.readers.markers import cues

BAND: Final = 0.13  # the top and bottom 13 % of the page: where running text sits
_BASELINE_SLACK: Final = 4.0  # points: "the same place" on two pages
_SET_OFF: Final = 1.5  # running text is set off from the body by a gap of this many times its type size
_LABEL: Final = r"[0-9]{1,4}|[ivxlcdm]{1,7}|[IVXLCDM]{1,7}|[A-Z]{1,3}-?[0-9]{1,4}"
_ROMAN = re.compile(r"^[ivxlcdm]{1,7}$", re.I)


@dataclass
class RunningText:
    """What was found: per page the indices of running lines, and each page's printed label."""

    removed: dict[int, set[int]] = field(default_factory=dict)  # page -> line indices
    labels: dict[int, str] = field(default_factory=dict)
    dropped: list[tuple[str, str, tuple[int, ...]]] = field(default_factory=list)  # (what, text, pages)


def _page_words() -> str:
    words = sorted(cues()["page_words"], key=len, reverse=True)
    return "|".join(re.escape(w) for w in words)


def _of_words() -> str:
    return "|".join(re.escape(w) for w in cues()["of_words"])


def _page_number(text: str) -> str | None:
    """The label of a line that is only a page number: "12", "- 12 -", "Page 12 of 40", "ii"."""
    m = re.fullmatch(
        rf"(?i:(?:{_page_words()})\s*)?[-\u2013\u2014]?\s*({_LABEL})\s*[-\u2013\u2014]?(?:\s*(?i:{_of_words()})\s*\d+)?",
        text.strip(),
    )
    return m.group(1) if m else None


def _label_in(text: str) -> str | None:
    m = re.search(rf"(?i:\b(?:{_page_words()}))\s*({_LABEL})\b", text)
    if m:
        return m.group(1)
    return _page_number(text)


def shape(text: str) -> str:
    """A line's text with its numbers blanked: one running header has one shape on every page."""
    return " ".join("#" if _ROMAN.match(t) else re.sub(r"\d+", "#", t) for t in text.lower().split())


def _margin_lines(lines: Sequence[Line], height: float) -> dict[int, str]:
    """index -> band, for the lines in the page's top and bottom margins: those in the band above
    (or below) a gap wider than the spacing of body lines, which sets them off from the body."""
    order = sorted(range(len(lines)), key=lambda i: lines[i].top)
    out: dict[int, str] = {}
    for band, seq in (("top", order), ("bottom", order[::-1])):
        inside = _leading_run(seq, lines, height, band)
        for k in range(len(inside) - 1, -1, -1):
            here = lines[inside[k]]
            nxt = seq[k + 1] if k + 1 < len(seq) else None
            if nxt is None:
                continue
            gap = lines[nxt].top - here.bottom if band == "top" else here.top - lines[nxt].bottom
            if gap >= _SET_OFF * here.size:
                out.update({i: band for i in inside[: k + 1] if i not in out})
                break
    return out


def _leading_run(seq: Sequence[int], lines: Sequence[Line], height: float, band: str) -> list[int]:
    run = []
    for i in seq:
        line = lines[i]
        if (band == "top" and line.bottom <= BAND * height) or (band == "bottom" and line.top >= (1 - BAND) * height):
            run.append(i)
        else:
            break
    return run


def _varying_labels(where: Sequence[tuple[int, Line]]) -> dict[int, str]:
    """page -> label, for lines of one shape whose only changing token is a number."""
    tokens = [(page, line.text.split()) for page, line in where]
    lengths = {len(t) for _, t in tokens}
    if len(tokens) < 2 or len(lengths) != 1:
        return {}
    width = lengths.pop()
    for k in range(width):
        values = [t[k] for _, t in tokens]
        if len(set(values)) > 1 and all(re.fullmatch(_LABEL, v.strip(".,;:")) for v in values):
            return {page: t[k].strip(".,;:") for page, t in tokens}
    return {}


def _clusters(found: Sequence[tuple[int, int, Line]]) -> list[list[tuple[int, int, Line]]]:
    """Lines of one shape in one band grouped by baseline (within a few points)."""
    out: list[list[tuple[int, int, Line]]] = []
    for item in sorted(found, key=lambda f: f[2].baseline):
        if out and abs(item[2].baseline - out[-1][-1][2].baseline) <= _BASELINE_SLACK:
            out[-1].append(item)
        else:
            out.append([item])
    return out


def find_running(pages: Sequence[tuple[int, float, Sequence[Line]]]) -> RunningText:
    """Running lines of a document, given (page number, page height, lines) per page."""
    found = RunningText()
    seen: dict[tuple[str, str], list[tuple[int, int, Line]]] = defaultdict(list)
    numbered: list[int] = []  # pages whose margin holds a bare page number
    for number, height, lines in pages:
        for i, band in sorted(_margin_lines(lines, height).items()):
            label = _page_number(lines[i].text)
            if label is not None:
                found.removed.setdefault(number, set()).add(i)
                found.labels.setdefault(number, label)
                numbered.append(number)
            else:
                seen[(band, shape(lines[i].text))].append((number, i, lines[i]))
    for (band, _), where in sorted(seen.items()):
        for cluster in _clusters(where):
            pages_with = sorted({p for p, _, _ in cluster})
            if len(pages_with) < 2:  # a section's running head repeats on its own pages only: two is enough
                continue
            labels = _varying_labels([(p, line) for p, _, line in cluster])
            for page, i, line in cluster:
                found.removed.setdefault(page, set()).add(i)
                label = labels.get(page) or (_label_in(line.text) if _page_mention(line.text) else None)
                if label is not None:
                    found.labels.setdefault(page, label)
            what = "running header" if band == "top" else "footer"
            found.dropped.append((what, cluster[0][2].text, tuple(pages_with)))
    if numbered:
        found.dropped.append(("page number", "", tuple(sorted(set(numbered)))))
    return found


def _page_mention(text: str) -> bool:
    return re.search(rf"(?i:\b(?:{_page_words()}))\s*(?:{_LABEL})\b", text) is not None
