"""Mentions of a narrative: what the target matcher finds from the lexicon and the criteria's own terms,
and the drugs the drug dictionary names (brand -> generic).

It owns finding and de-overlapping mentions; it never decides their status (assertion.py) and never
lists a term in code: the lexicon, the criteria and the dictionary do. The dictionary is read from its
cached exact-match table (drugs.py), lazily, once per process.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from clauseguard.reading.facts import drugs
from clauseguard.reading.facts.note import Note
from clauseguard.reading.facts.pipeline import Pipeline, Target
from clauseguard.reading.lexicon import normalise


@dataclass
class Mention:
    """A thing the narrative names, where, and (once assertion.py has run) how it is asserted."""

    name: str
    start: int
    end: int
    kind: str  # condition | therapy | service | quantity | free | generic
    tok_start: int = 0
    tok_end: int = 0
    known: bool = True  # False: a drug the dictionary names and the lexicon does not place in any class
    drug: str | None = None
    brand: str | None = None
    assertion: str = "affirmed"  # affirmed negated possible planned family historical not_documented
    by_cue: bool = False  # the assertion came from a cue, not only from the section heading
    suspicion: bool = False  # a hedge that states a suspicion ("suspected X")
    section: str | None = None
    categories: tuple[str, ...] = ()
    modifiers: tuple[Any, ...] = field(default=(), repr=False)

    @property
    def status(self) -> str:
        """present / absent / unknown, as evaluation reads it."""
        if self.assertion in ("affirmed", "historical"):
            return "present"
        if self.assertion == "negated":
            return "absent"
        if self.assertion == "possible":
            return "present" if self.suspicion else "unknown"
        if self.assertion == "planned" and self.kind == "therapy" and self.by_cue:
            return "absent"  # a treatment requested, planned or recommended has not been received
        return "unknown"

    @property
    def certainty(self) -> str:
        return "suspected" if self.assertion == "possible" and self.suspicion else "stated"


def find_mentions(note: Note, pipeline: Pipeline, vocabulary: tuple[str, ...]) -> list[Mention]:
    """Every mention, longest first where they overlap: a criterion's literal term beats a shorter
    lexicon match; a drug the dictionary names counts only where nothing else was found. Measured
    quantities and the wordings of wordings.yaml are matched apart and may overlap a concept."""
    doc = note.doc
    found = [_mention(t) for t in pipeline.lexicon_targets(doc)]
    for t in pipeline.vocabulary_targets(doc, vocabulary):
        overlapping = [o for o in found if o.start < t.char_end and t.char_start < o.end]
        if not overlapping:
            found.append(_mention(t))
        elif all((t.char_end - t.char_start) > (o.end - o.start) for o in overlapping):
            for o in overlapping:
                found.remove(o)
            found.append(_mention(t))
    for m in _drug_mentions(note):
        if not any(o.start < m.end and m.start < o.end for o in found):
            found.append(m)
    found.extend(_mention(t) for t in pipeline.quantity_targets(doc))
    # a wording that states a concept already found there adds nothing ("supervised weight-loss program" is
    # both a lexicon term and a wording); one that overlaps another concept is kept beside it
    for m in map(_mention, pipeline.wording_targets(doc)):
        if not any(o.name == m.name and o.start < m.end and m.start < o.end for o in found):
            found.append(m)
    found.sort(key=lambda m: (m.start, -m.end, m.kind))
    return found


def _mention(t: Target) -> Mention:
    return Mention(t.name, t.char_start, t.char_end, t.kind, t.start, t.end)


def _drug_mentions(note: Note) -> list[Mention]:
    """Drugs by the dictionary: a generic name the lexicon knows becomes that therapy; any other drug is
    a therapy of unknown class (the lexicon, not the dictionary, says which class a drug is in). An entry
    notes write as a laboratory result (values.yaml `not_drugs`: "RF 88, anti-CCP >250") is no drug."""
    doc = note.doc
    words = [t for t in doc if not t.is_space and not t.is_punct and any(c.isalpha() for c in t.text)
             and len(t.text) >= 3]
    if not words:
        return []
    out: list[Mention] = []
    not_drugs = {normalise(str(w)) for w in note.rules.values("not_drugs")}
    for drug, first, last in drugs.find([t.text for t in words]):
        start_tok, end_tok = words[first], words[last - 1]
        start, end = start_tok.idx, end_tok.idx + len(end_tok.text)
        generic = normalise(re.sub(r"\([^)]*\)", " ", drug.name))  # "Insulin Aspart (rDNA origin)"
        if not generic or generic in not_drugs:
            continue
        lex = note.lexicon
        named = _known_name(lex, generic, drug.synonyms)
        written = normalise(note.text[start:end])
        # a brand is a name that is not the generic's own words ("Lantus", never "glargine")
        brand = note.text[start:end] if not set(written.split()) <= set(generic.split()) else None
        concept = _therapy_named(lex, named) if named else None
        out.append(Mention(concept or generic, start, end, "therapy", start_tok.i, end_tok.i + 1,
                           known=concept is not None, drug=generic, brand=brand))
    return out


def _known_name(lex: Any, generic: str, synonyms: tuple[str, ...]) -> str | None:
    """The first of a drug's names the lexicon knows as a therapy (its generic name first), memoised."""
    memo: dict[str, str | None] = lex.derived("facts.drug-names", lambda _lex: {})
    if generic not in memo:
        if len(memo) > 20_000:
            memo.clear()
        memo[generic] = next((n for n in (generic, *map(normalise, synonyms)) if _therapy_named(lex, n)), None)
    return memo[generic]


def _therapy_named(lex: Any, phrase: str) -> str | None:
    name = lex.concept_named(phrase)
    if name is not None and lex.concepts[name].domain == "therapy":
        return str(name)
    return None
