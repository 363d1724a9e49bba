"""Per-day counts a regimen states dose by dose: "glargine 24 units once at bedtime, no mealtime insulin"
is one insulin injection a day (the lexicon's `counted_from` names the class of therapy a quantity counts).

It owns adding up the rates of the therapies a note lists. It never counts a regimen the note leaves
open: unless the note closes it (another therapy of the class denied, or the regimen said to be the
only one), the sum is only a lower bound; a listed therapy without a rate leaves the count unread (a class
named again without a drug, "on basal insulin only", restates a rated drug of that class).
"""

from __future__ import annotations

import re

from clauseguard.corpus.criteria import Period
from clauseguard.reading.facts.note import C, Note
from clauseguard.reading.facts.sheet import Fact, MeasureFact, TherapyFact
from clauseguard.reading.facts.values import duration_in
from clauseguard.reading.lexicon import QuantityDef

_PAST = ("completed", "stopped")


def regimen_counts(note: Note, facts: list[Fact]) -> list[MeasureFact]:
    """One derived MeasureFact per counted quantity the note does not state itself."""
    lex = note.lexicon
    stated = {f.quantity for f in facts if isinstance(f, MeasureFact)}
    therapies = [f for f in facts if isinstance(f, TherapyFact) and f.source == "narrative" and f.span is not None]
    out: list[MeasureFact] = []
    for q in sorted(lex.quantities.values(), key=lambda q: q.name):
        if q.counted_from is None or q.name in stated or q.per is None:
            continue
        fact = _count(note, q, therapies)
        if fact is not None:
            out.append(fact)
    return out


def _count(note: Note, q: QuantityDef, therapies: list[TherapyFact]) -> MeasureFact | None:
    lex = note.lexicon
    assert q.counted_from is not None
    of_class = [f for f in therapies if f.known and lex.is_a(f.therapy, q.counted_from)]
    taken = [f for f in of_class if f.status == "present" and f.course not in _PAST]
    if not taken or any(f.status == "unknown" for f in of_class):
        return None
    if any(lex.is_a(f.therapy, n) for f in taken for n in q.not_counted):
        return None  # part of the regimen is given another way: no count of its doses
    rated = [f for f in taken if f.rate is not None]
    # "Tresiba 24 u once daily ... A: on basal insulin only": a class named without a drug and without a rate,
    # where a rated drug of that class is listed, is the same therapy said again, not another one
    taken = [f for f in taken if f.rate is not None or f.drug is not None
             or not any(r.therapy == f.therapy or lex.is_a(r.therapy, f.therapy) for r in rated)]
    daily: list[float] = []
    for f in taken:
        if f.rate is None or f.rate.per.unit != "day" or f.rate.per.length <= 0:
            return None  # a therapy of the regimen with no rate a day: the count is not stated
        daily.append(f.rate.count / f.rate.per.length)
    denied = [f for f in of_class if f.status == "absent"]
    closed = bool(denied) or any(_said_only(note, f) for f in of_class if f.status == "present" and f.course not in _PAST)
    spans = [f.span for f in taken + denied if f.span is not None]
    start, end = min(s.start for s in spans), max(s.end for s in spans)
    return MeasureFact(q.name, "present", note.span(start, end), sum(daily), "==" if closed else ">=", q.unit,
                       Period(1.0, "day"), derived=True)


def regimens_by_count(note: Note, facts: list[Fact]) -> list[TherapyFact]:
    """The regimen a stated count defines (values.yaml `regimens_by_count`): "four injections a day for four
    months" is an intensive insulin regimen for four months. Only a count of one value, stated or added up from
    the doses (at least: "insulin four times a day"), of at least the defining number, in a sentence that
    names no therapy of that regimen already."""
    out: list[TherapyFact] = []
    lex = note.lexicon
    for therapy, rule in sorted(note.rules.values("regimens_by_count").items()):
        named = [f for f in facts if isinstance(f, TherapyFact) and f.span is not None and f.known
                 and (f.therapy == therapy or lex.is_a(f.therapy, therapy))]
        for f in facts:
            if not isinstance(f, MeasureFact) or f.quantity != rule["quantity"] or f.span is None \
                    or f.status != "present" or f.conflicting or f.value is None or f.value < float(rule["at_least"]) \
                    or f.comparator not in ("==", ">=") or f.per is None or f.per.unit != rule["per"] \
                    or f.per.length != 1 or f.source != "narrative":
                continue
            sentence = note.sentence_of(f.span.start)
            if any(note.sentence_of(t.span.start) == sentence for t in named if t.span is not None):
                continue
            length = duration_in(note, f.span.end, sentence[1])
            out.append(TherapyFact(therapy, "present", f.span, True, ("treated",), (),
                                   length[0] if length is not None else None, assertion=f.assertion,
                                   duration_min_days=length[3] if length is not None and length[3] != length[0] else None))
    return out


def _said_only(note: Note, fact: TherapyFact) -> bool:
    """'degludec 1x/day only', 'on basal insulin alone': the regimen is this therapy and nothing else."""
    assert fact.span is not None
    _, s_end = note.sentence_of(fact.span.start)
    tail = note.clean[fact.span.end:s_end]
    tail = re.split(r"[,;.]", tail, maxsplit=1)[0]
    only = note.lexicon.pattern(note.lexicon.phrases(C, "regimen_only"), "cue-regimen-only")
    return only.search(tail) is not None
