"""A service named again in a later sentence: "a standard home blood glucose monitor (HCPCS codes
E0607, E2100, E2101) ... Claims for a BGM ... will be denied". The later mention, a repeat of the
earlier words or their initials (the usual way an abbreviation is introduced), takes the codes the
earlier mention printed. Nothing is guessed: a mention that matches no earlier coded name keeps no
codes.
"""

from __future__ import annotations

import re
from typing import Final

from clauseguard.text import STOP_WORDS, fold, stem

_CODED: Final = re.compile(r"\((?P<inner>[^()]*\b(?:codes?|hcpcs|cpt)\b[^()]*)\)", re.IGNORECASE)
_CODE: Final = re.compile(r"(?<![\w.-])([A-Z]\d{4}|\d{4}[A-Z0-9]|\d{5})(?![\w])")
_PARTS: Final = re.compile(r"\s*(?:,|\band\b|\bor\b|\band/or\b)\s*", re.IGNORECASE)
_ACRONYM: Final = re.compile(r"^[A-Z]{2,6}s?$")


def _content(words: list[str]) -> list[str]:
    return [w for w in words if w not in STOP_WORDS]


def _named_before(text: str, end: int) -> list[tuple[list[str], tuple[str, ...]]]:
    """Each coded name before `end`: the words just before a "(... codes ...)" parenthetical, and its codes."""
    found = []
    for m in _CODED.finditer(text, 0, end):
        codes = tuple(_CODE.findall(m.group("inner")))
        if not codes:
            continue
        head = re.split(r"[.;:()]|\b(?:and|or|replace|replaces|with|for|of)\b", text[:m.start()])[-1]
        words = _content(re.findall(r"[\w'-]+", fold(head)))
        if words:
            found.append((words, codes))
    return found


def _matches(mention: list[str], raw: str, named: list[str]) -> bool:
    if not mention:
        return False
    tail = named[-len(mention):]
    if len(tail) == len(mention) and all(stem(a) == stem(b) or a.rstrip("s") == b.rstrip("s") for a, b in zip(mention, tail, strict=True)):
        return True  # "related supplies" ... "related supplies (HCPCS codes ...)"; "a BGM" ... "BGMs (codes ...)"
    token = raw.strip()
    if len(mention) == 1 and _ACRONYM.match(token):
        letters = token.rstrip("s").lower()
        return "".join(w[0] for w in named[-len(letters):]) == letters and len(named) >= len(letters)
    return False


def codes_of_mention(text: str, start: int, end: int) -> tuple[str, ...]:
    """The codes an earlier coded name gives the service named at text[start:end] (each of its
    conjuncts resolved on its own), or () when any conjunct matches none."""
    named = _named_before(text, start)
    if not named:
        return ()
    codes: list[str] = []
    for part in _PARTS.split(text[start:end]):
        raw = re.sub(r"^(?:claims?\s+for|the|a|an)\s+", "", part.strip(), flags=re.IGNORECASE)
        if not raw:
            continue
        words = _content(re.findall(r"[\w'-]+", fold(raw)))
        hit = next((c for n, c in reversed(named) if _matches(words, raw, n)), None)
        if hit is None:
            return ()
        codes.extend(hit)
    return tuple(dict.fromkeys(codes))
