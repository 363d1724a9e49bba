"""The search request: a question over the terms that govern a contract or a plan on a date.

`target` resolves what governs (through clauseguard.versions), `parts` answers one question part
(values, conditions, precedence) into the types of `answers`, `release` holds back a settled part
another passage in scope may govern, `request` composes the response and re-checks every source cold.
"""

from clauseguard.search.answers import PartAnswer, Precedence
from clauseguard.search.parts import SUBJECT_SHARE
from clauseguard.search.request import (
    ESCALATE,
    NO_ACTION,
    NO_EVIDENCE,
    answer_over,
    evaluate_retrieval,
    search,
    verify_sources,
)
from clauseguard.search.target import GoverningCodes, Scope, Target, resolve_target

__all__ = [
    "ESCALATE", "NO_ACTION", "NO_EVIDENCE", "SUBJECT_SHARE", "GoverningCodes", "PartAnswer", "Precedence", "Scope",
    "Target", "answer_over", "evaluate_retrieval", "resolve_target", "search", "verify_sources",
]
