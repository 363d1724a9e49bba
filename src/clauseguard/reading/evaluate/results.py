"""What an evaluation returns: each criterion's value and the fact it was mapped to, each rule's
outcome, and the clause's answer. Plain frozen records: nothing here evaluates.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from clauseguard.corpus.criteria import Span
from clauseguard.reading.evaluate.kleene import Value

Role = Literal["population", "requirement", "alternative", "exception"]
Outcome = Literal["covered", "not_covered", "undecided", "not_applicable"]


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
# the note on a count the request's prior use leaves open ("status post gastric bypass" against a limit per
# 12 months): such a limit is not left to billing
UNPLACED: Final = "a prior one the request names but does not date or count"


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
    # other clauses whose criteria this rule restates by reference ("when the basic criteria of ... are met
    # and ..."): for its own subject it is the narrower path, and they do not cover that subject alone
    narrows: tuple[str, ...] = ()
    # the rule's occasion is a quantity beyond a bound ("over 50 sensors a month are covered
    # when ..."): (the bound, its window in days), the conditions for exceeding a limit at that bound
    beyond: tuple[float, float] | None = None
    # a limit rule's own caps: (the most allowed, its window in days)
    caps: tuple[tuple[float, float], ...] = ()
    # undecided only because the request states no amount or prior use to hold against the rule's counts
    count_unstated: bool = False
    # undecided because the request states prior use the rule's counts cannot place ("status post gastric
    # bypass", "a second session this week" against a 60-minute-session limit): the limit is not left to billing
    count_unplaced: bool = False


@dataclass(frozen=True)
class Evaluation:
    """The clause's answer for the request: covered / not_covered / undecided / not_applicable."""

    outcome: Outcome
    rules: tuple[RuleResult, ...]
    atoms: tuple[AtomResult, ...]
    missing_facts: tuple[str, ...]
    reasons: tuple[str, ...]
    lexicon_fingerprint: str
    # exceptions that decided the answer on the narrative's word alone ("hypoglycemia unawareness
    # waives the fingerstick requirement"): the gate sends such an answer to a person (gate.py)
    rests_on: tuple[str, ...] = ()
