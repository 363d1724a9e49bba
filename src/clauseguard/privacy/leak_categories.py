"""Failure categories of a PHI corpus run: for every value the redactor lets through, its structure only
(category, shape, script, where it sits, the class of the word before it, the nearest label before and
after it), never a character of it.

This is how a blind holdout's leaks may be looked at: counts per structural category. Nothing here
prints, returns or writes a value, a word of the text or a clinical term; a shape keeps punctuation and
the length of digit runs, and nothing else of the value.

    python -m clauseguard.privacy.leak_categories [--phi evals/phi] [--half dev dev2 dev3 holdout]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import cache
from pathlib import Path
from typing import Any, Final, NamedTuple

import re2

from clauseguard import packed
from clauseguard.privacy.patterns import Region, fragment, identifier_patterns
from clauseguard.privacy.redaction import Redaction
from clauseguard.privacy.tables import fold, tables
from clauseguard.text import STOP_WORDS

HALVES: Final = ("dev", "dev2", "dev3", "holdout")
LOOK_BACK: Final = 80  # characters before a value searched for the word before it
LOOK_AROUND: Final = 160  # characters before and after a value searched for a label
_PROBE_DATE: Final = "01/01/1970"  # appended after the words before a value: does a birth label end there?
_PROBE_ID: Final = "48213907"  # ... an id label?
_WORD: Final = re2.compile(r"[\p{L}\p{M}\p{N}]+(?:[.'’-][\p{L}\p{M}\p{N}]+)*\.?")
_AGE: Final = re2.compile(r"(?i)(?:\b[0-9]{1,3}\s?(?:y/?o|yo|yrs?|years?(?:[\s-]old)?|-years?-old|[mf])|\baged?\s*:?\s*[0-9]{1,3})$")
_SEX: Final = re2.compile(r"(?i)m|f|male|female|man|woman|boy|girl|masculino|femenino|masculin|féminin|männlich|weiblich")
_PUNCTUATION: Final = "-–—/·•*#~=+;.|"
_SCRIPTS: Final = {"LATIN": "latin", "CJK": "cjk", "HIRAGANA": "kana", "KATAKANA": "kana", "HANGUL": "hangul",
                   "CYRILLIC": "cyrillic", "GREEK": "greek", "ARABIC": "arabic", "DEVANAGARI": "devanagari",
                   "HEBREW": "hebrew", "THAI": "thai"}


class Leak(NamedTuple):
    """One leaked value, as structure only."""

    category: str  # the corpus's category: name, date_of_birth, record_id, email, ...
    shape: str  # "99/99/9999", "Aa+ Aa+", "a+.a+@a+.a+"
    script: str  # latin, cjk, cyrillic, ... ("+" between several; "none" without letters)
    where: str  # line start, after colon, in brackets, after comma, in text (after " · "); "+ table" in a | or tab row
    before: str  # the class of the nearest word before it (never the word)
    label: str  # the nearest label before it, and how far back ("birth label, 4-8 back")
    label_after: str  # the nearest label after it on its line, and how far on ("birth label, 1 on")


def shape(value: str) -> str:
    """The value's shape: each digit is 9 (a run keeps its length), a run of ASCII capitals is A, of
    ASCII small letters a, of other letters (any script, with their marks) L, each followed by "+" when
    the run is longer than one; every other character is kept ("14 Mar 1962" -> "99 Aa+ 9999")."""
    out: list[str] = []
    prev, run = "", 0
    for ch in value + "\0":
        cls = _char_class(ch)
        if cls == prev and cls in "9AaL":
            run += 1
            continue
        if prev:
            out.append(prev * run if prev == "9" else prev + ("+" if run > 1 else ""))
        prev, run = (cls, 1) if ch != "\0" else ("", 0)
    return "".join(out).replace("\t", "\\t")


def _char_class(ch: str) -> str:
    if ch.isdigit():
        return "9"
    if ch.isascii() and ch.isalpha():
        return "A" if ch.isupper() else "a"
    if ch.isalpha() or unicodedata.category(ch).startswith("M"):
        return "L"
    return ch


def script(value: str) -> str:
    """The scripts of the value's letters (by their Unicode names), or "none" when it has no letter."""
    found = {_SCRIPTS.get(unicodedata.name(ch, "?").split()[0], "other") for ch in value if ch.isalpha()}
    return "+".join(sorted(found)) or "none"


