"""A rule sentence whole: its one effect (covered, not covered, limited, requires, qualify), the words
before and after it, the same rule for each listed subject, a money cap as a limit of its own, and
the finished rule.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from clauseguard.corpus.criteria import (
    AllOf,
    AnyOf,
    Atom,
    Count,
    Documentation,
    Node,
    Not,
    Routing,
    Rule,
    Service,
    Span,
    Waiver,
    iter_atoms,
    map_atoms,
)
from clauseguard.reading.compile.after_effect import _AfterEffectReader
from clauseguard.reading.compile.before_effect import _BeforeEffectReader
from clauseguard.reading.compile.reader import _RuleDraft, _Seg, _Unread
from clauseguard.reading.lexicon import normalise


class _RuleReader(_BeforeEffectReader, _AfterEffectReader):
    """Rule sentences."""

    # --- rules -------------------------------------------------------------------------------

    def _rule_sentence(self, seg: _Seg) -> list[Any]:
        text = self._t(seg)
        span = self._span(seg.start, seg.end)
        qualify = self.g.qualify_re.search(text)
        effects = list(self.g.effect_re.finditer(text))
        if qualify and not effects:
            return [self._qualify_rule(seg, qualify, span)]
        if not effects:
            req = self.g.requires_re.search(text)
            if req is None:
                raise _Unread(seg.start, seg.end, "no coverage statement (covered, excluded, limited, requires)")
            return [self._requires_rule(seg, req, span)]
        first = effects[0]
        effect = self.g.effect_of[normalise(first.group(0))]
        eff_end = first.end()
        # "are not covered under a standing policy and require individual consideration": one effect
        for later in effects[1:]:
            between = text[eff_end:later.start()]
            if re.fullmatch(r"\s*and\s*", between) and self.g.effect_of[normalise(later.group(0))] == effect:
                eff_end = later.end()
            else:
                raise _Unread(seg.start + later.start(), seg.start + later.end(), "a second coverage statement")
        draft = _RuleDraft(effect, span)
        try:
            self._pre_effect(draft, _Seg(seg.start, seg.start + first.start()))
            self._post_effect(draft, _Seg(seg.start + eff_end, seg.end))
            rule = self._finish(draft)
        except _Unread as problem:
            problem.subject = problem.subject or draft.subject
            problem.population = problem.population or self._population_of(draft)
            raise
        rules = [rule, *(self._with_subject(rule, s) for s in draft.also)]
        if draft.caps:
            # a money cap on a covered benefit is a limit of its own, for each subject
            cap = draft.caps[0] if len(draft.caps) == 1 else AllOf(tuple(draft.caps))
            for r in list(rules):
                rules.append(self._with_subject(Rule("limit", span, r.subject, r.population, None, cap),
                                                r.subject) if r.subject is not None else Rule("limit", span, when=cap))
        if rule.subject is not None:
            self.last_subjects = [rule.subject, *draft.also]
        return rules

    def _qualify_rule(self, seg: _Seg, qualify: re.Match[str], span: Span) -> Rule:
        text = self._t(seg)
        head = re.match(rf"^(?:{self.g.MEMBER})\s+with\s+(?P<pop>.+)$", text[:qualify.start()].rstrip(), re.I)
        if head is None:
            raise _Unread(seg.start, seg.start + qualify.start(), "who qualifies is not stated as members with a condition")
        draft = _RuleDraft("covered", span)
        pop_seg = _Seg(seg.start + head.start("pop"), seg.start + head.end("pop"))
        draft.population.extend(self._condition_list(pop_seg, draft))
        try:
            rest = _Seg(seg.start + qualify.end(), seg.end)
            rest_text = self._t(rest)
            intro = re.search(rf"\s+(?:{self.g.when_intro})\s+", rest_text, re.I)
            subj_end = rest.start + (intro.start() if intro else len(rest_text))
            subject = self._subject_np(_Seg(rest.start, subj_end))
            if subject is None:
                raise _Unread(rest.start, subj_end, "the service members qualify for")
            draft.subject = subject
            if intro:
                self._post_effect(draft, _Seg(subj_end, seg.end))
            return self._finish(draft)
        except _Unread as problem:
            problem.subject = problem.subject or draft.subject
            problem.population = problem.population or self._population_of(draft)
            raise

    def _requires_rule(self, seg: _Seg, req: re.Match[str], span: Span) -> Rule:
        draft = _RuleDraft("covered", span)
        try:
            self._pre_effect(draft, _Seg(seg.start, seg.start + req.start()), requires=True)
        except _Unread as problem:
            problem.subject = problem.subject or draft.subject
            raise
        if not draft.trigger:
            missing = _Unread(seg.start, seg.start + req.start(), "a requirement without the occasion it applies to")
            missing.subject = draft.subject
            raise missing
        need = _Seg(seg.start + req.end(), seg.end)
        draft.when.append(self._documentation_or_conditions(need, draft))
        return self._finish(draft)

    def _documentation_or_conditions(self, seg: _Seg, draft: _RuleDraft) -> Node:
        text = self._t(seg).strip()
        m = re.match(r"^documentation\s+of\s+(?P<what>.+)$", text, re.I)
        lead = len(self._t(seg)) - len(self._t(seg).lstrip())
        if m:
            inner = _Seg(seg.start + lead + m.start("what"), seg.end)
            return self._documentation_items(inner, draft)
        if re.fullmatch(r"(?:additional|further|supporting)\s+documentation", text, re.I):
            return Documentation(self.fresh(), self._span(seg.start, seg.end), normalise(text))
        return self._conditions(seg, draft)

    def _with_subject(self, rule: Rule, subject: Service) -> Rule:
        """The same rule for another subject of a listed subject: atoms copied with their own ids, and a
        count of the first subject counts the new one."""
        first = rule.subject.concept if rule.subject is not None else None
        mapping: dict[str, str] = {}

        def copy(atom: Atom) -> Node:
            new_id = self.fresh()
            mapping[atom.id] = new_id
            if isinstance(atom, Count) and first is not None and atom.item == first:
                return dataclasses.replace(atom, id=new_id, item=subject.concept)
            return dataclasses.replace(atom, id=new_id)  # type: ignore[return-value]

        def fix(node: Node | None) -> Node | None:
            if isinstance(node, AllOf | AnyOf):
                return type(node)(tuple(fix(c) for c in node.children))  # type: ignore[misc]
            if isinstance(node, Not):
                return Not(fix(node.child))  # type: ignore[arg-type]
            if isinstance(node, Waiver):
                return Waiver(fix(node.body), fix(node.condition), tuple(mapping.get(w, w) for w in node.waives),  # type: ignore[arg-type]
                              node.span)
            if isinstance(node, Routing):
                return Routing(fix(node.condition), node.span, fix(node.body), node.target)  # type: ignore[arg-type]
            return node

        parts = [fix(map_atoms(part, copy)) for part in (rule.population, rule.trigger, rule.when)]
        return dataclasses.replace(rule, subject=subject, population=parts[0], trigger=parts[1], when=parts[2])

    # --- finishing ---------------------------------------------------------------------------

    def _finish(self, draft: _RuleDraft) -> Rule:
        self._extract_population(draft)
        when = list(draft.when)
        population = list(draft.population)
        pop_node = self._as_node(population)
        trigger = self._as_node(draft.trigger)
        when_node = self._as_node(when)
        if draft.effect == "limit" and when_node is None:
            raise _Unread(draft.span.start, draft.span.end, "a limit without a quantity")
        allowances = [a for a in iter_atoms(when_node) if isinstance(a, Count)]
        if len(allowances) == 1:
            self.last_count = allowances[0]
        return Rule(draft.effect, draft.span, draft.subject, pop_node, trigger, when_node,  # type: ignore[arg-type]
                    tuple(draft.remarks))
