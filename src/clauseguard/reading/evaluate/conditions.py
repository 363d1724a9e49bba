"""Condition criteria read against the conditions the request states (narrative and codes): presence,
denial, hedges, certainty, severity, qualifiers and windows, and the populations they place it in or not.
"""

from __future__ import annotations

from clauseguard.corpus.criteria import Condition
from clauseguard.reading.evaluate.kleene import MET, NOT_MET, UNKNOWN, Value
from clauseguard.reading.evaluate.mapping import _DAYS, AtomReader
from clauseguard.reading.evaluate.results import AtomResult, Role
from clauseguard.reading.facts import ConditionFact


class ConditionReader(AtomReader):
    """Reads Condition criteria."""

    def _condition(self, atom: Condition, role: Role) -> AtomResult:
        facts = self.facts.of(ConditionFact)
        related = [(f, self._related(f.concept, atom.concept)) for f in facts]
        related = [(f, r) for f, r in related if r is not None]
        narrative = [(f, r) for f, r in related if f.source == "narrative"]
        if narrative:
            # the narrative's explicit statement governs codes for the same condition
            code_conflicts = [(f, r) for f, r in related if f.source != "narrative" and f.status != "present"]
            related = narrative + code_conflicts
        # an exception the note states present and, elsewhere, denies ("denies hypoglycemia unawareness" ...
        # "A/P: hypoglycemia unawareness"): two statements of one fact that disagree waive nothing and leave
        # nothing standing. Only for exceptions: a requirement's denial may be of the past ("new daily
        # headaches; never had headaches before"), which the reads below already weigh
        affirmed = [f for f, rel in related if rel == "narrower" and f.status == "present" and f.source == "narrative"
                    and f.certainty != "suspected" and not f.resolved]
        denied = [f for f, rel in related if f.status == "absent" and f.source == "narrative" and not f.history
                  and self._denies(f.concept, atom.concept, rel)]
        if affirmed and denied and role == "exception":
            f = affirmed[0]
            return self._record(atom, role, UNKNOWN, self._describe_condition(f), f.span, f.source,
                                missing=atom.concept, note="the request states it both present and absent")
        best: AtomResult | None = None
        for f, rel in related:
            if rel == "narrower" and f.status == "present":
                status, note, missing = self._condition_detail(atom, f)
                result = self._record(atom, role, status, self._describe_condition(f), f.span, f.source, missing, note)
                if status == MET:
                    return result
                if best is None or (status == NOT_MET and best.status != NOT_MET):
                    best = result
        if best is not None:
            return best
        stated = any(f.status == "present" for f, _rel in related)
        for f, rel in related:
            # a denial decides unless the request also states the same thing (or a kind of it) present:
            # "new headaches ...; no history of headaches before" denies only the past
            if f.status == "absent" and self._denies(f.concept, atom.concept, rel) and not stated:
                return self._record(atom, role, NOT_MET, f"no {f.concept}", f.span, f.source,
                                    note="the request states it is absent")
        for f, rel in related:
            if f.status == "unknown" or (rel == "narrower" and f.certainty == "suspected"):
                return self._record(atom, role, UNKNOWN, self._describe_condition(f), f.span, f.source,
                                    missing=f"{atom.concept} (stated only with a hedge)", note=f.note or "hedged")
        for f, rel in related:
            if rel == "broader" and f.status == "present":
                if role == "exception":
                    return self._record(atom, role, NOT_MET, self._describe_condition(f), f.span, f.source,
                                        note=f"the request states {f.concept}, not {atom.concept} (absent)")
                return self._record(atom, role, UNKNOWN, self._describe_condition(f), f.span, f.source,
                                    missing=atom.concept, note=f"the request states {f.concept}, not which kind")
        group = self.lex.exclusive_group(atom.concept)
        if role == "population" and group is not None:
            rivals = [f for f in facts if f.status == "present" and f.certainty != "suspected" and f.concept != atom.concept
                      and self.lex.exclusive_group(f.concept) == group and f.source == "narrative"]
            if rivals:
                # one of a group that excludes the others ("type 1" vs "type 2"): stated, it places the
                # request outside this population whatever an unplaced code might say
                f = rivals[0]
                return self._record(atom, role, NOT_MET, self._describe_condition(f), f.span, f.source,
                                    note=f"the request states {f.concept}, not {atom.concept}")
        if role == "population" and not self.unknown_dx:
            others = [f for f in facts if f.status == "present" and f.certainty != "suspected"
                      and self._is_diagnosis(f.concept)]
            if others:
                # the request presents its diagnoses, and this is not one of them: the clause is for
                # another population (a hedged or conflicting statement of it would have been found above)
                f = others[0]
                return self._record(atom, role, NOT_MET, self._describe_condition(f), f.span, f.source,
                                    note=f"the request presents {f.concept}, not {atom.concept}")
        return self._unstated(atom, role, atom.concept)

    def _is_diagnosis(self, concept: str) -> bool:
        known = self.lex.concepts.get(concept)
        return known is not None and bool(known.icd10)

    def _condition_detail(self, atom: Condition, fact: ConditionFact) -> tuple[Value, str, str | None]:
        if fact.resolved and not atom.history:
            # an episode stated to be over ("resolved", "in remission") is no present condition for sure
            return UNKNOWN, "stated as resolved", f"whether {atom.concept} is present now"
        if atom.within is not None:
            window = atom.within.length * _DAYS[atom.within.unit]
            if fact.within_days is None:
                return UNKNOWN, "when it is due is not stated", f"whether {atom.concept} is within {atom.within.label}"
            if fact.within_days > window + 0.5:
                return UNKNOWN, "stated over a longer window", f"whether {atom.concept} is within {atom.within.label}"
        order = {"suspected": 1, "high_probability": 2, "stated": 3, "confirmed": 3}
        if order[fact.certainty] < order[atom.certainty]:
            return UNKNOWN, "stated with less certainty than the clause asks", f"{atom.concept} ({atom.certainty})"
        if atom.severity:
            if not fact.severity:
                return UNKNOWN, "severity not stated", f"severity of {atom.concept}"
            inside = set(fact.severity) <= set(atom.severity)
            outside = not (set(fact.severity) & set(atom.severity))
            if outside:
                return NOT_MET, "stated severity is outside the clause's range", None
            if not inside:
                return UNKNOWN, "stated severity only partly inside the clause's range", f"severity of {atom.concept}"
        for q in atom.qualifiers:
            if q == "solely" or q in fact.qualifiers:
                continue
            opposite = self.opposites.get(q)
            if opposite is not None:
                if opposite in fact.qualifiers:
                    return NOT_MET, f"stated as {opposite}", None
                continue  # a qualifier that states an absence holds unless its opposite is stated
            return UNKNOWN, f"'{q}' not stated", f"whether {atom.concept} is {q}"
        return MET, "", None
