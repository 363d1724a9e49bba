"""Documentation criteria: a document the request states present or absent, and one required within a
window, dated by what the narrative says of it.
"""

from __future__ import annotations

import re

from clauseguard.corpus.criteria import Documentation
from clauseguard.reading.evaluate.kleene import MET, NOT_MET, UNKNOWN, Value
from clauseguard.reading.evaluate.mapping import AtomReader, _num
from clauseguard.reading.evaluate.results import AtomResult, Role
from clauseguard.reading.facts import ConditionFact, DocumentationFact
from clauseguard.reading.lexicon import normalise


class DocumentReader(AtomReader):
    """Reads Documentation criteria."""

    def _dated_item(self, item: str) -> tuple[tuple[str, ...], float] | None:
        """'audiological evaluation within the previous 6 months' -> (the document, the window in days);
        the document may carry the clause's verb ("treatment plan reviewed within the last 90 days")."""
        units = self.lex.time_units()
        words = self.lex.number_words()
        m = re.fullmatch(r"(?P<x>.+?)\s+(?:within|in)\s+the\s+(?:(?:last|previous|past|preceding)\s+)?"
                         r"(?P<n>\d+(?:\.\d+)?|[a-z]+)\s+(?P<t>[a-z]+)(?:\s+before\s+the\s+request)?", item)
        if m is None or normalise(m.group("t")) not in units:
            return None
        raw = m.group("n")
        value = float(raw) if raw[0].isdigit() else words.get(raw)
        if value is None:
            return None
        base = m.group("x")
        names = [base]
        head, _, last = base.rpartition(" ")
        if head and last.endswith("ed"):
            names.append(head)  # "treatment plan reviewed": the plan, dated by its review
        return tuple(names), value * units[normalise(m.group("t"))][1]

    def _dated_documentation(self, atom: Documentation, role: Role) -> AtomResult | None:
        """A document required within a window: met when the request dates it inside, not met when it
        dates it outside; undated (or dated only roughly across the window's end) it is unknown."""
        dated = self._dated_item(atom.item)
        if dated is None:
            return None
        names, window = dated
        for f in self.facts.of(ConditionFact):
            if f.source != "narrative" or not any(self._related(f.concept, n) == "narrower" for n in names):
                continue
            missing = f"documentation of {atom.item}"
            if f.status == "absent":
                return self._record(atom, role, NOT_MET, f"no {f.concept}", f.span, f.source,
                                    note="the request states it is absent")
            if f.status != "present" or f.certainty == "suspected" or f.ago_days is None:
                return None
            low, high = f.ago_days
            status: Value = MET if high <= window + 0.5 else NOT_MET if low > window + 0.5 else UNKNOWN
            desc = f"{f.concept}, {_num(round(low))}" + (f"-{_num(round(high))}" if high != low else "") + " day(s) ago"
            return self._record(atom, role, status, desc, f.span, f.source, missing=missing,
                                note=f"compared with a window of {_num(round(window))} day(s)")
        return None

    def _documentation(self, atom: Documentation, role: Role) -> AtomResult:
        dated = self._dated_documentation(atom, role)
        if dated is not None:
            return dated
        for f in self.facts.of(DocumentationFact):
            if self._related(f.item, atom.item) != "narrower" and f.item != atom.item:
                continue
            if atom.about is not None and f.about is not None and self._related(f.about, atom.about) is None:
                continue
            status: Value = {"present": MET, "absent": NOT_MET, "unknown": UNKNOWN}[f.status]  # type: ignore[assignment]
            return self._record(atom, role, status, f"{f.item}" + (f" for {f.about}" if f.about else ""), f.span, f.source,
                                missing=f"documentation of {atom.item}",
                                note="the request states it is absent" if status == NOT_MET else "")
        for f in self.facts.of(ConditionFact):
            if f.source != "narrative" or self._related(f.concept, atom.item) != "narrower":
                continue
            status = {"present": MET, "absent": NOT_MET, "unknown": UNKNOWN}[f.status]  # type: ignore[assignment]
            if status == MET and f.certainty == "suspected":
                status = UNKNOWN
            return self._record(atom, role, status, self._describe_condition(f), f.span, f.source,
                                missing=f"documentation of {atom.item}")
        if atom.evidenced_by is not None:
            evidence = self._evidence(atom, role, atom.evidenced_by)
            if evidence is not None:
                return evidence
        return self._unstated(atom, role, f"documentation of {atom.item}")

    def _evidence(self, atom: Documentation, role: Role, evidence: str) -> AtomResult | None:
        """The clause's own evidence of an item the request is silent on (training shown by the prescription
        itself): met when the request states it plainly; anything less leaves the item unstated.
        Never consulted when the request speaks of the item itself, so "not yet trained" still fails."""
        for f in self.facts.of(ConditionFact):
            if f.source != "narrative" or self._related(f.concept, evidence) != "narrower":
                continue
            if f.status == "present" and f.certainty != "suspected":
                return self._record(atom, role, MET, f"{f.concept} (the clause's evidence of {atom.item})", f.span,
                                    f.source, note=f"the clause takes {evidence} as its evidence")
        return None
