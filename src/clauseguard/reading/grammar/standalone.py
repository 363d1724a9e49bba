"""A requirement written as a plain sentence under a continued-coverage heading: "Continued Coverage /
At least every 6 months after the initial order, the practitioner sees the beneficiary ...". It has no
coverage verb; the heading says what it is for (the continuation of cover), and the sentence names the
item it is about ("the CGM", "the E0487"). Read as a covered rule with approval "continuation"; a
sentence naming no item the lexicon or a code identifies, or a requirement the condition reader cannot
read whole, is left unread by the caller.

Sources (blind phrasebooks, second edition): lcd-s008, med-s008, grp-s008; the real LCD's
continued-coverage criterion.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Final

from clauseguard.corpus.criteria import Rule, Service, Span
from clauseguard.reading.grammar.conditions import ConditionReader
from clauseguard.reading.grammar.mentions import codes_of_mention
from clauseguard.reading.grammar.phrases import phrases
from clauseguard.reading.grammar.result import Unread
from clauseguard.reading.lexicon import Lexicon
from clauseguard.text import fold

_THE: Final = re.compile(r"\b(?:the|their|its)\s+((?:[\w-]+\s+){0,2}[\w-]+)", re.IGNORECASE)
_CODE: Final = re.compile(r"^[A-Z]\d{4}$")


def continues(headings: Sequence[str]) -> bool:
    """Whether the nearest heading names continued cover ("Continued Coverage", "Continuation of
    Coverage", "Pumps: Continued Coverage"): phrase data `approval_kind.continuation`."""
    for heading in reversed(headings):
        low = fold(heading)
        if any(p.regex.search(low) for p in phrases().of("approval_kind", "continuation")):
            return True
    return False


def standalone_rule(text: str, a: int, b: int, lexicon: Lexicon, conditions: ConditionReader,
                    fresh: Callable[[], str]) -> tuple[Rule | None, list[Unread]]:
    """The covered rule a requirement sentence states under a continued-coverage heading, and what of it
    could not be read (the rule is None then)."""
    subject = _named_item(text, a, b, lexicon, fresh)
    if subject is None:
        return None, []
    got = conditions.text_span(a, b)
    if got.unread or got.node is None:
        return None, list(got.unread)
    span = Span(a, b, text[a:b])
    return Rule("covered", span, subject, None, None, got.node, approval="continuation"), []


def _named_item(text: str, a: int, b: int, lexicon: Lexicon, fresh: Callable[[], str]) -> Service | None:
    """The first "the X" of the sentence that names a service the lexicon knows, or a code."""
    for m in _THE.finditer(text, a, b):
        words = m.group(1).split()
        for n in range(len(words), 0, -1):
            name = " ".join(words[:n])
            start = m.start(1)
            end = start + len(name)
            if _CODE.match(name):
                return Service(fresh(), Span(m.start(), end, text[m.start():end]), concept=name, codes=(name,))
            concept = lexicon.concept_named(name)
            if concept is not None and lexicon.concepts[concept].domain in ("service", "therapy"):
                return Service(fresh(), Span(m.start(), end, text[m.start():end]), concept=concept,
                               codes=codes_of_mention(text, start, end))
    return None
