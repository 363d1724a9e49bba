"""Conditions as written: explicit lists ('all of the following: (1) ...; (2) ...'), examples ('X such
as A or B'), joiners ('and', 'or', 'with', 'without', 'despite'), and the predicate that hands each
part to an atom reader. Words that read two ways are refused, never split a second way.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable

from clauseguard.corpus.criteria import AllOf, AnyOf, Condition, Node, Not, Treatment, iter_atoms
from clauseguard.reading.compile.documentation import _DocumentationReader
from clauseguard.reading.compile.reader import _Ambiguous, _flatten, _RuleDraft, _Seg, _Unread
from clauseguard.reading.compile.therapies import _TherapyReader
from clauseguard.reading.lexicon import normalise


class _ConditionReader(_TherapyReader, _DocumentationReader):
    """Condition trees: lists, joiners, predicates."""

    # --- conditions: lists, connectives, predicates ------------------------------------------

    def _conditions(self, seg: _Seg, draft: _RuleDraft, documentation: bool = False) -> Node:
        start, end = self._trim(seg.start, seg.end)
        text = self.text[start:end]
        if not text:
            raise _Unread(seg.start, seg.end, "an empty condition")
        if re.search(r"\b(?:two|three|four|\d+)\s+(?:or\s+more\s+)?of\s+the\s+following\b", text, re.I):
            raise _Unread(start, end, "a count of listed criteria ('two of the following')")
        lm = re.match(rf"^(?:(?:the\s+member\s+)?(?:has|have|meets|meet)\s+)?(?P<kind>(?P<all>{self.g.LIST_ALL})|"
                      rf"(?P<any>{self.g.LIST_ANY}))(?:\s+(?:criteria|findings|conditions|indications|features))?"
                      rf"(?:\s+(?:are|is)\s+(?:met|documented|present)|\s+(?:applies|apply))?\s*:\s*(?P<items>.+)$",
                      text, re.I | re.S)
        if lm:
            items = self._list_items(_Seg(start + lm.start("items"), end))
            nodes = tuple(self._bare(lambda item=item: self._conditions(item, draft, documentation))  # type: ignore[misc]
                          for item in items)
            listed = _flatten(AllOf(nodes) if lm.group("all") else AnyOf(nodes))
            self.listed.add(id(listed))
            self.keep_alive.append(listed)
            return listed
        ev = re.match(r"^(?:whose\s+)?(?P<x>[a-z][a-z\s\-]*?)\s+(?:is|are)\s+[a-z\-]+\s+as\s+(?:evidenced|demonstrated|shown|documented)"
                      r"\s+by\s+(?P<y>.+)$", text, re.I | re.S)
        if ev and self._free_ok(normalise(ev.group("x")), max_words=4) or (ev and self.lex.concept_named(ev.group("x"))):
            # "<a state> is poor as shown by <a test and its threshold>": the
            # evidence named is the test the policy applies
            return self._conditions(_Seg(start + ev.start("y"), end), draft, documentation)
        inc = re.match(r"^(?P<cat>(?:at\s+least\s+one|one\s+or\s+more|any)\s+[^,:]+?),?\s+(?:including|such\s+as)\s+(?P<items>.+)$",
                       text, re.I | re.S)
        if inc:
            cat_start = start + inc.start("cat")
            cat_text = re.sub(r"^(?:at\s+least\s+one|one\s+or\s+more|any)\s+", "", inc.group("cat"), flags=re.I)
            category = self._one_condition(_Seg(start + inc.end("cat") - len(cat_text), start + inc.end("cat")), draft,
                                           documentation, None)
            if category is None or category.concept not in self.lex.concepts:
                raise _Unread(cat_start, start + inc.end("cat"), "a category the lexicon does not know")
            items = self._list_items(_Seg(start + inc.start("items"), end))
            examples = [self._bare(lambda item=item: self._predicate(item, draft, documentation))  # type: ignore[misc]
                        for item in items]
            # "including" names examples, not the whole category: the category stays an alternative
            return AnyOf((*examples, category))
        for upper, cls in ((" AND ", AllOf), (" OR ", AnyOf)):
            if upper in text:
                other = " OR " if upper == " AND " else " AND "
                if other in text:
                    raise _Ambiguous(start, end, "AND and OR mixed without a list to group them")
                parts = self._split_on(start, end, upper)
                return _flatten(cls(tuple(self._conditions(p, draft, documentation) for p in parts)))
        such = re.match(r"^(?P<cat>.+?),?\s+such\s+as\s+(?P<items>.+)$", text, re.I | re.S)
        if such:
            return self._examples(_Seg(start, start + such.end("cat")), _Seg(start + such.start("items"), end),
                                  draft, documentation)
        try:
            return self._predicate(_Seg(start, end), draft, documentation)
        except _Ambiguous:
            raise
        except _Unread as whole_problem:
            split = self._split_connectives(_Seg(start, end), draft, documentation)
            if split is None:
                raise whole_problem from None
            return split

    def _examples(self, cat: _Seg, items: _Seg, draft: _RuleDraft, documentation: bool) -> Node:
        """'mechanical symptoms such as locking, catching or giving way': the category is what the clause
        requires; an example the lexicon does not already place under it is one more way to meet it."""
        category = self._predicate(cat, draft, documentation)
        if not isinstance(category, Condition):
            raise _Unread(cat.start, cat.end, "examples of something other than a condition")
        examples: list[Node] = []
        for item in self._list_items(items):
            example = self._bare(lambda item=item: self._predicate(item, draft, documentation))  # type: ignore[misc]
            if not isinstance(example, Condition):
                raise _Unread(item.start, item.end, "an example that is not a condition")
            if example.concept == category.concept or self.lex.is_a(example.concept, category.concept):
                continue
            if any(isinstance(e, Condition) and e.concept == example.concept for e in examples):
                continue
            examples.append(example)
        return AnyOf((*examples, category)) if examples else category

    def _split_on(self, start: int, end: int, sep: str) -> list[_Seg]:
        parts: list[_Seg] = []
        text = self.text[start:end]
        pos = 0
        for m in re.finditer(re.escape(sep), text):
            parts.append(_Seg(start + pos, start + m.start()))
            pos = m.end()
        parts.append(_Seg(start + pos, end))
        return [p for p in parts if self.text[p.start:p.end].strip(" ,;")]

    def _list_items(self, seg: _Seg) -> list[_Seg]:
        text = self._t(seg)
        marks = list(re.finditer(r"(?:^|(?<=[;:])\s*|(?<=;)\s*(?:and|or)\s+|(?<=[;:]\s)\s*(?:and\s+|or\s+)?)"
                                 r"\(\s*(?:\d+|[a-z]|[ivx]+)\s*\)\s*", text, re.I))
        if len(marks) >= 2:
            items = []
            for i, m in enumerate(marks):
                s = m.end()
                e = marks[i + 1].start() if i + 1 < len(marks) else len(text)
                if i == 0 and text[:m.start()].strip():
                    raise _Unread(seg.start, seg.start + m.start(), "words before a numbered list")
                chunk = text[s:e]
                chunk = re.sub(r"[;,]?\s*(?:\b(?:and|or))?\s*$", "", chunk)
                items.append(_Seg(seg.start + s, seg.start + s + len(chunk)))
            return items
        if ";" in text:
            out = []
            pos = 0
            for piece in text.split(";"):
                cleaned = re.sub(r"^\s*(?:and|or)\s+", "", piece)
                lead = len(piece) - len(cleaned)
                out.append(_Seg(seg.start + pos + lead, seg.start + pos + len(piece)))
                pos += len(piece) + 1
            return out
        # "locking, joint effusion or a positive McMurray test"
        pieces = re.split(r",\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+", text)
        out = []
        pos = 0
        for piece in pieces:
            at = text.index(piece, pos)
            out.append(_Seg(seg.start + at, seg.start + at + len(piece)))
            pos = at + len(piece)
        return out

    def _split_connectives(self, seg: _Seg, draft: _RuleDraft, documentation: bool) -> Node | None:
        """Split 'A and B' / 'A, or B' / 'A together with B' / 'A without B' where both sides read.

        'and' / 'or' are tried before 'with', left to right; a split whose right side is itself an
        unbracketed list of the other connective is refused as ambiguous ('A and B or C').
        """
        text = self._t(seg)
        passes = (
            re.compile(rf"(?:,\s*|\s+)(?:(?P<and>{self.g.AND})|(?P<or>or))\s+", re.I),
            re.compile(r"(?:,\s*|\s+)(?:(?P<with>with(?![\w-]))|(?P<absent>in\s+the\s+absence\s+of|without)|(?P<despite>(?=despite\s)))\s*",
                       re.I),
        )
        for conn in passes:
            for m in conn.finditer(text):
                if self._inside_comparator(text, m):
                    continue
                left = _Seg(seg.start, seg.start + m.start())
                right = _Seg(seg.start + m.end(), seg.end)
                try:
                    lnode = self._predicate(left, draft, documentation)
                    if m.group("absent") if "absent" in conn.groupindex else False:
                        inner = self._condition_np(right, draft, documentation)
                        if inner is None:
                            continue
                        rnode: Node = Not(inner)
                    elif m.groupdict().get("despite") is not None:
                        found = self._treatment(right, draft, documentation)
                        if found is None:
                            continue
                        rnode = found
                    elif m.groupdict().get("with") or (m.groupdict().get("and") and
                                                        normalise(m.group("and")) != "and"):
                        rnode = self._bare(lambda seg=right: self._conditions(seg, draft, documentation))  # type: ignore[misc]
                    else:
                        rnode = self._conditions(right, draft, documentation)
                except _Ambiguous:
                    raise
                except _Unread:
                    continue
                if m.groupdict().get("with") and self._attaches_to_noun(lnode, rnode):
                    continue
                if m.groupdict().get("or"):
                    if isinstance(rnode, AllOf) and id(rnode) in self.loose:
                        raise _Ambiguous(seg.start, seg.end, "'or' and 'and' mixed without a list to group them")
                    node = _flatten(AnyOf((lnode, rnode)))
                else:
                    if isinstance(rnode, AnyOf) and id(rnode) in self.loose:
                        raise _Ambiguous(seg.start, seg.end, "'and' and 'or' mixed without a list to group them")
                    node = _flatten(AllOf((lnode, rnode)))
                self.loose.add(id(node))
                self.keep_alive.append(node)
                return node
        return None

    def _attaches_to_noun(self, left: Node, right: Node) -> bool:
        """'a first-degree relative with breast cancer': a condition after 'with' belongs to a noun the
        lexicon does not know as a condition, not to the member, so it is not a second requirement."""
        right_atoms = list(iter_atoms(right))
        if id(right) in self.listed or not right_atoms or not all(isinstance(a, Condition) for a in right_atoms):
            return False
        return isinstance(left, Condition) and left.concept not in self.lex.concepts

    def _single_predicate(self, seg: _Seg, draft: _RuleDraft) -> bool:
        try:
            self._predicate(seg, draft, False)
            return True
        except _Unread:
            return False

    def _predicate(self, seg: _Seg, draft: _RuleDraft, documentation: bool = False) -> Node:
        start, end = self._trim(seg.start, seg.end)
        text = self.text[start:end]
        # the member as subject, and a clinician who records the fact as subject
        m = re.match(rf"^(?:{self.g.DOCUMENTERS})\s+documents?\s+that\s+", text, re.I)
        if m:
            return self._predicate(_Seg(start + m.end(), end), draft, True)
        m = re.match(rf"^(?:{self.g.MEMBER})(?:'s)?\s+", text, re.I)
        if m and not re.match(r"^(?:members?|patients?)\s+(?:with|aged|who)\b", text, re.I):
            return self._predicate(_Seg(start + m.end(), end), draft, documentation)
        m = re.match(r"^(?:who|that)\s+", text, re.I)
        if m:
            return self._predicate(_Seg(start + m.end(), end), draft, documentation)
        # "whose glucose control is stable on injections": a state (and the therapy it holds on)
        m = re.fullmatch(r"whose\s+(?P<np>[a-z][a-z\- ]*?)\s+(?:is|are|remains|remain)\s+(?P<state>[a-z\-]+)"
                         r"(?:\s+on\s+(?P<th>.+))?", text, re.I)
        phrase = f"{normalise(m.group('state'))} {normalise(m.group('np'))}" if m else ""
        concept = self.lex.concept_named(phrase) if m else None
        if m and (concept is not None or self._free_ok(phrase, max_words=4)):
            state: Node = Condition(self.fresh(), self._span(start, start + (m.start("th") - 4 if m.group("th") else len(text))),
                                    concept or phrase)
            if not m.group("th"):
                return state
            therapy = self._therapy(m.group("th"))
            if therapy is None:
                raise _Unread(start + m.start("th"), end, "a therapy the compiler cannot name")
            return AllOf((state, Treatment(self.fresh(), self._span(start + m.start("th"), end), therapy)))
        # "the pump is out of warranty": a state of the (known) device the rule is about
        m = re.match(r"^(?:the|its|this)\s+(?P<svc>[a-z][a-z\- ]*?)\s+(?=(?:is|are|was|were|cannot|can|has|have)\s)",
                     text, re.I)
        if m:
            device = self.lex.concept_named(m.group("svc"))
            if device is not None and self.lex.concepts[device].domain != "condition":
                device_state = self._condition_pred(_Seg(start + m.end(), end), draft, documentation)
                if device_state is not None:
                    return device_state
        m = re.match(r"^(?:(?:is|are)\s+)?(?:performed|dispensed|used|provided|billed|prescribed|requested)\s+"
                     r"(?P<solely>(?:solely|only|exclusively)\s+)?for\s+", text, re.I)
        if m:
            alone = re.search(r"\s+(?:alone|only)$", text, re.I)
            purpose_end = start + alone.start() if alone else end
            purpose = self._bare(lambda: self._conditions(_Seg(start + m.end(), purpose_end), draft, documentation))
            return self._mark_solely(purpose) if (m.group("solely") or alone) else purpose
        for reader in (self._tenure, self._approval, self._age, self._measure, self._duration, self._treatment,
                       self._documentation, self._absence, self._designation_pred, self._condition_pred):
            node = reader(_Seg(start, end), draft, documentation)
            if node is not None:
                return node
        raise _Unread(start, end, "a condition the compiler cannot read")

    def _mark_solely(self, node: Node) -> Node:
        if isinstance(node, Condition):
            return dataclasses.replace(node, qualifiers=(*node.qualifiers, "solely"))
        if isinstance(node, AllOf) and node.children and isinstance(node.children[0], Condition):
            first = dataclasses.replace(node.children[0], qualifiers=(*node.children[0].qualifiers, "solely"))
            return AllOf((first, *node.children[1:]))
        raise _Unread(0, 0, "'solely for' something other than a condition")


AtomReader = Callable[[_Seg, _RuleDraft, bool], Node | None]
