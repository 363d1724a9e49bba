"""The rule compiler: clause prose -> criteria tree, or an honest refusal naming what it could not read.

Grammar here, words from the lexicon; a word it cannot place refuses the sentence, so a clause compiles
whole or not at all. It never guesses and never keys a rule on any corpus's ids or sentences.

One reader per module, each building on the ones below it (top: what a clause's text meets first):

    driver.py             the clause -> sentences -> the first shape that reads each -> criteria or a refusal
    amendments.py         a rider keeping, waiving or replacing another document's requirements
    group_terms.py        waiting periods, what the contract does not cover
    rules.py              a rule sentence: its effect, the words around it, caps, the finished rule
    before_effect.py      population prefix, subject, the occasion ('More than two X per ...', 'X for Y')
    after_effect.py       remarks, 'when ...', 'for members ...', counts and caps, then the exception
    exceptions.py         ', unless ...' as a waiver or a routing
    populations.py        which conditions are the population a rule is for
    conditions.py         lists, examples, joiners ('and', 'or', 'with', 'without'), the predicate
    documentation.py      'documentation of X', 'X confirmed by Y', a finding a test shows
    therapies.py          courses and treatment statuses
    measures.py           ages, periods insured, measured quantities, prior approvals
    condition_phrases.py  conditions, absences and designations named as noun phrases
    limits.py             counts, periods, money caps
    subjects.py           the services a sentence is about
    reader.py             the shared state and primitives (spans, ids, numbers, comparators), the draft
    patterns.py           grammar words, and the patterns built once per lexicon from its phrase lists

clauseguard.reading.compiler re-exports this package's names under their older import path.
"""

from __future__ import annotations

from typing import Any

from clauseguard.corpus.criteria import Criteria, criteria_from_json
from clauseguard.reading.compile.driver import _Compiler
from clauseguard.reading.grammar.result import Refusal
from clauseguard.reading.lexicon import Lexicon, default_lexicon


def compile_clause(text: str, lexicon: Lexicon | None = None) -> Criteria | Refusal:
    """Compile clause prose into criteria; any sentence it cannot read whole refuses the clause."""
    return _Compiler(text, lexicon or default_lexicon()).run()


def criteria_for_clause(clause: Any, lexicon: Lexicon | None = None) -> Criteria | Refusal:
    """The clause's own `criteria` (policy-as-code) when present, else the compiled prose."""
    if getattr(clause, "criteria", None) is not None:
        return criteria_from_json(clause.criteria, clause.text)
    return compile_clause(clause.text, lexicon)


def refusal_reasons(result: Criteria | Refusal) -> tuple[str, ...]:
    """What a refusal could not read, one sentence per part (empty for compiled criteria)."""
    if isinstance(result, Criteria):
        return ()
    return tuple(f"could not read {u.span.text!r}: {u.reason}" for u in result.unread)
