"""Criteria that compare a number with the clause's: a measure, an age, a period of cover, a money cap,
and a count within a window (prior services the request states, plus the requested one).
"""

from __future__ import annotations

import math

from clauseguard.corpus.criteria import Age, Amount, Count, Measure, Tenure
from clauseguard.reading.evaluate.kleene import MET, NOT_MET, UNKNOWN, compare
from clauseguard.reading.evaluate.mapping import _DAYS, AtomReader, _num
from clauseguard.reading.evaluate.results import UNPLACED, AtomResult, Role
from clauseguard.reading.facts import AgeFact, MeasureFact, QuantityFact, ServiceFact, TenureFact


class QuantityReader(AtomReader):
    """Reads Measure, Age, Tenure, Amount and Count criteria."""

    def _measure(self, atom: Measure, role: Role) -> AtomResult:
        facts = [f for f in self.facts.of(MeasureFact) if self._related(f.quantity, atom.quantity) == "narrower"]
        # two values for one measure are never a pick: each is judged, and only an outcome every one of
        # them gives decides ("HbA1c 8.9% (10/2023), 8.7% (01/2024)" against "> 8%"), as for tenure below
        verdicts: list[AtomResult] = []
        for f in facts:
            desc = f"{f.quantity} {'' if f.comparator == '==' else f.comparator + ' '}" + (
                _num(f.value) if f.value is not None else "") + (f" {f.unit}" if f.unit else "") + (
                f" per {f.per.label}" if f.per else "")
            if f.status == "absent":
                if atom.comparator in (">", ">=") and atom.value > 0:
                    verdicts.append(self._record(atom, role, NOT_MET, f"no {f.quantity}", f.span, f.source,
                                                 note="the request states none"))
                continue
            if f.status == "unknown" or f.value is None:
                verdicts.append(self._record(atom, role, UNKNOWN, desc, f.span, f.source, missing=atom.quantity,
                                             note="hedged"))
                continue
            value = self._convert_measure(f, atom)
            if value is None:
                verdicts.append(self._record(atom, role, UNKNOWN, desc, f.span, f.source, missing=atom.quantity,
                                             note="stated in units the clause's threshold cannot be compared with"))
                continue
            status = compare(f.comparator, value, atom.comparator, atom.value)
            verdicts.append(self._record(atom, role, status, desc.strip(), f.span, f.source, missing=atom.quantity))
        if verdicts:
            # several statements of one value: agreeing ones decide, disagreeing ones are unknown
            statuses = {v.status for v in verdicts}
            chosen = verdicts[0] if len(statuses) == 1 else next(v for v in verdicts if v.status == UNKNOWN) \
                if UNKNOWN in statuses else None
            if chosen is None:
                return self._record(atom, role, UNKNOWN, verdicts[0].fact, verdicts[0].narrative_span, "narrative",
                                    missing=atom.quantity, note="the request states conflicting values")
            self.results[atom.id] = chosen
            return chosen
        return self._unstated(atom, role, atom.quantity)

    def _convert_measure(self, fact: MeasureFact, atom: Measure) -> float | None:
        if (fact.unit or "") != (atom.unit or "") and fact.unit and atom.unit:
            return None
        if atom.per is None and fact.per is None:
            return fact.value
        if atom.per is None or fact.per is None:
            return None
        assert fact.value is not None
        fact_days = fact.per.length * _DAYS[fact.per.unit]
        atom_days = atom.per.length * _DAYS[atom.per.unit]
        if not (math.isfinite(fact_days) and math.isfinite(atom_days)):
            return None
        return fact.value * atom_days / fact_days

    def _age(self, atom: Age, role: Role) -> AtomResult:
        facts = [f for f in self.facts.of(AgeFact) if f.of == atom.of]
        conflicting = next((f for f in facts if f.conflicting), None)
        # two ages for one person or onset: never a pick; only an outcome both give decides
        if conflicting is not None and len({compare(f.comparator, f.value, atom.comparator, atom.value) for f in facts}) > 1:
            return self._record(atom, role, UNKNOWN, None, conflicting.span, conflicting.source,
                                missing="age at onset" if atom.of == "onset" else "age",
                                note="the request states conflicting values")
        facts.sort(key=lambda f: (f.comparator != "==", f.span.start if f.span else -1))
        for f in facts:
            status = compare(f.comparator, f.value, atom.comparator, atom.value)
            desc = ("age at onset " if f.of == "onset" else "age ") + ("" if f.comparator == "==" else f.comparator + " ") + _num(f.value)
            if status != UNKNOWN or f is facts[-1]:
                return self._record(atom, role, status, desc, f.span, f.source,
                                    missing="age at onset" if atom.of == "onset" else "age")
        return self._unstated(atom, role, "age at onset" if atom.of == "onset" else "age")

    def _tenure(self, atom: Tenure, role: Role) -> AtomResult:
        """How long the member has been insured, against a waiting or qualifying period."""
        needed_days = atom.value * _DAYS[atom.unit]
        facts = self.facts.of(TenureFact)
        values = {compare(f.comparator, f.days, atom.comparator, needed_days) for f in facts}
        if len(values) == 1:
            f = facts[0]
            years = f.days / _DAYS["year"]
            desc = f"insured for {_num(round(years, 2))} year(s)" if f.days >= _DAYS["year"] else \
                f"insured for {_num(round(f.days / _DAYS['month'], 1))} month(s)"
            return self._record(atom, role, values.pop(), desc, f.span, f.source,
                                missing="how long the member has been insured")
        if values:
            f = facts[0]
            return self._record(atom, role, UNKNOWN, None, f.span, f.source,
                                missing="how long the member has been insured",
                                note="the request states conflicting periods of cover")
        return self._unstated(atom, role, "how long the member has been insured")

    def _amount(self, atom: Amount, role: Role) -> AtomResult:
        """A money cap: the request states no amounts paid or claimed that the reader can attribute."""
        return self._unstated(atom, role, f"the amount claimed and already paid against the {atom.currency} cap")

    def _count(self, atom: Count, role: Role) -> AtomResult:
        generic = atom.item in self.generic
        requested = {c for r in self.requested for c in r.concepts}
        for f in self.facts.of(QuantityFact):
            if not (f.item == atom.item or generic and f.item in self.generic or
                    self._related(f.item, atom.item) is not None or
                    (self._request_is_concept(atom.item) == MET and f.item in self.generic)):
                if not (generic and f.item in requested):
                    continue
                by_request = True
            else:
                by_request = False
            # an amount read as the requested service itself ("45 sensors per month" against "one unit per day")
            # counts only where it goes over the limit: it may show a limit exceeded, never kept
            over = NOT_MET if atom.comparator in ("<=", "<") else MET
            fact_days = f.per.length * _DAYS[f.per.unit]
            atom_days = atom.per.length * _DAYS[atom.per.unit]
            desc = f"{_num(f.value)} {f.item}(s) per {f.per.label}"
            if f.conflicting and by_request:
                continue
            if f.conflicting:  # two amounts for one item and period: never a pick
                return self._record(atom, role, UNKNOWN, desc, f.span, f.source, missing=f"{atom.item} per {atom.per.label}",
                                    note="the request states conflicting values")
            if same_window(fact_days, atom_days):
                verdict = compare("==", f.value, atom.comparator, atom.value)
                if not by_request or verdict == over:
                    return self._record(atom, role, verdict, desc, f.span, f.source)
                continue
            if math.isfinite(atom_days) and fact_days > atom_days and atom.comparator in ("<=", "<"):
                # over a longer window the limit scales: a total above the scaled limit exceeds it
                scaled = atom.value * fact_days / atom_days
                verdict = compare("==", f.value, atom.comparator, scaled)
                if not by_request or verdict == over:
                    return self._record(atom, role, verdict, desc, f.span, f.source,
                                        note=f"compared with {_num(round(scaled, 2))} per {f.per.label}")
                continue
            if by_request:
                continue
            return self._record(atom, role, UNKNOWN, desc, f.span, f.source, missing=f"{atom.item} per {atom.per.label}",
                                note="stated over a window the limit cannot be read against")
        prior = self._prior_count(atom)
        if prior is not None and prior[0] is None:
            # a prior one the request names but does not date or count ("status post sleeve gastrectomy"):
            # the limit is not left to billing, and the window cannot be checked
            fact = prior[1]
            return self._record(atom, role, UNKNOWN, f"a prior {atom.item}, not dated", fact.span, fact.source,
                                missing=f"prior {atom.item} in the last {atom.per.label}", note=UNPLACED)
        if prior is not None:
            count, fact = prior
            assert count is not None
            total = count + 1  # the requested one counts too
            desc = f"{_num(count)} prior in the {atom.per.label} window, plus this request"
            verdict = compare("==", total, atom.comparator, atom.value)
            if verdict == MET and atom.item.split()[-1] in self.supplies:
                # prior deliveries of strips or lancets say how often, not how many: each is at least one unit,
                # so they can show a limit in units exceeded, never kept
                return self._record(atom, role, UNKNOWN, desc, fact.span, fact.source,
                                    missing=f"{atom.item} per {atom.per.label}")
            return self._record(atom, role, verdict, desc, fact.span, fact.source)
        return self._unstated(atom, role, f"prior {atom.item} in the last {atom.per.label}")

    def _prior_count(self, atom: Count) -> tuple[float | None, ServiceFact] | None:
        """Prior ones in the limit's window: (count, the fact saying so); (None, fact) when the request
        names a prior one of this very service with no date or count that places it; None when it says
        nothing of prior ones."""
        window_days = atom.per.length * _DAYS[atom.per.unit]
        undated: ServiceFact | None = None
        kinds = self._kinds_named_in(atom.item)
        for f in self.facts.of(ServiceFact):
            if f.requested:
                continue
            if not (any(self._same_service(c, atom.item) for c in f.concepts) if f.concepts else not kinds):
                # "a session", or "a psychotherapy session", against a limit on "60-minute psychotherapy
                # sessions": it may or may not be one of them
                maybe = not f.concepts or any(self._related(c, k) is not None or self._related(k, c) is not None
                                              for c in f.concepts for k in kinds)
                if maybe and f.status == "present" and undated is None and (f.named_prior or f.prior_count):
                    undated = f
                continue
            if f.status == "present" and f.concepts and atom.per.unit == "lifetime" and f.prior_count is None \
                    and (f.named_prior or f.ago_days is not None):
                return 1.0, f  # any earlier one falls in a lifetime, whenever it was
            if f.within is not None:
                fact_days = f.within.length * _DAYS[f.within.unit]
                if f.prior_count == 0 and (fact_days + 0.5 >= window_days or
                                           f.within.unit == atom.per.unit and f.within.length >= atom.per.length):
                    return 0.0, f  # none in a window at least as long (or the same occasion, an episode)
                if f.prior_count and f.within.unit == atom.per.unit and f.within.length <= atom.per.length:
                    return f.prior_count, f
                if f.prior_count and fact_days <= window_days + 0.5:
                    return f.prior_count, f
            if f.ago_days is not None and f.status == "present":
                if atom.per.unit == "calendar_year":
                    continue  # "N months ago" does not say which calendar year
                least = f.ago_least if f.ago_least is not None else f.ago_days
                if f.ago_days <= window_days:
                    return 1.0, f
                if least > window_days and f.on_date in (None, "age"):
                    return 0.0, f  # a calendar date fails a limit, never clears one (as for a visit's window)
                if f.named_prior and undated is None:
                    undated = f  # a month or a year that straddles the window's start: it may be inside or not
                continue
            # an unnamed one ("already had a session") only against a limit on a named service, never on bare units
            if f.status == "present" and f.named_prior and f.within is None and f.ago_days is None and undated is None \
                    and (f.concepts or atom.item not in self.generic):
                undated = f
        return (None, undated) if undated is not None else None

    def _kinds_named_in(self, item: str) -> tuple[str, ...]:
        """The concepts named inside a limit's item the lexicon does not know ("60-minute psychotherapy
        session" names psychotherapy); none for a known item or a bare unit ("visits", "units")."""
        if item in self.generic or self.lex.knows(item):
            return ()
        return tuple(m.name for m in self.lex.find_concepts(item))

    def _same_service(self, concept: str, item: str) -> bool:
        if item in self.generic:
            return any(self._related(concept, c) is not None or self._related(c, concept) is not None
                       for r in self.requested for c in r.concepts) or not self.requested
        return self._related(concept, item) is not None or self._related(item, concept) is not None


def same_window(a_days: float, b_days: float) -> bool:
    """Two windows a supplier and a policy mean alike: "90 days" and "3 months", "30 days" and "a month"
    (a month is 28-31 days, so a window in months is read to within 3%)."""
    return math.isfinite(a_days) and math.isfinite(b_days) and abs(a_days - b_days) <= max(0.5, 0.03 * max(a_days, b_days))
