"""Measured values of the quantities the lexicon names: "A1c 8.6%", "two fingerstick tests per day",
"BG checks QID", "BMI 41 kg/m2", and BMI derived from a stated height and weight.

It owns tying a number (and its unit and period) to the quantity it measures; a second value for the
same quantity in the sentence, or a value marked as past, leaves it unknown. It never converts a
count of items with pint.
"""

from __future__ import annotations

import re
from typing import Any, Final

from clauseguard.corpus.criteria import Period
from clauseguard.reading.facts.mentions import Mention
from clauseguard.reading.facts.note import NUMBER_TOKEN, C, Note
from clauseguard.reading.facts.sheet import GapFact, MeasureFact
from clauseguard.reading.facts.values import bmi_fact, body_measures, notation, rate_in
from clauseguard.reading.lexicon import normalise

_LEAD: Final = (r"^\s*(?:(?:level|value|result|reading|remains|remained|now|today|currently|measured|of\s+about|about|"
                r"approximately|around|~)\s+)*(?:of\s+|is\s+|was\s+|at\s+|=\s*|:\s*|-\s*)?")


def measure_facts(note: Note, mentions: list[Mention]) -> tuple[list[MeasureFact], list[GapFact]]:
    out: list[MeasureFact] = []
    gaps: list[GapFact] = []
    T = note.tables
    N = note.number_re
    count_words = {**T.words, "single": 1.0, "a single": 1.0}
    concepts = [m for m in mentions if m.kind in ("condition", "therapy", "service")]
    for q in (m for m in mentions if m.kind == "quantity"):
        qdef = note.lexicon.quantities[q.name]
        if q.assertion == "not_documented":
            gaps.append(GapFact("quantity", q.name, note.span(q.start, q.end)))
            continue
        if q.assertion == "family":
            continue
        if q.assertion == "negated":
            out.append(MeasureFact(q.name, "absent", note.span(q.start, q.end), assertion="negated"))
            continue
        hedged = q.assertion in ("possible", "planned")
        left, right = note.clause_bounds(q.start, stop_words=False)
        after = note.clean[q.end:right]
        before = note.clean[left:q.start]
        value: float | None = None
        comparator = "=="
        unit = ""
        span_start, span_end = q.start, q.end
        am = re.match(rf"{_LEAD}(?P<n>\d+(?:\.\d+)?)\s*(?P<u>{T.unit_alt})?(?![\w])", after, re.I)
        bm = _count_before(before, left, N, T.unit_alt, concepts)
        aside = None
        if qdef.per is not None and not am and not bm:
            # "multiple daily insulin injections, four a day" / "(three to five a day": a rate in an aside
            _, s_end = note.sentence_of(q.start)
            aside = re.match(rf"^\s*[,(]\s*(?P<n>{N})(?:\s+to\s+(?P<hi>{N}))?\s+(?P<f>{T.freq_alt})(?![\w-])",
                             note.clean[q.end:s_end], re.I)
        if aside:
            value = note.num_at(aside.group("n"))
            comparator = ">=" if aside.group("hi") else "=="
            span_end = q.end + aside.end()
            per_aside = Period(1.0, T.freq[normalise(aside.group("f"))])  # type: ignore[arg-type]
            if value is not None and not _another_value(note, q, span_start, span_end, concepts):
                out.append(MeasureFact(q.name, "unknown" if hedged else "present", note.span(span_start, span_end),
                                       value, comparator, qdef.unit, per_aside, assertion=_assertion(q)))
            continue
        if am:
            value = float(am.group("n"))
            unit = T.units.get(normalise(am.group("u") or ""), "") if am.group("u") else ""
            if not am.group("u") and (other := _OTHER_UNIT.match(after, am.end())):
                unit = normalise(other.group("u"))  # "HbA1c 53 mmol/mol": a unit the threshold's is not (never percent)
            span_end = q.end + am.end()
        elif bm:
            raw = normalise(bm.group("n"))
            value = count_words.get(raw) if not NUMBER_TOKEN.fullmatch(raw) else float(raw)
            if value is None:
                value = note.num_at(raw)
            comparator = ">=" if bm.group("more") else "=="
            unit = T.units.get(normalise(bm.group("u") or ""), "") if bm.group("u") else ""
            span_start = left + bm.start()
        value_at = q.end + am.start("n") if am else left + bm.start("n") if bm else None
        per = None
        if qdef.per is not None:
            # a rate of a counted quantity: "checks BG QID", "fingersticks 4x/day", "tests four times every day"
            # the rate written with this quantity: after it up to the next thing named, else right before it;
            # never one that belongs to another item of the clause ("insulin BID and fingersticks QID")
            names = tuple((c.start, c.end) for c in concepts if c.start < right and left < c.end)
            others = [c.start for c in mentions if c is not q and c.kind in ("therapy", "quantity", "service")
                      and q.end <= c.start < right]
            rate = rate_in(note, q.end, min([right, *others]), inside=((q.start, q.end), *names))
            if rate is None:
                before_start = max([left, *(c.end for c in mentions if c is not q and c.end <= q.start
                                            and c.kind in ("therapy", "quantity", "service"))])
                rate = rate_in(note, max(before_start, q.start - 16), q.start, inside=names)
            if rate is not None:
                found, r_start, r_end = rate
                if value_at is None or r_start <= value_at < r_end:
                    value, comparator = found.count, "=="
                    per = Period(found.per.length, found.per.unit)
                    span_start, span_end = min(span_start, r_start), max(span_end, r_end)
        if value is None:
            continue
        if per is None and bm and qdef.per is not None:
            # "4 injections/day", "3 fingersticks a day": the count before the name, its period right after it
            nt = notation(note)
            pm = nt.period_after_re.match(after)
            if pm:
                per = Period(1.0, nt.period_words[normalise(pm.group("p"))])  # type: ignore[arg-type]
                span_end = q.end + pm.end()
        also = _other_values(note, q, span_start, span_end, concepts, value)
        if also is not None and not also:
            out.append(MeasureFact(q.name, "unknown", note.span(span_start, span_end), value, comparator,
                                   unit or qdef.unit, assertion=_assertion(q)))
            continue
        unit = unit or qdef.unit
        if per is None and (qdef.per is not None or re.search(rf"(?<![\w-])(?:{T.freq_alt})(?![\w-])", before + " " + after, re.I)):
            # after the name, before it, or inside it ("one daily injection", "2 daily insulin injections")
            fm = re.search(rf"(?<![\w-])(?P<f>{T.freq_alt})(?![\w-])", after, re.I) or \
                re.search(rf"(?<![\w-])(?P<f>{T.freq_alt})(?![\w-])", before, re.I) or \
                (re.search(rf"(?<![\w-])(?P<f>{T.freq_alt})(?![\w-])", note.clean[q.start:q.end], re.I) if bm else None)
            if fm:
                per = Period(1.0, T.freq[normalise(fm.group("f"))])  # type: ignore[arg-type]
                if fm.string is after:
                    span_end = max(span_end, q.end + fm.end())
            elif qdef.per is not None:
                continue  # a count of something without its period is no measure
        status = "unknown" if hedged else "present"
        # a second value in the sentence ("HbA1c 8.9% (10/2023), 8.7% (01/2024)"): which is current is not
        # read, so each is kept marked conflicting and only an outcome every one of them gives decides
        for v, a, b in ((value, span_start, span_end), *(also or ())):
            out.append(MeasureFact(q.name, status, note.span(a, b), v, comparator, unit, per,  # type: ignore[arg-type]
                                   assertion=_assertion(q), conflicting=bool(also)))
    for name, (_value, start, end, written, unit) in body_measures(note).items():
        if written is not None and not any(f.quantity == name for f in out):
            out.append(MeasureFact(name, "present", note.span(start, end), written, "==", unit))
    bmi = bmi_fact(note)
    if bmi is not None and not any(f.quantity == "body mass index" and f.value is not None for f in out):
        out.append(bmi)
    return out, gaps


