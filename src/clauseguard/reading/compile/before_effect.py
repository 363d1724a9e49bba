"""The words before a rule's effect ('X is covered'): a population prefix ('For members with X,'), the
subject, and the occasion it states ('More than two X per 36 months', 'Repeat X within 12 months',
'X for Y').
"""

from __future__ import annotations

import re

from clauseguard.corpus.criteria import Condition, Count, Node, Service, iter_atoms
from clauseguard.reading.compile.limits import _LimitReader
from clauseguard.reading.compile.populations import _PopulationReader
from clauseguard.reading.compile.reader import _RuleDraft, _Seg, _Unread
from clauseguard.reading.lexicon import normalise


class _BeforeEffectReader(_PopulationReader, _LimitReader):
    """Population prefix, subject and triggers."""

    # --- before the effect: population prefix, subject, triggers -----------------------------

    def _pre_effect(self, draft: _RuleDraft, seg: _Seg, requires: bool = False) -> None:
        text = self._t(seg)
        start = seg.start
        prefix = re.match(rf"^\s*(?:(?:{self.g.pop_intro})|for)\s+(?P<pop>[^,]+),\s*", text, re.I)
        if prefix and re.match(r"^\s*(?:for|in)\s+members\s+(?:enrolled|on|of|covered)\b", text, re.I):
            problem = _Unread(seg.start, seg.start + prefix.end(), "a statement limited to a plan (read by the engine)")
            try:
                self._subject_phrase(draft, _Seg(seg.start + prefix.end(), seg.end), requires)
            except _Unread:
                pass
            problem.subject = draft.subject
            raise problem
        if prefix:
            pop_seg = _Seg(start + prefix.start("pop"), start + prefix.end("pop"))
            nodes = self._condition_list(pop_seg, draft)
            draft.population.extend(nodes)
            atoms = [a for n in nodes for a in iter_atoms(n)]
            if len(atoms) == 1 and isinstance(atoms[0], Condition):
                draft.anaphor = atoms[0].concept
            start += prefix.end()
            text = self.text[start:seg.end]
        subj = _Seg(start, seg.end)
        self._subject_phrase(draft, subj, requires)

    def _subject_phrase(self, draft: _RuleDraft, seg: _Seg, requires: bool) -> None:
        text = self._t(seg)
        stripped = text.strip()
        lead = len(text) - len(text.lstrip())
        base = seg.start + lead
        benefit = re.match(r"^(?:the\s+)?(?:benefits?|cover|costs?)\s+(?:for|of)\s+", stripped, re.I)
        if benefit:
            base += benefit.end()
            stripped = stripped[benefit.end():]
        # "More than two X per rolling 36-month period" / "Quantities in excess of N X per P"
        m = re.match(rf"^(?P<pre>{self.g.PRE})\s+(?P<rest>.+)$", stripped, re.I)
        if m and self.g.cmp_pre[normalise(m.group("pre"))] in (">", ">="):
            count = self._count_phrase(_Seg(base, base + len(stripped)), item_default=None, limit=False,
                                       subject_count=True)
            if count is None:
                raise _Unread(base, base + len(stripped), "a quantity the compiler cannot read")
            generic = self._generic_item(count.item)
            if not generic:
                draft.subject = Service(self.fresh(), count.span, count.item)
            draft.trigger.append(count)
            return
        m = re.match(r"^(?:quantities|quantity|amounts?)\s+(?P<rest>.+)$", stripped, re.I)
        if m:
            inner = _Seg(base + m.start("rest"), base + len(stripped))
            count = self._count_phrase(inner, item_default=None, limit=False)
            if count is None:
                raise _Unread(inner.start, inner.end, "a quantity the compiler cannot read")
            draft.trigger.append(count)
            return
        # "Earlier replacement is covered only when ...": more than the allowance the clause just stated
        m = re.fullmatch(r"(?:an?\s+)?(?:earlier|early|more\s+frequent|additional)\s+replacements?", stripped, re.I)
        if m:
            allowance = self.last_count
            if allowance is None or allowance.comparator not in ("<=", "<"):
                raise _Unread(base, base + len(stripped), "a replacement interval the clause does not state")
            span = self._span(base, base + len(stripped))
            draft.subject = Service(self.fresh(), span, allowance.item)
            value = allowance.value if allowance.comparator == "<=" else allowance.value - 1
            draft.trigger.append(Count(self.fresh(), span, allowance.item, ">", value, allowance.per))
            return
        # "Repeat X within a 12-month period"
        m = re.match(r"^(?:repeat|repeated|additional)\s+(?P<what>.+?)\s+(?:within|in)\s+(?P<per>.+)$", stripped, re.I)
        if m:
            subject = self._subject_np(_Seg(base + m.start("what"), base + m.end("what")))
            period = self._period(_Seg(base + m.start("per"), base + m.end("per")))
            if subject is None or period is None:
                raise _Unread(base, base + len(stripped), "a repeat occasion the compiler cannot read")
            draft.subject = subject
            draft.trigger.append(Count(self.fresh(), self._span(base, base + len(stripped)), subject.concept, ">", 1.0, period))
            return
        # "One bariatric procedure is covered per member per lifetime"
        m = re.match(rf"^(?P<num>{self.g.NUM})\s+(?P<what>.+)$", stripped, re.I)
        if m and not requires:
            subject = self._subject_np(_Seg(base + m.start("what"), base + len(stripped)))
            if subject is None:
                raise _Unread(base, base + len(stripped), "a counted subject the compiler cannot name")
            draft.subject = subject
            draft.pending_count = (self._number(m.group("num"), base), subject.concept, base, base + len(stripped))
            return
        # "Services designated as experimental or investigational"
        m = re.match(r"^(?P<what>.+?)\s+designated\s+(?:as\s+)?(?P<d>.+)$", stripped, re.I)
        if m:
            draft.trigger.append(self._designation_list(_Seg(base + m.start("d"), base + len(stripped))))
            subject = self._subject_np(_Seg(base + m.start("what"), base + m.end("what")))
            if subject is not None and not self._generic_item(subject.concept):
                draft.subject = subject
            return
        # "Brain MRI for uncomplicated headache without red flags" / "X dispensed solely for Y"
        m = re.match(
            r"^(?P<what>.+?)\s+(?:(?:performed|dispensed|used|provided|billed|prescribed|requested)\s+)?"
            r"(?P<solely>(?:solely|only|exclusively)\s+)?for\s+(?P<ind>.+)$", stripped, re.I)
        if m:
            if draft.effect not in ("not_covered", "withheld"):
                ind = _Seg(base + m.start("ind"), base + len(stripped))
                node = self._bare(lambda: self._conditions(ind, draft))
                if m.group("solely") or not self._is_population(node):
                    raise _Unread(base, base + len(stripped),
                                  "a service named with its purpose ('X for Y'): whether the member must have Y is unclear")
                subject = self._subject_np(_Seg(base + m.start("what"), base + m.end("what")))
                if subject is None:
                    raise _Unread(base, base + m.end("what"), "a subject the compiler cannot name")
                draft.subject = subject
                draft.population.append(node)
                return
            subject = self._subject_np(_Seg(base + m.start("what"), base + m.end("what")))
            if subject is None:
                raise _Unread(base, base + m.end("what"), "a subject the compiler cannot name")
            draft.subject = subject
            ind_start, ind_end = base + m.start("ind"), base + len(stripped)
            # "... for convenience alone, for a member with no X": the purpose, and whom the request is for
            who = re.search(r",\s+for\s+(?:an?\s+|the\s+)?(?:member|patient|insured\s+person|individual)s?\s+"
                            r"(?P<who>(?:with|who|whose)\s.+?),?$", self.text[ind_start:ind_end], re.I)
            whom: Node | None = None
            if who:
                whom = self._conditions(_Seg(ind_start + who.start("who"), ind_start + who.end("who")), draft)
                ind_end = ind_start + who.start()
            alone = re.search(r"\s+(?:alone|only)$", self.text[ind_start:ind_end], re.I)
            if alone:
                ind_end = ind_start + alone.start()
            ind = _Seg(ind_start, ind_end)
            node = self._bare(lambda: self._conditions(ind, draft))
            if m.group("solely") or alone:
                node = self._mark_solely(node)
            draft.trigger.append(node)
            if whom is not None:
                draft.trigger.append(whom)
            return
        m = re.match(r"^(?P<what>.+?)\s+(?:performed|dispensed|used|provided|billed|prescribed|requested)$", stripped, re.I)
        if m:
            stripped = m.group("what")
        subject = self._subject_np(_Seg(base, base + len(stripped)))
        if subject is None:
            listed = self._subject_list(_Seg(base, base + len(stripped)))
            if not listed:
                raise _Unread(base, base + len(stripped), "a subject the compiler cannot name")
            subject, draft.also = listed[0], listed[1:]
        if not self._generic_item(subject.concept):
            draft.subject = subject
