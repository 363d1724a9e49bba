"""The rule compiler's older import path: `clauseguard.reading.compiler` names what reading/compile/ holds.

reading.clause_criteria, reading/evaluate.py, models/assist.py, the test doubles (testing.py) and the
tests import the compiler from here; the code lives in reading/compile/, whose docstring maps its
modules. Nothing is defined here.
"""

from __future__ import annotations

from clauseguard.corpus.criteria import Atom
from clauseguard.reading.compile import compile_clause, criteria_for_clause, refusal_reasons
from clauseguard.reading.compile.conditions import AtomReader as AtomReader
from clauseguard.reading.compile.patterns import GRAMMAR_WORDS as GRAMMAR_WORDS
from clauseguard.reading.grammar.result import Refusal, Unread

__all__ = ["Refusal", "Unread", "compile_clause", "criteria_for_clause", "refusal_reasons", "Atom"]
