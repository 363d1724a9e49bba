"""A figure the note qualifies is not the figure alone: "fewer than 4 a day", "nearly 3 months", "two to four
times a day", "up to three injections", "4x/day on weekdays", "more than 90 days ago".

Read bare, each of these met a minimum it does not meet (a blind hunt, 2026-12-07: 20 comparison words, 15
ranges and upper bounds, 3 part-time frequencies, all answered with gate DETERMINE). A measure keeps the
bound the words give ("fewer than 4" is < 4, which the evaluator compares as an interval); any other
qualified figure (a range, an approximation, a count that holds only some days, a qualified length of a
course or age) is no figure at all: the fact stays, its value unknown, and a requirement on it is a missing
fact. The words are data (`data/facts/values.yaml` `value_bounds`, `value_approximations`, `value_ranges`,
`part_time`).
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any, Final

from clauseguard.reading.facts.note import Note
from clauseguard.reading.facts.sheet import AgeFact, ConditionFact, MeasureFact, ServiceFact, TherapyFact

LOOK_BACK: Final = 32  # characters before a figure searched for a bound or an approximation word
LOOK_ON: Final = 28  # characters after it searched for the other end of a range


class _Words:
    def __init__(self, note: Note) -> None:
        r = note.rules
        alt = _alternation
        self.bounds = [(op, re.compile(rf"(?:^|(?<=[\s(,:;]))(?:{alt(words)})\s*$", re.I))
                       for op, words in r.values("value_bounds").items()]
        self.after_bounds = [(op, re.compile(rf"^\s*(?:{alt(words)})(?![\w])", re.I))
                             for op, words in r.values("value_bounds_after").items()]
        self.approx = re.compile(rf"(?:^|(?<=[\s(,:;]))(?:{alt(r.values('value_approximations'))})\s*$", re.I)
        number = note.tables.number_re
        self.range_after = re.compile(rf"^\s*(?:{alt(r.values('value_ranges'))})\s*(?:{number})(?![\w])(?!\s*[-/.]\s*\d)", re.I)
        self.range_before = re.compile(rf"(?:(?:^|(?<=\s))between(?:\s+(?:{number})\s+and)?|(?<![\w./-])(?:{number})\s*"
                                       rf"(?:{alt(r.values('value_ranges'))}))\s*$", re.I)
        self.time = re.compile(rf"(?<![\w.])(?:{number})\s*-?\s*(?:{note.tables.time_re}|d|wk|wks|mo|mos|yr|yrs)(?![a-z])", re.I)
        self.part_time = re.compile(rf"(?<![\w])(?:{alt(r.values('part_time'))})(?![\w])", re.I)
        self.number = re.compile(rf"(?<![\w.])(?:{number})(?![0-9a-wyz])", re.I)  # "4x/day" is a figure


def _alternation(words: Any) -> str:
    return "|".join(r"\s*".join(map(re.escape, str(w).split())) for w in sorted(map(str, words), key=len, reverse=True))


def qualified(note: Note, facts: list[Any]) -> list[Any]:
    """The facts with the figures the note qualifies bounded or made unknown (see the module)."""
    words = note.rules_derived("facts.qualified", _Words)
    out = [_qualify(note, words, f) for f in facts]
    # a range beside an exact value of the same measure ("BMI 40.0-44.9" in a code's words, and the BMI the
    # height and weight give) leaves the exact one to speak
    exact = {f.quantity for f in out if isinstance(f, MeasureFact) and f.value is not None}
    return [f for f, was in zip(out, facts, strict=True) if not (
        isinstance(f, MeasureFact) and f.value is None and was.value is not None and f.quantity in exact)]


def _qualify(note: Note, w: _Words, fact: Any) -> Any:
    span = fact.span
    if getattr(fact, "source", "narrative") != "narrative" or span is None:
        return fact
    if isinstance(fact, (MeasureFact, AgeFact)) and fact.value is not None and fact.comparator == "==":
        how = _how(note, w, span.start, span.end, fact.value)
        if how is None:
            return fact
        if how.startswith(">=") and len(how) > 2:  # a range ("two to four", "aged 44 to 48"): at least its lower end
            return dataclasses.replace(fact, comparator=">=", value=float(how[2:]))
        if how in ("<", "<=", ">", ">="):
            return dataclasses.replace(fact, comparator=how)
        if isinstance(fact, AgeFact):
            return dataclasses.replace(fact, conflicting=True)  # "about 45": no one age (decides nothing)
        return dataclasses.replace(fact, value=None, status="unknown")
    if isinstance(fact, TherapyFact) and fact.rate is not None and _how(note, w, span.start, span.end, None):
        fact = dataclasses.replace(fact, rate=None)
    if isinstance(fact, TherapyFact) and fact.duration_days is not None and _qualified_time(note, w, span.start):
        return dataclasses.replace(fact, duration_days=None, duration_min_days=None)
    if isinstance(fact, ConditionFact) and (fact.duration_days is not None or fact.ago_days is not None) and \
            _qualified_time(note, w, (fact.duration_span or span).start):
        return dataclasses.replace(fact, duration_days=None, ago_days=None)
    if isinstance(fact, ServiceFact) and fact.ago_days is not None and _how(note, w, span.start, span.end, None):
        return dataclasses.replace(fact, ago_days=None, ago_least=None)
    return fact


def _qualified_time(note: Note, w: _Words, at: int) -> bool:
    """A length or a time ago in the sentence at `at` that the note qualifies ("fewer than 30 days of wound
    care", "methotrexate for nearly 3 months", "last reviewed more than 90 days ago"): the fact's span names
    the therapy or the finding, its length is written elsewhere in the sentence."""
    a, b = next(((a, b) for a, b in note.sentences if a <= at < b), (0, len(note.clean)))
    return any(_how(note, w, m.start(), m.end(), None) is not None for m in w.time.finditer(note.clean, a, b))


def _how(note: Note, w: _Words, start: int, end: int, value: float | None) -> str | None:
    """The bound ("<", "<=", ">", ">="), "unknown" for a range, an approximation or a part-time count, or
    None when the figures in [start, end) stand bare."""
    text = note.clean
    sentence = next(((a, b) for a, b in note.sentences if a <= start < b), (0, len(text)))
    if w.part_time.search(text, sentence[0], sentence[1]):
        return "unknown"
    found = None
    for m in w.number.finditer(text, start, end):
        if value is not None and note.num_at(m.group()) not in (value, None):
            continue
        found = m
        break
    if found is None:
        return None
    before = text[max(sentence[0], found.start() - LOOK_BACK):found.start()]
    after = text[found.end():min(sentence[1], found.end() + LOOK_ON)]
    ranged = [m.group() for m in (w.range_after.match(after), w.range_before.search(before)) if m is not None]
    ends = [n.group() for text_part in ranged for n in w.number.finditer(text_part)]
    if ends or w.range_before.search(before):
        # "two to four", "40.0-44.9": at least the lower end, a true statement of the whole range
        figures = [v for v in (note.num_at(t) for t in [found.group(), *ends]) if v is not None]
        return f">={min(figures)}" if len(figures) >= 2 else "unknown"
    if w.approx.search(before):
        return "unknown"
    for op, pattern in w.bounds:
        if pattern.search(before):
            return op
    for op, pattern in w.after_bounds:
        if pattern.match(re.sub(r"^\s*(?:[a-z]+\s+){0,3}?(?=or\b)", " ", after, flags=re.I)):
            return op
    return None
