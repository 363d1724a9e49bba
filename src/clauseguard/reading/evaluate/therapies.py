"""Therapy criteria read against the therapies the request states: a course long enough (Duration), and
agents tried, failed, contraindicated or not given (Treatment), by the lexicon's classes of therapy.
"""

from __future__ import annotations

from clauseguard.corpus.criteria import Duration, Treatment
from clauseguard.reading.evaluate.kleene import MET, NOT_MET, UNKNOWN, compare
from clauseguard.reading.evaluate.mapping import _DAYS, AtomReader, _num
from clauseguard.reading.evaluate.results import AtomResult, Role
from clauseguard.reading.facts import ConditionFact, TherapyFact


class TherapyReader(AtomReader):
    """Reads Duration and Treatment criteria."""

    def _therapy_facts(self, therapy: str, examples: tuple[str, ...] = ()) -> tuple[list[tuple[TherapyFact, str]], list[TherapyFact]]:
        """Facts about the therapy or a kind of it; a clause's own "(e.g., A, B)" list counts its
        members as kinds of it, whatever the lexicon knows."""
        related = []
        unknown_class = []
        for f in self.facts.of(TherapyFact):
            rel = self._related(f.therapy, therapy)
            if rel is None and any(self._related(f.therapy, e) == "narrower" or f.therapy == e for e in examples):
                rel = "narrower"
            if rel is None and not f.known:
                unknown_class.append(f)
                continue
            if rel is not None:
                related.append((f, rel))
        return related, unknown_class

    def _duration(self, atom: Duration, role: Role) -> AtomResult:
        """A course of the therapy (or a kind of it) long enough; a stated course decides, the longest
        one counts, and an unclassified therapy long enough leaves it unknown rather than false."""
        related, unknown_class = self._therapy_facts(atom.therapy)
        needed_days = atom.value * _DAYS[atom.unit]
        for inc in atom.including if atom.comparator in (">", ">=") else ():
            # a course that must include a therapy the request says was not given (denied, or only planned:
            # "PT referral placed - first session next week") cannot be that course, however long
            facts_inc = self._therapy_facts(inc)[0]
            denied = [g for g, rel in facts_inc if g.status == "absent" and self._denies(g.therapy, inc, rel)]
            if denied and not any(g.status != "absent" for g, _ in facts_inc):
                g = denied[0]
                return self._record(atom, role, NOT_MET, f"no {g.therapy}", g.span, g.source,
                                    note=f"the course did not include {inc}")
        verdicts: list[AtomResult] = []
        for f, rel in related:
            if f.status == "absent":
                if atom.comparator in (">", ">=") and atom.value > 0 and self._denies(f.therapy, atom.therapy, rel):
                    verdicts.append(self._record(atom, role, NOT_MET, f"no {f.therapy}", f.span, f.source,
                                                 note="the request states no such therapy"))
                continue
            if rel != "narrower" or ("contraindicated" in f.statuses and "treated" not in f.statuses):
                continue
            if not f.statuses and f.duration_days is None:
                continue  # only a denied status (no contraindication stated against going on)
            desc = f.therapy + (f" for {_num(round(f.duration_days / _DAYS[atom.unit], 2))} {atom.unit}(s)"
                                if f.duration_days is not None else "")
            if f.status == "unknown" or f.duration_days is None:
                verdicts.append(self._record(atom, role, UNKNOWN, desc, f.span, f.source,
                                             missing=f"duration of {atom.therapy}",
                                             note="hedged" if f.status == "unknown" else "duration not stated"))
                continue
            status = compare("==", f.duration_days, atom.comparator, needed_days)
            if f.duration_min_days is not None and compare("==", f.duration_min_days, atom.comparator, needed_days) != status:
                status = UNKNOWN  # a month-only date ("since 05/2024") leaves the length either side of the threshold
            missing: str | None = f"duration of {atom.therapy}"
            note = ""
            if status == MET and atom.outcome is not None and f.outcome != atom.outcome and "failed" not in f.statuses:
                status, missing, note = UNKNOWN, f"response to {atom.therapy}", "outcome not stated"
            if status == MET and atom.including:
                for inc in atom.including:
                    if not any(g.status == "present" and rel2 == "narrower" for g, rel2 in self._therapy_facts(inc)[0]):
                        status, missing, note = UNKNOWN, f"whether the course included {inc}", "not stated"
            verdicts.append(self._record(atom, role, status, desc, f.span, f.source, missing=missing, note=note))
        for wanted in (MET, UNKNOWN):
            for v in verdicts:
                if v.status == wanted:
                    self.results[atom.id] = v
                    return v
        long_enough = [f for f in unknown_class if f.duration_days is None or f.duration_days >= needed_days]
        if long_enough:
            f = long_enough[0]
            return self._record(atom, role, UNKNOWN, f.therapy, f.span, f.source,
                                missing=f"whether {f.therapy} is a {atom.therapy}",
                                note="a therapy the lexicon does not know")
        if verdicts:
            self.results[atom.id] = verdicts[0]
            return verdicts[0]
        return self._unstated(atom, role, f"duration of {atom.therapy}")

    def _treatments_counted(self, atom: Treatment, role: Role, related: list[tuple[TherapyFact, str]],
                            unknown_class: list[TherapyFact]) -> AtomResult:
        """"tried and failed at least two TNF inhibitors": distinct agents with a wanted status."""
        wanted = set(atom.statuses)
        met = sorted({f.therapy for f, rel in related if rel == "narrower" and f.status == "present"
                      and (set(f.statuses) | ({"failed"} if f.outcome else set())) & wanted})
        if len(met) >= atom.count:
            return self._record(atom, role, MET, f"{', '.join(met)}")
        pending = [f for f, rel in related if rel == "narrower" and f.status == "unknown"] + unknown_class
        if len(met) + len(pending) >= atom.count:
            return self._record(atom, role, UNKNOWN, ", ".join(met) or None,
                                missing=f"{atom.count} agents {' or '.join(atom.statuses)}: {atom.therapy}")
        if met or any(f.status == "absent" for f, _ in related):
            return self._record(atom, role, NOT_MET, ", ".join(met) or None,
                                note=f"{len(met)} of the {atom.count} agents the criterion needs")
        return self._unstated(atom, role, f"{atom.count} agents {' or '.join(atom.statuses)}: {atom.therapy}")

    def _denied(self, therapy: str) -> set[str]:
        out: set[str] = set()
        for f, _rel in self._therapy_facts(therapy)[0]:
            out.update(f.denied)
        return out

    def _treatment(self, atom: Treatment, role: Role) -> AtomResult:
        related, unknown_class = self._therapy_facts(atom.therapy, atom.examples)
        wanted = set(atom.statuses)
        if atom.count > 1:
            return self._treatments_counted(atom, role, related, unknown_class)
        if "contraindicated" in wanted and atom.examples:
            # "a contraindication to TNF inhibitors (e.g., heart failure of NYHA class III)": a stated
            # condition the clause lists as a contraindication counts as one
            for f in self.facts.of(ConditionFact):
                if f.status == "present" and any(self._related(f.concept, e) == "narrower" or
                                                 self._content_words(f.concept) & self._content_words(e)
                                                 for e in atom.examples):
                    return self._record(atom, role, MET, f"contraindicated: {f.concept}", f.span, f.source)
        # a stated status decides; an explicitly denied status or an untried therapy rules it out
        for f, rel in related:
            if rel == "narrower" and f.status == "present":
                have = set(f.statuses)
                if "failed" in wanted and f.outcome is not None:
                    have.add("failed")
                if have & wanted:
                    return self._record(atom, role, MET, f"{' and '.join(sorted(have & wanted))}: {f.therapy}",
                                        f.span, f.source)
        for f, rel in related:
            if rel == "narrower" and f.status == "unknown":
                return self._record(atom, role, UNKNOWN, f.therapy, f.span, f.source,
                                    missing=f"{' or '.join(atom.statuses)}: {atom.therapy}", note="hedged")
        denied: set[str] = set()
        never = None
        for f, rel in related:
            denied.update(f.denied)
            if f.status == "absent" and (never is None) and self._denies(f.therapy, atom.therapy, rel):
                never = f
        if never is not None and (wanted - {"contraindicated"}):
            return self._record(atom, role, NOT_MET, f"no {never.therapy}", never.span, never.source,
                                note="the request states the therapy was not given")
        if wanted <= denied:
            f = related[0][0]
            return self._record(atom, role, NOT_MET, f"no {' or '.join(sorted(wanted))}: {f.therapy}", f.span, f.source,
                                note="the request denies it")
        tried = [f for f, rel in related if rel == "narrower" and f.status == "present" and f.statuses]
        if tried and wanted == {"treated"}:
            f = tried[0]
            return self._record(atom, role, MET, f.therapy, f.span, f.source)
        if tried and role in ("exception", "alternative"):
            f = tried[0]
            return self._record(atom, role, NOT_MET, f.therapy, f.span, f.source,
                                note=f"{' or '.join(atom.statuses)} not presented by the request (absent)")
        if tried:
            f = tried[0]
            return self._record(atom, role, UNKNOWN, f.therapy, f.span, f.source,
                                missing=f"{' or '.join(atom.statuses)}: {atom.therapy}",
                                note="the therapy is stated but not how it went")
        if unknown_class:
            f = unknown_class[0]
            return self._record(atom, role, UNKNOWN, f.therapy, f.span, f.source,
                                missing=f"whether {f.therapy} is {atom.therapy}", note="a therapy the lexicon does not know")
        return self._unstated(atom, role, f"{' or '.join(atom.statuses)}: {atom.therapy}")
