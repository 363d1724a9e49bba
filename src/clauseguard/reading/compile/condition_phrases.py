"""Conditions named as noun phrases: a diagnosis or finding with its certainty, severity, history and
qualifiers ('documented moderate to severe X'), a coordinated list of them, an absent one, a
designation ('experimental or investigational'). Lists with markers and joiners are conditions.py's.
"""

from __future__ import annotations

import dataclasses
import re

from clauseguard.corpus.criteria import AllOf, AnyOf, Condition, Designation, Node, Not, Period, iter_atoms
from clauseguard.reading.compile.reader import _ClauseReader, _RuleDraft, _Seg, _Unread
from clauseguard.reading.lexicon import normalise


class _ConditionPhraseReader(_ClauseReader):
    """Condition, absence and designation atoms from noun phrases."""

    def _absence(self, seg: _Seg, draft: _RuleDraft, documentation: bool) -> Node | None:
        text = self._t(seg)
        m = re.fullmatch(rf"(?:{self.g.ABSENCE})\s+(?P<what>.+)", text, re.I)
        if m:
            inner = self._condition_np(_Seg(seg.start + m.start("what"), seg.end), draft, documentation)
            if inner is None:
                raise _Unread(seg.start + m.start("what"), seg.end, "an absent condition the compiler cannot name")
            return Not(inner)
        return None

    def _designation_pred(self, seg: _Seg, draft: _RuleDraft, documentation: bool) -> Node | None:
        text = self._t(seg)
        m = re.fullmatch(r"(?:(?:is|are)\s+)?designated\s+(?:as\s+)?(?P<d>.+)", text, re.I)
        if m:
            return self._designation_list(_Seg(seg.start + m.start("d"), seg.end))
        return None

    def _designation_list(self, seg: _Seg) -> Node:
        text = self._t(seg)
        parts = re.split(r"\s*,\s*(?:or\s+)?|\s+or\s+", text.strip())
        nodes = []
        pos = 0
        for part in parts:
            at = text.index(part, pos)
            pos = at + len(part)
            if normalise(part) not in self.g.designations:
                raise _Unread(seg.start + at, seg.start + pos, "a designation the lexicon does not list")
            nodes.append(Designation(self.fresh(), self._span(seg.start + at, seg.start + pos), normalise(part)))
        return nodes[0] if len(nodes) == 1 else AnyOf(tuple(nodes))

    def _condition_pred(self, seg: _Seg, draft: _RuleDraft, documentation: bool) -> Node | None:
        window = re.search(rf"\s+within\s+(?:the\s+next\s+)?(?P<n>{self.g.NUM})[\s-]+(?P<t>{self.g.TIME})$", self._t(seg), re.I)
        if window:
            # "plans a pregnancy within six months": a planned or expected condition, due in a window
            node = self._condition_pred(_Seg(seg.start, seg.start + window.start()), draft, documentation)
            if not isinstance(node, Condition):
                return None
            unit, _ = self.g.time_units[normalise(window.group("t"))]
            period = Period(self._number(window.group("n"), seg.start + window.start("n")), unit)  # type: ignore[arg-type]
            return dataclasses.replace(node, span=self._span(seg.start, seg.end), within=period)
        text = self._t(seg)
        m = re.match(r"^(?:(?:has|have|had|with|presents?\s+with|present\s+with|is\s+diagnosed\s+with|are\s+diagnosed\s+with|"
                     r"requires?|needs?|suffers?\s+from|(?:is|are)\s+)\s*)", text, re.I)
        offset = m.end() if m else 0
        if m and re.match(r"^(?:is|are)\s", m.group(0), re.I):
            # "is pregnant": a state written as an adjective
            concept = self.lex.concept_named(normalise(text[offset:]))
            if concept is None or self.lex.concepts[concept].domain != "condition":
                return None
            return Condition(self.fresh(), self._span(seg.start, seg.end), concept, documented=documentation)
        node = self._condition_np(_Seg(seg.start + offset, seg.end), draft, documentation)
        if node is not None and m is None and not self.bare and \
                any(a.concept not in self.lex.concepts for a in iter_atoms(node) if isinstance(a, Condition)):
            return None  # a bare phrase the lexicon lacks, where a clause needs a verb ("the radiologist agrees")
        return node

    def _condition_np(self, seg: _Seg, draft: _RuleDraft, documentation: bool) -> Node | None:
        """'documented congestive heart failure, COPD, or neuromuscular disease' and the like."""
        start, end = self._trim(seg.start, seg.end)
        text = self.text[start:end]
        if not text:
            return None
        m = re.match(r"^either\s+", text, re.I)
        if m:
            start += m.end()
            text = text[m.end():]
        # shared leading words ("documented ...") apply to every item of a coordinated list
        lead = re.match(r"^(?:(?:a|an)\s+)?(?:documented|confirmed)\s+(?=.*(?:,|\s+or\s+|\s+and\s+))", text, re.I)
        shared_doc = False
        if lead and (" or " in text or " and " in text or "," in text):
            items = self._np_items(start + lead.end(), end)
            if items is not None and len(items[0]) > 1:
                shared_doc = "documented" in lead.group(0).lower()
                start += lead.end()
                text = self.text[start:end]
        items = self._np_items(start, end)
        if items is None:
            return None
        segs, joiner = items
        nodes: list[Node] = []
        for i, item in enumerate(segs):
            head = None
            if i < len(segs) - 1:
                head = normalise(self.text[segs[-1].start:segs[-1].end])
            atom = self._one_condition(item, draft, documentation or shared_doc, elliptic_head=head)
            if atom is None:
                return None
            nodes.append(atom)
        if len(nodes) == 1:
            return nodes[0]
        return AnyOf(tuple(nodes)) if joiner == "or" else AllOf(tuple(nodes))

    def _np_items(self, start: int, end: int) -> tuple[list[_Seg], str] | None:
        text = self.text[start:end]
        has_or = re.search(r"(?:,\s*|\s+)or\s+", text, re.I)
        has_and = re.search(r"(?:,\s*|\s+)and\s+", text, re.I)
        if has_or and has_and:
            return None
        joiner = "or" if has_or else "and"
        pieces = list(re.finditer(r"(?:,\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+)", text, re.I))
        if not pieces:
            return [_Seg(start, end)], "and"
        segs = []
        pos = 0
        for m in pieces:
            segs.append(_Seg(start + pos, start + m.start()))
            pos = m.end()
        segs.append(_Seg(start + pos, end))
        return segs, joiner

    def _one_condition(self, seg: _Seg, draft: _RuleDraft, documented: bool, elliptic_head: str | None) -> Condition | None:
        start, end = self._trim(seg.start, seg.end)
        phrase = normalise(self.text[start:end])
        certainty = "stated"
        history = False
        severity: tuple[str, ...] = ()
        qualifiers: list[str] = []
        levels = list(self.g.severity_levels)
        sev_words = "|".join(levels)
        changed = True
        while changed:
            changed = False
            if self._condition_concept(phrase, elliptic_head) is not None:
                break
            for pattern, action in (
                (r"^(?:a|an|the)\s+", None),
                (r"^documented\s+", "documented"),
                (r"^(?:confirmed|established|definitive)\s+", "confirmed"),
                (r"^(?:suspected|presumed)\s+", "suspected"),
                (r"^(?:a\s+)?high\s+pre-?\s?test\s+probability\s+(?:of|for)\s+", "high_probability"),
                (r"^(?:a\s+)?diagnosis\s+of\s+", None),
                (r"^(?:a\s+)?(?:history|prior\s+episode|episodes?)\s+of\s+", "history"),
                (rf"^(?P<a>{sev_words})(?:ly)?\s*(?:-|\s)to(?:-|\s)\s*(?P<b>{sev_words})(?:ly)?\s+", "range"),
                (rf"^(?P<a>{sev_words})\s+", "level"),
            ):
                m = re.match(pattern, phrase)
                if not m:
                    continue
                if action == "documented":
                    documented = True
                elif action in ("confirmed", "suspected", "high_probability"):
                    certainty = action
                elif action == "history":
                    history = True
                elif action == "range":
                    a, b = levels.index(m.group("a")), levels.index(m.group("b"))
                    if a > b:
                        return None
                    severity = tuple(levels[a:b + 1])
                elif action == "level":
                    severity = (m.group("a"),)
                phrase = phrase[m.end():]
                changed = True
                break
            if not changed:
                q = re.match(r"^(?P<q>[a-z][a-z\-]*)\s+", phrase)
                if q and q.group("q") in self.g.qualifier_words and self._condition_concept(phrase[q.end():], elliptic_head) is not None:
                    qualifiers.append(q.group("q"))
                    phrase = phrase[q.end():]
                    changed = True
                elif q and q.group("q") in self.g.qualifier_words and phrase[q.end():] in self.g.anaphora:
                    qualifiers.append(q.group("q"))
                    phrase = phrase[q.end():]
                    changed = True
        concept = self._condition_concept(phrase, elliptic_head)
        if concept is None and phrase in self.g.anaphora:
            concept = draft.anaphor
        if concept is None:
            if not self._free_ok(phrase):
                return None
            if any(w in self.g.qualifier_words for w in phrase.split()[:1]) and phrase.split()[0] in ("significant",):
                return None
            concept = phrase
        return Condition(self.fresh(), self._span(start, end), concept, severity, certainty,  # type: ignore[arg-type]
                         documented, history, tuple(qualifiers))

    def _condition_concept(self, phrase: str, elliptic_head: str | None) -> str | None:
        phrase = phrase.strip()
        if not phrase:
            return None
        concept = self.lex.concept_named(phrase)
        if concept is None and elliptic_head:
            # "stage 2 or stage 3 kidney disease": the first item borrows the last item's head words
            words = elliptic_head.split()
            for k in range(1, len(words)):
                tail = " ".join(words[-k:])
                if not phrase.endswith(tail):
                    concept = self.lex.concept_named(f"{phrase} {tail}")
                    if concept is not None:
                        break
        if concept is not None and self.lex.concepts[concept].domain == "condition":
            return concept
        return None
