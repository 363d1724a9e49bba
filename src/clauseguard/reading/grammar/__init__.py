"""The rule compiler: policy structure as data (lark grammars + phrase files), lowered into criteria.

    blocks.lark / blocks.py       the layout: paragraphs, nested lists, joiner lines
    statement.lark / statement.py one sentence as a statement (effect, subject, conditions, exceptions)
    conditions.py                 how a condition's pieces combine (references, lists, and/or, not)
    atoms.py / values.py          one criterion as a typed atom, numbers with what they measure
    lower.py                      a clause's layout and statements as its criteria tree
    data/grammar/*.yaml           the words: phrases per house style, atom cues, value words

It never judges a request (reading/evaluate/ does) and never reads a clause's role (roles.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from clauseguard.corpus.criteria import Criteria, Span, criteria_from_json
from clauseguard.reading.grammar.lower import ClauseCompiler
from clauseguard.reading.grammar.result import Refusal, Unread
from clauseguard.reading.lexicon import Lexicon, default_lexicon
from clauseguard.reading.roles import DECIDING, ROLE_OF_KIND, Role, clause_role, section_role


@dataclass(frozen=True)
class Read:
    """A clause as the reader takes it: its role, and its criteria (or why it cannot be read whole).
    A clause that decides nothing has empty criteria, never a refusal."""

    role: Role
    result: Criteria | Refusal

    @property
    def deciding(self) -> bool:
        return self.role in DECIDING


def read_clause(text: str, kind: str | None = None, lexicon: Lexicon | None = None,
                headings: Sequence[str] = ()) -> Read:
    """The clause's role and criteria; `kind` (the corpus's, when given) fixes the role, else a section
    or article heading (`headings`) that names a role deciding nothing ("Definitions", "Policy History")."""
    fixed = ROLE_OF_KIND.get(kind or "other")
    if fixed is None:
        fixed = section_role(headings)  # type: ignore[assignment]
    if fixed is not None and fixed not in DECIDING:
        return Read(fixed, Criteria())
    compiler = ClauseCompiler(text, lexicon or default_lexicon(), headings)
    result = compiler.run()
    criteria = result if isinstance(result, Criteria) else None
    role = clause_role(kind, criteria, compiler.sentence_roles, compiler.heading)
    if isinstance(result, Refusal) and not result.unread:  # pragma: no cover - a refusal names what it could not read
        result = Criteria()
    if role not in DECIDING:
        return Read(role, Criteria(notes=criteria.notes if criteria is not None else ()))
    if criteria is not None and not (criteria.rules or criteria.amendments or criteria.designations or criteria.referenced):
        # a deciding clause of which nothing was placed: its sentences would otherwise decide nothing, silently
        spans = [n.span for n in criteria.notes if not (n.kind == "heading" and n.span.text.rstrip().endswith(":"))]
        if criteria.notes and not spans:
            return Read(role, result)  # a heading whose list is elsewhere ("HCPCS codes covered if ... are met:")
        spans = spans or [Span(0, len(text), text)]
        return Read(role, Refusal(tuple(Unread(sp, "a deciding sentence with no coverage statement the reader can place")
                                        for sp in spans)))
    return Read(role, result)


def compile_clause(text: str, lexicon: Lexicon | None = None) -> Criteria | Refusal:
    """Compile clause prose into criteria; any sentence it cannot read whole refuses the clause."""
    return read_clause(text, None, lexicon).result


def criteria_for_clause(clause: Any, lexicon: Lexicon | None = None) -> Criteria | Refusal:
    """The clause's own `criteria` (policy-as-code) when present, else the compiled prose."""
    if getattr(clause, "criteria", None) is not None:
        return criteria_from_json(clause.criteria, clause.text)
    return compile_clause(clause.text, lexicon)


__all__ = ["Read", "Refusal", "Unread", "compile_clause", "criteria_for_clause", "read_clause"]
