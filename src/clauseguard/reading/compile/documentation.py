"""What must be documented or shown: 'documentation of X or Y', 'X confirmed by Y', and a finding a test
shows ('radiographs show advanced X (grade 3 or 4) in the same compartment').
"""

from __future__ import annotations

import dataclasses
import re

from clauseguard.corpus.criteria import AllOf, AnyOf, Condition, Documentation, Measure, Node, Service
from clauseguard.reading.compile.condition_phrases import _ConditionPhraseReader
from clauseguard.reading.compile.measures import _MeasureReader
from clauseguard.reading.compile.reader import _Ambiguous, _RuleDraft, _Seg, _Unread
from clauseguard.reading.compile.subjects import _SubjectReader
from clauseguard.reading.lexicon import normalise


class _DocumentationReader(_MeasureReader, _ConditionPhraseReader, _SubjectReader):
    """Documentation and finding atoms."""

    def _documentation(self, seg: _Seg, draft: _RuleDraft, documentation: bool) -> Node | None:
        text = self._t(seg)
        shown = re.fullmatch(r"(?P<ev>.+?)\s+(?:shows?|demonstrates?|reveals?|confirms?)\s+(?P<c>.+)", text, re.I)
        if shown:
            test = self._subject_np(_Seg(seg.start + shown.start("ev"), seg.start + shown.end("ev")))
            if test is not None and test.concept in self.lex.concepts and \
                    self.lex.concepts[test.concept].domain == "service":
                return self._finding(_Seg(seg.start + shown.start("c"), seg.end), test, draft, seg)
        m = re.fullmatch(r"(?:(?:has|have)\s+)?(?P<c>.+?)\s+(?:(?:is|are|was|were|has\s+been|have\s+been)\s+)?"
                         r"(?:corroborated|confirmed|demonstrated|shown)\s+(?:by|on)\s+(?P<ev>.+)", text, re.I)
        if m:
            cond_seg = _Seg(seg.start + m.start("c"), seg.start + m.end("c"))
            cond = self._condition_np(cond_seg, draft, documentation)
            if cond is None or not isinstance(cond, Condition):
                return None
            evidence = self._subject_np(_Seg(seg.start + m.start("ev"), seg.end))
            if evidence is None:
                return None
            doc = Documentation(self.fresh(), self._span(seg.start, seg.end), evidence.concept, cond.concept)
            return AllOf((cond, doc))
        m = re.fullmatch(r"(?:(?:has|have)\s+)?documentation\s+of\s+(?P<what>.+)", text, re.I)
        if m:
            return self._documentation_items(_Seg(seg.start + m.start("what"), seg.end), draft)
        return None

    def _finding(self, seg: _Seg, test: Service, draft: _RuleDraft, whole: _Seg) -> Node:
        """'radiographs show advanced osteoarthritis (Kellgren-Lawrence grade 3 or 4) in the same compartment':
        the finding, the grade that defines its adjective, where it must be, and the test that shows it."""
        start, end = self._trim(seg.start, seg.end)
        text = self.text[start:end]
        qualifiers: tuple[str, ...] = ()
        where = re.search(r"\s+in\s+the\s+same\s+(?P<site>[a-z\-]+)$", text, re.I)
        if where:
            qualifiers = (normalise(where.group(0)),)
            text = text[:where.start()]
        grades: list[Node] = []
        scale = re.search(rf"\s*\((?P<q>[^()]+?)\s+(?P<a>{self.g.NUM})(?:\s+or\s+(?:(?P<b>{self.g.NUM})|(?P<up>higher|more|greater|above)))?\)$",
                          text, re.I)
        if scale:
            quantity = self._quantity(scale.group("q"))
            if quantity is None:
                raise _Unread(start + scale.start("q"), start + scale.end("q"), "a grading scale the lexicon does not know")
            span = self._span(start + scale.start("q"), start + scale.end())
            low = self._number(scale.group("a"), start)
            if scale.group("up"):
                grades = [Measure(self.fresh(), span, quantity, ">=", low)]
            else:
                values = [low] + ([self._number(scale.group("b"), start)] if scale.group("b") else [])
                grades = [Measure(self.fresh(), span, quantity, "==", v) for v in values]
            text = text[:scale.start()]
            # the scale defines the adjective before the finding ("advanced", "severe")
            text = re.sub(r"^(?:(?:a|an|the)\s+)?(?:advanced|severe|significant|marked|moderate|mild|early)\s+", "", text,
                          flags=re.I)
        lead = self.text[start:end].find(text)
        finding = self._one_condition(_Seg(start + lead, start + lead + len(text)), draft, False, None)
        if finding is None or finding.concept not in self.lex.concepts:
            raise _Unread(start, end, "a finding the lexicon does not know")
        finding = dataclasses.replace(finding, qualifiers=(*finding.qualifiers, *qualifiers))
        parts: list[Node] = [finding]
        if grades:
            parts.append(grades[0] if len(grades) == 1 else AnyOf(tuple(grades)))
        parts.append(Documentation(self.fresh(), self._span(whole.start, whole.end), test.concept, finding.concept))
        return AllOf(tuple(parts))

    def _documentation_items(self, seg: _Seg, draft: _RuleDraft) -> Node:
        """'documentation of X or Y': each item a stated measure, or a documentation requirement."""
        start, end = self._trim(seg.start, seg.end)
        text = self.text[start:end]
        has_or = re.search(r"(?:,\s*|\s+)or\s+", text, re.I)
        has_and = re.search(r"(?:,\s*|\s+)and\s+", text, re.I)
        if has_or and has_and:
            raise _Ambiguous(start, end, "'and' and 'or' mixed in a documentation requirement")
        parts = self._split_on_connective(start, end, "or" if has_or else "and")
        nodes: list[Node] = []
        for part in parts:
            measure = self._measure(part, draft, True)
            if measure is not None:
                nodes.append(measure)
                continue
            phrase = re.sub(r"^(?:a|an|the)\s+", "", normalise(self._t(part)))
            concept = self.lex.concept_named(phrase) or (phrase if self._free_ok(phrase) else None)
            if concept is None:
                raise _Unread(part.start, part.end, "documentation of something the compiler cannot name")
            nodes.append(Documentation(self.fresh(), self._span(part.start, part.end), concept))
        if len(nodes) == 1:
            return nodes[0]
        return AnyOf(tuple(nodes)) if has_or else AllOf(tuple(nodes))

    def _split_on_connective(self, start: int, end: int, word: str) -> list[_Seg]:
        """Split at ', word' / ' word' / ',' unless the word belongs to a comparator ('or more')."""
        text = self.text[start:end]
        out: list[_Seg] = []
        pos = 0
        for m in re.finditer(rf"(?:,\s*(?:{word}\s+)?|\s+{word}\s+)", text, re.I):
            if self._inside_comparator(text, m):
                continue
            out.append(_Seg(start + pos, start + m.start()))
            pos = m.end()
        out.append(_Seg(start + pos, end))
        return out

    def _inside_comparator(self, text: str, m: re.Match[str]) -> bool:
        """True when the connective at `m` is the start of a suffix comparator such as 'or older'."""
        after = text[m.start():].lstrip(" ,")
        return re.match(rf"(?:{self.g.SUF})(?![\w-])", after, re.I) is not None
