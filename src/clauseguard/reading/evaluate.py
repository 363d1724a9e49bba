"""Strong Kleene evaluation of criteria against one request's facts, by the design's reading rules.

It maps every criterion to its fact (or names it missing) and says which clause decides; it never sets
a gate: that is the engine's pure function over what this returns.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Final, Literal

from clauseguard.corpus.criteria import (
    Age,
    AllOf,
    Amount,
    AnyOf,
    AtLeast,
    Atom,
    Condition,
    Count,
    Criteria,
    Designation,
    DesignationStatement,
    Documentation,
    Duration,
    Event,
    Measure,
    Node,
    Not,
    Period,
    Prescriber,
    Ref,
    Routing,
    Rule,
    Service,
    Span,
    Tenure,
    Treatment,
    Waiver,
    iter_atoms,
)
from clauseguard.reading.amend import Override
from clauseguard.reading.compiler import GRAMMAR_WORDS
from clauseguard.reading.facts import (
    AgeFact,
    ConditionFact,
    DocumentationFact,
    FactSheet,
    MeasureFact,
    QuantityFact,
    RelativeFact,
    ServiceFact,
    TenureFact,
    TherapyFact,
)
from clauseguard.reading.grammar import Refusal, Unread
from clauseguard.reading.lexicon import Lexicon, default_lexicon, normalise, tokenize
from clauseguard.reading.references import References, renamed

Value = Literal["met", "not_met", "unknown"]
Role = Literal["population", "requirement", "alternative", "exception"]
Outcome = Literal["covered", "not_covered", "undecided", "not_applicable"]
MET: Final = "met"
NOT_MET: Final = "not_met"
UNKNOWN: Final = "unknown"
_DAYS: Final[dict[str, float]] = {
    "hour": 1 / 24, "day": 1.0, "week": 7.0, "month": 30.4375, "year": 365.25,
    "calendar_year": 365.25, "contract_year": 365.25, "policy_year": 365.25, "benefit_year": 365.25,
    "lifetime": math.inf,
    # occasions, not lengths of time: never compared with a window of days
    "session": math.nan, "episode": math.nan,
}
# Atom kinds whose facts every request has some value of (a number, a duration, a document): left
# unstated they are unknown even as alternatives; presence-type atoms (conditions, treatments) that a
# request does not present are absent when they are alternatives.
_VALUE_KINDS: Final = frozenset({"measure", "duration", "age", "count", "documentation", "tenure", "amount"})
# Atom kinds that state something of a person: when the criterion's own words say the person is a
# relative ("identified in a blood relative", "a family history of"), the member's facts never answer it.
_PERSON_KINDS: Final = frozenset({"condition", "documentation", "age", "measure", "duration", "treatment"})
# Cue lists whose words say how something is stated (negated, hedged, documented, past, whose), not what:
# set aside, with the grammar words, when a statement about a relative is matched by its words.
_HOW_CUES: Final = ("negation_before", "negation_after", "hedge_before", "hedge_after", "suspicion",
                    "high_probability", "confirmed", "history", "documented", "evidence", "evidence_forward",
                    "service_history", "past_value", "other_experiencer", "scope_breaks")


@dataclass(frozen=True)
class AtomResult:
    """One criterion: its clause span, its role, met / not_met / unknown, and the fact it was mapped to."""

    atom_id: str
    kind: str
    label: str
    clause_span: Span
    role: Role
    status: Value
    fact: str | None = None  # the fact in words ("fingerstick tests 2 per day")
    narrative_span: Span | None = None
    source: str | None = None  # "narrative", "code:E10.9", "procedure:A9276", "clause"
    missing: str | None = None  # the missing fact, named, when status is unknown
    waived: bool = False
    note: str = ""


RuleRole = Literal["exclusion", "limit", "criteria"]


@dataclass(frozen=True)
class RuleResult:
    """What one rule of the clause says for this request, and why."""

    effect: str
    outcome: Outcome
    span: Span
    subject: Value
    population: Value | None = None
    trigger: Value | None = None
    when: Value | None = None
    routed_to: str | None = None
    reasons: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()
    role: RuleRole = "criteria"


@dataclass(frozen=True)
class Evaluation:
    """The clause's answer for the request: covered / not_covered / undecided / not_applicable."""

    outcome: Outcome
    rules: tuple[RuleResult, ...]
    atoms: tuple[AtomResult, ...]
    missing_facts: tuple[str, ...]
    reasons: tuple[str, ...]
    lexicon_fingerprint: str


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


