"""Changes made to a treatment, counted across a note: "Glimepiride stopped 2/2024 for lows. Lantus then cut
from 28 u to 20 u" is two attempts to adjust treatment, although no one phrase counts them.

wordings.yaml's `counted_changes` names the concept and the verbs of a change; a change is a verb in the
same clause as, and within a few words of, a therapy the note states the member had (affirmed or
historical). Two changes of two different drugs state the concept. A clause that negates, hedges or plans
states no change, and neither does a change of the same drug told twice. It never reads a count the
wordings already read.
"""

from __future__ import annotations

import re
from typing import Any

from clauseguard.reading.facts.mentions import Mention
from clauseguard.reading.facts.note import C, Note
from clauseguard.reading.facts.sheet import ConditionFact, Fact

_FILE = "wordings.yaml"
_REACH = 4  # words between a drug and its verb


def counted_changes(note: Note, mentions: list[Mention], facts: list[Fact]) -> list[ConditionFact]:
    spec: dict[str, Any] = note.rules.section(_FILE).get("counted_changes") or {}
    concept = spec.get("concept")
    if not concept or any(isinstance(f, ConditionFact) and f.concept == concept for f in facts):
        return []
    lex = note.lexicon
    verbs = lex.pattern([str(v) for v in spec.get("verbs", ())], "changes-verbs")
    stops = lex.pattern([str(v) for v in spec.get("not_changes", ())], "changes-not")
    negation = lex.pattern(lex.phrases(C, "negation_before"), "cue-negation_before")
    hedge = lex.pattern(lex.phrases(C, "hedge_before"), "cue-hedge_before")
    changed: dict[str, tuple[int, int]] = {}
    for m in mentions:
        if m.kind != "therapy" or m.assertion not in ("affirmed", "historical"):
            continue
        start, end = note.clause_bounds(m.start, stop_words=False)
        verb = _near_verb(note, verbs, m, start, end)
        if verb is None:
            continue
        lo, hi = min(m.start, verb[0]), max(m.end, verb[1])
        window = note.clean[start:end]
        if negation.search(window) or hedge.search(window) or stops.search(window):
            continue
        key = (m.drug or m.name).lower()
        changed.setdefault(key, (lo, hi))
    if len(changed) < 2:
        return []
    first = min(s for s, _ in changed.values())
    last = max(e for _, e in changed.values())
    return [ConditionFact(str(concept), "present", "narrative", note.span(first, last), note="counted")]


def _near_verb(note: Note, verbs: re.Pattern[str], m: Mention, start: int, end: int) -> tuple[int, int] | None:
    for hit in verbs.finditer(note.clean, start, end):
        between = note.clean[m.end:hit.start()] if hit.start() >= m.end else note.clean[hit.end():m.start]
        if len(between.split()) <= _REACH:
            return hit.start(), hit.end()
    return None
