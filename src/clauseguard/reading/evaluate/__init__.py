"""Strong Kleene evaluation of criteria against one request's facts, by the design's reading rules.

It maps every criterion to its fact (or names it missing) and says which clause decides; it never sets
a gate: that is the engine's pure function over what this returns.

One module per step of the data flow: each criterion is read against the facts by the reader of its
kind (mapping.py holds what they share; conditions, quantities, therapies, documents, services,
relatives), values combine up the criteria tree by three-valued logic (kleene.py, tree.py), a clause's
rules give its outcome (clause.py), and the governing clauses together say which one decides
(precedence.py); results.py holds the records returned. This module only re-exports them.
"""

from __future__ import annotations

from clauseguard.corpus.criteria import Period
from clauseguard.reading.evaluate.clause import _Evaluator as _Evaluator
from clauseguard.reading.evaluate.clause import evaluate, request_is, rule_role
from clauseguard.reading.evaluate.kleene import MET as MET
from clauseguard.reading.evaluate.kleene import NOT_MET as NOT_MET
from clauseguard.reading.evaluate.kleene import UNKNOWN as UNKNOWN
from clauseguard.reading.evaluate.kleene import Value as Value
from clauseguard.reading.evaluate.kleene import _Judged as _Judged
from clauseguard.reading.evaluate.kleene import compare, k_and, k_not, k_or
from clauseguard.reading.evaluate.kleene import k_at_least as k_at_least
from clauseguard.reading.evaluate.precedence import ClauseReading, Decision, decide
from clauseguard.reading.evaluate.results import AtomResult, Evaluation, RuleResult
from clauseguard.reading.evaluate.results import Outcome as Outcome
from clauseguard.reading.evaluate.results import Role as Role
from clauseguard.reading.evaluate.results import RuleRole as RuleRole

__all__ = ["AtomResult", "ClauseReading", "Decision", "Evaluation", "Period", "RuleResult", "compare", "decide",
           "evaluate", "k_and", "k_not", "k_or", "request_is", "rule_role"]
