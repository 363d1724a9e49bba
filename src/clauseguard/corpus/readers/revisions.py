"""Revision-history tables as version metadata: a table with a date column and a header (or a heading
above it) that names revisions or changes; its dates are candidate effective dates for a person to
confirm in the ingest report, never applied by themselves. The words are data (cues.yaml).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date

from clauseguard.corpus.readers.markers import cues

_NUMERIC = re.compile(r"\b(?P<a>\d{1,2})[/.-](?P<b>\d{1,2})[/.-](?P<y>\d{4})\b")
_ISO = re.compile(r"\b(?P<y>\d{4})-(?P<m>\d{2})-(?P<d>\d{2})\b")


def _month(word: str) -> int | None:
    w = word.lower().rstrip(".")
    for names in (cues()["months"], cues()["month_abbreviations"]):
        if w in names:
            return names.index(w) + 1
    return None


def parse_date(text: str) -> date | None:
    """The first date a cell states: ISO, month-first numeric (day-first when the first number
    cannot be a month), "May 1, 2024" or "1 May 2024"; None when it states none."""
    m = _ISO.search(text)
    if m:
        return _safe(int(m["y"]), int(m["m"]), int(m["d"]))
    m = _NUMERIC.search(text)
    if m:
        a, b, y = int(m["a"]), int(m["b"]), int(m["y"])
        return _safe(y, a, b) if a <= 12 else _safe(y, b, a)
    words = re.findall(r"[A-Za-z]+\.?|\d{1,4}", text)
    for k, w in enumerate(words):
        month = _month(w) if w[:1].isalpha() else None
        if month is None:
            continue
        after = words[k + 1: k + 3]
        before = words[k - 1: k] if k else []
        if len(after) == 2 and after[0].isdigit() and after[1].isdigit() and len(after[1]) == 4:
            return _safe(int(after[1]), month, int(after[0]))
        if before and before[0].isdigit() and after and after[0].isdigit() and len(after[0]) == 4:
            return _safe(int(after[0]), month, int(before[0]))
    return None


def _safe(y: int, m: int, d: int) -> date | None:
    try:
        return date(y, m, d)
    except ValueError:
        return None


def _names(text: str, words: Sequence[str]) -> bool:
    low = " ".join(text.lower().split())
    return any(re.search(rf"(?<![a-z]){re.escape(w)}(?![a-z])", low) for w in words)


def revision_dates(header: Sequence[str], rows: Sequence[Sequence[str]], heading: str = "") -> list[date] | None:
    """The dates of a revision-history table, newest first; None when the table is not one."""
    if not rows:
        return None
    revision = any(_names(h, cues()["revision_words"]) for h in header) or _names(heading, cues()["revision_words"])
    if not revision:
        return None
    width = max(len(r) for r in rows)
    for col in range(width):
        named = col < len(header) and _names(header[col], cues()["date_words"])
        found = [parse_date(r[col]) for r in rows if col < len(r) and r[col]]
        dated = [d for d in found if d is not None]
        if dated and (named or not header) and len(dated) >= 0.6 * len(found):
            return sorted(set(dated), reverse=True)
    return None
