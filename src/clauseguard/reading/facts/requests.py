"""The service the narrative asks for, against the one the procedure codes bill.

"BMI 42. Requesting endoscopic sleeve gastroplasty" under a sleeve-gastrectomy code: the codes and the
narrative disagree, and as for diagnoses the narrative's explicit statement governs while the discrepancy
is reported. A service the lexicon knows, named in a request, that is neither the coded service nor a kind
of it (or the other way round) becomes a requested service too (so an exclusion naming it applies), and a
`service_discrepancy` flag sends the answer to a person. So does a phrase of the corpus's own clauses the
lexicon does not place, when it names no concept of the coded service; a request word governs the service
only next to it.
"""

from __future__ import annotations

import re

from clauseguard.reading.facts.mentions import Mention
from clauseguard.reading.facts.note import C, Flag, Note
from clauseguard.reading.facts.sheet import ServiceFact

_GAP_WORDS = 2  # "Requesting an implantable insulin pump": an article and a word between the cue and the service
_GAP_CHARS = 3  # "Body-contouring surgery requested", "Sleeve gastrectomy: requested"


def _object_of_request(note: Note, cue: re.Pattern[str], m: Mention) -> bool:
    """Whether the request word governs the mention: at most two words before it ("Requesting an implantable
    pump"), or right after it ("Body-contouring surgery requested")."""
    start, end = note.clause_bounds(m.start)
    if any(len(note.clean[c.end():m.start].split()) <= _GAP_WORDS for c in cue.finditer(note.clean, start, m.start)):
        return True
    rest = note.clean[m.end:end]
    gap = len(rest) - len(rest.lstrip())
    return gap <= _GAP_CHARS and cue.match(note.clean, m.end + gap, end) is not None


def narrative_requests(note: Note, mentions: list[Mention], coded: list[ServiceFact]) -> list[ServiceFact]:
    """Requested services the narrative names that the codes do not bill (each flagged)."""
    lex = note.lexicon
    billed = {c for f in coded for c in f.concepts}
    if not billed:
        return []
    cue = lex.pattern(lex.phrases(C, "request_words"), "cue-request-words")

    def is_coded(name: str) -> bool:
        """The coded service, or a kind of it, or what it is a kind of."""
        return name in billed or any(lex.is_a(name, b) or lex.is_a(b, name) for b in billed)

    out: list[ServiceFact] = []
    for m in mentions:
        if m.kind not in ("service", "free") or m.assertion != "planned" or is_coded(m.name):
            continue
        if m.kind == "free" and any(is_coded(c.name) for c in lex.find_concepts(m.name)):
            continue  # a policy's own phrase that names the coded service in other words
        if not _object_of_request(note, cue, m):
            continue  # named in the request but not what it asks for ("an FFR study computed from CT images")
        span = note.span(m.start, m.end)
        out.append(ServiceFact((m.name,), span, requested=True, source="narrative"))
        note.flags.append(Flag("service_discrepancy", f"the procedure codes bill {', '.join(sorted(billed))}; the "
                                                      f"narrative requests {m.name}, which the narrative's statement governs",
                               span))
    return out