def _bears_on(unread: Unread, facts: FactSheet, lexicon: Lexicon) -> bool:
    """An unreadable sentence bears on the request unless what was read of it places it apart: it is
    about another service, or for a population the request does not present (a clause decides only
    for the population it names)."""
    if unread.subject is not None and request_is(unread.subject, facts, lexicon) == NOT_MET:
        return False
    if unread.population is not None:
        judged = _Evaluator(Criteria(), facts, lexicon, ())._judge(unread.population, "population")
        if judged.value == NOT_MET:
            return False
    return True


def request_is(service: Service, facts: FactSheet, lexicon: Lexicon | None = None) -> Value:
    """Whether the request is for `service` (strict: an unknown code or concept gives unknown)."""
    return _Evaluator(Criteria(), facts, lexicon or default_lexicon(), ())._request_is(service)


# --- which clause decides ----------------------------------------------------------------------


@dataclass(frozen=True)
class ClauseReading:
    """One governing clause as read for a request: its evaluation, or the compiler's refusal."""

    clause_id: str
    result: Evaluation | Refusal


@dataclass(frozen=True)
class Decision:
    """What the governing clauses say together, which of them decided, and what bars a determination."""

    outcome: Literal["covered", "not_covered", "undecided", "no_clause"]
    deciding: tuple[str, ...]
    missing_facts: tuple[str, ...] = ()
    unreadable: tuple[str, ...] = ()  # refused clauses that bear on the request: they call for REVIEW
    conflict: bool = False  # applicable criteria disagree
    reasons: tuple[str, ...] = ()


def decide(readings: Iterable[ClauseReading], facts: FactSheet, quantity_question: bool = False,
           lexicon: Lexicon | None = None) -> Decision:
    """The design's 'which clause decides': an applicable exclusion beats criteria; a limitation decides
    a quantity or frequency question (or one whose occasion the request presents) without re-checking
    the coverage criteria; otherwise the criteria clauses for the member's population decide."""
    lex = lexicon or default_lexicon()
    readings = list(readings)
    unreadable = []
    for reading in readings:
        if isinstance(reading.result, Refusal):
            if any(_bears_on(u, facts, lex) for u in reading.result.unread):
                unreadable.append(reading.clause_id)
    rules = [(r.clause_id, rule) for r in readings if isinstance(r.result, Evaluation) for rule in r.result.rules]

    def pick(role: RuleRole, outcome: Outcome) -> list[tuple[str, RuleResult]]:
        return [(c, r) for c, r in rules if r.role == role and r.outcome == outcome]

    def missing(found: list[tuple[str, RuleResult]]) -> tuple[str, ...]:
        return tuple(dict.fromkeys(m for _, r in found for m in r.missing))

    def ids(found: list[tuple[str, RuleResult]]) -> tuple[str, ...]:
        return tuple(dict.fromkeys(c for c, _ in found))

    excluded = pick("exclusion", "not_covered")
    if excluded:
        return Decision("not_covered", ids(excluded), (), tuple(unreadable),
                        reasons=("an applicable exclusion decides",))
    limit_hits = pick("limit", "not_covered")
    limit_ok = pick("limit", "covered")
    limit_open = pick("limit", "undecided")
    triggered = any(r.trigger == MET for _, r in rules if r.role == "limit")
    if limit_hits:
        return Decision("not_covered", ids(limit_hits), (), tuple(unreadable),
                        reasons=("a limitation the request exceeds decides",))
    if quantity_question or triggered:
        if limit_open:
            return Decision("undecided", ids(limit_open), missing(limit_open), tuple(unreadable),
                            reasons=("the limitation cannot be checked against the request",))
        if limit_ok:
            return Decision("covered", ids(limit_ok), (), tuple(unreadable),
                            reasons=("the limitation decides the quantity question",))
    covered = pick("criteria", "covered")
    failed = pick("criteria", "not_covered")
    open_ = pick("criteria", "undecided") + pick("exclusion", "undecided")
    # criteria clauses are alternative paths to coverage: one that covers decides (true OR unknown is
    # true); a failed one decides only when no other path is still open (false OR unknown is unknown)
    if covered and not pick("exclusion", "undecided"):
        return Decision("covered", ids(covered), (), tuple(unreadable), conflict=bool(failed),
                        reasons=("the coverage criteria are met",))
    if open_:
        return Decision("undecided", ids(open_), missing(open_), tuple(unreadable),
                        reasons=("a required fact is unknown",))
    if failed:
        return Decision("not_covered", ids(failed), (), tuple(unreadable),
                        reasons=("the coverage criteria are not met",))
    return Decision("no_clause", (), (), tuple(unreadable),
                    reasons=("no clause of the governing documents applies to this request",))


