"""Numbered headings as printed ("Chapter 7. Dental care", "7.3 Dental, implantology", "Article 12",
"Section 4.2(b)"): their depth and the clause-id key they give.
Pure text rules over one line; never decides from layout, never rewrites the heading.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

_CONTAINER_WORDS: Final = ("part", "chapter", "title", "schedule", "appendix", "annex")
_KEY_PREFIX: Final[dict[str, str]] = {
    "part": "P", "chapter": "CH", "title": "T", "schedule": "SCH", "appendix": "APP", "annex": "APP",
    "article": "A", "art.": "A", "section": "S", "sect.": "S", "§": "S", "clause": "CL",
}
_NUMBER = r"(?:\d{1,3}(?:\.\d{1,3})*(?:\([A-Za-z0-9]{1,4}\))*|[IVXLC]{1,7}|[A-Z])"
_KEYWORD = re.compile(
    r"^(?P<kw>(?i:part|chapter|title|schedule|appendix|annex|article|art\.|section|sect\.|clause)|§)\s*"
    rf"(?P<num>{_NUMBER})(?P<rest>.*)$"
)
_MULTI_LEVEL = re.compile(r"^(?P<num>\d{1,3}(?:\.\d{1,3})+(?:\([A-Za-z0-9]{1,4}\))*)\.?\s+(?P<rest>\S.*)$")
_SINGLE_LEVEL = re.compile(r"^(?P<num>\d{1,3})[.)]?\s+(?P<rest>\S.*)$")
_MAX_HEADING: Final = 120
DOT_LEADER: Final = re.compile(r"(?:\.\s?){4,}")


@dataclass(frozen=True)
class Heading:
    """A numbered heading: its keyword (None for a bare number), number as printed, depth and id key."""

    text: str
    keyword: str | None
    number: str
    level: int

    @property
    def key(self) -> str:
        """The clause-id suffix it gives, e.g. "A7.3", "A12", "S4.2b", "CH7"."""
        prefix = _KEY_PREFIX.get((self.keyword or "article").lower(), "A")
        return prefix + re.sub(r"[^A-Za-z0-9.]", "", self.number).strip(".")


def _depth(number: str) -> int:
    """7 -> 1, 7.3 -> 2, 4.2(b) -> 3."""
    if not number[:1].isdigit():
        return 1
    return number.count(".") + 1 + number.count("(")


def _title_like(rest: str) -> bool:
    """What follows a number reads as a title (short, starts like one), not as a sentence."""
    rest = rest.strip()
    return not rest or (rest[0].isupper() or rest[0] in "\"'(“‘") and len(rest) <= _MAX_HEADING


def _keyword_heading(line: str) -> Heading | None:
    m = _KEYWORD.match(line)
    if m is None:
        return None
    keyword, number, rest = m.group("kw"), m.group("num"), m.group("rest")
    if not number[:1].isdigit() and keyword.lower() not in _CONTAINER_WORDS:
        return None  # "Section A" is rare; "Article I" is read by the roman branch only for containers
    stripped = rest.strip()
    if stripped[:1] in (".", ":", "-", "–", "—") and not stripped[1:2].isdigit():
        pass  # "Chapter 7. Dental care", "ARTICLE 5 - EXCLUSIONS": a separator, then any title
    elif rest and not rest[:1].isspace():
        return None  # "Article 12b" or "Section 4.2x": not a number we understand
    elif not _title_like(stripped):
        return None  # "Article 12 applies to ..." is a sentence
    level = 1 if keyword.lower() in _CONTAINER_WORDS else 1 + _depth(number)
    return Heading(line, keyword, number, level)


def parse_heading(line: str, *, strong: bool = False) -> Heading | None:
    """The numbered heading this line is, or None.

    Keyword headings ("Article 12", "Chapter 7. Dental care") and multi-level numbers followed by
    a title ("7.3 Dental, implantology") are headings on their own; a single-level number
    ("7 Dental care") only with `strong` evidence (bold or larger type, a heading style), since
    otherwise it is a numbered list item.
    """
    text = " ".join(line.split())
    if not text or len(text) > _MAX_HEADING or DOT_LEADER.search(text):
        return None  # too long for a heading, or a table-of-contents line ("7.3 Implants ....... 34")
    found = _keyword_heading(text)
    if found is not None:
        return found
    for pattern, needs_strong in ((_MULTI_LEVEL, False), (_SINGLE_LEVEL, True)):
        m = pattern.match(text)
        if m is None or (needs_strong and not strong):
            continue
        rest = m.group("rest")
        if not _title_like(rest) or (not strong and rest.rstrip()[-1:] in ".;,:"):
            return None
        return Heading(text, None, m.group("num"), _depth(m.group("num")))
    return None


_INLINE = re.compile(
    r"^(?P<label>(?:(?i:article|art\.|section|sect\.|clause)|§)\s*\d{1,3}(?:\.\d{1,3})*(?:\([A-Za-z0-9]{1,4}\))*"
    r"|\d{1,3}(?:\.\d{1,3})+(?:\([A-Za-z0-9]{1,4}\))*)[.:]?\s+(?P<body>[A-Z\"'(“‘].*)$",
    re.DOTALL,
)


def split_inline_heading(paragraph: str) -> tuple[Heading, str] | None:
    """A paragraph that opens with its own article label ("Article 12. The insurer ...",
    "4.2 The insured must ..."): the label as a heading, and the rest as its body."""
    m = _INLINE.match(paragraph.strip())
    if m is None or len(m.group("body")) < 20:
        return None
    label = m.group("label")
    heading = _keyword_heading(label) if label[:1] not in "0123456789" else Heading(label, None, label, _depth(label))
    return None if heading is None else (heading, m.group("body").strip())


LIST_MARKER: Final = re.compile(r"^(?:\(?[a-z]\)|\(?(?:i|ii|iii|iv|v|vi|vii|viii|ix|x)\)|\(\d{1,2}\)|\d{1,2}[.)]|[•▪●◦\-–*])\s+")
