"""Visual acuity as a grade of visual impairment: "BCVA 20/400 OD, 20/300 OS" is severe visual impairment,
"best corrected acuity 20/70 right and 20/80 left" is moderate (so not the severe one a clause asks for).

The grades are the lexicon's (cues.yaml `visual_acuity`): bands of the better eye's Snellen acuity as a
decimal. A sentence must name acuity; its Snellen values are the eyes' (the better eye is the largest); one
value counts for both eyes only when the sentence says so; a value on a band's edge grades nothing.
"""

from __future__ import annotations

import re

from clauseguard.reading.facts.mentions import Mention
from clauseguard.reading.facts.note import C, Note
from clauseguard.reading.facts.sheet import ConditionFact

_SNELLEN = re.compile(r"(?<![\w/.])(?P<a>20|6)\s*/\s*(?P<b>\d{1,4})(?![\w/]|\.\d)")


def acuity_facts(note: Note, mentions: list[Mention]) -> list[ConditionFact]:
    lex = note.lexicon
    spec = lex.data.get(C, {}).get("visual_acuity")
    if not spec:
        return []
    labels = lex.pattern(lex.phrases(C, "visual_acuity", "labels"), "cue-acuity-labels")
    both = lex.pattern(lex.phrases(C, "visual_acuity", "both_eyes"), "cue-acuity-both-eyes")
    negation = lex.pattern(lex.phrases(C, "negation_before"), "cue-negation_before")
    bands = [(float(low), float(high), str(grade)) for low, high, grade in spec["grades"]]
    out: list[ConditionFact] = []
    for s_start, s_end in note.sentences:
        label = labels.search(note.clean, s_start, s_end)
        if label is None or negation.search(note.clean, s_start, s_end):
            continue
        values = [(int(m["a"]) / int(m["b"]), m) for m in _SNELLEN.finditer(note.clean, label.end(), s_end)
                  if int(m["b"]) > 0]
        if not values or (len(values) == 1 and not both.search(note.clean, s_start, s_end)):
            continue  # one eye's value says nothing of the better eye
        if any(m.assertion not in ("affirmed", "historical") for m in mentions if s_start <= m.start < s_end):
            continue  # a relative's eyes, a hoped-for result
        better = max(v for v, _ in values)
        grade = next((g for low, high, g in bands if low < better < high), None)
        if grade is None:
            continue  # normal vision, or a value on a band's edge
        end = max(m.end() for _, m in values)
        out.append(ConditionFact(str(spec["concept"]), "present", "narrative", note.span(label.start(), end),
                                 severity=(grade,), note="graded from visual acuity"))
    return out
