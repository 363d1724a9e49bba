"""Reading: criteria trees from policy-as-code or clause prose, facts from a request, and their evaluation.

Pure, deterministic code over the lexicon data files; it never decides a gate and never touches the
corpus store, the network or a model.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the grammar, the lexicon and the criteria model load on first use: search reads values
    # through reading.stated and needs none of them (importing this package cost a search 0.3 s)
    from clauseguard.corpus.criteria import Criteria
    from clauseguard.reading.grammar import Refusal
    from clauseguard.reading.lexicon import Lexicon

READER_ENV = "CLAUSEGUARD_READER"


def clause_criteria(
    clause: Any, lexicon: Lexicon | None = None, authored: Mapping[str, Any] | None = None
) -> Criteria | Refusal:
    """A clause's criteria: an approved criteria revision when `authored` holds one for it (anything
    with `read(clause_text)`, clauseguard.authoring), else its own policy-as-code when the corpus gives
    it, else its prose read by the rule compiler (a clause that decides nothing has empty criteria)."""
    from clauseguard.corpus.criteria import Criteria, criteria_from_json
    from clauseguard.reading.grammar import read_clause
    from clauseguard.reading.lexicon import default_lexicon
    from clauseguard.reading.roles import clause_headings, section_role

    revision = authored.get(clause.id) if authored else None
    if revision is not None:
        return revision.read(clause.text)  # type: ignore[no-any-return]
    if getattr(clause, "criteria", None) is not None:
        return criteria_from_json(clause.criteria, clause.text)
    lex = lexicon or default_lexicon()
    headings = clause_headings(clause)
    if getattr(clause, "kind", None) is None and section_role(headings) is not None:
        return Criteria()  # "Definitions", "Policy History": decides nothing, whichever reader reads it
    mode = os.environ.get(READER_ENV, "legacy-first")
    if mode == "grammar":
        return read_clause(clause.text, getattr(clause, "kind", None), lex, headings).result
    from clauseguard.reading.compiler import compile_clause as legacy

    old = legacy(clause.text, lex)
    if mode == "legacy":
        return old
    if isinstance(old, Criteria):  # "legacy-first"
        return old
    new = read_clause(clause.text, getattr(clause, "kind", None), lex, headings).result
    return new if isinstance(new, Criteria) else old
