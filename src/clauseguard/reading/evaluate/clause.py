"""A clause's rules judged for one request, and the clause's outcome: each rule's subject, population,
occasion and requirement in turn; a rule that excludes or fails decides, else an undecided one leaves
the clause undecided. `evaluate` is the entry point; it never compares clauses (precedence.py does).
"""

from __future__ import annotations

from collections.abc import Iterable

from clauseguard.corpus.criteria import (
    AllOf,
    Atom,
    Count,
    Criteria,
    DesignationStatement,
    Node,
    Not,
    Ref,
    Routing,
    Rule,
    Service,
    iter_atoms,
    iter_refs,
)
from clauseguard.reading.amend import Override
from clauseguard.reading.evaluate.kleene import MET, NOT_MET, UNKNOWN, Value, _Judged, k_or
from clauseguard.reading.evaluate.mapping import _DAYS
from clauseguard.reading.evaluate.results import UNPLACED, Evaluation, Outcome, RuleResult, RuleRole
from clauseguard.reading.evaluate.tree import TreeJudge, _walk
from clauseguard.reading.facts import FactSheet
from clauseguard.reading.lexicon import Lexicon, default_lexicon
from clauseguard.reading.references import References, renamed


def evaluate(
    criteria: Criteria,
    facts: FactSheet,
    lexicon: Lexicon | None = None,
    designations: Iterable[DesignationStatement] = (),
    overrides: Iterable[Override] = (),
    references: References | None = None,
    here: str = "",
) -> Evaluation:
    """Evaluate a clause's criteria against a request's facts.

    `designations`: statements from other clauses of the same document ("X is designated
    investigational"); `overrides`: rider amendments resolved against this clause (`amend.py`): a
    waived criterion counts as met and says so, a replaced one is judged by the rider's terms.
    """
    refs = references if references is not None else References.of([(here, criteria)])
    return _Evaluator(criteria, facts, lexicon or default_lexicon(), tuple(designations), tuple(overrides),
                      refs, here).run()


def rule_role(rule: Rule) -> RuleRole:
    """Exclusion (not covered / withheld), limit (a quantity, or a requirement a quantity triggers),
    or coverage criteria."""
    if rule.effect in ("not_covered", "withheld"):
        # "if criteria (1)-(2) are not met, the item will be denied" restates criteria; it is not an exclusion
        return "criteria" if _restates_criteria(rule.when) else "exclusion"
    if rule.effect == "limit" or any(isinstance(a, Count) for a in iter_atoms(rule.trigger)):
        return "limit"
    allowance = list(iter_atoms(rule.when))
    if rule.population is None and rule.trigger is None and allowance and all(isinstance(a, Count) for a in allowance):
        return "limit"  # "one pump is covered every 48 months": a frequency allowance, not a coverage criterion
    return "criteria"


def _restates_criteria(node: Node | None) -> bool:
    if isinstance(node, Not):
        return isinstance(node.child, Ref)
    if isinstance(node, AllOf):
        return any(_restates_criteria(c) for c in node.children)
    return False

def request_is(service: Service, facts: FactSheet, lexicon: Lexicon | None = None) -> Value:
    """Whether the request is for `service` (strict: an unknown code or concept gives unknown)."""
    return _Evaluator(Criteria(), facts, lexicon or default_lexicon(), ())._request_is(service)


