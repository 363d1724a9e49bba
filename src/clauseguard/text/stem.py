"""Stems: the Snowball English stemmer (PyStemmer), one instance per process, memoised.

Retrieval indexes stems, the compiler and the fact reader compare stems, so "injections" meets
"injection" and "documented" meets "documentation" the same way everywhere.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

import Stemmer  # PyStemmer

_STEMMER = Stemmer.Stemmer("english")


@lru_cache(maxsize=1 << 18)  # a corpus has far fewer distinct words than tokens
def stem(word: str) -> str:
    """The Snowball stem of one lower-case word (numbers and codes come back unchanged)."""
    if not word.isalpha():
        return word
    return str(_STEMMER.stemWord(word))


def stems(words: Iterable[str]) -> list[str]:
    return [stem(w) for w in words]