def where(text: str, start: int) -> str:
    """Where the value sits on its line: first on it, after a colon, inside an open bracket, after a
    comma, or in running text; "+ table" when the line is a row with bars or tabs."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", start)
    line = text[line_start:line_end if line_end >= 0 else len(text)]
    before = text[line_start:start].rstrip()
    if not before:
        place = "line start"
    elif before.endswith(":"):
        place = "after colon"
    elif sum(before.count(c) for c in "([{") > sum(before.count(c) for c in ")]}"):
        place = "in brackets"
    elif before.endswith(","):
        place = "after comma"
    else:
        gap = before[len(before.rstrip(_PUNCTUATION)):]  # the punctuation right before it: " · ", " / "
        place = f"in text after {shape(gap[-3:])}" if gap else "in text"
    return place + (" + table" if "|" in line or "\t" in line else "")


def word_before(text: str, start: int, regions: Sequence[Region]) -> str:
    """The class of the nearest word before `start` (never the word): a birth, id or name label, a title,
    a name the redactor found, another redacted region, an age, a sex, a date, a digit run, a function word,
    another word, or none."""
    words = _words_before(text, start)
    if not words:
        return "none"
    w_start, w_end = words[-1]
    for r_start, r_end, label in regions:
        if r_start < w_end and w_start < r_end:
            return {"NAME": "found name", "DOB": "date"}.get(label, f"redacted {label.lower()}")
    tail = text[max(0, w_end - 40):w_end]
    if _date().search(tail):
        return "date"
    if _AGE.search(tail):
        return "age"
    word = text[w_start:w_end].rstrip(".")
    if word.isdigit():
        return "digit run"
    if _SEX.fullmatch(word):
        return "sex"
    cue = _label(text, words, len(words) - 1, start)
    if cue:
        return cue
    return "function word" if fold(word) in STOP_WORDS else "word"


def label_earlier(text: str, start: int) -> str:
    """The class of the nearest label before the value and how many words back it stands (1, 2-3, 4-8,
    9 or more; "earlier line" when it is not on the value's line), or "none"."""
    line_start = text.rfind("\n", 0, start) + 1
    words = _words_before(text, start, LOOK_AROUND)
    for back, i in enumerate(range(len(words) - 1, -1, -1), 1):
        label = _label(text, words, i, start)
        if label:
            distance = "1" if back == 1 else "2-3" if back <= 3 else "4-8" if back <= 8 else "9+"
            return f"{label}, {distance} back" + (", earlier line" if words[i][0] < line_start else "")
    return "none"


def label_after(text: str, end: int) -> str:
    """The class of the nearest label after the value on its line, and how many words on it stands."""
    line_end = text.find("\n", end)
    stop = min(len(text) if line_end < 0 else line_end, end + LOOK_AROUND)
    words = [(end + m.start(), end + m.end()) for m in _WORD.finditer(text[end:stop])]
    for i in range(len(words)):
        label = _label(text, words, i, stop)
        if label and label != "title":
            distance = "1" if i == 0 else "2-3" if i <= 2 else "4-8" if i <= 7 else "9+"
            return f"{label}, {distance} on"
    return "none"


def _words_before(text: str, start: int, look_back: int = LOOK_BACK) -> list[tuple[int, int]]:
    window_start = max(0, start - look_back)
    return [(window_start + m.start(), window_start + m.end()) for m in _WORD.finditer(text[window_start:start])]


def _label(text: str, words: Sequence[tuple[int, int]], i: int, value_start: int) -> str | None:
    """The words ending at words[i] read as a title, a birth label, an id label or a name label."""
    w_start, w_end = words[i]
    word = fold(text[w_start:w_end].rstrip("."))
    cues = tables().cues
    if word in cues.titles:
        return "title"
    probe = text[words[max(0, i - 2)][0]:w_end] + " "
    if _labels(probe, _PROBE_DATE, "DOB"):
        return "birth label"
    if _labels(probe, _PROBE_ID, "ID"):
        return "id label"
    gap = text[w_end:words[i + 1][0] if i + 1 < len(words) else value_start]
    # a header word names a person before a colon only, a closing word before a comma
    if word in cues.before or word in cues.before_colon and ":" in gap or word in cues.closings and "," in gap:
        return "name label"
    return None


def _labels(words: str, value: str, label: str) -> bool:
    """A labelled pattern of `label` reads `value` written after `words` as its value: the words end in a label."""
    probe = words + value
    for pattern in identifier_patterns():
        if pattern.label == label and "phi" in pattern.regex.groupindex:
            if any(start == len(words) for start, _, _ in pattern.regions(probe)):
                return True
    return False


@cache
def _date() -> Any:
    return re2.compile(r"(?i)(?:" + fragment("date") + r")$")


def leaks(corpus: Iterable[dict[str, Any]]) -> list[Leak]:
    """The structure of every value of the items that survives redaction of its item's text."""
    out = []
    for item in corpus:
        text = item["text"]
        redaction = Redaction.of(text)
        shown = redaction.text
        for p in item["phi"]:
            value = p["value"]
            if value not in shown:
                continue
            start = _surviving(text, value, redaction.regions)
            out.append(Leak(p["category"], shape(value), script(value), where(text, start),
                            word_before(text, start, redaction.regions), label_earlier(text, start),
                            label_after(text, start + len(value))))
    return out


def _surviving(text: str, value: str, regions: Sequence[Region]) -> int:
    """The first occurrence of the value that no region touches (the first occurrence if each is touched)."""
    start = text.find(value)
    first = start
    while start >= 0:
        end = start + len(value)
        if not any(r_start < end and start < r_end for r_start, r_end, _ in regions):
            return start
        start = text.find(value, start + 1)
    return first


def table(found: Sequence[Leak]) -> str:
    """The leaks counted per structural category, most frequent first, then in order."""
    counts = Counter(found)
    rows = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    header = ("n", "category", "shape", "script", "where", "word before", "label before", "label after")
    lines = [header, *((str(n), *leak) for leak, n in rows)]
    widths = [max(len(row[i]) for row in lines) for i in range(len(header))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in lines)


def load_half(phi: Path, half: str) -> list[dict[str, Any]]:
    """A half of the PHI corpus in memory: dev built by make_phi.py, dev2/dev3 read, the holdout unpacked
    in memory only (never written)."""
    if half == "dev":
        spec = importlib.util.spec_from_file_location("make_phi", phi / "make_phi.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return list(module.build(0))
    if half == "holdout":
        data: list[dict[str, Any]] = json.loads(packed.read_text(phi / "holdout.json.gz.b64"))
        return data
    loaded: list[dict[str, Any]] = json.loads((phi / f"{half}.json").read_text(encoding="utf-8"))
    return loaded


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m clauseguard.privacy.leak_categories",
                                     description="PHI leaks per structural category, never a value.")
    parser.add_argument("--phi", type=Path, default=Path("evals/phi"), help="the PHI corpus folder")
    parser.add_argument("--half", nargs="+", choices=HALVES, default=["dev2", "dev3", "holdout"])
    args = parser.parse_args(argv)
    for half in args.half:
        found = leaks(load_half(args.phi, half))
        print(f"PHI {half}: {len(found)} leaked values")
        if found:
            print(table(found))
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