# a unit written as a ratio right after a figure ("mmol/mol", "mg/dL", "mmol/L"): when the lexicon does not
# know it, the figure is in that unit, not the measure's usual one
_OTHER_UNIT: Final = re.compile(r"\s*(?P<u>[a-zµμ]+(?:/[a-z0-9]+)+)(?![\w/])", re.I)


def _count_before(before: str, left: int, N: str, units: str, concepts: list[Mention]) -> re.Match[str] | None:
    """The count written just before a quantity's name ("three insulin injections", "4 daily fingersticks"),
    a few words before it at most; never a number inside another thing's name ("type 2 diabetes takes
    three insulin injections", "Type 1 diabetes on multiple daily injections")."""
    pattern = re.compile(rf"(?<![\w-])(?P<n>(?:{N})(?:\s*\(\s*\d+(?:\.\d+)?\s*\))?|single|a\s+single)"
                         rf"(?:\s+(?P<more>or\s+more|or\s+greater))?\s*(?P<u>{units})?"
                         rf"\s+(?:(?:of|daily|self-monitored|[a-z\-]+)\s+){{0,3}}$", re.I)
    pos = 0
    while (m := pattern.search(before, pos)) is not None:
        if not any(c.start <= left + m.start("n") < c.end for c in concepts):
            return m
        pos = m.end("n")
    return None


