"""Words, article numbers and codes as retrieval sees them: one tokenizer for clauses and questions.

Words, stems and stop words come from the one text toolkit (`clauseguard.text`: Snowball stems via
PyStemmer); this module owns only the exact-match patterns (article numbers, code shapes). It never
looks at a corpus, so the same text always gives the same tokens whatever else is indexed.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Final

from clauseguard import text as toolkit

STOP_WORDS: Final = toolkit.STOP_WORDS
normalise = toolkit.normalise
stem = toolkit.stem


def words(raw: str) -> list[str]:
    """The index words of a text (folded; hyphenated compounds split; dotted numbers and codes whole)."""
    return toolkit.terms(raw)


def tokens(text: str) -> list[str]:
    """The index tokens of a text: words minus stop words, stemmed, in order, repeats kept."""
    return [stem(w) for w in words(text) if w not in STOP_WORDS]


def content_terms(text: str) -> tuple[str, ...]:
    """The distinct index tokens of a question part, sorted: what term coverage is measured over."""
    return tuple(sorted(set(tokens(text))))


# --- exact matching ----------------------------------------------------------------------------

# "7.3", "article 7.3", "art. 12", "section 4", "§ 9.1": an article reference in a question.
_DOTTED_NUMBER = re.compile(r"(?<![\w.,])(\d{1,3}(?:\.\d{1,3})+)(?![\w%]|\.\d|,\d)")
_NAMED_NUMBER = re.compile(r"(?:\barticles?|\bart\.?|\bsections?|\bclauses?|§)\s*(\d{1,3}(?:\.\d{1,3})*)\b")
_LEADING_NUMBER = re.compile(r"^\s*(?:article|art\.?|section|§)?\s*(\d{1,3}(?:\.\d{1,3})*)\b", re.IGNORECASE)

# Procedure and diagnosis code shapes (CPT, HCPCS Level II, ICD-10-CM), as written in text.
_CODE = re.compile(r"(?<![\w.])(\d{5}|\d{4}[A-Z]|[A-Z]\d{4}|[A-Z]\d[A-Z0-9](?:\.[A-Z0-9]{1,4})?)(?![\w])")


def article_number(article: str | None) -> str | None:
    """The number an article heading starts with ("7.3 Dental, implantology" -> "7.3"), else None."""
    if not article:
        return None
    found = _LEADING_NUMBER.match(article)
    return found.group(1) if found else None


def article_references(question: str) -> tuple[str, ...]:
    """Article numbers a question names: dotted numbers anywhere, plain ones only after a word such as
    "article" or "section" (a bare "12" is more often a quantity than an article)."""
    text = normalise(question)
    found = set(_DOTTED_NUMBER.findall(text)) | set(_NAMED_NUMBER.findall(text))
    return tuple(sorted(found))


def code_references(text: str) -> tuple[str, ...]:
    """Strings with the shape of a CPT, HCPCS or ICD-10-CM code, upper-cased, sorted and distinct."""
    upper = unicodedata.normalize("NFKC", text).upper()
    return tuple(sorted(set(_CODE.findall(upper))))
