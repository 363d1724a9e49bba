"""Reading: criteria trees from policy-as-code or clause prose, facts from a request, and their evaluation.

Pure, deterministic code over the lexicon data files; it never decides a gate and never touches the
corpus store, the network or a model.
"""

from __future__ import annotations

import os
from typing import Any

from clauseguard.corpus.criteria import Criteria, criteria_from_json
from clauseguard.reading.grammar import Refusal, read_clause
from clauseguard.reading.lexicon import Lexicon, default_lexicon

READER_ENV = "CLAUSEGUARD_READER"


def clause_criteria(clause: Any, lexicon: Lexicon | None = None) -> Criteria | Refusal:
    """A clause's criteria: its own policy-as-code when the corpus gives it, else its prose read by
    the rule compiler (a clause that decides nothing has empty criteria)."""
    if getattr(clause, "criteria", None) is not None:
        return criteria_from_json(clause.criteria, clause.text)
    lex = lexicon or default_lexicon()
    mode = os.environ.get(READER_ENV, "legacy-first")
    if mode == "grammar":
        return read_clause(clause.text, getattr(clause, "kind", None), lex).result
    from clauseguard.reading.compiler import compile_clause as legacy

    old = legacy(clause.text, lex)
    if mode == "legacy":
        return old
    if isinstance(old, Criteria):  # "legacy-first"
        return old
    new = read_clause(clause.text, getattr(clause, "kind", None), lex).result
    return new if isinstance(new, Criteria) else old
