"""A rule's exception (', unless ...', ', except where ...', '..., in which case ...'): a waiver of the
requirements it lifts, or a routing (with the condition present the rule does not cover the service,
or another service is required). Not Python exceptions: an unreadable stretch is reader.py's `_Unread`.
"""

from __future__ import annotations

import re

from clauseguard.corpus.criteria import Duration, Node, Routing, Treatment, Waiver, iter_atoms
from clauseguard.reading.compile.conditions import _ConditionReader
from clauseguard.reading.compile.patterns import _ARTICLES, _STOP
from clauseguard.reading.compile.reader import _RuleDraft, _Seg, _Unread
from clauseguard.reading.lexicon import normalise


class _ExceptionReader(_ConditionReader):
    """Waivers and routings from a rule's exception."""

    def _exception(self, draft: _RuleDraft, seg: _Seg, exc: re.Match[str]) -> None:
        body_start = seg.start + exc.end() - exc.start()
        rest = self.text[body_start:seg.end]
        which = re.search(r",?\s+in\s+which\s+case\s+", rest, re.I)
        cond_seg = _Seg(body_start, body_start + (which.start() if which else len(rest)))
        condition = self._conditions(cond_seg, draft)
        span = self._span(seg.start, seg.end)
        target_list = draft.trigger if draft.effect in ("not_covered", "withheld") else draft.when
        body = self._as_node(target_list)
        if which is None and draft.effect == "limit":
            # "limited to N per P unless C": with C present the limit does not apply
            draft.trigger.append(Routing(condition, span))
            return
        if which is not None and draft.effect == "limit":
            raise _Unread(seg.start, seg.end, "an exception to a limit that names a consequence")
        if which is None:
            waived = self._waived_by_status(condition, body)
            if waived:
                assert body is not None
                target_list[:] = [Waiver(body, condition, waived, span)]
            else:
                target_list[:] = [Routing(condition, span, body)]
            return
        conseq = rest[which.end():]
        c0 = body_start + which.end()
        m = re.match(rf"^(?P<what>.+?)\s+(?P<v>{self.g.waiver_conseq})$", conseq.strip(), re.I)
        if m:
            if body is None:
                raise _Unread(c0, seg.end, "a waiver with no requirement to waive")
            lead = len(conseq) - len(conseq.lstrip())
            named = self.text[c0 + lead + m.start("what"):c0 + lead + m.end("what")]
            waived = self._waived_by_name(named, body, c0, seg.end)
            target_list[:] = [Waiver(body, condition, waived, span)]
            return
        m = re.match(rf"^(?P<what>.+?)\s+(?P<v>{self.g.routing_conseq})$", conseq.strip(), re.I)
        if m:
            lead = len(conseq) - len(conseq.lstrip())
            tseg = _Seg(c0 + lead + m.start("what"), c0 + lead + m.end("what"))
            target = self._subject_np(tseg)
            if target is None or target.concept not in self.lex.concepts or \
                    self.lex.concepts[target.concept].domain not in ("service", "therapy"):
                raise _Unread(tseg.start, tseg.end, "a routing target that is not a known service")
            target_list[:] = [Routing(condition, span, body, target)]
            return
        raise _Unread(c0, seg.end, "what follows 'in which case'")

    def _waived_by_status(self, condition: Node, body: Node | None) -> tuple[str, ...]:
        """'..., UNLESS X therapy is contraindicated': the exception lifts the requirements about X."""
        if body is None or not isinstance(condition, Treatment):
            return ()
        if not set(condition.statuses) & {"contraindicated", "intolerant"}:
            return ()
        hits = []
        for atom in iter_atoms(body):
            if isinstance(atom, Duration | Treatment):
                if self._related(atom.therapy, condition.therapy):
                    hits.append(atom.id)
        return tuple(hits)

    def _related(self, a: str, b: str) -> bool:
        return a == b or self.lex.is_a(a, b) or self.lex.is_a(b, a)

    def _waived_by_name(self, named: str, body: Node, start: int, end: int) -> tuple[str, ...]:
        want = self._content_words(named) - {"requirement", "requirements", "criterion", "criteria"}
        if not want:
            raise _Unread(start, end, "the waived requirement is not named")
        scored: list[tuple[int, str]] = []
        for atom in iter_atoms(body):
            have = self._content_words(atom.span.text) | self._content_words(atom.label)
            scored.append((len(want & have), atom.id))
        best = max((s for s, _ in scored), default=0)
        hits = tuple(i for s, i in scored if s == best and s > 0)
        if len(hits) != 1:
            raise _Unread(start, end, "the waived requirement matches no single criterion")
        return hits + _details_of(body, hits[0])

    def _content_words(self, text: str) -> set[str]:
        out = set()
        for word in re.findall(r"[a-z0-9]+", normalise(text).replace("-", " ")):
            if word in _STOP or word in _ARTICLES:
                continue
            if word in self.g.words:
                word = str(int(self.g.words[word]))
            if len(word) > 3 and word.endswith("s"):
                word = word[:-1]
            out.add(word)
        return out


def _details_of(body: Node, atom_id: str) -> tuple[str, ...]:
    """Atoms written inside a course's own words ('multiple daily injections, three or more per day with
    self-adjustment of doses, for at least three months'): waiving the course waives them with it."""
    atoms = list(iter_atoms(body))
    course = next((a for a in atoms if a.id == atom_id), None)
    if not isinstance(course, Duration):
        return ()
    return tuple(a.id for a in atoms if a.id != atom_id and course.span.start <= a.span.start
                 and a.span.end <= course.span.end)
