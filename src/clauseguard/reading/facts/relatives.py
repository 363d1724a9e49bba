"""Statements about someone other than the member ("mother with type 1 diabetes", "FHx: ..."): kept as
facts about relatives, never as the member's.

It owns turning ConText's family reach and family-history sections into RelativeFacts: one per mention
inside, and one for the statement as a whole with the words no known condition accounts for (what the
evaluator matches a term the lexicon lacks against). It never reads a relative's fact as the member's.
"""

from __future__ import annotations

import re

from clauseguard.reading.facts.assertion import Region
from clauseguard.reading.facts.mentions import Mention
from clauseguard.reading.facts.note import Note
from clauseguard.reading.facts.sheet import RelativeFact, Status
from clauseguard.reading.lexicon import normalise


def relative_facts(note: Note, regions: list[Region], mentions: list[Mention]) -> list[RelativeFact]:
    out: list[RelativeFact] = []
    for region in regions:
        end = region.start + len(note.clean[region.start:region.end].rstrip().rstrip(".,;:").rstrip())
        span = note.span(region.start, end)
        who = tuple(dict.fromkeys(re.sub(r"['’]s?$", "", normalise(note.clean[s:e])) or "family history"
                                  for s, e in region.cue_spans))
        inside = [m for m in mentions if region.start <= m.start and m.end <= region.end and m.assertion == "family"]
        for m in inside:
            out.append(RelativeFact(who, _status(m), span, m.name, "suspected" if m.suspicion else "stated",
                                    kind=m.kind))
        known = [(m.start, m.end) for m in inside if m.kind != "free"]
        taken = [*region.cue_spans, *known]
        words = tuple(t.text for t in note.tokens if region.start <= t.start and t.end <= end
                      and not any(s <= t.start < e for s, e in taken))
        status: Status = "unknown" if region.hedged else "absent" if region.negated else "present"
        out.append(RelativeFact(who, status, span, None, "stated", words))
    return out


def _status(m: Mention) -> Status:
    if "NEGATED" in m.categories:
        return "absent"
    if any(c in m.categories for c in ("POSSIBLE", "PENDING", "NOT_DOCUMENTED")):
        return "present" if m.suspicion else "unknown"
    return "present"


def about_relative(regions: list[Region], start: int) -> bool:
    """A value stated inside a statement about a relative ("her mother was diagnosed at age 42")."""
    return any(r.cue_spans[0][1] <= start < r.end for r in regions)
