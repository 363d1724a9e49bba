"""Word tokens with their offsets, and the stop words no reader counts as evidence.

A token is a run of letters and digits, keeping decimals ("8.2"), dotted codes ("E10.9"),
apostrophes inside words ("crohn's") and hyphenated compounds ("non-insulin") whole.
"""

from __future__ import annotations

import re
from typing import Final, NamedTuple

from clauseguard.text.normalise import fold
from clauseguard.text.stem import stem

# Function words and question scaffolding: they carry no evidence about which clause answers.
STOP_WORDS: Final[frozenset[str]] = frozenset(
    """
    a about above after again all also am an and any are as at be been before being both but by
    can could did do does doing done during each either for from further had has have having he
    her here hers him his how i if in into is it its itself just me might more most my no nor not
    of off on once only or other our ours out over own please same say says said shall she should
    so some such tell than that the their theirs them then there these they this those through to
    too under until up us very was we were what whats when where which while who whom why will
    with would you your yours
    """.split()
)

_TOKEN: Final = re.compile(r"[^\W_]+(?:[.'\-][^\W_]+)*")


class Token(NamedTuple):
    """One word: its folded text and where it sits in the original."""

    text: str
    start: int
    end: int


def tokenize(text: str) -> list[Token]:
    """Every word of `text`, folded, with offsets into `text` itself."""
    return [Token(m.group(0), m.start(), m.end()) for m in _TOKEN.finditer(fold(text))]


def words(text: str) -> list[str]:
    """The folded words of a text, in order. Strings only: a tuple per word is tracked by the garbage
    collector, whose passes over a long question's tuples cost more than the words (16x for 10x)."""
    return _TOKEN.findall(fold(text))


_TERM_SPLIT: Final = re.compile(r"[-']")


def terms(text: str) -> list[str]:
    """Index terms: the words of a text with hyphenated and apostrophe compounds split into their
    parts ("non-insulin" -> "non", "insulin"; "crohn's" -> "crohn", "s"), decimals and codes whole."""
    out: list[str] = []
    for w in words(text):
        out.extend(p for p in _TERM_SPLIT.split(w) if p)
    return out


def content_words(text: str) -> list[str]:
    """The stems of a text's words that are not stop words, in order (repeats kept)."""
    return [stem(w) for w in words(text) if w not in STOP_WORDS]
