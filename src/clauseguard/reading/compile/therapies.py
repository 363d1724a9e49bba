"""Therapies: a course of one for a stated time ('at least six weeks of X', 'has tried X for 3 months
with inadequate response'), and a treatment status ('has failed or is intolerant to X', 'is on X').
"""

from __future__ import annotations

import re

from clauseguard.corpus.criteria import AllOf, Duration, Measure, Node, Period, Treatment
from clauseguard.reading.compile.measures import _MeasureReader
from clauseguard.reading.compile.reader import _RuleDraft, _Seg, _Unread
from clauseguard.reading.lexicon import normalise


class _TherapyReader(_MeasureReader):
    """Duration and treatment atoms."""

    def _conditions(self, seg: _Seg, draft: _RuleDraft, documentation: bool = False) -> Node:
        """Nested conditions ('three or more per day with Y' hands Y back): conditions.py's reader, which
        builds on this one, defines it; declared here so the layers below it need not import it."""
        raise NotImplementedError

    def _therapy(self, phrase: str) -> str | None:
        phrase = normalise(phrase)
        phrase = re.sub(r"^(?:a|an|the|any)\s+", "", phrase)
        phrase = re.sub(r"^(?:documented|prior|previous)\s+", "", phrase)
        phrase = re.sub(r"^(?:trial|course)\s+of\s+(?:at\s+least\s+one\s+|one\s+|a\s+|an\s+)?", "", phrase)
        if not phrase:
            return None
        concept = self.lex.concept_named(phrase)
        if concept is not None:
            if self.lex.concepts[concept].domain == "condition":
                return None
            return concept
        return phrase if self._free_ok(phrase) else None

    def _outcome(self, text: str | None) -> str | None:
        if not text:
            return None
        phrase = normalise(text)
        for candidate in (phrase, re.sub(r"^(?:an?\s+|documented\s+)", "", phrase)):
            if candidate in self.g.outcomes:
                return self.g.outcomes[candidate]
        raise _Unread(0, 0, f"an outcome the compiler cannot read ({text})")

    def _failed_outcome(self) -> str | None:
        """The outcome a 'failed X for N weeks' course states (the first outcome the lexicon lists)."""
        return next(iter(self.g.outcomes.values()), None)

    def _duration(self, seg: _Seg, draft: _RuleDraft, documentation: bool) -> Node | None:
        text = self._t(seg)
        N, PRE, TIME = self.g.NUM, self.g.PRE, self.g.TIME
        span = self._span(seg.start, seg.end)
        verbs = r"(?:completed|received|tried|used|undergone|had|taken|been\s+treated\s+with|been\s+on|participated\s+in|failed)"
        outcome = rf"(?:,?\s+(?:with\s+)?(?P<out>{self.g.OUTCOME}))?"
        including = r"(?:,?\s+including\s+(?P<inc>[^,]+?))?"
        # "has completed at least six (6) weeks of conservative therapy including supervised physical therapy"
        m = re.fullmatch(
            rf"(?:(?:has|have)\s+)?(?:{verbs}\s+)?(?:(?P<pre>{PRE})\s+)?(?P<n>{N})\s+(?P<tu>{TIME})\s+of\s+(?P<th>.+?){including}{outcome}",
            text, re.I)
        if m is None:
            # "has tried methotrexate for at least 3 months with inadequate response"
            m = re.fullmatch(
                rf"(?:(?:has|have)\s+)?(?P<verb>{verbs})\s+(?P<th>.+?)\s+for\s+(?:(?P<pre>{PRE})\s+)?(?P<n>{N})\s+(?P<tu>{TIME})"
                rf"{including}{outcome}", text, re.I)
        if m is None:
            # "has completed a trial of at least one X of no less than three (3) months duration with inadequate response"
            m = re.fullmatch(
                rf"(?:(?:has|have)\s+)?(?:{verbs}\s+)?(?:a\s+)?(?:trial|course)\s+of\s+(?:at\s+least\s+one|one|a|an)\s+(?P<th>.+?)\s+"
                rf"(?:of|for|lasting)\s+(?:(?P<pre>{PRE})\s+)?(?P<n>{N})\s+(?P<tu>{TIME})(?:\s+(?:in\s+)?duration)?{including}{outcome}",
                text, re.I)
        if m is None:
            return None
        th_start, th_end = seg.start + m.start("th"), seg.start + m.end("th")
        details: list[Node] = []
        aside = re.match(r"^(?P<th>[^,]+),\s+(?P<detail>[^,]+?),?$", m.group("th"))
        if aside:
            # "multiple daily insulin injections, three or more per day with self-adjustment of doses, for ..."
            th_end = th_start + aside.end("th")
            detail = _Seg(th_start + aside.start("detail"), th_start + aside.end("detail"))
            details = self._therapy_detail(detail, aside.group("th"), draft)
        therapy = self._therapy(self.text[th_start:th_end])
        if therapy is None:
            raise _Unread(th_start, th_end, "a therapy the compiler cannot name")
        if self.lex.concepts.get(therapy) is None and not any(therapy.endswith(h) for h in self.g.therapy_heads):
            # a free phrase must at least read as a therapy; anything else is not guessed at
            raise _Unread(seg.start + m.start("th"), seg.start + m.end("th"), "a therapy the lexicon does not know")
        unit_name, _ = self.g.time_units[normalise(m.group("tu"))]
        out = self._outcome(m.group("out"))
        groups = m.groupdict()
        if out is None and groups.get("verb") and normalise(groups["verb"]) in self.g.failed_words:
            out = self._failed_outcome()
        including_items: tuple[str, ...] = ()
        if m.group("inc"):
            inc = self._therapy(m.group("inc"))
            if inc is None:
                raise _Unread(seg.start + m.start("inc"), seg.start + m.end("inc"), "an included therapy the compiler cannot name")
            including_items = (inc,)
        op = self._cmp(m.group("pre"), None, "==") if m.group("pre") else "=="
        if op == "==":
            raise _Unread(seg.start, seg.end, "a duration without 'at least' or 'no more than'")
        course = Duration(self.fresh(), span, therapy, op, self._number(m.group("n"), seg.start),
                          unit_name, out, including_items)  # type: ignore[arg-type]
        return AllOf((course, *details)) if details else course

    def _therapy_detail(self, seg: _Seg, therapy_phrase: str, draft: _RuleDraft) -> list[Node]:
        """What a therapy is written to mean between commas: 'three or more per day [with Y]' counts the
        therapy's own unit (its last words, a quantity the lexicon knows); Y is one more requirement."""
        text = self._t(seg)
        N, PRE, SUF, TIME = self.g.NUM, self.g.PRE, self.g.SUF, self.g.TIME
        m = re.fullmatch(rf"(?:(?P<pre>{PRE})\s+)?(?P<n>{N})(?:\s+(?P<suf>{SUF}))?\s+(?:per|a|each|every)\s+(?P<tu>{TIME})"
                         rf"(?:\s+with\s+(?P<rest>.+))?", text, re.I)
        words = normalise(therapy_phrase).split()
        quantity = next((q for k in range(len(words)) if (q := self.lex.quantity_named(" ".join(words[k:]))) is not None),
                        None)
        if m is None or quantity is None or self.lex.quantities[quantity].per is None:
            raise _Unread(seg.start, seg.end, "a detail of the therapy the compiler cannot read")
        unit_name, _ = self.g.time_units[normalise(m.group("tu"))]
        span_end = seg.start + (m.start("rest") - len(" with ") if m.group("rest") else len(text))
        out: list[Node] = [Measure(self.fresh(), self._span(seg.start, span_end), quantity,
                                   self._cmp(m.group("pre"), m.group("suf")), self._number(m.group("n"), seg.start), "",
                                   Period(1.0, unit_name))]  # type: ignore[arg-type]
        if m.group("rest"):
            rest = _Seg(seg.start + m.start("rest"), seg.end)
            out.append(self._bare(lambda: self._conditions(rest, draft)))
        return out

    def _treatment(self, seg: _Seg, draft: _RuleDraft, documentation: bool) -> Node | None:
        text = self._t(seg)
        span = self._span(seg.start, seg.end)
        patterns: list[tuple[str, tuple[str, ...]]] = [
            (r"(?:has|have)\s+failed\s+or\s+(?:is|are)\s+intolerant\s+(?:to|of)\s+(?P<th>.+)", ("failed", "intolerant")),
            (r"(?:has|have)\s+(?:failed|had\s+an?\s+inadequate\s+response\s+to|not\s+responded\s+to)\s+(?P<th>.+)", ("failed",)),
            (r"(?:is|are)\s+intolerant\s+(?:to|of)\s+(?P<th>.+)", ("intolerant",)),
            (r"(?:has|have)\s+an?\s+(?:documented\s+)?contraindication\s+to\s+(?P<th>.+)", ("contraindicated",)),
            (r"(?P<th>.+?)\s+(?:is|are)\s+contraindicated", ("contraindicated",)),
            (r"(?:is|are)\s+(?:treated\s+with|on|receiving|using|taking|managed\s+with|established\s+on)\s+(?P<th>.+)", ("treated",)),
            (r"(?:with\s+documented|despite|despite\s+treatment\s+with|while\s+on)\s+(?P<th>.+)", ("treated",)),
            (r"(?:uses|use|takes|take|receives|receive)\s+(?P<th>.+)", ("treated",)),
            (r"(?:has|have)\s+(?:completed|attended|participated\s+in|undergone|received)\s+(?P<th>.+)", ("treated",)),
        ]
        for pattern, statuses in patterns:
            m = re.fullmatch(pattern, text, re.I)
            if m:
                therapy = self._therapy(m.group("th"))
                known = therapy is not None and therapy in self.lex.concepts
                if therapy is not None and (known or "treated" not in statuses):
                    return Treatment(self.fresh(), span, therapy, statuses)  # type: ignore[arg-type]
            # "is on an intensive insulin regimen of three (3) or more injections per day"
            m2 = re.fullmatch(pattern.replace("(?P<th>.+)", r"(?P<th>.+?)\s+of\s+(?P<rest>.+)"), text, re.I)
            if m2 and "treated" in statuses:
                therapy = self._therapy(m2.group("th"))
                if therapy is None or therapy not in self.lex.concepts:
                    continue
                rest = _Seg(seg.start + m2.start("rest"), seg.end)
                detail = self._measure(rest, draft, documentation)
                if detail is None:
                    continue
                head = Treatment(self.fresh(), self._span(seg.start, seg.start + m2.end("th")), therapy, statuses)  # type: ignore[arg-type]
                return AllOf((head, detail))
        m = re.fullmatch(r"documented\s+(?P<th>.+)", text, re.I)
        if m:
            therapy = self._therapy(m.group("th"))
            if therapy is not None and therapy in self.lex.concepts and \
                    self.lex.concepts[therapy].domain == "therapy":
                return Treatment(self.fresh(), span, therapy)
        return None
