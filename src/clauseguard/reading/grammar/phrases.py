"""The policy phrase data (`data/grammar/phrases.yaml`): what each house style writes for a coverage
statement, a denial, a quantifier, a condition, a reference, ..., as patterns in a small notation.

Notation: words separated by spaces match words separated by any space; `(a|b c)` is a choice,
`[a b]` and `(a|b)?` are optional, `s?` an optional character, `...` a gap of up to twelve words, `{n}` a number (digits or words, optionally with "(4)" after it), `{unit}` a unit
of time, `{term}` a defined term (up to five words), `{adverb}` one "-ly" adverb, `{labels}` a printed list of criterion labels ("(1)-(2)", "(1-6)", "(i, ii, and iii)",
"(a) - (c)"). Matching is on the folded text (case, quotes and dashes unified), on word boundaries.
Every pattern names the phrasebook entries (two styles at least) that justify it; a test checks it.
This module compiles patterns; it never decides what a sentence means.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property, lru_cache
from importlib import resources
from typing import Any, Final

from clauseguard.datafiles import load_yaml

NUMBER_WORDS: Final = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred single once twice"
).split()
NUMBER: Final = (r"(?:(?:(?<=\s)[-\u2212])?\d+(?:[.,]\d+)*|(?:" + "|".join(NUMBER_WORDS) + r")(?:[- ](?:" + "|".join(NUMBER_WORDS)
                 + r"))*)(?:\s*\(\s*\d+(?:\.\d+)?\s*\))?")
TIME_UNIT: Final = r"(?:calendar\s+)?(?:days?|weeks?|months?|years?)"
_LABEL: Final = r"(?:\d{1,2}|[a-z]|[ivx]{1,5})"
LABELS: Final = (
    rf"\(\s*{_LABEL}\s*\)\s*(?:(?:-|to|through|and|or|,)\s*\(\s*{_LABEL}\s*\)\s*)*"  # (1)-(2), (a) - (c), (1) and (2)
    rf"|\(\s*{_LABEL}\s*(?:(?:-|to|through|,|and|or|,\s*and|,\s*or)\s*{_LABEL}\s*)+\)"  # (1-6), (i, ii, and iii)
    # criteria 1-5, criteria 1 through 4, criteria i and iv (drug, medical, CMS LCD)
    rf"|(?<=criteria )(?<!\w){_LABEL}\s*(?:-|to|through|and|or)\s*{_LABEL}(?!\w)"
)


class _Notation:
    """A recursive reader of the pattern notation: seq := item (" " item)*, item := word | (alt) |
    [seq] | {slot}, alt := seq ("|" seq)*. Optional items carry their own separating space."""

    SLOTS: Final = {"n": NUMBER, "unit": TIME_UNIT, "labels": f"(?:{LABELS})",
                    "term": r"'?(?:[\w'-]+\s+){0,4}[\w'-]+'?",  # a defined term: up to five words
                    "adverb": r"[a-z]+ly"}  # one "-ly" adverb ("the supplier separately bills")

    def __init__(self, pattern: str) -> None:
        self.p = pattern
        self.i = 0

    def peek(self) -> str:
        return self.p[self.i] if self.i < len(self.p) else ""

    def seq(self, stop: str) -> str:
        items: list[tuple[str, bool]] = []
        while self.peek() and self.peek() not in stop:
            if self.peek() == " ":
                self.i += 1
                continue
            items.append(self.item())
        first = next((n for n, (_, optional) in enumerate(items) if not optional), len(items))
        out = ""
        for n, (regex, optional) in enumerate(items):
            if n < first:
                out += f"(?:{regex}\\s+)?"
            elif n == first:
                out += regex
            elif optional:
                out += f"(?:\\s+{regex})?"
            else:
                out += f"\\s+{regex}"
        return out

    def item(self) -> tuple[str, bool]:
        c = self.peek()
        if c == "(":
            self.i += 1
            alts = [self.seq("|)")]
            while self.peek() == "|":
                self.i += 1
                alts.append(self.seq("|)"))
            self.i += 1  # ")"
            alts.sort(key=len, reverse=True)  # the longest wording first: "moderate to severe" before "moderate"
            optional = self.peek() == "?"  # "(a|an)?" is written like "[a|an]"
            if optional:
                self.i += 1
            return "(?:" + "|".join(alts) + ")", optional
        if c == "[":
            self.i += 1
            alts = [self.seq("|]")]
            while self.peek() == "|":
                self.i += 1
                alts.append(self.seq("|]"))
            self.i += 1  # "]"
            return ("(?:" + "|".join(alts) + ")") if len(alts) > 1 else alts[0], True
        if self.p.startswith("...", self.i):  # a gap of up to twelve words
            self.i += 3
            return r"(?:\S+\s+){0,12}?\S+", False
        if c == "{":
            end = self.p.index("}", self.i)
            name = self.p[self.i + 1:end]
            self.i = end + 1
            return self.SLOTS[name], False
        start = self.i
        while self.peek() and self.peek() not in " ()[]{}|":
            self.i += 1
        if self.i == start:  # a stray bracket or bar: the character itself
            self.i += 1
        word = self.p[start:self.i]
        # "claims?", "pre-?test": the character before a question mark is optional
        out = "".join(re.escape(c) if c != "?" else "?" for c in word) if "?" in word[1:] else re.escape(word)
        return out, False


def _compile(pattern: str) -> str:
    """The regex of one pattern of the notation, matched on word boundaries."""
    return rf"(?<![\w]){_Notation(pattern).seq('')}(?![\w])"


@dataclass(frozen=True)
class Phrase:
    category: str
    name: str
    pattern: str
    sources: tuple[str, ...]

    @cached_property
    def regex(self) -> re.Pattern[str]:
        return re.compile(_compile(self.pattern))


class Phrases:
    """The phrase table: categories -> names -> patterns, loaded once per process."""

    def __init__(self, data: dict[str, Any], raw: bytes) -> None:
        self.fingerprint = "sha256:" + hashlib.sha256(raw).hexdigest()[:16]
        self.table: dict[str, dict[str, tuple[Phrase, ...]]] = {}
        for category, names in data.items():
            if category == "version":
                continue
            self.table[category] = {
                name: tuple(Phrase(category, name, str(e["pattern"]), tuple(e.get("sources", ())))
                            for e in entries)
                for name, entries in names.items()
            }

    def of(self, category: str, name: str | None = None) -> tuple[Phrase, ...]:
        names = self.table.get(category, {})
        if name is not None:
            return names.get(name, ())
        return tuple(p for group in names.values() for p in group)

    def names(self, category: str) -> tuple[str, ...]:
        return tuple(self.table.get(category, {}))

    def words(self, category: str, name: str) -> tuple[str, ...]:
        """The plain patterns of a name (for word lists such as joiners)."""
        return tuple(p.pattern for p in self.of(category, name))

    def all(self) -> Iterator[Phrase]:
        for names in self.table.values():
            for group in names.values():
                yield from group

    @cached_property
    def _alternations(self) -> dict[str, re.Pattern[str]]:
        return {}

    def finditer(self, category: str, text: str) -> list[tuple[int, int, str]]:
        """(start, end, name) of every match of the category in the folded `text`, longest first at a place."""
        found = []
        for name, group in self.table.get(category, {}).items():
            for phrase in group:
                for m in phrase.regex.finditer(text):
                    found.append((m.start(), m.end(), name))
        found.sort(key=lambda f: (f[0], -(f[1] - f[0]), f[2]))
        return found


@lru_cache(maxsize=1)
def phrases() -> Phrases:
    raw = (resources.files("clauseguard") / "data" / "grammar" / "phrases.yaml").read_bytes()
    return Phrases(load_yaml(raw), raw)
