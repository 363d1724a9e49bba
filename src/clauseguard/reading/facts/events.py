"""Events a note describes instead of naming: "her daughter found her unresponsive; EMS measured BG 38 mg/dL
and gave IV dextrose" is a level 3 hypoglycaemic event although no word of the note says so.

The lexicon's `described_events` (cues.yaml) gives, per concept, groups of phrases; one sentence that holds
a phrase of every group (or, for a group with a `below` limit, a measured value under it) states the
event. A sentence that negates, hedges, plans or puts anything it names on someone else states none.
"""

from __future__ import annotations

import re
from typing import Any

from clauseguard.reading.facts.mentions import Mention
from clauseguard.reading.facts.note import C, Note
from clauseguard.reading.facts.sheet import ConditionFact

_KEY = "described_events"


def described_events(note: Note, mentions: list[Mention]) -> list[ConditionFact]:
    out: list[ConditionFact] = []
    spec: dict[str, Any] = note.lexicon.data.get(C, {}).get(_KEY) or {}
    if not spec:
        return out
    negation = note.lexicon.pattern(note.lexicon.phrases(C, "negation_before"), "cue-negation_before")
    hedge = note.lexicon.pattern(note.lexicon.phrases(C, "hedge_before"), "cue-hedge_before")
    for concept in sorted(spec):
        groups = spec[concept]
        for s_start, s_end in note.sentences:
            found = [_group_at(note, concept, name, group, s_start, s_end) for name, group in sorted(groups.items())]
            if any(f is None for f in found):
                continue
            if negation.search(note.clean, s_start, s_end) or hedge.search(note.clean, s_start, s_end):
                continue  # "no episode needing EMS", "possible low": no event stated
            inside = [m for m in mentions if s_start <= m.start < s_end]
            if any(m.assertion not in ("affirmed", "historical") for m in inside):
                continue  # a relative's event, a planned or hedged one
            start = min(f[0] for f in found if f is not None)
            end = max(f[1] for f in found if f is not None)
            out.append(ConditionFact(concept, "present", "narrative", note.span(start, end), history=True,
                                     note="described"))
    return out


def _group_at(note: Note, concept: str, name: str, group: Any, start: int, end: int) -> tuple[int, int] | None:
    """Where the sentence [start, end) holds a phrase of the group (or a value below its limit)."""
    phrases = group.get("phrases", ()) if isinstance(group, dict) else group
    pattern = note.lexicon.pattern(phrases, f"described-{concept}-{name}")
    hit = pattern.search(note.clean, start, end) if phrases else None
    if hit is not None:
        return hit.start(), hit.end()
    below = group.get("below") if isinstance(group, dict) else None
    for unit, limit in sorted((below or {}).items()):
        unit_re = r"\s*/\s*".join(map(re.escape, str(unit).split("/")))
        for m in re.finditer(rf"(?<![\w.])(?P<n>\d+(?:\.\d+)?)\s*(?:{unit_re})(?![\w])", note.clean[start:end], re.I):
            if float(m.group("n")) < float(limit):
                return start + m.start(), start + m.end()
    return None