class _Evaluator(TreeJudge):
    """A clause's criteria evaluated against a request's facts (`run`)."""

    # --- clause ------------------------------------------------------------------------------

    def run(self) -> Evaluation:
        rules = tuple(self._rule(rule) for rule in self.criteria.rules)
        outcome = self._combine(rules)
        missing: list[str] = []
        for r in rules:
            if r.outcome == "undecided" or outcome == "undecided":
                for m in r.missing:
                    if m not in missing:
                        missing.append(m)
        reasons = tuple(reason for r in rules for reason in r.reasons)
        own = [a.id for rule in self.criteria.rules for a in self._rule_atoms(rule) if a.id in self.results]
        referred = [i for i in self.results if "#" in i]  # criteria a reference named, where they live
        atoms = tuple(self.results[i] for i in dict.fromkeys([*own, *referred]))
        return Evaluation(outcome, rules, atoms, tuple(missing), reasons, self.lex.fingerprint, tuple(self.rests_on))

    @staticmethod
    def _rule_atoms(rule: Rule) -> list[Atom]:
        out: list[Atom] = []
        for part in (rule.population, rule.trigger, rule.when):
            out.extend(iter_atoms(part))
        return out

    @staticmethod
    def _combine(rules: tuple[RuleResult, ...]) -> Outcome:
        """A rule that excludes or fails decides (false AND unknown = false); else an undecided one
        leaves the clause undecided; else a covering rule covers."""
        outcomes = [r.outcome for r in rules]
        if "not_covered" in outcomes:
            return "not_covered"
        if "undecided" in outcomes:
            return "undecided"
        if "covered" in outcomes:
            return "covered"
        return "not_applicable"

    def _rule(self, rule: Rule) -> RuleResult:
        result = self._rule_outcome(rule)
        narrows = tuple(dict.fromkeys(r.clause for r in iter_refs(rule.when) if r.clause and r.clause != self.here))
        starts = [(a.value, _window_days(a)) for a in iter_atoms(rule.trigger)
                  if isinstance(a, Count) and a.comparator in (">", ">=")]
        beyond = starts[0] if starts else None
        caps = tuple((a.value, _window_days(a)) for a in iter_atoms(rule.when)
                     if isinstance(a, Count) and a.comparator in ("<=", "<"))
        unstated = {r.missing for a in iter_atoms(rule.when) if isinstance(a, Count)
                    for r in [self.results.get(a.id)] if r is not None and r.status == UNKNOWN and r.fact is None}
        count_unstated = result.outcome == "undecided" and bool(result.missing) and set(result.missing) <= unstated
        unplaced = result.outcome == "undecided" and any(
            r is not None and r.status == UNKNOWN and r.note == UNPLACED
            for a in iter_atoms(rule.when) if isinstance(a, Count) for r in [self.results.get(a.id)])
        return RuleResult(**{**result.__dict__, "role": rule_role(rule), "narrows": narrows, "beyond": beyond,
                             "caps": caps, "count_unstated": count_unstated, "count_unplaced": unplaced})

    def _rule_outcome(self, rule: Rule) -> RuleResult:
        subject = self._subject_match(rule.subject) if rule.subject is not None else MET
        reasons: list[str] = []
        targets = [a for a in iter_atoms(rule.when) if isinstance(a, Service)]
        routed_request = subject != MET and any(self._request_is(t) == MET for t in targets)
        if rule.effect in ("not_covered", "withheld") and subject == MET and rule.subject is not None \
                and not (rule.population or rule.trigger or rule.when) and self._unplaced(rule.subject):
            # an exclusion whose subject the reader cannot place may be about part of the service only
            subject = UNKNOWN
        if subject == NOT_MET and not routed_request:
            assert rule.subject is not None
            return RuleResult(rule.effect, "not_applicable", rule.span, subject,
                              reasons=(f"the rule is about {rule.subject.label}; the request is for another service",))
        population = self._judge(rule.population, "population") if rule.population is not None else None
        if population is not None and population.value == NOT_MET:
            return RuleResult(rule.effect, "not_applicable", rule.span, subject, NOT_MET,
                              reasons=("the request states a population other than the one the rule names",))
        if population is not None and population.value == UNKNOWN:
            # a clause decides only for the population it names: unknown population, no decision ...
            judged = {}
            for name, part in (("trigger", rule.trigger), ("when", rule.when)):
                if part is not None:
                    judged[name] = self._judge(part, "exception" if name == "trigger" else "requirement")
            when_j = judged.get("when")
            if when_j is not None and when_j.routed_to and subject != NOT_MET and rule.effect == "covered":
                # ... except that an exception which routes the case elsewhere is present: whatever the
                # population, the requested service is not covered under this rule
                return RuleResult(rule.effect, "not_covered", rule.span, subject, UNKNOWN, when=NOT_MET,
                                  routed_to=when_j.routed_to,
                                  reasons=(f"the exception applies: {when_j.routed_to} is required instead, so the "
                                           "requested service is not covered under this rule",))
            return RuleResult(rule.effect, "undecided", rule.span, subject, UNKNOWN,
                              reasons=("the population the rule names is not established: "
                                       + ", ".join(population.missing),),
                              missing=tuple(population.missing))
        pop_value = population.value if population is not None else None
        if routed_request:
            return self._routed(rule, subject, pop_value, targets)
        trigger = self._judge(rule.trigger, "exception") if rule.trigger is not None else None
        if trigger is not None and trigger.value == NOT_MET:
            return RuleResult(rule.effect, "not_applicable", rule.span, subject, pop_value, NOT_MET,
                              reasons=("the occasion the rule names does not arise for this request",))
        if trigger is not None and trigger.value == UNKNOWN:
            return RuleResult(rule.effect, "undecided", rule.span, subject, pop_value, UNKNOWN,
                              reasons=("whether the rule's occasion arises is unknown",), missing=tuple(trigger.missing))
        trig_value = trigger.value if trigger is not None else None
        if subject == UNKNOWN:
            reasons.append("the requested service could not be matched to the rule's subject")
        if rule.effect in ("not_covered", "withheld"):
            when = self._judge(rule.when, "exception") if rule.when is not None else _Judged(MET)
            outcome: Outcome = {MET: "not_covered", NOT_MET: "not_applicable", UNKNOWN: "undecided"}[when.value]  # type: ignore[assignment]
            if subject == UNKNOWN and outcome == "not_covered":
                outcome = "undecided"
            if rule.effect == "withheld" and outcome == "not_covered":
                reasons.append("the clause withholds a standing decision (individual consideration)")
            return RuleResult(rule.effect, outcome, rule.span, subject, pop_value, trig_value, when.value,
                              reasons=tuple(reasons), missing=tuple(when.missing) + self._subject_missing(rule, subject))
        added = [renamed(o.amendment.replacement, o.rider_clause or "rider") for o in self.overrides
                 if o.action == "add" and o.amendment.replacement is not None]
        required = rule.when if not added else AllOf(tuple(n for n in (rule.when, *added) if n is not None))
        when = self._judge(required, "requirement") if required is not None else _Judged(MET)
        outcome = {MET: "covered", NOT_MET: "not_covered", UNKNOWN: "undecided"}[when.value]  # type: ignore[assignment]
        if when.routed_to:
            reasons.append(f"the exception applies: {when.routed_to} is required instead, so the requested "
                           "service is not covered under this rule")
        if subject == UNKNOWN and outcome != "not_covered":
            outcome = "undecided"
        missing = tuple(when.missing) + self._subject_missing(rule, subject)
        if rule.approval == "continuation" and rule.population is None and outcome != "undecided":
            # a criterion of continued cover with no population to tell a continuing member from a new one
            # ("Continued Coverage / every 6 months the practitioner sees ..."): it neither grants nor denies
            # until the request says which it is
            outcome = "undecided"
            missing += (f"whether the request continues cover already granted for {rule.subject.label if rule.subject else 'it'}",)
            reasons.append("a continued-coverage criterion: it applies only to a member whose cover is continuing")
        return RuleResult(rule.effect, outcome, rule.span, subject, pop_value, trig_value, when.value,
                          when.routed_to, tuple(reasons), missing)

    def _subject_missing(self, rule: Rule, subject: Value) -> tuple[str, ...]:
        if subject == UNKNOWN and rule.subject is not None:
            return (f"whether the requested service is {rule.subject.label}",)
        return ()

    def _routed(self, rule: Rule, subject: Value, population: Value | None, targets: list[Service]) -> RuleResult:
        """The request is for the service a routing UNLESS sends the case to: covered when the
        exception's condition is present."""
        conditions = [n for n in _walk(rule.when) if isinstance(n, Routing) and n.target is not None
                      and self._request_is(n.target) == MET]
        judged = [self._judge(n.condition, "exception") for n in conditions]
        value = k_or(j.value for j in judged)
        target = conditions[0].target
        assert target is not None
        if value == MET:
            return RuleResult(rule.effect, "covered", rule.span, subject, population, when=MET, routed_to=target.concept,
                              reasons=(f"the exception's condition is present, and it makes {target.concept} "
                                       "the required service: the request is for it",))
        if value == NOT_MET:
            return RuleResult(rule.effect, "not_applicable", rule.span, subject, population, when=NOT_MET,
                              reasons=(f"the rule routes to {target.concept} only when its exception applies",))
        missing = [m for j in judged for m in j.missing]
        return RuleResult(rule.effect, "undecided", rule.span, subject, population, when=UNKNOWN,
                          missing=tuple(missing))


def _window_days(count: Count) -> float:
    return count.per.length * _DAYS[count.per.unit]
