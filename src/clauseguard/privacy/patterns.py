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
import yaml

Region = tuple[int, int, str]  # (start, end, label)
_OPTIONS: Final = re2.Options()
_OPTIONS.max_mem = 64 << 20  # the DFA budget per pattern; RE2 falls back to its NFA, still linear


@dataclass(frozen=True)
class IdentifierPattern:
    label: str
    regex: Any  # re2._Regexp
    digits_at_least: int = 0

    def regions(self, text: str) -> list[Region]:
        out = []
        group = self.regex.groupindex.get("phi", 0)
        for m in self.regex.finditer(text):
            start, end = m.span(group)
            if start < 0 or end <= start:
                continue
            if self.digits_at_least and sum(c.isdigit() for c in text[start:end]) < self.digits_at_least:
                continue
            out.append((start, end, self.label))
        return out


@cache
def identifier_patterns() -> tuple[IdentifierPattern, ...]:
    path = resources.files("clauseguard") / "data" / "privacy" / "patterns.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    return tuple(
        IdentifierPattern(entry["label"], re2.compile(entry["pattern"], _OPTIONS), int(entry.get("digits_at_least", 0)))
        for entry in data["patterns"]
    )


def find_identifiers(text: str) -> list[Region]:
    """Every region any identifier pattern finds, unsorted and possibly overlapping."""
    return [region for pattern in identifier_patterns() for region in pattern.regions(text)]
