"""Later mentions of a person named once: every other whole-word occurrence of a word of a found name.
Linear: one RE2 alternation over the text (names.py finds the names; this module finds them again).
"""

from __future__ import annotations

from typing import Final

import re2

from clauseguard.privacy.name_tokens import TOKEN
from clauseguard.privacy.names import _Reader, _stem
from clauseguard.privacy.tables import fold, tables
from clauseguard.text import STOP_WORDS

MAX_MENTIONED: Final = 2_000  # distinct name words looked for again in one text


def later_mentions(text: str, names: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Every other whole-word occurrence of a word of a name found in `text`, as written or in
    capitals ("Mrs Wang Fang ... Wang understands", "HARDY ... Hardy"): a person named once is the
    same person when the word recurs alone. Not where the word is clinical by its context
    ("Dr Parkinson ... Parkinson's disease"). Linear: one RE2 alternation over the text."""
    t = tables()
    words: set[str] = set()
    for start, end in names:
        for m in TOKEN.finditer(text[start:end]):
            word = _stem(m.group())
            if len(word) < 2 or not word[0].isalpha() or word.isupper() and len(word) <= 2:
                continue
            if fold(word) in t.cues.before or fold(word) in STOP_WORDS or fold(word) in t.cues.particles:
                continue
            if word.islower() and len(word) < 3:
                continue
            # a name written in lower case ("pt john mwangi") recurs in lower case too ("mwangi ok w plan")
            words.update({word, word.upper(), word[0].upper() + word[1:].lower()})
    if not words or len(words) > MAX_MENTIONED:
        return []
    pattern = re2.compile("|".join(re2.escape(w) for w in sorted(words, key=lambda w: (-len(w), w))))
    reader: _Reader | None = None
    out: list[tuple[int, int]] = []
    for m in pattern.finditer(text):
        start, end = m.start(), m.end()
        if start > 0 and (text[start - 1].isalnum() or text[start - 1] in "-'’"):
            continue
        if end < len(text) and (text[end].isalnum() or (text[end] == "-" and text[end + 1:end + 2].isalpha())):
            continue
        reader = reader or _Reader(text, t)
        if reader.clinical_after(end):
            continue
        out.append((start, end))
    return out