def _assertion(q: Mention) -> Any:
    """The mention's status as a measure fact records it (a Literal of MeasureFact.assertion)."""
    return q.assertion if q.assertion in ("possible", "planned", "historical") else "affirmed"


def _another_value(note: Note, q: Mention, start: int, end: int, concepts: list[Mention],
                   value: float | None = None) -> bool:
    return _other_values(note, q, start, end, concepts, value) is not None


def _other_values(note: Note, q: Mention, start: int, end: int, concepts: list[Mention],
                  value: float | None = None) -> list[tuple[float, int, int]] | None:
    """The other values for the same quantity in the sentence ("7.4% three months ago and 8.3% now",
    "four per day last year, now two per day") with where each is written: which one is current is not
    read. None: there are none; empty: the value is marked as past, or another number cannot be read."""
    s_start, s_end = note.sentence_of(q.start)
    nxt = [x for x in note.lexicon.find_quantities(note.clean[q.end:s_end]) if x.name != q.name]
    stop = q.end + nxt[0].start if nxt else s_end
    rest = note.clean[end:stop]
    time = note.time_re
    named = [(c.start, c.end) for c in concepts]
    found: list[tuple[float | None, int, int]] = []
    dates = [(d.start(), d.end()) for d in notation(note).date_re.finditer(rest)]
    for num in re.finditer(rf"(?<![\w./-])(?P<n>\d+(?:\.\d+)?|{note.number_re})(?![\w/-])(?!\.\d)(?!\s*(?:{time})\b)", rest, re.I):
        if re.match(r"\s*\(", rest[num.end():]) or re.match(r"\s*[/-]\s*\d", rest[num.end():]):
            continue
        if re.search(r"\d\s*[/-]\s*$", rest[:num.start()]) or any(a <= num.start() < b for a, b in dates):
            continue  # a date ("(03/2024)", "since July 2023") is no second value
        if any(a <= end + num.start() < b for a, b in named):
            continue  # the "2" of "type 2 diabetes" is no second value
        if value is not None and note.num_at(num.group("n")) == value:
            continue  # the same value said again ("QID ... confirms 4 checks every day")
        found.append((note.num_at(num.group("n")), end + num.start(), end + num.end()))
    if found:
        values = [(v, a, b) for v, a, b in found if v is not None]
        return values if len(values) == len(found) else []
    past = note.lexicon.pattern(note.lexicon.phrases(C, "past_value"), "cue-past")
    window = note.clean[max(s_start, start - 12):start] + " " + note.clean[end:min(stop, end + 20)]
    return [] if past.search(window) is not None else None
