"""The service the narrative asks for, against the one the procedure codes bill.

"BMI 42. Requesting endoscopic sleeve gastroplasty" under a sleeve-gastrectomy code: the codes and the
narrative disagree, and as for diagnoses the narrative's explicit statement governs while the discrepancy
is reported. A service the lexicon knows, named in a request, that is neither the coded service nor a kind
of it (or the other way round) becomes a requested service too (so an exclusion naming it applies), and a
`service_discrepancy` flag sends the answer to a person. A phrase the lexicon does not place ("implantable
insulin pump") is left alone: a modifier may only describe the coded service.
"""

from __future__ import annotations

from clauseguard.reading.facts.mentions import Mention
from clauseguard.reading.facts.note import C, Flag, Note
from clauseguard.reading.facts.sheet import ServiceFact

_GAP_WORDS = 2  # "Requesting an implantable insulin pump": an article and a word between the cue and the service
_GAP_CHARS = 3  # "Body-contouring surgery requested", "Sleeve gastrectomy: requested"


def narrative_requests(note: Note, mentions: list[Mention], coded: list[ServiceFact]) -> list[ServiceFact]:
    """Requested services the narrative names that the codes do not bill (each flagged)."""
    lex = note.lexicon
    billed = {c for f in coded for c in f.concepts}
    if not billed:
        return []
    cue = lex.pattern(lex.phrases(C, "request_words"), "cue-request-words")
    out: list[ServiceFact] = []
    for m in mentions:
        if m.kind not in ("service", "free") or m.assertion != "planned" or m.name in billed:
            continue
        if m.kind == "free" and any(c.name in billed or any(lex.is_a(c.name, b) or lex.is_a(b, c.name) for b in billed)
                                    for c in lex.find_concepts(m.name)):
            continue  # a policy's own phrase that names the coded service in other words
        clause_start, clause_end = note.clause_bounds(m.start)
        before = [c for c in cue.finditer(note.clean, clause_start, m.start)
                  if len(note.clean[c.end():m.start].split()) <= _GAP_WORDS]
        after = cue.match(note.clean, m.end + len(note.clean[m.end:clause_end]) - len(note.clean[m.end:clause_end].lstrip()))
        after = after if after is not None and after.start() - m.end <= _GAP_CHARS and after.end() <= clause_end else None
        if not before and after is None:
            continue  # not the object of the request ("requests FFR derived from coronary CT": the CT is a part)
        if any(lex.is_a(m.name, b) or lex.is_a(b, m.name) for b in billed):
            continue  # the coded service named again, or a kind of it
        span = note.span(m.start, m.end)
        out.append(ServiceFact((m.name,), span, requested=True, source="narrative"))
        note.flags.append(Flag("service_discrepancy", f"the procedure codes bill {', '.join(sorted(billed))}; the "
                                                      f"narrative requests {m.name}, which the narrative's statement governs",
                               span))
    return out
