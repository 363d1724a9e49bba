"""Criteria about a relative ("a variant identified in a blood relative", "a family history of"): never
answered by the member's own facts; a statement about a relative that may bear on one leaves it unknown.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Final

from clauseguard.corpus.criteria import Atom
from clauseguard.reading.evaluate.kleene import MET, UNKNOWN
from clauseguard.reading.evaluate.mapping import AtomReader
from clauseguard.reading.evaluate.results import AtomResult, Role
from clauseguard.reading.facts import RelativeFact

# Atom kinds that state something of a person: when the criterion's own words say the person is a
# relative ("identified in a blood relative", "a family history of"), the member's facts never answer it.
_PERSON_KINDS: Final = frozenset({"condition", "documentation", "age", "measure", "duration", "treatment"})


class RelativeReader(AtomReader):
    """Reads any person-kind criterion whose own words name a relative."""

    # --- criteria about a relative ----------------------------------------------------------

    def _of_relative(self, atom: Atom) -> bool:
        """A criterion whose own words name someone other than the member ("a variant identified in a
        blood relative", "a first-degree relative with ...", "a family history of ...")."""
        return atom.kind in _PERSON_KINDS and self.relative_cue.search(atom.span.text) is not None

    def _relative(self, atom: Atom, role: Role, reader: Callable[[Atom, Role], AtomResult]) -> AtomResult:
        """A criterion about a relative is never answered by the member's own facts. A statement that
        itself names the relative and the clause's term (or a fact a model read for this criterion) is
        read as usual; otherwise what the request states about relatives is matched against it, by the
        conditions the lexicon knows or, for terms it lacks, by shared words. Such a match is never
        certain, so it leaves the criterion unknown (named), never absent; with no statement about a
        relative that bears on it, the criterion is what an unstated one is for its role."""
        own = self.facts
        self.facts = replace(own, facts=tuple(f for f in own.facts if self._speaks_of_relative(f)))
        try:
            result = reader(atom, role)
        finally:
            self.facts = own
        if result.status == MET:
            return result
        # a denial or a hedge of the clause's own term does not cover another relative's statement
        read = result.narrative_span
        stated = [f for f in own.of(RelativeFact) if f.status != "absent" and self._relative_bears_on(atom, f)
                  and not (read is not None and f.span is not None and f.span.start <= read.start < f.span.end)]
        if not stated or result.status == UNKNOWN:
            return result
        f = stated[0]
        term = getattr(atom, "concept", None) or getattr(atom, "item", None) or atom.label
        return self._record(atom, role, UNKNOWN, f"a statement about a relative ({', '.join(f.relatives)})",
                            f.span, f.source, missing=f"whether what the request states about a relative is {term}",
                            note="a statement about a relative the reader cannot match to the criterion with certainty")

    def _by_caregiver(self, atom: Atom, role: Role, result: AtomResult) -> AtomResult:
        """A criterion whose own words admit the member's caregiver ("the beneficiary (or the beneficiary's
        caregiver) has sufficient training") is met by a relative's stated fact of the same concept ("her
        daughter, who helps with her care, was trained on this meter"); anything else leaves it as read."""
        if result.status == MET or atom.kind not in _PERSON_KINDS or self.caregiver_cue.search(atom.span.text) is None:
            return result
        wanted = {c for c in (getattr(atom, "concept", None), getattr(atom, "item", None)) if isinstance(c, str)}
        for f in self.facts.of(RelativeFact):
            if f.status != "present" or f.certainty != "stated" or f.concept is None:
                continue
            if any(f.concept == c or self._related(f.concept, c) == "narrower" for c in wanted):
                return self._record(atom, role, MET, f"{f.concept} (stated of the member's {', '.join(f.relatives)})",
                                    f.span, f.source, note="the criterion admits the member's caregiver")
        return result

    def _speaks_of_relative(self, fact: object) -> bool:
        """A fact that may answer a criterion about a relative: one a model read for the criterion, or a
        narrative statement whose own words name the relative ("family history of X" as the clause
        writes it); never a code or the member's own statement."""
        source = getattr(fact, "source", "")
        span = getattr(fact, "span", None)
        if isinstance(fact, RelativeFact) or source.startswith(("code:", "procedure:")):
            return False
        if source != "narrative":
            return True
        return span is not None and self.relative_cue.search(span.text) is not None

    def _relative_bears_on(self, atom: Atom, fact: RelativeFact) -> bool:
        if fact.concept is not None:
            if fact.concept not in self.lex.concepts:
                return False  # a clause term found literally: its words are the statement's, matched below
            wanted = {m.name for m in self.lex.find_concepts(atom.span.text)}
            wanted |= {c for c in (getattr(atom, "concept", None), getattr(atom, "item", None))
                       if isinstance(c, str) and c in self.lex.concepts}
            return any(self._related(fact.concept, c) is not None or self._related(c, fact.concept) is not None
                       for c in wanted)
        mine = self._content_words(atom.span.text)
        return any(a == b or (min(len(a), len(b)) >= 4 and (a.startswith(b) or b.startswith(a)))
                   for a in self._content_words(" ".join(fact.words)) for b in mine)
