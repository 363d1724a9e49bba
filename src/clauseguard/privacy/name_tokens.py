"""The tokens the name finder reads: words and marks of a text, kept as offset arrays, and the script
of a word. Linear in the text (no object per token, no backtracking); it never decides what is a name.
"""

from __future__ import annotations

import re
from array import array
from functools import lru_cache
from typing import Final, NamedTuple, overload

import re2

# Words (letters with inner apostrophes or hyphens), and single punctuation marks. Python's `re`:
# each alternative starts on a different character class and no quantified group can match what the
# next one starts with, so the scan never backtracks (bench/redaction_scaling.py); it is several times
# faster per token than the RE2 binding, whose per-match cost dominated on long texts.
TOKEN: Final = re.compile(
    r"[^\W\d_][\w\u0300-\u036f]*(?:['’][^\W\d_][\w\u0300-\u036f]*|-[\w\u0300-\u036f]+)*|[0-9]+|[^\s\w]|_")
DIGIT: Final = re.compile(r"[0-9]")
# A word in a script other than Latin (Greek is left out: its letters name receptors and doses).
_OTHER_SCRIPT: Final = re2.compile(r"[^\p{Latin}\p{Greek}\p{Common}\p{Inherited}]")
_GREEK: Final = re2.compile(r"\p{Greek}")


@lru_cache(maxsize=4096)
def _other_script_char(ch: str) -> bool:
    return bool(_OTHER_SCRIPT.search(ch))


@lru_cache(maxsize=4096)
def _greek_char(ch: str) -> bool:
    return bool(_GREEK.search(ch))


def _has_other_script(text: str) -> bool:
    """A word in a script other than Latin; a Greek word too when it is a capitalised word of three
    letters or more ("Παπαδόπουλος"), not a letter naming a receptor or a unit ("β", "μg")."""
    if text.isascii():
        return False
    if any(_other_script_char(c) for c in text if not c.isascii()):
        return True
    return len(text) >= 3 and text[0].isupper() and all(_greek_char(c) for c in text if c.isalpha())


class Token(NamedTuple):
    start: int
    end: int
    text: str

    @property
    def is_word(self) -> bool:
        return self.text[0].isalpha()

    @property
    def capitalised(self) -> bool:
        """Title case (Smith, McCarthy, O'Brien) or all capitals of two letters or more (SMITH)."""
        first = self.text[0]
        return first.isupper() or (first.isalpha() and not first.isascii() and _other_script_char(first))

    @property
    def all_caps(self) -> bool:
        letters = [c for c in self.text if c.isalpha()]
        return len(letters) >= 2 and all(c.isupper() for c in letters)

    @property
    def initial(self) -> bool:
        return len(self.text) == 1 and self.text.isupper()

    @property
    def other_script(self) -> bool:
        return self.is_word and _has_other_script(self.text)

    @property
    def uncased(self) -> bool:
        """A word of a script with no capital letters (Han, kana, Hangul, Devanagari, Arabic, Hebrew,
        Thai): capitalisation cannot tell its names from its other words."""
        first = self.text[0]
        return self.other_script and not first.isupper() and not first.islower()


class Tokens:
    """The tokens of one text, kept as two arrays of offsets; a `Token` is made when one is read.
    A long text holds no object per token, so its cost stays linear (no garbage-collector passes
    over hundreds of thousands of live tuples)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = array("l")
        self.ends = array("l")
        for m in TOKEN.finditer(text):
            start, end = m.span()
            self.starts.append(start)
            self.ends.append(end)

    def __len__(self) -> int:
        return len(self.starts)

    @overload
    def __getitem__(self, index: int) -> Token: ...

    @overload
    def __getitem__(self, index: slice) -> list[Token]: ...

    def __getitem__(self, index: int | slice) -> Token | list[Token]:
        if isinstance(index, slice):
            return [self[k] for k in range(*index.indices(len(self)))]
        start, end = self.starts[index], self.ends[index]
        return Token(start, end, self.text[start:end])


def tokens_of(text: str) -> list[Token]:
    return Tokens(text)[:]
