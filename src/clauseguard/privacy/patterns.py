"""Identifier patterns over user text: e-mails (also written out), URLs, IPs, SSNs, dates of birth,
labelled and unlabelled ids, PO boxes, postcodes and street addresses in several countries.

The patterns are data (`data/privacy/patterns.yaml`), compiled with RE2, so each runs in time linear
in the text whatever the text is. It finds regions only; it never decides how they are shown.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, Final

import re2

from clauseguard.datafiles import load_yaml

Region = tuple[int, int, str]  # (start, end, label)
_DIGIT_WORDS: Final = frozenset(
    """zero oh nought nil one two three four five six seven eight nine ten eleven twelve thirteen fourteen
    fifteen sixteen seventeen eighteen nineteen twenty thirty forty fourty fifty sixty seventy eighty ninety
    hundred double triple""".split())


def _digit_words(text: str) -> int:
    """Digits in a spelled-out identifier: each digit character and each number word."""
    words = text.replace("-", " ").replace(",", " ").replace(".", " ").split()
    return sum(c.isdigit() for c in text) + sum(w.lower() in _DIGIT_WORDS for w in words)
_OPTIONS: Final = re2.Options()
_OPTIONS.max_mem = 64 << 20  # the DFA budget per pattern; RE2 falls back to its NFA, still linear


@dataclass(frozen=True)
class IdentifierPattern:
    label: str
    regex: Any  # re2._Regexp
    digits_at_least: int = 0
    digit_words_at_least: int = 0  # digits, or digits written as words ("two five one"), in the match

    def regions(self, text: str) -> list[Region]:
        out = []
        group = self.regex.groupindex.get("phi", 0)
        for m in self.regex.finditer(text):
            start, end = m.span(group)
            if start < 0 or end <= start:
                continue
            if self.digits_at_least and sum(c.isdigit() for c in text[start:end]) < self.digits_at_least:
                continue
            if self.digit_words_at_least and _digit_words(text[start:end]) < self.digit_words_at_least:
                continue
            out.append((start, end, self.label))
        return out


def patterns_data() -> dict[str, Any]:
    """The pattern file's entries (for detectors that read their own keys of it)."""
    return _data()


@cache
def _data() -> dict[str, Any]:
    path = resources.files("clauseguard") / "data" / "privacy" / "patterns.yaml"
    data: dict[str, Any] = load_yaml(path.read_text(encoding="utf-8"))
    return data


def _expand(pattern: str, fragments: dict[str, str]) -> str:
    for name, fragment in fragments.items():
        pattern = pattern.replace(f"<<{name}>>", fragment)
    return pattern


@cache
def fragment(name: str) -> str:
    """A named fragment of the pattern file (e.g. "date"), expanded: for detectors that build on it."""
    fragments: dict[str, str] = {}
    for key, value in (_data().get("fragments") or {}).items():
        fragments[key] = _expand(value, fragments)
    return fragments[name]


@cache
def identifier_patterns() -> tuple[IdentifierPattern, ...]:
    fragments = {key: fragment(key) for key in (_data().get("fragments") or {})}
    return tuple(
        IdentifierPattern(entry["label"], re2.compile(_expand(entry["pattern"], fragments), _OPTIONS),
                          int(entry.get("digits_at_least", 0)), int(entry.get("digit_words_at_least", 0)))
        for entry in _data()["patterns"]
    )


@cache
def _code_label_before() -> Any:
    return re2.compile(_data()["code_label_before"], _OPTIONS)


CODE_LOOKBEHIND: Final = 80  # characters before a region where a code system's name is looked for


def is_code(text: str, start: int, end: int) -> bool:
    """The region reads as a code: a code-like token right after a code system's name ("NDC ...")."""
    value = text[start:end]
    if not value or " " in value.strip() or not all(c.isalnum() or c in ".-" for c in value):
        return False
    return _code_label_before().search(text[max(0, start - CODE_LOOKBEHIND):start]) is not None


def find_identifiers(text: str) -> list[Region]:
    """Every region any identifier pattern finds, unsorted and possibly overlapping."""
    return [region for pattern in identifier_patterns() for region in pattern.regions(text)]
