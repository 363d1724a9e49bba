"""Dates in form rows whose label no birth cue knows: "Geburtsort-Datum ..... 14.03.1962",
"Natus:  03/14/1962", "<label><TAB>March 14, 1962". A row is a label of a few words at the start of a
line, then padding (a dot leader, a run of spaces, a tab, a colon), then its value, which ends the
line or the cell. A value that is a calendar date is a date of birth unless the label names another
event (a visit, an admission, a test, a signature: `form_row_events` in data/privacy/patterns.yaml).

Linear: one RE2 scan of the text for rows, one full match per value, set look-ups over each label's
few words. It finds regions only; it never decides how they are shown, and no code here names a word.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from functools import cache
from typing import Any, Final

import re2

from clauseguard.privacy.patterns import Region, fragment, patterns_data

# A row: a label (a letter, then at most 80 characters up to the padding), padding, a value that ends
# the line or its cell. The label's shape (a few words of letters, digits and the marks labels use) is
# checked after the match: a short class repeated keeps the compiled pattern small.
_PAD: Final = r"[ \t]*\.[ \t]?\.[. \t]{0,80}:?[ \t]*|[ \t]*…[… \t]{0,20}:?[ \t]*|[ \t]*:[ \t]*|\t[ \t]*| {2,}[ \t]*"
_VALUE_END: Final = r"[ \t]*[.,;]?(?:[ \t\r]*$|\t| {2,}|[ \t]*\.{2,}|[ \t]*…)"
_OPTIONS: Final = re2.Options()
_OPTIONS.max_mem = 64 << 20  # as patterns.py: past the DFA budget RE2 runs its NFA, still linear
_ROW: Final = re2.compile(r"(?m)^[ \t]{0,40}(?:[-*•·>▪◦][ \t]{1,4})?(?P<label>\p{L}[^\t\r\n:]{0,80}?)(?:" + _PAD + r")"
                          r"(?P<value>[^\t\r\n]{1,60}?)" + _VALUE_END, _OPTIONS)
# "D.O.S.", "Pt's", "F/U", "Date (dd/mm/yyyy)", "Geburtsort-Tag": no comma, no sentence in it
_LABEL_SHAPE: Final = re2.compile(r"[\p{L}\p{M}\p{N}'/&#()+. -]+", _OPTIONS)
MAX_LABEL_WORDS: Final = 6


@cache
def _date_value() -> Any:
    # a calendar date, optionally after its weekday and a comma ("Tuesday, 4 March 1962")
    return re2.compile(r"(?i)(?:\p{L}{2,12}\.?,\s{0,3})?(?:" + fragment("date") + r")", _OPTIONS)


def _words(text: str) -> tuple[str, ...]:
    """Lower-case words without accents or other combining marks ("Entrée" and "entree" read the same),
    split at anything not a letter or digit ("D.O.S." is "d o s", "F/U" is "f u")."""
    folded = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c)).casefold()
    return tuple("".join(c if c.isalnum() else " " for c in folded).split())


def _unspaced(word: str) -> bool:
    """Written in a script without spaces between words (Han, kana, Hangul): found anywhere in a label."""
    return any(0x1100 <= ord(c) <= 0x11FF or 0x3040 <= ord(c) <= 0x30FF or 0x3400 <= ord(c) <= 0x9FFF
               or 0xAC00 <= ord(c) <= 0xD7AF or 0xF900 <= ord(c) <= 0xFAFF for c in word)


@dataclass(frozen=True)
class _EventWords:
    phrases: frozenset[str]  # whole words or runs of words ("compte rendu")
    stems: frozenset[str]  # a word's beginning ("aufnahme" of "aufnahme*")
    unspaced: tuple[str, ...]  # Han, kana, Hangul: a run of characters anywhere
    labels: frozenset[str]  # whole labels ("date", "from")
    longest: int  # words in the longest phrase


@cache
def _event_words() -> _EventWords:
    data = patterns_data()
    entries = [str(w) for words in data["form_row_events"].values() for w in words]
    stems = {" ".join(_words(e)) for e in entries if e.endswith("*")}
    phrases = {" ".join(_words(e)) for e in entries if not e.endswith("*") and not _unspaced(e)}
    unspaced = sorted({" ".join(_words(e)) for e in entries if _unspaced(e)})
    labels = {" ".join(_words(str(w))) for w in data["form_row_event_labels"]}
    return _EventWords(frozenset(phrases), frozenset(stems), tuple(unspaced), frozenset(labels),
                       max(len(p.split()) for p in phrases))


def names_an_event(label: str) -> bool:
    """The label names an event other than the person's birth (a visit, a test, the form's own date):
    set look-ups over its few words, so a page of form rows costs what its length says."""
    events, words = _event_words(), _words(label)
    joined = " ".join(words)
    if joined in events.labels or any(u in joined for u in events.unspaced):
        return True
    for i, word in enumerate(words):
        if any(word[:k] in events.stems for k in range(1, len(word) + 1)):
            return True
        if any(" ".join(words[i:i + n]) in events.phrases for n in range(1, events.longest + 1)):
            return True
    return False


def _plausible(value: str) -> bool:
    """A bare eight-digit run is a date only as YYYYMMDD, DDMMYYYY or MMDDYYYY with a 19xx/20xx year."""
    if not (len(value) == 8 and value.isdigit()):
        return True
    year_first = value[:2] in ("19", "20") and 1 <= int(value[4:6]) <= 12 and 1 <= int(value[6:]) <= 31
    year_last = value[4:6] in ("19", "20") and (1 <= int(value[:2]) <= 31 and 1 <= int(value[2:4]) <= 12
                                              or 1 <= int(value[:2]) <= 12 and 1 <= int(value[2:4]) <= 31)
    return year_first or year_last


def form_row_dates(text: str) -> list[Region]:
    """DOB regions for the dates that fill a form row's value, unless the row's label names an event."""
    out: list[Region] = []
    for m in _ROW.finditer(text):
        start, end = m.span(_ROW.groupindex["value"])
        value = text[start:end]
        start += len(value) - len(value.lstrip())
        value = value.strip()
        if not value or not _date_value().fullmatch(value) or not _plausible(value):
            continue
        label = m.group(_ROW.groupindex["label"]).strip()
        if len(label.split()) > MAX_LABEL_WORDS or not _LABEL_SHAPE.fullmatch(label) or names_an_event(label):
            continue
        out.append((start, start + len(value), "DOB"))
    return out
