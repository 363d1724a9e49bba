"""Dates of birth where no label stands right before the date: in tabular demographics rows
("HOFFMANN, KÄTHE    F    2000-09-09    MRN 1657004"), in the column under a birth-date heading, and
right after a person's name ("Ada Obi (03/14/1962)", "OBI, ADA, 03/14/1962", "Ada Obi / F / 1962-03-14"),
and other dates beside a date of birth found (the same date restated or corrected).

A line is read as cells (split at tabs, runs of two spaces or more, bars, semicolons and commas). A
date that fills a cell is a date of birth when the row describes a person: another cell is a sex or
an age and sex (M, F, Female, 62F, F/62), the cell before it holds a name, or the cell sits in a table
whose heading row names a birth date. Linear: one RE2 split per line, one full match per cell, a
bounded look after each name. It finds regions only.
"""

from __future__ import annotations

from bisect import bisect_left
from functools import cache
from typing import Any, Final

import re2

from clauseguard.privacy.patterns import Region, fragment, patterns_data

_CELL_BREAK: Final = re2.compile(r"\t+| {2,}|\s*[|;,]\s*")
_SEX: Final = re2.compile(
    r"(?i)(?:(?:sex|gender)\s*[:/]?\s*)?(?:m|f|x|u|male|female|man|woman|non-binary|masculino|femenino|masculin|féminin|"
    r"männlich|weiblich)|[0-9]{1,3}\s?(?:y|yo|y/o|yrs?|years?)?\s?/?\s?[mf]|[mf]\s?/?\s?[0-9]{1,3}\s?(?:y|yo|y/o|yrs?)?")
_BIRTH_HEADING: Final = re2.compile(
    r"(?i)(?:dob|d\.o\.b\.?|date\s+of\s+birth|birth\s?date|birthday|born|geb\.?|geburtsdatum|fecha\s+de\s+nacimiento|"
    r"f\.\s?nac\.?|date\s+de\s+naissance|data\s+(?:di\s+nascita|de\s+nascimento|urodzenia))\s*(?:\(.{0,12}\))?\s*:?")
MIN_CELLS: Final = 3
AFTER_NAME: Final = 40  # characters looked at after a name for its date of birth


@cache
def _date() -> Any:
    return re2.compile(r"(?i)" + fragment("date"))


@cache
def _date_after_name() -> Any:
    # "Ada Obi, 62F, 03/14/1962", "Ada Obi 62F 03/14/1962": an age and sex, then the date; the fields
    # split by any usual separator (comma, bracket, dash, slash, bar, semicolon, bullet, middle dot)
    # "Ada Obi 62F 03/14/1962" needs the sex or the unit: a bare number before a space is the date's day
    marked = r"(?:[mf]|male|female|[0-9]{1,3}\s?(?:y|yo|y/o|yrs?|years?(?:\s+old)?)\s?[mf]?|[0-9]{1,3}\s?[mf])"
    age_sex = r"(?:" + marked + r"\s*(?:[,/;|•·)-]|\s)\s*|[0-9]{1,3}\s*[,/;|•·)]\s*)?"
    return re2.compile(r"(?i)^\s*(?:[,(/;|•·-])?\s*" + age_sex + r"(?:\(|,)?\s*(" + fragment("date") + r")\s*(?:\)|,|;|\||•|·|\s|$)")


def _cells(text: str, start: int, end: int) -> list[tuple[int, int]]:
    out, pos = [], start
    for m in _CELL_BREAK.finditer(text[start:end]):  # a slice: the binding re-encodes its input per call
        if start + m.start() > pos:
            out.append((pos, start + m.start()))
        pos = start + m.end()
    if pos < end:
        out.append((pos, end))
    cells = [(a, b) for a, b in out if text[a:b].strip()]
    return _dates_rejoined(text, cells)


