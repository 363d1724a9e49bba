"""The driver: a clause split into sentences (and ';'-joined statements), each read by the first shape
that takes it (note, amendment, designation, first-line, waiting period, exclusion, else a rule), and
the clause's criteria, or a refusal naming every stretch it could not read.
"""

from __future__ import annotations

import re
from typing import Any

from clauseguard.corpus.criteria import Amendment, Criteria, DesignationStatement, Note, Rule, renumber
from clauseguard.reading.compile.amendments import _AmendmentReader
from clauseguard.reading.compile.group_terms import _GroupTermReader
from clauseguard.reading.compile.reader import _Seg, _Unread
from clauseguard.reading.compile.rules import _RuleReader
from clauseguard.reading.grammar.result import Refusal, Unread
from clauseguard.reading.lexicon import normalise


class _Compiler(_RuleReader, _AmendmentReader, _GroupTermReader):
    """One clause's compilation."""

    # --- driver ------------------------------------------------------------------------------

    def run(self) -> Criteria | Refusal:
        rules: list[Rule] = []
        designations: list[DesignationStatement] = []
        amendments: list[Amendment] = []
        notes: list[Note] = []
        unread: list[Unread] = []
        for seg in self._sentences():
            try:
                out = self._sentence(seg)
            except _Unread as problem:
                start, end = problem.start, problem.end
                if end <= start:
                    start, end = seg.start, seg.end
                unread.append(Unread(self._span(start, end), problem.reason, problem.subject, problem.population))
                continue
            for item in out:
                if isinstance(item, Rule):
                    rules.append(item)
                elif isinstance(item, DesignationStatement):
                    designations.append(item)
                elif isinstance(item, Amendment):
                    amendments.append(item)
                else:
                    notes.append(item)
        if unread:
            read = Criteria(tuple(rules), tuple(designations), tuple(amendments), tuple(notes))
            return Refusal(tuple(unread), None if read.empty else renumber(read))
        criteria = Criteria(tuple(rules), tuple(designations), tuple(amendments), tuple(notes))
        if criteria.empty and not criteria.notes:
            return Refusal((Unread(self._span(0, len(self.text)), "no statement the compiler can read"),))
        return renumber(criteria)

    def _sentences(self) -> list[_Seg]:
        text = self.text
        out: list[_Seg] = []
        depth = 0
        start = 0
        i = 0
        while i < len(text):
            ch = text[i]
            if ch == "(":
                depth += 1
            elif ch == ")":
                depth = max(0, depth - 1)
            elif ch == "." and depth == 0:
                nxt = text[i + 1:i + 3]
                prev = text[max(0, i - 4):i].lower()
                is_number = i > 0 and text[i - 1].isdigit() and i + 1 < len(text) and text[i + 1].isdigit()
                is_abbrev = prev.endswith(("e.g", "i.e", " vs", "etc"))
                if not is_number and not is_abbrev and (i + 1 >= len(text) or (nxt[:1].isspace())):
                    seg = _Seg(*self._trim(start, i))
                    if seg.end > seg.start:
                        out.append(seg)
                    start = i + 1
            i += 1
        tail = _Seg(*self._trim(start, len(text)))
        if tail.end > tail.start:
            out.append(tail)
        return [part for seg in out for part in self._statements(seg)]

    def _statements(self, seg: _Seg) -> list[_Seg]:
        """A sentence of two statements joined by ';' ("One X is reimbursed per knee; codes A and B are not
        billed together"): split where the part after ';' makes a statement of its own. A list (after ':')
        keeps its ';'."""
        text = self._t(seg)
        if ":" in text or ";" not in text:
            return [seg]
        out: list[_Seg] = []
        start = seg.start
        for m in re.finditer(r";\s*", text):
            after = text[m.end():]
            nxt = after.split(";", 1)[0]
            notes = [p for kind in ("billing", "removed", "elsewhere") for p in self.g.notes[kind]]
            if self.g.effect_re.search(nxt) or self.lex.pattern(notes, "statement-notes").search(nxt):
                out.append(_Seg(*self._trim(start, seg.start + m.start())))
                start = seg.start + m.end()
        out.append(_Seg(*self._trim(start, seg.end)))
        return [s for s in out if s.end > s.start]

    # --- sentences ---------------------------------------------------------------------------

    def _sentence(self, seg: _Seg) -> list[Any]:
        text = self._t(seg)
        note = self._note(seg, text)
        if note is not None:
            return [note]
        amendments = self._amendment(seg)
        if amendments is not None:
            return list(amendments)
        designation = self._designation(seg)
        if designation is not None:
            return designation
        restated = self._first_line(seg)
        if restated is not None:
            return [restated]
        waiting = self._waiting(seg)
        if waiting is not None:
            return waiting
        excluded = self._contract_exclusion(seg)
        if excluded is not None:
            return excluded
        return self._rule_sentence(seg)

    def _note(self, seg: _Seg, text: str) -> Note | None:
        has_effect = self.g.effect_re.search(text) is not None
        low = normalise(text)
        for kind in ("scope", "claims"):
            for phrase in self.g.notes[kind]:
                if low.startswith(phrase):
                    return Note(kind, self._span(seg.start, seg.end))
        if self.g.definition_re.match(text):
            return Note("definition", self._span(seg.start, seg.end))
        if has_effect:
            return None
        for kind in ("removed", "precedence", "elsewhere", "billing"):
            if self.lex.pattern(self.g.notes[kind], f"note-{kind}").search(text):
                return Note(kind, self._span(seg.start, seg.end))
        return None

    def _designation(self, seg: _Seg) -> list[Any] | None:
        text = self._t(seg)
        m = re.match(
            rf"^(?P<subj>.+?)\s+{self.g.DESIG_VERB}\s+(?P<desig>{self.g.DESIG})"
            rf"(?P<rest>\s+and\s+(?P<eff>.+))?$", text, re.I)
        if not m:
            return None
        subject = self._subject_np(_Seg(seg.start + m.start("subj"), seg.start + m.end("subj")))
        if subject is None:
            raise _Unread(seg.start, seg.start + m.end("subj"), "a designated subject the compiler cannot name")
        designation = normalise(m.group("desig"))
        span = self._span(seg.start, seg.end)
        out: list[Any] = []
        if m.group("rest"):
            eff_text = m.group("eff").strip()
            remark = self.lex.pattern(self.g.remarks, "remarks-all").search(eff_text)
            if remark is not None and remark.end() == len(eff_text):
                eff_text = eff_text[:remark.start()].strip()
            em = self.g.effect_re.fullmatch(eff_text)
            if em is None or self.g.effect_of[normalise(em.group(0))] != "not_covered":
                raise _Unread(seg.start + m.start("rest"), seg.end, "a designation followed by an unreadable effect")
            out.append(Rule("not_covered", span, subject=subject))
        out.append(DesignationStatement(subject, designation, span))
        return out