# --- Kleene ------------------------------------------------------------------------------------


def k_and(values: Iterable[Value]) -> Value:
    vals = list(values)
    if NOT_MET in vals:
        return NOT_MET
    if UNKNOWN in vals:
        return UNKNOWN
    return MET


def k_or(values: Iterable[Value]) -> Value:
    vals = list(values)
    if MET in vals:
        return MET
    if UNKNOWN in vals:
        return UNKNOWN
    return NOT_MET


def k_at_least(n: int, values: Iterable[Value]) -> Value:
    """At least n of the values hold: met once n are met, not met once too few can still be."""
    vs = list(values)
    met = vs.count(MET)
    unknown = vs.count(UNKNOWN)
    if met >= n:
        return MET
    if met + unknown < n:
        return NOT_MET
    return UNKNOWN


def k_not(value: Value) -> Value:
    return {MET: NOT_MET, NOT_MET: MET, UNKNOWN: UNKNOWN}[value]  # type: ignore[return-value]


@dataclass
class _Judged:
    value: Value
    missing: list[str] = field(default_factory=list)
    routed_to: str | None = None


def _interval(comparator: str, value: float) -> tuple[float, bool, float, bool]:
    if comparator == ">=":
        return value, True, math.inf, False
    if comparator == ">":
        return value, False, math.inf, False
    if comparator == "<=":
        return -math.inf, False, value, True
    if comparator == "<":
        return -math.inf, False, value, False
    return value, True, value, True


def compare(fact_comparator: str, fact_value: float, comparator: str, threshold: float) -> Value:
    """Whether every value the fact allows meets `comparator threshold` (met), none does (not_met), or some do."""
    lo, lo_in, hi, hi_in = _interval(fact_comparator, fact_value)
    eps = 1e-9
    if comparator == ">=":
        if lo > threshold - eps and (lo_in or lo > threshold - eps):
            return MET if lo >= threshold - eps else UNKNOWN
        if hi < threshold - eps or (abs(hi - threshold) < eps and not hi_in):
            return NOT_MET
        return UNKNOWN
    if comparator == ">":
        if lo > threshold + eps or (abs(lo - threshold) < eps and not lo_in):
            return MET
        if hi <= threshold + eps:
            return NOT_MET
        return UNKNOWN
    if comparator == "<=":
        if hi <= threshold + eps:
            return MET
        if lo > threshold + eps or (abs(lo - threshold) < eps and not lo_in):
            return NOT_MET
        return UNKNOWN
    if comparator == "<":
        if hi < threshold - eps or (abs(hi - threshold) < eps and not hi_in):
            return MET
        if lo >= threshold - eps:
            return NOT_MET
        return UNKNOWN
    if abs(lo - threshold) < eps and abs(hi - threshold) < eps:
        return MET
    if hi < threshold - eps or lo > threshold + eps:
        return NOT_MET
    return UNKNOWN


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


# --- the evaluator -----------------------------------------------------------------------------


