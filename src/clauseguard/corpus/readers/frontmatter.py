"""Cover and contents pages, kept out of clauses: a contents page has a "Contents" heading or lines
that end in page numbers after dotted leaders; a cover is the first page when a contents page
follows it or when it holds only a few centred title lines.

It judges whole pages from their lines; it never drops part of a page.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from clauseguard.corpus.readers.layout import Line
from clauseguard.corpus.readers.markers import cues

_LEADER_ENTRY = re.compile(
    r"^(?P<entry>.*?\S)\s*(?:(?:\.\s?){3,}|[\u2026_]{2,}|\s{3,})\s*(?P<label>[0-9]{1,4}|[ivxlcdm]{1,7}|[IVXLCDM]{1,7})$"
)
_ENTRY_SHARE: Final = 0.6  # a page whose lines end in page numbers this often is a contents page
_COVER_LINES: Final = 15
_CENTRED: Final = 0.06  # a line whose middle is this close to the page's middle (share of the width) is centred


def contents_entry(text: str) -> str | None:
    """The entry of a contents line ("7.3 Implants ........ 34" -> "7.3 Implants"), else None."""
    m = _LEADER_ENTRY.match(" ".join(text.split(" ")))
    return m.group("entry") if m else None


def _title(text: str) -> bool:
    words = " ".join(text.lower().split())
    return words in cues()["contents_titles"] or words.replace(" ", "") in {t.replace(" ", "") for t in cues()["contents_titles"]}


def is_contents(lines: Sequence[Line]) -> bool:
    """A table-of-contents page: its heading says so and entries follow, or most lines are entries."""
    if not lines:
        return False
    entries = sum(1 for line in lines if contents_entry(line.text) is not None)
    if any(_title(line.text) for line in lines[:3]) and entries >= 2:
        return True
    return entries >= 3 and entries >= _ENTRY_SHARE * len(lines)


def is_cover(lines: Sequence[Line], width: float, *, contents_next: bool) -> bool:
    """A cover: a contents page follows it, or it holds a few centred lines and no full-width text."""
    if not lines:
        return False
    if contents_next:
        return True
    if len(lines) > _COVER_LINES or any(line.x1 - line.x0 > 0.7 * width for line in lines):
        return False
    centred = sum(1 for line in lines if abs((line.x0 + line.x1) / 2 - width / 2) <= _CENTRED * width)
    return centred >= 0.6 * len(lines) and len(lines) >= 2


def front_matter(pages: Sequence[tuple[int, float, Sequence[Line], bool]]) -> dict[int, str]:
    """page -> "cover page" or "contents page", for the pages at the front that are either, given
    (number, width, lines, whether it has a table) per page. A page with a table is neither."""
    found: dict[int, str] = {}
    if len(pages) < 2:
        return found
    for number, _width, lines, table in pages:
        if table:
            break
        if is_contents(lines):
            found[number] = "contents page"
        elif found or number > 1:
            break
    first_number, first_width, first_lines, first_table = pages[0]
    if first_number not in found and not first_table and is_cover(
        first_lines, first_width, contents_next=pages[1][0] in found
    ):
        found[first_number] = "cover page"
    return found
