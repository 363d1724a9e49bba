"""Group terms: a waiting period from entry into the contract (and 'that period' in a later sentence),
and what the contract does not cover ('The contract does not cover A, B or C').
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from clauseguard.corpus.criteria import AnyOf, Condition, Node, Rule, Service, Tenure
from clauseguard.reading.compile.reader import _Seg, _Unread
from clauseguard.reading.compile.subjects import _SubjectReader
from clauseguard.reading.lexicon import normalise


class _GroupTermReader(_SubjectReader):
    """Waiting periods and contract exclusions."""

    # --- group terms: waiting periods, what the contract does not cover ------------------------

    def _waiting(self, seg: _Seg) -> list[Any] | None:
        """'X become payable only after a waiting period of N months from joining' and 'A waiting period
        of N months from entry into the contract applies to X': while the member has been insured for
        less than the period, X is not covered."""
        text = self._t(seg)
        N, T = self.g.NUM, self.g.TIME
        m = re.match(
            rf"^(?P<subj>.+?)\s+(?:become|becomes|are|is)\s+(?:payable|reimbursed|covered|paid)\s+only\s+after\s+"
            rf"(?P<wait>(?:a|the)\s+waiting\s+period\s+of\s+(?P<n>{N})[\s-]*(?P<t>{T})(?:\s+(?P<from>.+?))?)$", text, re.I)
        if m is None:
            m = re.match(
                rf"^(?P<wait>(?:a|the)\s+waiting\s+period\s+of\s+(?P<n>{N})[\s-]*(?P<t>{T})(?:\s+(?P<from>.+?))?)\s+"
                rf"applies\s+to\s+(?P<subj>.+)$", text, re.I)
        if m is None:
            return self._during_waiting(seg)
        if m.group("from") is not None and not re.fullmatch(self.g.WAIT_FROM, m.group("from"), re.I):
            raise _Unread(seg.start + m.start("from"), seg.start + m.end("from"),
                          "a waiting period counted from a date other than entry into the contract")
        subjects = self._subject_list(_Seg(seg.start + m.start("subj"), seg.start + m.end("subj")))
        if not subjects:
            raise _Unread(seg.start + m.start("subj"), seg.start + m.end("subj"),
                          "the services a waiting period applies to, as services the lexicon knows")
        unit, _ = self.g.time_units[normalise(m.group("t"))]
        tenure = Tenure(self.fresh(), self._span(seg.start + m.start("wait"), seg.start + m.end("wait")), "<",
                        self._number(m.group("n"), seg.start + m.start("n")), unit)  # type: ignore[arg-type]
        self.last_waiting = tenure
        self.last_subjects = subjects
        span = self._span(seg.start, seg.end)
        return [Rule("not_covered", span, subject=s, trigger=dataclasses.replace(tenure, id=self.fresh()))
                for s in subjects]

    def _during_waiting(self, seg: _Seg) -> list[Any] | None:
        """'X started during that period is not reimbursed': the waiting period the clause just named."""
        text = self._t(seg)
        m = re.match(
            rf"^(?P<subj>.+?)\s+(?:started|begun|begins|fitted|provided|received|carried\s+out|performed|placed)\s+"
            rf"(?P<during>{self.g.WAIT_DURING})\s+(?:is|are)\s+not\s+(?:reimbursed|covered|payable|paid)$", text, re.I)
        if m is None:
            return None
        if self.last_waiting is None:
            raise _Unread(seg.start + m.start("during"), seg.start + m.end("during"),
                          "a waiting period the clause does not state")
        subj = _Seg(seg.start + m.start("subj"), seg.start + m.end("subj"))
        if re.fullmatch(r"such\s+(?:treatment|services|care|benefits)", self._t(subj).strip(), re.I):
            subjects = list(self.last_subjects)
        else:
            subjects = self._subject_list(subj) or []
        if not subjects:
            raise _Unread(subj.start, subj.end, "the services a waiting period applies to, as services the lexicon knows")
        span = self._span(seg.start, seg.end)
        trigger = dataclasses.replace(self.last_waiting, span=self._span(seg.start + m.start("during"),
                                                                          seg.start + m.end("during")))
        return [Rule("not_covered", span, subject=dataclasses.replace(s, id=self.fresh()),
                     trigger=dataclasses.replace(trigger, id=self.fresh())) for s in subjects]

    def _contract_exclusion(self, seg: _Seg) -> list[Any] | None:
        """'The contract does not cover A, B or C' / 'No benefit is paid under this rider for A or for B':
        not covered when the request is for (or presents) one of them."""
        m = self.g.contract_exclusion_re.match(self._t(seg))
        if m is None:
            return None
        start, end = self._trim(seg.start + m.start("list"), seg.end)
        text = self.text[start:end]
        # items introduced by their own "for" ("for stays in X, or for admissions for Y") stay whole
        pieces = list(re.finditer(r"(?:,\s*(?:or|and)\s+|,\s*|\s+(?:or|and)\s+)for\s+", text, re.I))
        bounds: list[tuple[int, int]] = []
        pos = 0
        for piece in pieces:
            bounds.append((pos, piece.start()))
            pos = piece.end()
        bounds.append((pos, len(text)))
        items: list[_Seg] = []
        if len(bounds) > 1:
            for a, b in bounds:
                if re.search(r",|\s(?:or|and)\s", text[a:b], re.I):
                    raise _Unread(start + a, start + b, "a list inside a listed exclusion")
                items.append(_Seg(start + a, start + b))
        else:
            for a, b in self._plain_list(text):
                items.append(_Seg(start + a, start + b))
        nodes: list[Node] = []
        for item in items:
            node = self._excluded_item(item)
            if node is None:
                raise _Unread(item.start, item.end, "an excluded item the compiler cannot name")
            nodes.append(node)
        trigger = nodes[0] if len(nodes) == 1 else AnyOf(tuple(nodes))
        return [Rule("not_covered", self._span(seg.start, seg.end), trigger=trigger)]

    def _excluded_item(self, seg: _Seg) -> Node | None:
        """One excluded item: a service the lexicon knows (the request is for it), a condition it knows,
        or a short plain phrase read as a condition the request must present literally."""
        start, end = self._trim(seg.start, seg.end)
        phrase = re.sub(r"^(?:a|an|the|any)\s+", "", normalise(self.text[start:end]))
        concept = self.lex.concept_named(phrase)
        span = self._span(start, end)
        if concept is not None:
            if self.lex.concepts[concept].domain == "condition":
                return Condition(self.fresh(), span, concept)
            return Service(self.fresh(), span, concept)
        words = phrase.split()
        if len(words) > 6 or set(words) & {"for", "of", "to", "by", "from", "with", "than", "as", "which", "that"}:
            return None
        if not self._free_ok(phrase, max_words=6):
            return None
        return Condition(self.fresh(), span, phrase)
