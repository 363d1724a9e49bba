"""A rider's sentence as an amendment of the policy it amends: waive, replace, add or keep a named
requirement ("criterion 2 of LCD L39220 is raised to 89 percent", "the requirement in policy X that
... is waived", "in addition to the criteria of LCD Y, ... requires prior authorization").

What the requirement names is resolved against the base clause later (reading/amend.py); this module
only reads what the rider's words say, keeping spans, and returns None for a sentence that is not an
amendment. The cue words are data (`amendment` in data/grammar/phrases.yaml).
"""

from __future__ import annotations

import re
from typing import Final

from clauseguard.corpus.criteria import Amendment, Measure, Node, Span
from clauseguard.reading.grammar.conditions import ConditionReader, labels_of
from clauseguard.reading.grammar.phrases import phrases
from clauseguard.reading.grammar.values import values
from clauseguard.text import fold

_DOCUMENT: Final = re.compile(r"(?<![\w-])(L\d{5}|[A-Z][A-Z0-9]*(?:-[A-Z0-9]+){1,3})(?![\w-])")
_CRITERION: Final = re.compile(r"\bcriteri(?:on|a)\s+(?P<marks>\(?[0-9ivxIVX]{1,4}(?:\.[A-Z0-9]{1,3})?\)?(?:\s*(?:-|to|and|,)\s*\(?[0-9ivx]{1,4}\)?)*)",
                               re.IGNORECASE)
_SCOPE: Final = re.compile(r"^(?:for|under|in)\s+(?:the\s+)?(?:members|member|insured persons?|enrollees|patients)\b[^,]*,\s*"
                           r"|^under\s+[^,]+,\s*|^rider\s+(?:provision\s+)?[\w.]+[.:]\s*", re.IGNORECASE)
_AGED: Final = re.compile(r"\b(?:aged|age)\s+\d+", re.IGNORECASE)
_REQUIREMENT_LEAD: Final = re.compile(r"^(?:the\s+)?requirement\s+(?:in|of)\s+(?:[^,]*?)\s+that\s+", re.IGNORECASE)
_OTHER: Final = re.compile(r"\b(?:every|all)\s+other\b|\ball\s+other\s+(?:criteria|provisions|requirements)", re.IGNORECASE)


class AmendmentReader:
    def __init__(self, conditions: ConditionReader) -> None:
        self.conditions = conditions
        self.text = conditions.text
        self.folded = fold(self.text)

    def cue(self, a: int, b: int) -> tuple[str, int, int] | None:
        found = sorted((m.start(), -(m.end() - m.start()), m.end(), name)
                       for name in phrases().names("amendment")
                       for p in phrases().of("amendment", name) for m in [p.regex.search(self.folded, a, b)] if m)
        if not found:
            return None
        start, _, end, name = found[0]
        return name, start, end

    def read(self, a: int, b: int) -> tuple[list[Amendment], list[Node]] | None:
        """The amendments one sentence makes (a sentence may waive one thing and keep the rest), or None."""
        cue = self.cue(a, b)
        if cue is None:
            return None
        action, c0, c1 = cue
        sentence = self.text[a:b]
        targets = tuple(dict.fromkeys(m.group(1) for m in _DOCUMENT.finditer(sentence)
                                      if not re.fullmatch(r"[A-Z]\d{4}", m.group(1))))
        scope = _SCOPE.match(sentence)
        start = a + (scope.end() if scope is not None else 0)
        population = None
        if scope is not None and _AGED.search(scope.group(0)):
            got = self.conditions.text_span(a + _AGED.search(scope.group(0)).start(), a + scope.end() - 1)  # type: ignore[union-attr]
            population = got.node
        if action == "keep" or _OTHER.search(self.text[start:b]) and action == "keep":
            return [Amendment("keep", self.text[start:b].strip(" ."), Span(a, b, sentence), targets)], []
        if action == "add":
            m = re.search(r"(?:requires?|also requires?|additionally requires?)\s+", self.text[c1:b])
            req_a = c1 + m.end() if m else c1
            got = self.conditions.text_span(req_a, b)
            if got.node is None:
                return None
            return [Amendment("add", self.text[req_a:b].strip(" ."), Span(a, b, sentence), targets,
                              got.node, population)], []
        before = self.text[start:c0].strip(" ,")
        after = self.text[c1:b].strip(" ,.:")
        if fold(self.text[c0:c1]).startswith(("waives", "waive", "replaces", "replace")):
            requirement = _REQUIREMENT_LEAD.sub("", after.split(" with ")[0].split(" for members")[0])
            after = after.split(" with ", 1)[1] if " with " in after else ""
        else:
            requirement = _REQUIREMENT_LEAD.sub("", before)
        requirement = requirement.strip(" ,.")
        marks = labels_of(m.group("marks")) if (m := _CRITERION.search(sentence)) else ()
        if marks:
            requirement = f"{requirement} [criterion {', '.join(marks)}]"
        if not requirement:
            return None
        replacement: Node | None = None
        if action == "replace":
            replacement = self.replacement(b - len(self.text[c1:b].lstrip(" ,:")), b, after)
            if replacement is None:
                return None
        amended = Amendment(action, requirement, Span(a, b, sentence), targets, replacement, population)  # type: ignore[arg-type]
        return [amended], []

    def replacement(self, a: int, b: int, after: str) -> Node | None:
        """What replaces the requirement: criteria read from the new words, else the new value alone
        ("is raised to 89 percent" changes the value of the criterion it names)."""
        text = re.sub(r"^(?:to\s+read|with|by|to\s+require|to|the\s+following)[\s:]+", "", after, flags=re.IGNORECASE)
        start = a + self.text[a:b].find(text) if text else a
        got = self.conditions.text_span(start, start + len(text))
        if got.node is not None and not got.unread:
            return got.node
        vals = values(text)
        if not vals:
            return None
        v = vals[0]
        return Measure("new", Span(start, start + v.end, self.text[start:start + v.end]), quantity="the value",
                       comparator="==", value=v.value, unit=v.unit, per=v.per)
