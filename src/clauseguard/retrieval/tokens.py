"""Words, article numbers and codes as retrieval sees them: one tokenizer for clauses and questions.

It owns normalisation (case, a light suffix stemmer, stop words) and the exact-match patterns; it
never looks at a corpus, so the same text always gives the same tokens whatever else is indexed.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import Final

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

_WORD = re.compile(r"[a-z0-9]+(?:\.[a-z0-9]+)*")
_DOUBLE = re.compile(r"([b-df-hj-km-np-rtv-y])\1$")  # doubled consonant except l, s, z


def normalise(text: str) -> str:
    """NFKC, lower case, curly quotes straightened: what every matcher compares."""
    text = unicodedata.normalize("NFKC", text).casefold()
    return text.replace("\u2019", "'").replace("\u2018", "'")


@lru_cache(maxsize=1 << 18)  # a corpus has far fewer distinct words than tokens
def stem(word: str) -> str:
    """A small, fixed suffix stripper: plurals and -ing/-ed/-ment/-ation forms meet one stem.

    Deliberately conservative (a stem keeps at least three letters) and pure, so a corpus and a
    question always stem alike; it is not a linguistic stemmer and never needs to be.
    """
    if len(word) <= 3 or not word.isalpha():
        return word
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith(("sses", "xes", "ches", "shes")):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    for _ in range(2):  # "documentation" -> "document" -> "docu", like "documents"
        for suffix in ("ations", "ation", "ments", "ment", "ings", "ing", "edly", "ed"):
            if word.endswith(suffix) and len(word) - len(suffix) >= 3:
                word = word[: -len(suffix)]
                if suffix in ("ing", "ings", "ed", "edly") and _DOUBLE.search(word):
                    word = word[:-1]
                break
        else:
            break
    if word.endswith("e") and len(word) > 4:
        word = word[:-1]  # "reimburse" meets "reimbursed", "require" meets "required"
    return word


def words(text: str) -> list[str]:
    """The raw word tokens of a text (lower case; dotted numbers and codes kept whole)."""
    return _WORD.findall(normalise(text))


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
