"""The case a stated value holds for, read from its own sentence: "only after / only when" restricts it to a
case, "unless / except when" takes a case out of it; and whether a question states that case. Cue words are
data (`data/search/cues.yaml`: restricts, excepts)."""

from __future__ import annotations

import re
from typing import Final

from clauseguard import text as toolkit
from clauseguard.reading.cues import exception_cue, restriction_cue, side_of_figure
from clauseguard.reading.passage import stems
from clauseguard.reading.stated import (
    Condition,
    Stated,
    circumstance_words,
    number_of,
    paying_terms,
    stated_values,
)


def only_case(v: Stated) -> Condition | None:
    """The case a value's own stretch restricts it to, when no condition pattern reads it: "three (3)
    vials every 12 weeks only after the prescriber documents an inadequate response" holds only then.
    A phrase that states the value itself ("payable only after a waiting period of twelve (12)
    months") restricts nothing: it is the answer."""
    m = restriction_cue(v.context)  # "only after", "only when", "solely if" (data/search/cues.yaml)
    if m is None:
        return None
    phrase = re.split(r"[,;]|\bwho\b|\bwhich\b", v.context[m.end():], maxsplit=1)[0].strip(" .")
    if not phrase or any(number_of(w) == v.number for w in toolkit.words(phrase)):
        return None
    return Condition("occasion", phrase, restrictive=True)


def except_case(v: Stated) -> Condition | None:
    """The case a value's sentence excepts after its figure ("... five (5) years after the previous purchase,
    unless the ENT specialist certifies a change in hearing"), up to the next clause of the sentence."""
    at = v.piece.find(v.context)
    after = v.piece[at + len(v.context):] if at >= 0 else ""
    digit = re.search(r"\d", v.context)
    return exception_in((v.context[digit.end():] if digit else "") + " " + after)


def exception_in(text: str) -> Condition | None:
    """The first "unless / except when <case>" of a text, the case up to the next clause of its sentence
    ("... is not medically necessary unless the titration portion lasted less than three (3) hours")."""
    m = exception_cue(text)
    if m is None:
        return None
    phrase = re.split(r"[,;]|\.(?!\d)|\bin which case\b", text[m.end():], maxsplit=1)[0].strip()
    return Condition("exception", f"{m.group(0)} {phrase}") if phrase else None


def states_case(condition: Condition, question: str) -> bool | None:
    """True when the question states at least half of the case's own words (numbers, units and the words
    for the member or for paying left out); None when it states less, which leaves the value pending."""
    drop = stems(" ".join(sorted(circumstance_words()))) | set(paying_terms())
    case = {w for w in stems(condition.text) - drop if not any(c.isdigit() for c in w) and w not in _UNIT_WORDS}
    if not case:
        return None
    return True if 2 * len(case & stems(question)) >= len(case) else None


def states_exception(condition: Condition, said: str, question: str) -> bool:
    """True when the question states the case a statement excepts: at least two, and a third, of the
    exception's own words (those the statement's own stretch `said` does not use, the member's and paying
    words left out). A lower bar than for a restriction: it only ever sends the answer to a person."""
    drop = stems(" ".join(sorted(circumstance_words()))) | set(paying_terms()) | stems(said)
    case = {w for w in stems(condition.text) - drop if not any(c.isdigit() for c in w)}
    shared = case & stems(question)
    return len(shared) >= 2 and 3 * len(shared) >= len(case) and _inside(condition.text, question) is not False


def _inside(case: str, question: str) -> bool | None:
    """For a case bounded by a figure ("lasted less than three (3) hours"): whether the question's own figure
    in that unit falls inside the bound (an equal figure counts as inside), None when nothing compares."""
    figures, digit = stated_values(case), re.search(r"\d", case)
    side = side_of_figure(case[:digit.start()]) if digit is not None else None
    if not figures or side is None:
        return None
    bound = figures[0]
    for q in stated_values(question):
        if not q.is_age and q.kind == bound.kind and q.unit == bound.unit:
            return q.number <= bound.number if side == "upper" else q.number >= bound.number
    return None


_UNIT_WORDS: Final = frozenset({"mg", "mcg", "ml", "g", "iu", "unit", "dose"})
