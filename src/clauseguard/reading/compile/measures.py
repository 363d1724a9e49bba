"""Atoms with a number: an age ('aged 18 or older', 'onset after age 55'), a period insured, a measured
quantity ('a BMI of 40 kg/m2 or greater', 'three or more injections per day'), and a prior approval.
"""

from __future__ import annotations

import re

from clauseguard.corpus.criteria import Age, AllOf, Documentation, Measure, Node, Period, Tenure
from clauseguard.reading.compile.patterns import _STOP
from clauseguard.reading.compile.reader import _ClauseReader, _RuleDraft, _Seg, _Unread
from clauseguard.reading.lexicon import normalise


class _MeasureReader(_ClauseReader):
    """Age, tenure, approval and measure atoms."""

    # --- predicate readers -------------------------------------------------------------------

    def _age(self, seg: _Seg, draft: _RuleDraft, documentation: bool) -> Node | None:
        text = self._t(seg)
        N = self.g.NUM
        span = self._span(seg.start, seg.end)
        m = re.fullmatch(rf"(?:(?:is|are)\s+)?(?:aged|ages)\s+(?P<a>{N})\s+(?:to|through|-)\s+(?P<b>{N})(?:\s+years)?(?:\s+of\s+age)?", text, re.I)
        if m:
            low = Age(self.fresh(), span, ">=", self._number(m.group("a"), seg.start))
            high = Age(self.fresh(), span, "<=", self._number(m.group("b"), seg.start))
            return AllOf((low, high))
        m = re.fullmatch(
            rf"(?:(?:is|are)\s+)?(?:(?:aged|age)\s+)?(?:(?P<pre>{self.g.PRE})\s+(?:age\s+)?)?(?P<n>{N})"
            rf"(?:\s+years?)?(?:\s+(?:of\s+age|old))?(?:\s+(?P<suf>{self.g.SUF}))?", text, re.I)
        if m and (re.match(r"(?:(?:is|are)\s+)?(?:aged|age)\b", text, re.I) or re.search(r"years?\s+(?:of\s+age|old)", text, re.I)
                  or (re.search(r"\byears?\b", text, re.I) and (m.group("pre") or m.group("suf")))):
            if not (m.group("pre") or m.group("suf")):
                raise _Unread(seg.start, seg.end, "an age without 'or older', 'under' or a range")
            op = self._cmp(m.group("pre"), m.group("suf"))
            return Age(self.fresh(), span, op, self._number(m.group("n"), seg.start))
        m = re.fullmatch(
            rf"(?:(?:with|has|have)\s+)?(?:an?\s+)?onset\s+(?:(?P<pre>{self.g.PRE})\s+|at\s+)?(?:the\s+)?age\s+(?:of\s+)?(?P<n>{N})"
            rf"(?:\s+years)?(?:\s+(?P<suf>{self.g.SUF}))?", text, re.I)
        if m:
            op = self._cmp(m.group("pre"), m.group("suf"), "==")
            return Age(self.fresh(), span, op, self._number(m.group("n"), seg.start), "onset")
        m = re.fullmatch(rf"(?:(?:is|are)\s+)?(?P<pre>{self.g.PRE})\s+(?:the\s+)?age\s+(?:of\s+)?(?P<n>{N})", text, re.I)
        if m:
            return Age(self.fresh(), span, self._cmp(m.group("pre"), None), self._number(m.group("n"), seg.start))
        return None

    def _tenure(self, seg: _Seg, draft: _RuleDraft, documentation: bool) -> Node | None:
        """'(the insured person) has been insured under the contract for at least ten (10) months'."""
        m = re.fullmatch(
            rf"(?:{self.g.INSURED})\s+(?:{self.g.UNDER}\s+)?for\s+(?:(?P<pre>{self.g.PRE})\s+)?(?P<n>{self.g.NUM})"
            rf"[\s-]*(?P<t>{self.g.TIME})", self._t(seg), re.I)
        if m is None:
            return None
        if not m.group("pre"):
            raise _Unread(seg.start, seg.end, "a period of cover without 'at least' or 'more than'")
        unit, _ = self.g.time_units[normalise(m.group("t"))]
        return Tenure(self.fresh(), self._span(seg.start, seg.end), self._cmp(m.group("pre"), None),
                      self._number(m.group("n"), seg.start), unit)  # type: ignore[arg-type]

    def _approval(self, seg: _Seg, draft: _RuleDraft, documentation: bool) -> Node | None:
        """'the insurer approved the treatment quote before the work began': the prior approval it requires."""
        m = self.g.approval_re.fullmatch(self._t(seg))
        if m is None:
            return None
        what = re.sub(r"^(?:the|a|an)\s+", "", normalise(m.group("what")))
        if not re.fullmatch(r"[a-z][a-z'\-]*(?:\s+[a-z][a-z'\-]*){0,4}", what) or set(what.split()) & _STOP:
            raise _Unread(seg.start, seg.end, "an approval of something the compiler cannot name")
        return Documentation(self.fresh(), self._span(seg.start, seg.end), self.g.approval_item)

    def _quantity(self, phrase: str) -> str | None:
        phrase = normalise(phrase)
        phrase = re.sub(r"^(?:a|an|the|their|his|her|its)\s+", "", phrase)
        phrase = re.sub(r"^(?:documented|most\s+recent|recent)\s+", "", phrase)
        return self.lex.quantity_named(phrase)

    def _measure(self, seg: _Seg, draft: _RuleDraft, documentation: bool) -> Node | None:
        text = self._t(seg)
        N, PRE, SUF, UNIT, TIME = self.g.NUM, self.g.PRE, self.g.SUF, self.g.UNIT, self.g.TIME
        span = self._span(seg.start, seg.end)
        # "has a BMI of 40 kg/m2 or greater" / "the arterial oxygen tension is 55 mmHg or lower"
        m = re.fullmatch(
            rf"(?:(?:has|have|with)\s+)?(?:either\s+)?(?P<q>[^()]+?)\s+(?:of|is|are|stays|remains|at|measuring|was)\s+"
            rf"(?:(?P<pre>{PRE})\s+)?(?P<n>{N})\s*(?P<unit>{UNIT})?(?:\s+(?P<suf>{SUF}))?", text, re.I)
        if m is None:
            m = re.fullmatch(
                rf"(?:(?:has|have|with)\s+)?(?P<q>[^()]+?)\s+(?P<pre>{PRE})\s+(?P<n>{N})\s*(?P<unit>{UNIT})?(?:\s+(?P<suf>{SUF}))?",
                text, re.I)
        if m:
            quantity = self._quantity(m.group("q"))
            if quantity is None:
                return None
            qdef = self.lex.quantities[quantity]
            unit = self.g.units[normalise(m.group("unit"))] if m.group("unit") else qdef.unit
            if qdef.per is not None:
                return None
            op = self._cmp(m.group("pre"), m.group("suf"), None)
            return Measure(self.fresh(), span, quantity, op, self._number(m.group("n"), seg.start), unit)
        # "performs at least four (4) fingerstick tests per day" / "take three (3) or more injections per day"
        m = re.fullmatch(
            rf"(?:(?:performs?|takes?|uses?|has|have|requires?|receives?|needs?)\s+)?(?:(?P<pre>{PRE})\s+)?(?P<n>{N})"
            rf"(?:\s+(?P<suf>{SUF}))?\s+(?P<q>[^()]+?)\s+(?:per|a|each|every)\s+(?P<tu>{TIME})", text, re.I)
        if m:
            quantity = self._quantity(m.group("q"))
            if quantity is None:
                return None
            op = self._cmp(m.group("pre"), m.group("suf"), None)
            unit_name, _ = self.g.time_units[normalise(m.group("tu"))]
            return Measure(self.fresh(), span, quantity, op, self._number(m.group("n"), seg.start), "",
                           Period(1.0, unit_name))  # type: ignore[arg-type]
        # a start bounded by a gestational age ("begun beyond week 24 of pregnancy")
        m = re.fullmatch(rf"(?:(?:is|was|are)\s+)?(?:initiated|started|begun|performed)?\s*(?P<pre>{PRE})\s+(?P<n>{N})\s+(?P<q>[^()]+)",
                         text, re.I)
        if m:
            quantity = self._quantity(m.group("q"))
            if quantity is None:
                return None
            qdef = self.lex.quantities[quantity]
            return Measure(self.fresh(), span, quantity, self._cmp(m.group("pre"), None),
                           self._number(m.group("n"), seg.start), qdef.unit)
        return None
