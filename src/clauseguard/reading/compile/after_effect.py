"""The words after a rule's effect, left to right: remarks (noted, not criteria), 'when ...', 'for members
...', 'for X', counts and caps, then the exception. Words it cannot place refuse the sentence.
"""

from __future__ import annotations

import re

from clauseguard.corpus.criteria import AllOf, Condition, Count, Node, Note
from clauseguard.reading.compile.exceptions import _ExceptionReader
from clauseguard.reading.compile.limits import _LimitReader
from clauseguard.reading.compile.populations import _PopulationReader
from clauseguard.reading.compile.reader import _RuleDraft, _Seg, _Unread


class _AfterEffectReader(_PopulationReader, _ExceptionReader, _LimitReader):
    """Conditions, counts, exceptions and remarks after the effect."""

    # --- after the effect: conditions, counts, exceptions, remarks ---------------------------

    def _post_effect(self, draft: _RuleDraft, seg: _Seg) -> None:
        start, end = seg.start, seg.end
        text = self.text[start:end]
        # remarks (a note on cost sharing, on the basis of payment) are noted, not criteria
        for _phrase, pat in self.g.remark_patterns:
            for m in pat.finditer(text):
                draft.remarks.append(Note("remark", self._span(start + m.start(), start + m.end())))
        # a reimbursement rate, an allowance, a deductible: what is paid, not whether it is covered
        for pat in (self.g.rate_re, self.g.allowance_re, self.g.deductible_re):
            for m in pat.finditer(text):
                draft.remarks.append(Note("remark", self._span(start + m.start(), start + m.end())))
        if draft.remarks:
            text = self._blank_remarks(text, start, draft.remarks)
        # the exception: ", UNLESS ..." / ", except where ..."
        exc = None
        for m in self.g.exceptions_re.finditer(text):
            exc = m
            break
        main_text = text[:exc.start()] if exc else text
        main_text = main_text.rstrip(" ,")
        main = _Seg(start, start + len(main_text))
        nodes = self._modifiers(main, draft, main_text)
        if draft.pending_count is not None:
            raise _Unread(draft.pending_count[2], draft.pending_count[3], "a count without its period")
        target = draft.trigger if draft.effect in ("not_covered", "withheld") else draft.when
        target.extend(nodes)
        self._extract_population(draft)
        if exc:
            self._exception(draft, _Seg(start + exc.start(), end), exc)

    def _blank_remarks(self, text: str, start: int, remarks: list[Note]) -> str:
        chars = list(text)
        for note in remarks:
            for i in range(note.span.start - start, note.span.end - start):
                chars[i] = " "
        out = "".join(chars)
        out = re.sub(r",\s*(?=,|$)", lambda m: " " * len(m.group(0)), out)
        return out

    def _modifiers(self, seg: _Seg, draft: _RuleDraft, text: str) -> list[Node]:
        """Segments after the effect, left to right: counts, 'for members ...', 'when ...'."""
        nodes: list[Node] = []
        pos = 0
        while True:
            while pos < len(text) and text[pos] in " ,":
                pos += 1
            if pos >= len(text):
                break
            rest = text[pos:]
            here = seg.start + pos
            # when / only when / if / provided that ...
            m = re.match(rf"(?:{self.g.when_intro})\s+", rest, re.I) or \
                re.match(r"once\s+(?=(?:the|a|an|they|he|she|it|their|his|her)\s)", rest, re.I)
            if m and not re.match(r"for\s", rest, re.I):
                inner = _Seg(here + m.end(), seg.start + len(text))
                nodes.append(self._conditions(inner, draft))
                break
            # for members with X [who ...] / for members aged ... / for X
            m = re.match(rf"(?:{self.g.pop_intro})\s+", rest, re.I)
            if m:
                end = self._next_modifier(text, pos + m.end())
                inner = _Seg(here + m.end(), seg.start + end)
                self._population_phrase(inner, draft, nodes)
                pos = end
                continue
            m = re.match(rf"(?:for|in)\s+(?:{self.g.MEMBER})\s+(?=aged|age|who|that|of|over|under|older|younger)", rest, re.I)
            if m:
                end = self._next_modifier(text, pos + m.end())
                inner = _Seg(here + m.end(), seg.start + end)
                nodes.append(self._conditions(inner, draft))
                pos = end
                continue
            m = re.match(rf"for\s+(?={self.g.LIST_ANY}|{self.g.LIST_ALL})", rest, re.I)
            if m:
                nodes.append(self._conditions(_Seg(here + m.end(), seg.start + len(text)), draft))
                break
            m = re.match(r"for\s+", rest, re.I)
            if m:
                end = self._next_modifier(text, pos + m.end())
                inner = _Seg(here + m.end(), seg.start + end)
                self._indication(inner, draft, nodes)
                pos = end
                continue
            # once per calendar year / every ten (10) years / up to N X per P / to N X per P
            end = self._next_modifier(text, pos)
            amount = self._amount_phrase(_Seg(here, seg.start + end))
            if amount is not None:
                if draft.effect == "limit":
                    nodes.append(amount)
                else:
                    draft.caps.append(amount)
                pos = end
                continue
            count = self._count_phrase(_Seg(here, seg.start + end), item_default=self._count_item(draft),
                                       limit=True, pending=draft.pending_count)
            if count is not None:
                draft.pending_count = None
                nodes.append(count)
                pos = end
                continue
            if draft.pending_count is not None:
                # "per member per day", "per knee per operative session": up to the next listed allowance
                stop = re.search(r",\s+and\s+(?=(?:no\s+more\s+than|not\s+more\s+than|up\s+to|at\s+most)\s)", rest, re.I)
                upto = seg.start + pos + (stop.start() if stop else len(rest))
                found = self._per_member_period(_Seg(here, upto))
                if found is not None:
                    period, site = found
                    value, item, s0, _ = draft.pending_count
                    item = f"{item} per {site}" if site else item
                    nodes.append(Count(self.fresh(), self._span(s0, upto), item, "<=", value, period))
                    draft.pending_count = None
                    if stop is None:
                        break
                    pos += stop.end()
                    continue
            raise _Unread(here, seg.start + len(text), "words the compiler cannot place")
        return nodes

    def _next_modifier(self, text: str, pos: int) -> int:
        """Where the next post-effect segment starts (a 'for members', 'when', or count phrase), or the
        end; blanked remarks and trailing commas are left out of the segment."""
        pattern = re.compile(
            rf"(?:,\s*|\s+)(?=(?:{self.g.when_intro})\s|(?:{self.g.pop_intro})\s|for\s+(?:{self.g.MEMBER})\s|"
            rf"(?:once|twice)\s|every\s)", re.I)
        end = len(text)
        for m in pattern.finditer(text, pos):
            if m.start() > pos:
                end = m.start()
                break
        return len(text[:end].rstrip(" ,"))

    def _count_item(self, draft: _RuleDraft) -> str | None:
        return draft.subject.concept if draft.subject is not None else None

    def _population_phrase(self, seg: _Seg, draft: _RuleDraft, nodes: list[Node]) -> None:
        """'members with X [who ...]': X is the population when it names conditions, else a requirement."""
        text = self._t(seg)
        rel = re.search(r"\s+(?:who|that|whose)\s+", text, re.I)
        head_end = seg.start + (rel.start() if rel else len(text))
        head = _Seg(seg.start, head_end)
        node = self._bare(lambda: self._conditions(head, draft))
        for part in (node.children if isinstance(node, AllOf) else (node,)):
            if self._is_population(part):
                draft.population.append(part)
            else:
                nodes.append(part)
        if len(draft.population) == 1 and isinstance(draft.population[0], Condition):
            draft.anaphor = draft.population[0].concept
        if rel:
            inner_start = seg.start + rel.end()
            if rel.group(0).strip().lower() == "whose":
                inner_start = seg.start + rel.start() + len(rel.group(0)) - len(rel.group(0).lstrip())
            nodes.append(self._conditions(_Seg(inner_start, seg.end), draft))

    def _indication(self, seg: _Seg, draft: _RuleDraft, nodes: list[Node]) -> None:
        """'for headache with onset after age 55': the indication, then what accompanies it."""
        node = self._bare(lambda: self._conditions(seg, draft))
        parts = list(node.children) if isinstance(node, AllOf) else [node]
        if parts and self._is_population(parts[0]) and draft.effect == "covered":
            draft.population.append(parts.pop(0))
        nodes.extend(parts)
