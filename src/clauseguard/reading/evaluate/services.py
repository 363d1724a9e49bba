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
        """A visit, test or evaluation within the window before the request: a dated fact decides."""
        window = atom.within.length * _DAYS[atom.within.unit] if atom.within is not None else math.inf
        wanted = self._content_words(atom.item)
        for f in self.facts.of(ServiceFact):
            if f.requested or (f.ago_days is None and atom.within is not None):
                continue
            words = self._content_words(" ".join(f.concepts) + " " + (f.span.text if f.span else ""))
            if not (wanted & words):
                continue
            if f.status == "absent":
                status: Value = NOT_MET
            else:
                status = MET if f.ago_days is None or f.ago_days <= window else NOT_MET
            return self._record(atom, role, status, f"{f.span.text if f.span else atom.item}", f.span, f.source)
        return self._unstated(atom, role, atom.label)

    def _service(self, atom: Service, role: Role) -> AtomResult:
        return self._record(atom, role, self._request_is(atom), missing="the requested service")


def _specialty_words(text: str) -> list[str]:
    return [w for w in re.findall(r"[a-z]+", normalise(text)) if len(w) >= 5]
