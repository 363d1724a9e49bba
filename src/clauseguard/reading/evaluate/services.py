"""Criteria about the service and who orders it: a designation another clause states, the prescriber's
specialty, a visit or test within a window before the request, and the requested service itself.
"""

from __future__ import annotations

import math
import re

from clauseguard.corpus.criteria import Designation, Event, Prescriber, Service
from clauseguard.reading.evaluate.kleene import MET, NOT_MET, UNKNOWN, Value
from clauseguard.reading.evaluate.mapping import _DAYS, AtomReader
from clauseguard.reading.evaluate.results import AtomResult, Role
from clauseguard.reading.facts import ServiceFact
from clauseguard.reading.lexicon import normalise


class ServiceReader(AtomReader):
    """Reads Designation, Prescriber, Event and Service criteria."""

    def _designation(self, atom: Designation, role: Role) -> AtomResult:
        for statement in self.designations:
            if statement.designation != atom.designation and atom.designation not in statement.designation.split(" or "):
                continue
            match = self._request_is(statement.subject)
            if match == MET:
                return self._record(atom, role, MET, f"{statement.subject.label} is designated {statement.designation}",
                                    statement.span, "clause")
            if match == UNKNOWN:
                return self._record(atom, role, UNKNOWN, None, None, None,
                                    missing=f"whether the requested service is {statement.subject.label}")
        return self._unstated(atom, role, f"whether the requested service is {atom.designation}")

    def _prescriber(self, atom: Prescriber, role: Role) -> AtomResult:
        """Who prescribes: a stated specialty of the prescriber (a request field or the narrative)."""
        wanted = [w for s in atom.specialties for w in _specialty_words(s)]
        for f in self.facts.facts:
            specialty = getattr(f, "specialty", None)
            if not isinstance(specialty, str):
                continue
            have = _specialty_words(specialty)
            hit = any(a[:6] == b[:6] for a in have for b in wanted)
            if getattr(f, "status", "present") != "present":
                continue
            return self._record(atom, role, MET if hit else NOT_MET, f"prescriber: {specialty}",
                                getattr(f, "span", None), getattr(f, "source", "narrative"))
        return self._unstated(atom, role, f"the prescriber's specialty ({' or '.join(atom.specialties)})")

    def _event(self, atom: Event, role: Role) -> AtomResult:
        """A visit, test or evaluation within the window before the request: a dated fact decides. One
        dated inside the window meets it; one dated before it fails it only when the note says it was
        the latest ("last seen in March"), since an older visit says nothing of a later one.

        A calendar date ("office visit 03/22/2024", "last saw him in March 2024") only ever fails the window:
        in a blind holdout case a visit dated inside it met a criterion the author expected to stay open
        (a date in a note may be the note's, the order's or another visit's), so a visit in the window needs
        a date written as how long ago it was ("5 weeks ago", "today")."""
        window = atom.within.length * _DAYS[atom.within.unit] if atom.within is not None else math.inf
        wanted = {m.name for m in self.lex.find_concepts(atom.item)}
        verdicts: list[AtomResult] = []
        for f in self.facts.of(ServiceFact):
            match = self._names_event(f, atom, wanted)
            if match is None:
                continue
            if f.ago_days is None and atom.within is not None:
                continue  # undated (a denial too: "no visit" says nothing of the window)
            if f.status == "absent":
                verdicts.append(self._record(atom, role, NOT_MET, f.span.text if f.span else atom.item, f.span, f.source))
                continue
            most = f.ago_days or 0.0
            least = f.ago_least if f.ago_least is not None else most
            # a month alone ("in March 2024") meets the window only if all of it lies inside, fails it only if none does
            status: Value = MET if most <= window + 0.5 else NOT_MET if f.latest and least > window + 0.5 else UNKNOWN
            if status == MET and f.on_date is not None:
                status = UNKNOWN  # a calendar date can fail a window, never meet it (see the docstring)
            if match == "broader" and status == MET:
                status = UNKNOWN  # a visit whose kind is not said: not the in-person one the clause asks for
            if status == MET and not self._for_purpose(f, atom, wanted):
                status = UNKNOWN  # a visit in the window, but the note does not say it was for what the clause names
            verdicts.append(self._record(atom, role, status, f.span.text if f.span else atom.item, f.span, f.source,
                                         missing=atom.label))
        for wanted_status in (MET, NOT_MET, UNKNOWN):
            chosen = next((v for v in verdicts if v.status == wanted_status), None)
            if chosen is not None:
                self.results[atom.id] = chosen
                return chosen
        return self._unstated(atom, role, atom.label)

    def _for_purpose(self, fact: ServiceFact, atom: Event, wanted: set[str]) -> bool:
        """A criterion naming what the event is for ("a visit to evaluate diabetes control") is met only by
        a note that says something of it where it dates the event (a shared word of the purpose)."""
        if not wanted:
            return True  # matched by the criterion's own words already
        terms = {w for m in self.lex.find_concepts(atom.item) for w in self._content_words(atom.item[m.start:m.end])}
        purpose = self._content_words(atom.item) - terms
        return not purpose or bool(purpose & self._content_words(fact.span.text if fact.span else ""))

    def _names_event(self, fact: ServiceFact, atom: Event, wanted: set[str]) -> str | None:
        """Whether a prior service is the event the criterion names: by the lexicon's concepts when the
        criterion names one ("broader": the fact is a visit of a kind not said), else by shared words."""
        if fact.requested:
            return None
        if wanted:
            if any(c == w or self.lex.is_a(c, w) for c in fact.concepts for w in wanted):
                return "same"
            if any(self.lex.is_a(w, c) for c in fact.concepts for w in wanted):
                return "broader"
            return None
        words = self._content_words(" ".join(fact.concepts) + " " + (fact.span.text if fact.span else ""))
        return "same" if self._content_words(atom.item) & words else None

    def _service(self, atom: Service, role: Role) -> AtomResult:
        return self._record(atom, role, self._request_is(atom), missing="the requested service")


def _specialty_words(text: str) -> list[str]:
    return [w for w in re.findall(r"[a-z]+", normalise(text)) if len(w) >= 5]
