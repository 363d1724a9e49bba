"""A rider's amendments to another document: requirements it keeps, waives (for members with X) or
replaces, and 'first-line upon confirmed diagnosis', which keeps the diagnosis requirement.
"""

from __future__ import annotations

import re

from clauseguard.corpus.criteria import AllOf, Amendment, Span
from clauseguard.reading.compile.limits import _LimitReader
from clauseguard.reading.compile.patterns import _STOP
from clauseguard.reading.compile.populations import _PopulationReader
from clauseguard.reading.compile.reader import _RuleDraft, _Seg, _Unread
from clauseguard.reading.lexicon import normalise


class _AmendmentReader(_PopulationReader, _LimitReader):
    """Amendment sentences."""

    def _first_line(self, seg: _Seg) -> Amendment | None:
        """'X may be authorized as first-line treatment upon confirmed diagnosis': X needs no earlier
        therapy, and the diagnosis it means (naming none) is the one the amended clause names. It adds
        no criterion: it restates that the diagnosis requirement stands."""
        m = self.g.first_line.match(self._t(seg))
        if m is None:
            return None
        if self._subject_np(_Seg(seg.start + m.start("subj"), seg.start + m.end("subj"))) is None:
            raise _Unread(seg.start, seg.start + m.end("subj"), "a subject the compiler cannot name")
        state = normalise(m.group("state") or m.group("state2"))
        return Amendment("keep", f"{state} diagnosis", self._span(seg.start, seg.end))

    def _amendment(self, seg: _Seg) -> list[Amendment] | None:
        text = self._t(seg)
        keep = re.match(
            rf"^(?:this|the)\s+(?:rider|endorsement|amendment)\s+{self.g.AMEND_KEEP}\s+"
            rf"(?:the\s+)?(?:requirements?\s+(?:for|of)\s+)?(?P<req>.+)$", text, re.I)
        if keep:
            return self._kept(_Seg(seg.start + keep.start("req"), seg.end), self._span(seg.start, seg.end))
        plan = r"(?:(?:(?:for|in)\s+members\s+(?:enrolled\s+in|on|of|covered\s+under)|under)\s+[^,]+,\s+)?"
        doc = r"[A-Z][A-Z0-9]*(?:[-.][A-Z0-9]+)+"
        # "The plan of care, the progress note and the exclusion in policy D continue to apply" / "Apart from
        # the authorization added by article 1, the criteria and the exclusions of policy D apply unchanged"
        still = re.match(
            rf"^(?:apart\s+from\s+[^,]+,\s+)?(?P<list>.+?)\s+(?:in|of)\s+(?:the\s+)?(?:policy|bulletin|document)\s+"
            rf"(?P<doc>{doc})\s+(?:continues?\s+to\s+apply|still\s+appl(?:y|ies)|appl(?:y|ies)\s+unchanged|remains?\s+in\s+force)$",
            text, re.I)
        if still:
            span = self._span(seg.start, seg.end)
            items = self._plain_list(still.group("list"))
            out: list[Amendment] = []
            for a, b in items:
                name = re.sub(r"^(?:the|a|an)\s+", "", normalise(still.group("list")[a:b]))
                if not name or not re.fullmatch(r"[a-z0-9][a-z0-9'\- ]*", name):
                    raise _Unread(seg.start + still.start("list") + a, seg.start + still.start("list") + b,
                                  "a kept requirement the compiler cannot name")
                out.append(Amendment("keep", name, span, (still.group("doc"),)))
            return out
        # "Under plan P, a member with X does not need the R that policy D requires before S; that one
        # requirement is waived": a waiver of R for members with X
        need = re.match(
            rf"^{plan}(?:(?:a|an|the|any)\s+)?(?:members?|patients?|enrollees?)\s+(?:with|diagnosed\s+with)\s+(?P<pop>.+?)\s+"
            rf"(?:does|do)\s+not\s+need\s+(?:the\s+)?(?P<req>.+?)\s+(?:that|which)\s+(?:the\s+)?(?:policy|bulletin|document)\s+"
            rf"(?P<doc>{doc})\s+requires(?:\s+(?:before|for)\s+[^;]+?)?"
            rf"(?:\s*;\s*(?:that|this)\s+(?:one\s+)?requirement\s+is\s+(?:hereby\s+)?waived)?$", text, re.I)
        if need:
            probe = _RuleDraft("covered", self._span(seg.start, seg.end))
            nodes = self._condition_list(_Seg(seg.start + need.start("pop"), seg.start + need.end("pop")), probe)
            req = self._requirement_name(seg.start + need.start("req"), seg.start + need.end("req"))
            population = nodes[0] if len(nodes) == 1 else AllOf(tuple(nodes))
            return [Amendment("waive", req, self._span(seg.start, seg.end), (need.group("doc"),), population=population)]
        m = re.match(
            rf"^{plan}(?P<req>.+?)\s+(?:(?:described|set\s+out|stated)\s+)?in\s+(?:the\s+[a-z ]+?\s+section\s+of\s+)?"
            rf"(?:the\s+)?(?:policy|bulletin|document)\s+(?P<doc>{doc})\s+"
            rf"(?P<verb>{self.g.AMEND_VERB})(?P<rest>.*)$", text, re.I)
        if not m:
            return None
        req = self._requirement_name(seg.start + m.start("req"), seg.start + m.end("req"))
        verb = normalise(m.group("verb"))
        rest = m.group("rest")
        span = self._span(seg.start, seg.end)
        if verb in self.g.amend["waive"]:
            if rest.strip():
                raise _Unread(seg.start + m.start("rest"), seg.end, "a waiver limited by further conditions")
            return [Amendment("waive", req, span, (m.group("doc"),))]
        lead = re.match(rf"^\s*(?:allow\s+)?(?:from\s+{self.g.NUM}\s+to\s+)?", rest, re.I)
        start = seg.start + m.start("rest") + (lead.end() if lead else 0)
        stop = seg.end
        tail = self.lex.pattern(self.g.amendment_remarks, "amendment-remarks").search(self.text, start, seg.end)
        if tail is not None and self.text[tail.end():seg.end].strip(" .") == "":
            stop = tail.start()
        replacement = self._count_phrase(_Seg(start, stop), item_default=None, limit=True)
        if replacement is None:
            raise _Unread(start, seg.end, "a replacement the compiler cannot read")
        return [Amendment("replace", req, span, (m.group("doc"),), replacement)]

    def _kept(self, seg: _Seg, span: Span) -> list[Amendment]:
        """'does not waive A or B, and it does not change C of policy D': each named requirement stands."""
        text = self._t(seg)
        groups = [(0, len(text))]
        more = re.search(r",\s+and\s+(?:it|this\s+rider)\s+(?:does|do)\s+not\s+(?:change|alter|affect|modify)\s+(?:the\s+)?",
                         text, re.I)
        if more:
            groups = [(0, more.start()), (more.end(), len(text))]
        out: list[Amendment] = []
        for a, b in groups:
            targets: tuple[str, ...] = ()
            of = re.search(r"\s+(?:of|in)\s+(?:the\s+)?(?:policy|bulletin|document)\s+(?P<doc>[A-Z][A-Z0-9]*(?:[-.][A-Z0-9]+)+)$",
                           text[a:b])
            if of:
                targets = (of.group("doc"),)
                b = a + of.start()
            pos = a
            for m in [*re.finditer(r"\s+or\s+(?:the\s+)?|\s+and\s+(?:the\s+)?", text[a:b], re.I), None]:
                stop = a + m.start() if m is not None else b
                out.append(Amendment("keep", self._requirement_name(seg.start + pos, seg.start + stop), span, targets))
                if m is not None:
                    pos = a + m.end()
        return out

    def _requirement_name(self, start: int, end: int) -> str:
        phrase = normalise(self.text[start:end])
        phrase = re.sub(r"^(?:the|a|an)\s+", "", phrase)
        phrase = re.sub(r"^(?:requirements?\s+(?:for|of)\s+)?(?:(?:the|a|an)\s+)?", "", phrase)
        phrase = re.sub(r"\s+(?:requirements?|limitations?|limits?)$", "", phrase)
        allowed = {"and", "or", "of", "for", "to", "with", "by", "from"}
        if not phrase or any(w in _STOP and w not in allowed for w in re.findall(r"[a-z]+", phrase)) or "," in phrase:
            raise _Unread(start, end, "the requirement is not named as one plain phrase")
        return phrase