class _Evaluator:
    def __init__(self, criteria: Criteria, facts: FactSheet, lexicon: Lexicon,
                 designations: tuple[DesignationStatement, ...], overrides: tuple[Override, ...] = (),
                 references: References | None = None, here: str = "") -> None:
        self.criteria = criteria
        self.references = references if references is not None else References.of([(here, criteria)])
        self.here = here
        self.overrides = overrides
        self.rider_waived = {i: o for o in overrides if o.action == "waive" for i in o.atom_ids}
        self.facts = facts
        self.lex = lexicon
        self.designations = (*criteria.designations, *designations)
        self.results: dict[str, AtomResult] = {}
        self.requested = [f for f in facts.of(ServiceFact) if f.requested]
        self.generic = frozenset(lexicon.phrases("phrasing.yaml", "generic_services"))
        self.opposites = {str(k): str(v) for k, v in lexicon.data["cues.yaml"].get("qualifier_opposites", {}).items()}
        self.unknown_dx = [c for c in facts.unknown_codes if not self._is_procedure(c)]
        self.relative_cue = lexicon.pattern(lexicon.phrases("cues.yaml", "other_experiencer"),
                                            "cue-other_experiencer")

    @staticmethod
    def _is_procedure(code: str) -> bool:
        return not (len(code) >= 3 and code[0].isalpha() and code[1].isdigit() and ("." in code or len(code) == 3))

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
        return Evaluation(outcome, rules, atoms, tuple(missing), reasons, self.lex.fingerprint)

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
        return RuleResult(**{**result.__dict__, "role": rule_role(rule)})

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
        return RuleResult(rule.effect, outcome, rule.span, subject, pop_value, trig_value, when.value,
                          when.routed_to, tuple(reasons), tuple(when.missing) + self._subject_missing(rule, subject))

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

    # --- structure ---------------------------------------------------------------------------

    def _judge(self, node: Node | None, role: Role, waived: frozenset[str] = frozenset()) -> _Judged:
        if node is None:
            return _Judged(MET)
        if isinstance(node, AllOf):
            parts = [self._judge(c, role, waived) for c in node.children]
            value = k_and(p.value for p in parts)
            return _Judged(value, self._missing(parts, value), _first_route(parts))
        if isinstance(node, AnyOf):
            child_role: Role = "alternative" if role == "requirement" else role
            parts = [self._judge(c, child_role, waived) for c in node.children]
            value = k_or(p.value for p in parts)
            return _Judged(value, self._missing(parts, value), _first_route(parts))
        if isinstance(node, AtLeast):
            child_role = "alternative" if role == "requirement" else role
            parts = [self._judge(c, child_role, waived) for c in node.children]  # type: ignore[arg-type]
            value = k_at_least(node.n, [p.value for p in parts])
            return _Judged(value, self._missing(parts, value), _first_route(parts))
        if isinstance(node, Ref):
            target, where = self.references.resolve(node, self.here)
            if target is None:
                return _Judged(UNKNOWN, [where])
            # what a reference names is required where it is defined, whatever words surround it
            return self._judge(target, "requirement", waived)
        if isinstance(node, Not):
            inner = self._judge(node.child, role, waived)
            return _Judged(k_not(inner.value), inner.missing if inner.value == UNKNOWN else [])
        if isinstance(node, Waiver):
            cond = self._judge(node.condition, "exception", waived)
            lifted = self._judge(node.body, role, waived | frozenset(node.waives))
            plain = self._judge(node.body, role, waived)
            if cond.value == MET:
                for atom_id in node.waives:
                    self._mark_waived(atom_id)
                return _Judged(lifted.value, lifted.missing)
            if cond.value == NOT_MET:
                return _Judged(plain.value, plain.missing)
            value = k_or([k_and([UNKNOWN, lifted.value]), k_and([UNKNOWN, plain.value])])
            return _Judged(value, (cond.missing + plain.missing) if value == UNKNOWN else [])
        if isinstance(node, Routing):
            cond = self._judge(node.condition, "exception", waived)
            body = self._judge(node.body, role, waived) if node.body is not None else _Judged(MET)
            if node.target is not None:
                self._record(node.target, role, self._request_is(node.target), note="the service the exception routes to")
            if cond.value == MET:
                route = node.target.concept if node.target is not None else "another rule"
                return _Judged(NOT_MET, [], route)
            value = k_and([body.value, k_not(cond.value)])
            missing = (body.missing if body.value == UNKNOWN else []) + (cond.missing if cond.value == UNKNOWN else [])
            return _Judged(value, missing if value == UNKNOWN else [])
        return self._atom(node, role, waived)

    @staticmethod
    def _missing(parts: list[_Judged], value: Value) -> list[str]:
        if value != UNKNOWN:
            return []
        out: list[str] = []
        for p in parts:
            if p.value == UNKNOWN:
                out.extend(m for m in p.missing if m not in out)
        return out

    def _mark_waived(self, atom_id: str) -> None:
        result = self.results.get(atom_id)
        if result is not None:
            self.results[atom_id] = AtomResult(**{**result.__dict__, "waived": True,
                                                  "note": "waived: the exception's condition is present"})

    # --- atoms -------------------------------------------------------------------------------

    def _atom(self, atom: Atom, role: Role, waived: frozenset[str]) -> _Judged:
        if atom.id in self.results:
            result = self.results[atom.id]
        else:
            for override in self.overrides:
                substitute = override.replacement_for(atom)
                if substitute is not None:
                    atom = substitute
                    break
            reader = {
                Condition: self._condition, Measure: self._measure, Duration: self._duration,
                Treatment: self._treatment, Age: self._age, Count: self._count,
                Tenure: self._tenure, Amount: self._amount, Documentation: self._documentation, Designation: self._designation, Service: self._service,
                Prescriber: self._prescriber, Event: self._event,
            }[type(atom)]
            if self._of_relative(atom):
                result = self._relative(atom, role, reader)  # type: ignore[arg-type]
            else:
                result = reader(atom, role)  # type: ignore[operator]
            if any(atom.id in o.atom_ids and o.action == "replace" for o in self.overrides):
                rider = next(o.rider_clause for o in self.overrides if atom.id in o.atom_ids)
                result = AtomResult(**{**result.__dict__, "note": f"as amended by rider {rider or ''}".strip()})
            if atom.id in self.rider_waived:
                rider = self.rider_waived[atom.id].rider_clause
                result = AtomResult(**{**result.__dict__, "waived": True,
                                       "note": f"waived by rider {rider or ''}".strip()})
            self.results[atom.id] = result
        if atom.id in waived or atom.id in self.rider_waived:
            return _Judged(MET)
        return _Judged(result.status, [result.missing] if result.status == UNKNOWN and result.missing else [])

    def _record(self, atom: Atom, role: Role, status: Value, fact: str | None = None, span: Span | None = None,
                source: str | None = None, missing: str | None = None, note: str = "") -> AtomResult:
        result = AtomResult(atom.id, atom.kind, atom.label, atom.span, role, status, fact, span, source,
                            missing if status == UNKNOWN else None, False, note)
        self.results[atom.id] = result
        return result

    def _unstated(self, atom: Atom, role: Role, missing: str) -> AtomResult:
        """What is not stated: a requirement is unknown; an unpresented alternative and an unstated
        exception are absent (values a request always has stay unknown as alternatives)."""
        if role == "alternative" and not self._named_by_lexicon(atom):
            # the reader looks for a term the lexicon lacks only by its words: a note may state it in
            # others, so an alternative it cannot find stays open rather than absent
            return self._record(atom, role, UNKNOWN, missing=missing, note="a term the lexicon does not know")
        if role == "exception" or (role == "alternative" and atom.kind not in _VALUE_KINDS):
            if role != "exception" and self.unknown_dx and atom.kind == "condition":
                return self._record(atom, role, UNKNOWN, missing=missing,
                                    note="a diagnosis code the lexicon does not know may state it")
            return self._record(atom, role, NOT_MET, note="not presented by the request (absent)")
        return self._record(atom, role, UNKNOWN, missing=missing, note="not stated")

    def _named_by_lexicon(self, atom: Atom) -> bool:
        """Whether the criterion names something the lexicon knows (or carries codes to match)."""
        if getattr(atom, "codes", ()):
            return True
        name = next((getattr(atom, n) for n in ("concept", "therapy", "quantity", "item") if hasattr(atom, n)), None)
        if not isinstance(name, str):
            return True  # ages, amounts, tenures: the request states them or not
        return self.lex.knows(name) or self.lex.concept_named(name) is not None or self.lex.quantity_named(name) is not None

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

    def _content_words(self, text: str) -> set[str]:
        plain = self.lex.derived("evaluate.plain_words", _plain_words)
        return {t.text for t in tokenize(normalise(text))
                if len(t.text) >= 3 and not t.text.isdigit() and t.text not in plain}

    def _related(self, fact_concept: str, wanted: str) -> str | None:
        """'narrower' when the fact names the wanted concept or a kind of it; 'broader' when the fact
        names something the wanted concept is a kind of; None otherwise."""
        if fact_concept == wanted or self.lex.is_a(fact_concept, wanted):
            return "narrower"
        if self.lex.is_a(wanted, fact_concept):
            return "broader"
        if wanted not in self.lex.concepts:
            # a clause's word for a concept the lexicon lists as a term of it ("measurable goals")
            canonical = self.lex.concept_named(wanted)
            if canonical is not None and canonical != wanted:
                return self._related(fact_concept, canonical)
        return None

    def _condition(self, atom: Condition, role: Role) -> AtomResult:
        facts = self.facts.of(ConditionFact)
        related = [(f, self._related(f.concept, atom.concept)) for f in facts]
        related = [(f, r) for f, r in related if r is not None]
        narrative = [(f, r) for f, r in related if f.source == "narrative"]
        if narrative:
            # the narrative's explicit statement governs codes for the same condition
            code_conflicts = [(f, r) for f, r in related if f.source != "narrative" and f.status != "present"]
            related = narrative + code_conflicts
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
        for f, _rel in related:
            if f.status == "absent":
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

    @staticmethod
    def _describe_condition(f: ConditionFact) -> str:
        words = [] if f.certainty in ("stated",) else [f.certainty.replace("_", " ")]
        if f.severity:
            words.append(" to ".join(dict.fromkeys((f.severity[0], f.severity[-1]))))
        words.extend(f.qualifiers)
        words.append(f.concept)
        prefix = {"present": "", "absent": "no ", "unknown": "unknown: "}[f.status]
        return prefix + " ".join(words)

    def _measure(self, atom: Measure, role: Role) -> AtomResult:
        facts = [f for f in self.facts.of(MeasureFact) if self._related(f.quantity, atom.quantity) == "narrower"]
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
        verdicts: list[AtomResult] = []
        for f, rel in related:
            if f.status == "absent":
                if atom.comparator in (">", ">=") and atom.value > 0:
                    verdicts.append(self._record(atom, role, NOT_MET, f"no {f.therapy}", f.span, f.source,
                                                 note="the request states no such therapy"))
                continue
            if rel != "narrower" or ("contraindicated" in f.statuses and "treated" not in f.statuses):
                continue
            if not f.statuses and f.duration_days is None:
                continue  # only a denied status ("no contraindication to continuing")
            desc = f.therapy + (f" for {_num(round(f.duration_days / _DAYS[atom.unit], 2))} {atom.unit}(s)"
                                if f.duration_days is not None else "")
            if f.status == "unknown" or f.duration_days is None:
                verdicts.append(self._record(atom, role, UNKNOWN, desc, f.span, f.source,
                                             missing=f"duration of {atom.therapy}",
                                             note="hedged" if f.status == "unknown" else "duration not stated"))
                continue
            status = compare("==", f.duration_days, atom.comparator, needed_days)
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
        for f, _ in related:
            denied.update(f.denied)
            if f.status == "absent" and (never is None):
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

    def _age(self, atom: Age, role: Role) -> AtomResult:
        facts = [f for f in self.facts.of(AgeFact) if f.of == atom.of]
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
        for f in self.facts.of(QuantityFact):
            if not (f.item == atom.item or generic and f.item in self.generic or
                    self._related(f.item, atom.item) is not None or
                    (self._request_is_concept(atom.item) == MET and f.item in self.generic)):
                continue
            fact_days = f.per.length * _DAYS[f.per.unit]
            atom_days = atom.per.length * _DAYS[atom.per.unit]
            desc = f"{_num(f.value)} {f.item}(s) per {f.per.label}"
            if abs(fact_days - atom_days) < 0.5:
                return self._record(atom, role, compare("==", f.value, atom.comparator, atom.value), desc, f.span, f.source)
            if math.isfinite(atom_days) and fact_days > atom_days and atom.comparator in ("<=", "<"):
                # over a longer window the limit scales: a total above the scaled limit exceeds it
                scaled = atom.value * fact_days / atom_days
                return self._record(atom, role, compare("==", f.value, atom.comparator, scaled), desc, f.span, f.source,
                                    note=f"compared with {_num(round(scaled, 2))} per {f.per.label}")
            return self._record(atom, role, UNKNOWN, desc, f.span, f.source, missing=f"{atom.item} per {atom.per.label}",
                                note="stated over a window the limit cannot be read against")
        prior = self._prior_count(atom)
        if prior is not None:
            count, fact = prior
            total = count + 1  # the requested one counts too
            desc = f"{_num(count)} prior in the {atom.per.label} window, plus this request"
            return self._record(atom, role, compare("==", total, atom.comparator, atom.value), desc, fact.span, fact.source)
        return self._unstated(atom, role, f"prior {atom.item} in the last {atom.per.label}")

    def _prior_count(self, atom: Count) -> tuple[float, ServiceFact] | None:
        window_days = atom.per.length * _DAYS[atom.per.unit]
        for f in self.facts.of(ServiceFact):
            if f.requested:
                continue
            if f.concepts and not any(self._same_service(c, atom.item) for c in f.concepts):
                continue
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
                return (1.0 if f.ago_days <= window_days else 0.0), f
        return None

    def _same_service(self, concept: str, item: str) -> bool:
        if item in self.generic:
            return any(self._related(concept, c) is not None or self._related(c, concept) is not None
                       for r in self.requested for c in r.concepts) or not self.requested
        return self._related(concept, item) is not None or self._related(item, concept) is not None

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
        return self._unstated(atom, role, f"documentation of {atom.item}")

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

    # --- the requested service ---------------------------------------------------------------

    def _unplaced(self, service: Service) -> bool:
        return not service.codes and service.concept not in self.generic and not self.lex.knows(service.concept)

    def _subject_match(self, service: Service) -> Value:
        """Whether a rule is about the requested service. The governing document was chosen by the
        requested code, so only a subject the lexicon places apart from the request is another
        service; a subject or a code the lexicon cannot place is read as the document's service."""
        if not self.requested or service.concept in self.generic:
            return MET
        if not service.codes and (not self.lex.knows(service.concept)
                                  or all(not r.concepts for r in self.requested)):
            return MET
        return self._request_is(service)

    def _request_is(self, service: Service | None) -> Value:
        if service is None:
            return MET
        if not self.requested:
            return UNKNOWN
        values: list[Value] = []
        for r in self.requested:
            if service.codes and r.code is not None:
                values.append(MET if r.code in service.codes else NOT_MET)
                continue
            if service.concept in self.generic:
                values.append(MET)
                continue
            if not r.concepts or not self.lex.knows(service.concept):
                values.append(UNKNOWN)
                continue
            best: Value = NOT_MET
            for c in r.concepts:
                rel = self._related(c, service.concept)
                if rel == "narrower":
                    best = MET
                    break
                if rel == "broader":
                    best = UNKNOWN
            values.append(best)
        return k_or(values)

    def _request_is_concept(self, concept: str) -> Value:
        return self._request_is(Service("_", Span(0, 0, ""), concept))


def _specialty_words(text: str) -> list[str]:
    return [w for w in re.findall(r"[a-z]+", normalise(text)) if len(w) >= 5]


def _plain_words(lex: Lexicon) -> frozenset[str]:
    """Words that say how something is stated, never what: grammar words and the cue lists' words."""
    words = set(GRAMMAR_WORDS)
    for key in _HOW_CUES:
        for phrase in lex.phrases("cues.yaml", key):
            words.update(normalise(phrase).split())
    return frozenset(words)


def _walk(node: Node | None) -> list[Node]:
    if node is None:
        return []
    out: list[Node] = [node]
    if isinstance(node, AllOf | AnyOf):
        for c in node.children:
            out.extend(_walk(c))
    elif isinstance(node, Not):
        out.extend(_walk(node.child))
    elif isinstance(node, Waiver | Routing):
        out.extend(_walk(node.body))
        out.extend(_walk(node.condition))
    return out


def _first_route(parts: list[_Judged]) -> str | None:
    return next((p.routed_to for p in parts if p.routed_to), None)


__all__ = ["AtomResult", "ClauseReading", "Decision", "Evaluation", "Period", "RuleResult", "compare", "decide",
           "evaluate", "k_and", "k_not", "k_or", "request_is", "rule_role"]
