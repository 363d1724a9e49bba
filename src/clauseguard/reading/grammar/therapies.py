"""Therapy history in a criterion's words: who tried, failed, could not tolerate or may not take what
("has tried and failed at least two inhaled controllers (e.g., ...)", "oral opioids have failed to
relieve the pain", "at least six months of conservative therapy, including ..., have failed"), with
the count, the course's length and the clause's own examples. Verbs are data (atoms.yaml).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from clauseguard.corpus.criteria import AllOf, Duration, Node, Treatment
from clauseguard.reading.grammar.atomdata import EG as _EG
from clauseguard.reading.grammar.atomdata import list_items as _list_items
from clauseguard.reading.grammar.atomdata import rx as _rx
from clauseguard.reading.grammar.atomdata import section as _section
from clauseguard.reading.grammar.values import Value, values
from clauseguard.text import fold

if TYPE_CHECKING:
    from clauseguard.reading.grammar.atoms import Reader


class TherapyReader:
    """The therapy readers of one clause, naming concepts and numbering atoms through its Reader."""

    def __init__(self, reader: Reader) -> None:
        self.text = reader.text
        self.folded = reader.folded
        self.fresh = reader.fresh
        self.span = reader.span
        self.name = reader.name
        self._person_end = reader._person_end

    def passive_therapy(self, a: int, b: int) -> Node | None:
        """"Oral and transdermal opioids have failed to relieve the pain", "a corticosteroid is
        contraindicated": the therapy named before what happened to it."""
        for status in ("failed", "intolerant", "contraindicated", "treated"):
            m = _rx(_section("treatment", f"passive_{status}")).search(self.folded, a, b)
            if m is None or m.start() - a < 3:
                continue
            if self._person_end(a, m.start()) != a:
                continue
            timed = self._timed_therapy(a, m.start(), status)
            if timed is not None:
                return timed
            name = self.name(a, m.start(), None)
            if name is None or values(self.text[a:m.start()]):
                continue
            return Treatment(self.fresh(), self.span(a, b), therapy=name, statuses=(status,))  # type: ignore[arg-type]
        return None

    def _timed_therapy(self, a: int, b: int, status: str) -> Node | None:
        """"At least six months of conservative therapy, including systemic opioids, have failed":
        a course of a therapy for a time, and what it included, failed."""
        vals = values(self.text[a:b])
        if len(vals) != 1 or vals[0].unit not in ("day", "week", "month", "year") or vals[0].start > 3 or status != "failed":
            return None
        v = vals[0]
        rest = re.sub(r"^\s*(?:of|with)\s+", "", self.text[a + v.end:b])
        rest_a = b - len(rest)
        including = re.search(r",?\s*(?:including|such as|e\.g\.,?)\s+", rest)
        name = self.name(rest_a, rest_a + (including.start() if including else len(rest.rstrip(" ,"))), None)
        if name is None:
            return None
        course = Duration(self.fresh(), self.span(a, b), therapy=name, comparator=v.comparator,  # type: ignore[arg-type]
                          value=v.value, unit=v.unit, outcome="inadequate response")  # type: ignore[arg-type]
        if including is None:
            return course
        listed = rest[including.end():].rstrip(" ,")
        examples = self.name(rest_a + including.end(), rest_a + including.end() + len(listed), None)
        if examples is None:
            return None
        return AllOf((course, Treatment(self.fresh(), self.span(rest_a + including.end(), rest_a + including.end() + len(listed)),
                                        therapy=examples, statuses=("failed",))))

    def therapy(self, a: int, b: int) -> Node | None:
        start = self._person_end(a, b)
        best: tuple[int, int, str] | None = None
        for status in ("failed", "intolerant", "contraindicated", "treated"):
            m = _rx(_section("treatment", status)).search(self.folded, start, b)
            if m is not None and m.start() - start <= 12 and (best is None or m.start() < best[0]):
                best = (m.start(), m.end(), status)
        if best is None:
            return None
        statuses = [best[2]]
        tail_start = best[1]
        # "tried and failed, or is intolerant of, X": further statuses joined to the first
        for status in ("failed", "intolerant", "contraindicated"):
            m = _rx(_section("treatment", status)).search(self.folded, tail_start, b)
            if m is not None and status not in statuses and re.fullmatch(r"[\s,]*(?:or|and|and/or)?[\s,]*", self.folded[tail_start:m.start()]):
                statuses.append(status)
                tail_start = m.end()
        if "treated" in statuses and len(statuses) > 1:
            statuses.remove("treated")
        body_a, body_b = tail_start, b
        examples: tuple[str, ...] = ()
        eg = _EG.search(self.text, body_a, body_b)
        if eg is not None:
            examples = tuple(fold(x) for x in _list_items(eg.group("list")) if x)
        vals = [v for v in values(self.text[body_a:body_b])]
        count = 1
        durations: list[Value] = []
        for v in vals:
            if v.unit in ("day", "week", "month", "year"):
                durations.append(v)
            elif not v.unit and v.comparator in (">=", "==") and count == 1:
                count = int(v.value)
        therapy_a = body_a
        counted = next((v for v in vals if not v.unit), None)
        if counted is not None and counted.start < 30:
            therapy_a = body_a + counted.end
        therapy_b = body_b
        for cut in (eg.start() if eg else None, *(body_a + v.start for v in durations)):
            if cut is not None and therapy_a < cut < therapy_b:
                therapy_b = cut
        therapy_text = re.sub(r"\s+(?:for|of|over)\s*$", "", self.text[therapy_a:therapy_b])
        therapy_text = re.split(r"\s+(?:for|with an?|at)\s+", therapy_text)[0]
        name = self.name(therapy_a, therapy_a + len(therapy_text), None)
        compound = re.search(r"([a-z]+)[- ]treated\b", self.folded[best[0]:best[1]])
        if name is None and compound is not None and not self.text[therapy_a:b].strip(" ,;.:"):
            # "is insulin-treated": the verb names the therapy itself
            name = self.name(best[0] + compound.start(1), best[0] + compound.end(1), None)
        if name is None:
            return None
        atoms: list[Node] = [Treatment(self.fresh(), self.span(a, b), therapy=name,
                                       statuses=tuple(statuses), count=max(count, 1), examples=examples)]  # type: ignore[arg-type]
        for d in durations:
            if d.comparator in (">=", ">"):
                atoms.append(Duration(self.fresh(), self.span(body_a + d.start, body_a + d.end), therapy=name,
                                      comparator=d.comparator, value=d.value, unit=d.unit,  # type: ignore[arg-type]
                                      outcome="inadequate response" if "failed" in statuses else None))
        return atoms[0] if len(atoms) == 1 else AllOf(tuple(atoms))
