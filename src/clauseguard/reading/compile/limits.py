"""Counts, periods and money caps: 'twice per calendar year', 'every 36 months', 'up to N X per P',
'up to GBP 200 in any period of 24 months'. It reads quantities only, never what they limit.
"""

from __future__ import annotations

import re

from clauseguard.corpus.criteria import Amount, Count, Period
from clauseguard.reading.compile.reader import _ClauseReader, _Seg, _Unread
from clauseguard.reading.lexicon import normalise


class _LimitReader(_ClauseReader):
    """Counts, periods and amounts."""

    # --- counts and periods --------------------------------------------------------------------

    def _period(self, seg: _Seg) -> Period | None:
        text = normalise(self._t(seg))
        text = re.sub(r"^(?:a|an|any|the|each|every|one)\s+", "", text)
        rolling = False
        m = re.match(rf"^{self.g.rolling}\s+", text, re.I)
        if m:
            rolling = True
            text = text[m.end():]
        text = re.sub(rf"\s+{self.g.pnoun}$", "", text)
        if text in self.g.period_names:
            return Period(1.0, self.g.period_names[text], rolling)  # type: ignore[arg-type]
        if text in self.g.occasions:
            return Period(1.0, self.g.occasions[text])  # type: ignore[arg-type]
        m = re.fullmatch(rf"(?:period\s+of\s+)?(?P<n>{self.g.NUM})[\s-]*(?P<tu>{self.g.TIME})(?:\s+{self.g.pnoun})?", text, re.I)
        if m:
            unit, _ = self.g.time_units[normalise(m.group("tu"))]
            return Period(self._number(m.group("n"), seg.start), unit, rolling)  # type: ignore[arg-type]
        m = re.fullmatch(rf"(?P<tu>{self.g.TIME})", text, re.I)
        if m:
            unit, _ = self.g.time_units[normalise(m.group("tu"))]
            return Period(1.0, unit, rolling)  # type: ignore[arg-type]
        return None

    def _per_member_period(self, seg: _Seg) -> tuple[Period, str | None] | None:
        """'per member per calendar year', 'per knee per operative session': the window, and the body
        site the count is per (None when per member)."""
        text = self._t(seg).strip()
        m = re.fullmatch(rf"(?:per\s+(?:member|insured\s+person|enrollee)\s+)?(?:per\s+(?P<site>{self.g.SITE})\s+)?"
                         r"(?:per|in\s+a|in\s+any|every|each)\s+(?P<p>.+)", text, re.I)
        if not m:
            return None
        lead = len(self._t(seg)) - len(self._t(seg).lstrip())
        period = self._period(_Seg(seg.start + lead + m.start("p"), seg.end))
        if period is None:
            return None
        return period, normalise(m.group("site")) if m.group("site") else None

    def _count_phrase(self, seg: _Seg, item_default: str | None, limit: bool,
                      pending: tuple[float, str, int, int] | None = None, subject_count: bool = False) -> Count | None:
        start, end = self._trim(seg.start, seg.end)
        text = self.text[start:end]
        span = self._span(start, end)
        N, PRE, SUF = self.g.NUM, self.g.PRE, self.g.SUF
        per = r"(?:per|every|each|in\s+any|in\s+a|within\s+a|within\s+any|during\s+a|a)"
        times = self.g.TIMES
        m = re.fullmatch(rf"(?P<t>{times})\s+{per}\s+(?P<p>.+)", text, re.I)
        if m and item_default:
            period = self._period(_Seg(start + m.start("p"), end))
            if period is None:
                return None
            value = self.g.times[normalise(m.group("t"))]
            return Count(self.fresh(), span, item_default, "<=", value, period)
        m = re.fullmatch(rf"every\s+(?P<p>(?P<n>{N})\s+{self.g.TIME})", text, re.I)
        if m and item_default:
            period = self._period(_Seg(start + m.start("p"), end))
            if period is None:
                return None
            return Count(self.fresh(), span, item_default, "<=", 1.0, period)
        m = re.fullmatch(
            rf"(?:to\s+)?(?:(?P<pre>{PRE})\s+)?(?P<n>{N})(?:\s+(?P<suf>{SUF}))?\s+(?P<item>[^\d(]+?)\s+"
            rf"(?:per\s+(?:member|insured\s+person|enrollee)\s+)?{per}\s+(?P<p>.+)", text, re.I)
        if m:
            period = self._period(_Seg(start + m.start("p"), end))
            if period is None:
                return None
            item = self._count_noun(m.group("item"))
            if item is None:
                return None
            if m.group("pre") or m.group("suf"):
                op = self._cmp(m.group("pre"), m.group("suf"))
            elif text.lower().startswith("to ") or limit:
                op = "<="
            else:
                return None
            return Count(self.fresh(), span, item, op, self._number(m.group("n"), start), period)
        return None

    def _amount_phrase(self, seg: _Seg) -> Amount | None:
        """'up to GBP 200 per insured person in any period of 24 months', 'within an annual cap of EUR 900'."""
        start, end = self._trim(seg.start, seg.end)
        m = self.g.cap_re.fullmatch(self.text, start, end)
        if m is None:
            return None
        per: Period | None = None
        if m.group("p"):
            per = self._period(_Seg(m.start("p"), end))
            if per is None:
                raise _Unread(m.start("p"), end, "a period the compiler cannot read")
        elif m.group("annual"):
            per = Period(1.0, "year")
        currency = self.g.currencies[normalise(m.group("cur") or m.group("cur2"))]
        value = float((m.group("n") or m.group("n2")).replace(",", ""))
        return Amount(self.fresh(), self._span(start, end), currency, "<=", value, per)

    def _count_noun(self, phrase: str) -> str | None:
        phrase = normalise(phrase)
        phrase = re.sub(r"^(?:a|an|the)\s+", "", phrase)
        concept = self.lex.concept_named(phrase)
        if concept is not None:
            return concept
        if not self._free_ok(phrase, max_words=4):
            return None
        words = phrase.split()
        last = words[-1]
        if last.endswith("ies"):
            last = last[:-3] + "y"
        elif last.endswith("s") and not last.endswith("ss"):
            last = last[:-1]
        return " ".join([*words[:-1], last])
