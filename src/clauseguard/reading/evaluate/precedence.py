"""Which clause decides among the governing clauses read for one request (their precedence): an
applicable exclusion, then a limitation, then the criteria for the member's population; a refused clause
that bears on the request calls for review. It never sets a gate: that is the engine's pure function
over what this returns.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from clauseguard.corpus.criteria import Criteria
from clauseguard.reading.evaluate.clause import _Evaluator, request_is
from clauseguard.reading.evaluate.kleene import MET, NOT_MET
from clauseguard.reading.evaluate.quantities import same_window
from clauseguard.reading.evaluate.results import Evaluation, Outcome, RuleResult, RuleRole
from clauseguard.reading.facts import FactSheet
from clauseguard.reading.grammar import Refusal, Unread
from clauseguard.reading.lexicon import Lexicon, default_lexicon


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
           lexicon: Lexicon | None = None, amount_asked: bool = False) -> Decision:
    """The design's 'which clause decides': an applicable exclusion beats criteria; a limitation decides
    a quantity or frequency question (or one whose occasion the request presents) without re-checking
    the coverage criteria; otherwise the criteria clauses for the member's population decide. A limit the
    request gives no amount or prior use for is left to billing, unless the question asks about a quantity
    or names a figure (`amount_asked`)."""
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
    # a coverage question whose request states no amount or prior use leaves a limit to be applied when the
    # item is billed: the limit does not decide it (a quantity question still asks for the amount)
    held = quantity_question or amount_asked
    limit_open = [(c, r) for c, r in pick("limit", "undecided") if held or not r.count_unstated]
    triggered = any(r.trigger == MET and (held or not r.count_unstated) or r.count_unplaced
                    for _, r in rules if r.role == "limit")
    if limit_hits:
        # what a policy allows beyond its limit, and on what conditions, decides a request beyond it
        # ... when it starts where an exceeded limit ends ("over 50 a month" after "up to 50 a month"; "beyond 10
        # visits, with progress notes" says nothing of a cap at 20)
        caps = [cap for _, r in limit_hits for cap in r.caps]
        beyond = [(c, r) for c, r in rules if r.effect == "covered" and r.beyond is not None and r.trigger == MET
                  and caps and all(_starts_at_or_past(r.beyond, cap) for cap in caps)]
        allowed = [(c, r) for c, r in beyond if r.outcome == "covered"]
        open_beyond = [(c, r) for c, r in beyond if r.outcome == "undecided"]
        if open_beyond:
            return Decision("undecided", ids(open_beyond), missing(open_beyond), tuple(unreadable),
                            reasons=("the conditions for exceeding the limitation cannot be checked",))
        if allowed:
            return Decision("covered", ids(allowed), (), tuple(unreadable),
                            reasons=("the conditions for exceeding the limitation are met",))
        return Decision("not_covered", ids(limit_hits + [r for r in beyond if r[1].outcome == "not_covered"]), (),
                        tuple(unreadable), reasons=("a limitation the request exceeds decides",))
    if quantity_question or triggered:
        if limit_open:
            return Decision("undecided", ids(limit_open), missing(limit_open), tuple(unreadable),
                            reasons=("the limitation cannot be checked against the request",))
        if limit_ok:
            return Decision("covered", ids(limit_ok), (), tuple(unreadable),
                            reasons=("the limitation decides the quantity question",))
    # a clause whose criteria another clause restates by reference and adds to, for the requested service
    # ("special-feature monitors are covered when the basic criteria are met and ..."), does not cover that
    # service on its own: the narrower clause decides it
    narrowed = {n for c, r in rules if r.role == "criteria" and r.subject == MET and r.outcome != "not_applicable"
                for n in r.narrows if n != c}
    covered = [(c, r) for c, r in pick("criteria", "covered") if c not in narrowed]
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


def _starts_at_or_past(start: tuple[float, float], cap: tuple[float, float]) -> bool:
    """Whether an allowance beyond `start` (amount, window in days) begins at or past a cap over a window
    read alike (a month is 28-31 days)."""
    (value, days), (cap_value, cap_days) = start, cap
    if same_window(days, cap_days):
        return value >= cap_value
    # the same bound over another window: "two a day" and "beyond 60 in any 30 days" (the external suite's CGM
    # limit, MHP-MP-0142 C4, writes its two sentences so)
    finite = all(math.isfinite(d) and d > 0 for d in (days, cap_days))
    return finite and value / days >= cap_value / cap_days