def _dates_rejoined(text: str, cells: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Cells split at a comma inside a date joined again ("March 14, 1962", "14th of March, 1962")."""
    out: list[tuple[int, int]] = []
    for a, b in cells:
        if out and text[out[-1][1]:a].strip() == "," and _date().fullmatch(text[out[-1][0]:b].strip()):
            out[-1] = (out[-1][0], b)
        else:
            out.append((a, b))
    return out


def _trimmed(text: str, a: int, b: int) -> tuple[int, int]:
    value = text[a:b]
    lead = len(value) - len(value.lstrip())
    return a + lead, a + lead + len(value.strip())


def row_dates_of_birth(text: str, names: list[tuple[int, int]]) -> list[Region]:
    """DOB regions for dates in a row or table about a person, and dates right after a name."""
    out = _after_names(text, names)
    if not any(c in text for c in "\t |;,"):
        return out
    name_starts = [a for a, _ in names]
    birth_table = False
    line_start = 0
    while line_start <= len(text):
        line_end = text.find("\n", line_start)
        line_end = len(text) if line_end < 0 else line_end
        cells = _cells(text, line_start, line_end)
        if not cells:
            birth_table = False  # a blank line ends a table
        elif any(_BIRTH_HEADING.fullmatch(text[a:b].strip()) for a, b in cells) and len(cells) >= 2:
            birth_table = True
        elif len(cells) >= MIN_CELLS or birth_table:
            person = birth_table or any(_SEX.fullmatch(text[a:b].strip()) for a, b in cells)
            for k, (a, b) in enumerate(cells):
                a, b = _trimmed(text, a, b)
                if not _date().fullmatch(text[a:b]):
                    continue
                if person or (k and _holds_name(name_starts, names, cells[k - 1])):
                    out.append((a, b, "DOB"))
        line_start = line_end + 1
    return out


def _after_names(text: str, names: list[tuple[int, int]]) -> list[Region]:
    out: list[Region] = []
    for _, end in names:
        m = _date_after_name().match(text[end:end + AFTER_NAME])
        if m:
            out.append((end + m.start(1), end + m.end(1), "DOB"))
    return out


def _holds_name(starts: list[int], names: list[tuple[int, int]], cell: tuple[int, int]) -> bool:
    k = bisect_left(starts, cell[0])
    return k < len(names) and names[k][0] < cell[1]


EVENT_LOOKBEHIND: Final = 24  # characters before a date where an event word is looked for


@cache
def _event_before() -> Any:
    return re2.compile(patterns_data()["event_date_cues"])


SENTENCE_REACH: Final = 300  # characters looked at either side of a date of birth for its sentence's ends


def _sentence(text: str, start: int, end: int) -> tuple[int, int]:
    """The sentence around [start, end): from the last break before it to the next one after it (a
    line break, or a full stop, "?", "!" or ";" followed by a space), at most SENTENCE_REACH away, so
    a text of many dates and no breaks costs what its length says."""
    low, high = max(0, start - SENTENCE_REACH), min(len(text), end + SENTENCE_REACH)
    left = max(low - 1, text.rfind("\n", low, start), *(text.rfind(m, low, start) for m in (". ", "? ", "! ", "; ")))
    rights = [i for i in (text.find("\n", end, high), *(text.find(m, end, high) for m in (". ", "? ", "! ", "; ")))
              if i >= 0]
    return left + 1, min(rights) if rights else high


def _line(text: str, start: int, end: int) -> tuple[int, int]:
    """The line around [start, end), at most SENTENCE_REACH away on either side."""
    low, high = max(0, start - SENTENCE_REACH), min(len(text), end + SENTENCE_REACH)
    right = text.find("\n", end, high)
    return max(low - 1, text.rfind("\n", low, start)) + 1, right if right >= 0 else high


_YEAR: Final = re2.compile(r"(?:^|[^0-9])((?:19|20)[0-9]{2}|[0-9]{2})(?:[^0-9]|$)")


def _year(date: str) -> str | None:
    """The last two digits of a date's year: a four-digit year anywhere in it, else its last two digits
    ("Jan 8th 1975", "1975-01-18", "1/18/75" -> "75"); None for a date with no number that can be one."""
    numbers = [m.group(1) for m in _YEAR.finditer(date)]
    full = [n for n in numbers if len(n) == 4]
    return full[0][2:] if full else numbers[-1] if numbers else None


def dates_beside_dobs(text: str, found: list[Region]) -> list[Region]:
    """Other dates in the sentence of a date of birth found, read as dates of birth unless an event word
    stands right before them; on its line beyond the sentence, a date of the same year is the date of
    birth restated or corrected ("DOB as Jan 8th 1975; system shows January 18, 1975"). Linear: one
    date scan of the text; each date of birth looks up the dates of its (bounded) line by bisection."""
    dobs = [(start, end) for start, end, label in found if label == "DOB"]
    if not dobs:
        return []
    dates = [(m.start(), m.end()) for m in _date().finditer(text) if any(c.isdigit() for c in m.group())]
    starts = [s for s, _ in dates]
    chosen: set[int] = set()
    for start, end in dobs:
        a, b = _sentence(text, start, end)
        line_a, line_b = _line(text, start, end)
        year = _year(text[start:end])
        k = bisect_left(starts, min(a, line_a))
        while k < len(dates) and dates[k][0] < max(b, line_b):
            s, e = dates[k]
            beside = a <= s < b or year is not None and _year(text[s:e]) == year
            if beside and not (s < end and e > start) and k not in chosen \
                    and not _event_before().search(text[max(0, s - EVENT_LOOKBEHIND):s]):
                chosen.add(k)
            k += 1
    return [(*dates[k], "DOB") for k in sorted(chosen)]
