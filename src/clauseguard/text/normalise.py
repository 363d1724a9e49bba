"""Normal forms of text: the comparison key (`normalise`), and an offset-keeping fold (`fold`).

`normalise` may change a text's length (NFKC, collapsed whitespace): use it for keys and lookups.
`fold` keeps every character at its offset (one character in, one out), so spans found in the folded
text are spans of the original: use it wherever a match must quote the source verbatim.
"""

from __future__ import annotations

import unicodedata
from typing import Final

# One apostrophe, one quote, one dash, one space: typographic variants compared as their plain form.
_CHAR_MAP: Final[dict[int, str]] = {
    ord(k): v for k, v in {
        "\u2018": "'", "\u2019": "'", "\u02bc": "'", "\u2032": "'",
        "\u201c": '"', "\u201d": '"', "\u00ab": '"', "\u00bb": '"',
        "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u2212": "-",
        "\u00a0": " ", "\u2009": " ", "\u202f": " ", "\u2007": " ", "\t": " ",
        "\u2265": "\u2265", "\u2264": "\u2264",
    }.items()
}
_ZERO_WIDTH: Final = frozenset("\u200b\u200c\u200d\u2060\ufeff\u00ad")


def _fold_char(c: str) -> str:
    mapped = _CHAR_MAP.get(ord(c))
    if mapped is not None:
        return mapped
    if c in _ZERO_WIDTH:
        return " "
    low = c.lower()
    return low if len(low) == 1 else c


_FOLD_TABLE: Final[dict[int, str]] = {**_CHAR_MAP, **{ord(c): " " for c in _ZERO_WIDTH}}


def fold(text: str) -> str:
    """Lower case with one kind of apostrophe, quote, dash and space, character for character
    (`len(fold(t)) == len(t)`, and a span of the folded text is the same span of `t`)."""
    mapped = text.translate(_FOLD_TABLE)
    low = mapped.lower()
    # Whole-string lower() is the per-character fold unless a letter lowers to two characters
    # (the length changes) or a capital sigma lowers by its context: then character by character.
    if len(low) == len(text) and "Σ" not in mapped:
        return low
    return "".join(_fold_char(c) for c in text)


def squash(text: str) -> str:
    """Whitespace runs as single spaces, ends trimmed (what a verbatim check compares)."""
    return " ".join(text.split())


def normalise(text: str) -> str:
    """The comparison key: NFKC, folded, whitespace squashed."""
    return squash(fold(unicodedata.normalize("NFKC", text)))
