"""Sentences with their offsets: the one splitter every reader uses.

A sentence ends at ".", "!" or "?" followed by space and a capital, digit, bracket or quote, or at a
blank line or the end of a line that is a heading or a list line; not after an abbreviation
(`data/text/abbreviations.yaml`), an initial ("J. Smith"), a decimal or a list number ("1."). Pure
and linear in the text's length; it never looks at vocabulary.
"""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources
from typing import Final, NamedTuple

from clauseguard.datafiles import load_yaml

# A run of end marks is tried once, from its first mark (the lookbehind) and without backtracking
# (possessive), so a long run of "!!!" or "..." costs its length, not its length squared.
_END: Final = re.compile(r"(?<![.!?])[.!?]++[\"')\]\u201d\u2019]*+(?=\s)")
_NEXT_STARTS: Final = re.compile(r"\s+[\"'(\[\u201c\u2018]?[A-Z0-9]")
_LINE_BREAKS: Final = re.compile(r"\n[ \t]*\n|\n(?=[ \t]*(?:[-\u2022o\u25aa\uf0b7*]\s|\(?[0-9ivxlcIVXLC]{1,4}[.)]\s|\(?[a-zA-Z][.)]\s|-(?:AND|OR)-))")
# a list number opens a line or follows a sentence end, colon, semicolon, comma or a joining "and" / "or" (": 1.",
# "; and, 2."); after a word it is a figure ending its sentence ("BMI 42. Status post ...")
_LIST_NUMBER: Final = re.compile(r"(?:^|\n[ \t]*|[.!?:;,]\s*|(?:^|\s)(?:and|or)\s+)\(?(?:\d{1,3}|[a-z]|[ivxlc]{1,5})[.)]$",
                                 re.IGNORECASE)


class Sentence(NamedTuple):
    """One sentence: its text exactly as in the source (`source[start:end]`), ends trimmed of space."""

    text: str
    start: int
    end: int


@lru_cache(maxsize=1)
def abbreviations() -> frozenset[str]:
    path = resources.files("clauseguard") / "data" / "text" / "abbreviations.yaml"
    data = load_yaml(path.read_text(encoding="utf-8"))
    return frozenset(str(a).lower().rstrip(".") for a in data["abbreviations"])


_WORD_WINDOW: Final = 64  # an abbreviation, initial or list number is read from this many characters before its stop


def _no_break_after(text: str, end: int) -> bool:
    """True when the full stop that ends at `end` belongs to an abbreviation, initial or list number.
    Only the last word before the stop is read (a bounded window), so each stop costs the same
    however long the text before it is."""
    start = max(0, end - _WORD_WINDOW)
    head = text[start:end]
    if start > 0 and not head[:1].isspace():
        head = head.split(None, 1)[1] if len(head.split(None, 1)) > 1 else ""  # the window's cut word is not read
    word = head.rsplit(None, 1)[-1] if head.split() else ""
    bare = word.strip("\"'([\u201c\u2018").rstrip(".!?\"')]\u201d\u2019").lower()
    if bare in abbreviations():
        return True
    if len(bare) == 1 and bare.isalpha() and word.rstrip("\"')]").endswith("."):
        return True  # an initial, or a lettered list marker "a."
    return bool(_LIST_NUMBER.search(head.rstrip("\"')]")))


def _breaks(text: str) -> list[int]:
    cuts: set[int] = set()
    for m in _END.finditer(text):
        if not _NEXT_STARTS.match(text, m.end()):
            continue
        if text[m.start()] == "." and _no_break_after(text, m.end()):
            continue
        cuts.add(m.end())
    for m in _LINE_BREAKS.finditer(text):
        cuts.add(m.start())
    return sorted(cuts)


def sentences(text: str) -> list[Sentence]:
    """The sentences of `text`, in order, with offsets into `text` (empty pieces dropped)."""
    out: list[Sentence] = []
    start = 0
    for cut in [*_breaks(text), len(text)]:
        piece = text[start:cut]
        lead = len(piece) - len(piece.lstrip())
        body = piece.strip()
        if body:
            s = start + lead
            out.append(Sentence(body, s, s + len(body)))
        start = cut
    return out


_SEMICOLON: Final = re.compile(r";\s+")


def pieces(text: str) -> list[Sentence]:
    """Sentences, each further cut after its semicolons: the stretches an excerpt may quote."""
    out: list[Sentence] = []
    for s in sentences(text):
        start = 0
        for m in [*_SEMICOLON.finditer(s.text), None]:
            cut = m.start() + 1 if m is not None else len(s.text)
            body = s.text[start:cut].strip()
            if body:
                lead = len(s.text[start:cut]) - len(s.text[start:cut].lstrip())
                out.append(Sentence(body, s.start + start + lead, s.start + start + lead + len(body)))
            start = m.end() if m is not None else cut
    return out
