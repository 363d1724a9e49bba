"""A clause's layout and statements lowered into its criteria tree: one method per kind of part.

blocks.py gives paragraphs and lists, statement.py the statements of each sentence, conditions.py
and atoms.py the trees of conditions. Here a statement that opens a list takes that list's items as
its criteria (quantified by its head, or by the items' joiners), item notes become waivers, list
heads of indications become populations; parts.py reads a statement's own words (its subject and a
quantity in it, the words after its effect), trees.py holds the small walks over the trees built.
A sentence nothing reads is a note when no deciding word is in it, and an unread span otherwise.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

from clauseguard.corpus.criteria import (
    AllOf,
    Amendment,
    AnyOf,
    Condition,
    Count,
    Criteria,
    Node,
    Note,
    Ref,
    Rule,
    Span,
    renumber,
)
from clauseguard.reading.grammar.amendments import AmendmentReader
from clauseguard.reading.grammar.atoms import Reader
from clauseguard.reading.grammar.blocks import (
    ItemList,
    Para,
    at_colon_lines,
    blocks,
    heading_lines,
    joiner_line,
)
from clauseguard.reading.grammar.conditions import ConditionReader
from clauseguard.reading.grammar.lists import ListReader
from clauseguard.reading.grammar.parts import StatementParts
from clauseguard.reading.grammar.phrases import phrases
from clauseguard.reading.grammar.result import Refusal, Unread
from clauseguard.reading.grammar.standalone import continues, standalone_rule
from clauseguard.reading.grammar.statement import Statement, Tok, statements, tag
from clauseguard.reading.grammar.trees import (
    all_of,
    diagnoses_first,
    first_list,
    leading_diagnosis,
    lifted,
    stated_diagnosis,
    walk_refs,
)
from clauseguard.reading.grammar.values import values
from clauseguard.reading.lexicon import Lexicon
from clauseguard.reading.roles import NOTE, heading_role, sentence_role, yields_to_rule
from clauseguard.text import fold, sentences

_LISTED: Final = re.compile(r"^\s*the\s+following(?:\s+(?:services|items|procedures|treatments|devices|drugs|indications))?\s*$", re.IGNORECASE)
_QUESTION: Final = re.compile(r"^\s*(?:q|question)\s*:", re.IGNORECASE)
_ANSWER: Final = re.compile(r"^\s*(?:a|answer)\s*:\s*(?:yes|no)\W*$", re.IGNORECASE)
_PRONOUN: Final = re.compile(r"^\s*(?:the\s+item\(?s?\)?|it|they|these(?:\s+items)?|this\s+item|the\s+items?)\s*$", re.IGNORECASE)
# what names a requirement of another document: a rider's amendment names one of these
_AMENDS: Final = re.compile(r"\b(?:[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+|L\d{5}|requirement|criterion|criteria|limit|"
                            r"waiting period|provisions|rate|lump sum|threshold|maximum)\b")
_FINITE: Final = re.compile(r"\b(?:is|are|was|were|will|may|must|shall|has|have|can|does|do|requires?)\b")
_HEADING: Final = re.compile(r"^[^.;:]{1,80}[.:]?$")


@dataclass
class _Context:
    titles: list[Span] = field(default_factory=list)  # indication headings above the rules


class ClauseCompiler:
    def __init__(self, text: str, lexicon: Lexicon, headings: Sequence[str] = ()) -> None:
        self.text = text
        self.headings = tuple(headings)  # the clause's section and article headings (the corpus's)
        self.lex = lexicon
        self.counter = 0
        self.atoms = Reader(text, lexicon, self.fresh)
        self.conditions = ConditionReader(self.atoms)
        self.rules: list[Rule] = []
        self.notes: list[Note] = []
        self.unread: list[Unread] = []
        self.caps: list[Rule] = []
        self.lifts: list[Node] = []  # "no waiting period applies where ...": exceptions to this clause's waiting periods
        self.amendments: list[Amendment] = []
        self.amender = AmendmentReader(self.conditions)  # amount caps stated after a statement's effect: limit rules of their own
        self.referenced: list[Node] = []
        self.sentence_roles: list[str | None] = []
        self.heading: str | None = None  # the role a heading opening the clause gives it
        self.questions: set[int] = set()  # the sentences that are an FAQ's question ("Q: ...")
        self.folded = fold(text)
        self.parts = StatementParts(text, lexicon, self.atoms, self.conditions, self.fresh, self.notes, self.unread, self.caps)
        self.lists = ListReader(self.conditions, self.notes, self.unread)
        self.condition = self.lists.condition
        self.list_node = self.lists.list_node

    def fresh(self) -> str:
        self.counter += 1
        return f"a{self.counter}"

    def run(self) -> Criteria | Refusal:
        self.walk(blocks(self.text), _Context())
        if self.lifts:
            self.rules = [lifted(r, self.lifts) for r in self.rules]
        criteria = Criteria(tuple(self.rules + self.caps), amendments=tuple(self.amendments), notes=tuple(self.notes),
                            referenced=tuple(self.referenced))
        if self.unread:
            return Refusal(tuple(self.unread), renumber(criteria) if self.rules else None)
        return renumber(criteria)

    # -- layout ------------------------------------------------------------------------------

    def walk(self, parts: list[Para | ItemList], ctx: _Context) -> None:
        i = 0
        while i < len(parts):
            part = parts[i]
            nxt = parts[i + 1] if i + 1 < len(parts) else None
            if isinstance(part, Para):
                consumed = self.para(part.text, ctx, nxt if isinstance(nxt, ItemList) else None)
                i += 2 if consumed else 1
                continue
            if self.criteria_list(part):
                node = self.list_node(part, "all", None)
                if node is not None:
                    self.referenced.append(node)
            else:
                self.sections(part, ctx)
            i += 1

    def para(self, span: Span, ctx: _Context, following: ItemList | None) -> bool:
        """The sentences of a paragraph; True when its last statement took the following list."""
        found = heading_lines(at_colon_lines([(span.start + s.start, span.start + s.end) for s in sentences(span.text)],
                                             self.text), self.text)
        took = False
        for n, (a, b) in enumerate(found):
            last = n == len(found) - 1
            changed = self.amendment(a, b)
            if changed:
                self.sentence_roles.append(None)
                continue
            role = sentence_role(self.text[a:b])
            if role == "administrative" and not _QUESTION.match(self.text[a:b]) and (any(
                    st.effect in ("covered", "approve") and st.conditions for st in statements(self.text, a, b) or ())
                    or any(t.type == "WITHHELD" for t in tag(self.text, a, b))):
                role = None  # "X is covered only if ... before the written order ...": a rule, whatever else it names
            if role is not None and yields_to_rule(self.text[a:b]) and any(
                    t.type in ("COVERED", "DENIED", "WITHHELD", "LIMITED", "APPROVE") for t in tag(self.text, a, b)):
                role = None  # "covered for a trial when the sleep test shows ...": a rule, not what studies show
            if role is None and self.sentence_roles and _ANSWER.match(self.text[a:b]):
                role = self.sentence_roles[-1]  # "Q: Can I fax ...? A: No.": the answer is what its question is
            if not self.sentence_roles:
                self.heading = heading_role(self.text[a:b])
            if _QUESTION.match(self.text[a:b]):
                self.questions.add(len(self.sentence_roles))
            self.sentence_roles.append(role)
            if role is not None:  # administrative, a definition, a reference, framing: decides nothing
                self.notes.append(Note(role, Span(a, b, self.text[a:b])))
                if last and following is not None and self.text[a:b].rstrip().endswith(":"):
                    took = True  # the list it introduces is part of the same non-deciding text
                continue
            sts = statements(self.text, a, b)
            if not sts:
                self.aside(a, b, ctx)
                continue
            # "A has not been established; therefore, claims for A will be denied": one rule, stated twice
            sts = [st for n, st in enumerate(sts) if n == 0 or not (
                st.effect == sts[n - 1].effect and any(fold(c.parts[0].span.text) == "therefore" for c in st.leads if c.parts))]
            for st in sts:
                items = following if (last and st.opens_list and following is not None and not took) else None
                took = took or items is not None
                self.rule(st, items, ctx)
        return took

    def criteria_list(self, lst: ItemList) -> bool:
        """A list that states no rule of its own but whose items a statement names ("criteria (a)-(c)
        below"): its marked items are criteria to refer to."""
        marks = {i.mark for i in lst.items if i.mark}
        named = {m for r in self.rules for n in walk_refs(r) for m in n.labels}
        if not marks or not marks & named:
            return False
        if marks <= named:
            return True  # "criteria (a) - (c) below": every item is named by a reference, whatever its words
        return not any(statements(self.text, i.text.start, i.text.end) for i in lst.items)

    def sections(self, lst: ItemList, ctx: _Context) -> None:
        """A list no statement heads: each item is a section (an indication, an article) of its own."""
        for item in lst.items:
            inner = _Context(list(ctx.titles))
            self.para(item.text, inner, first_list(item.children))
            rest = item.children[1:] if item.children and isinstance(item.children[0], ItemList) and \
                statements(self.text, item.text.start, item.text.end) else item.children
            self.walk(list(rest), inner)

    def aside(self, a: int, b: int, ctx: _Context) -> None:
        """A sentence that is not a statement: a heading, a note, or (with a deciding word) unread."""
        text = self.text[a:b].strip()
        if joiner_line(text.split("\n", 1)[0]) is not None:
            # "... in the home / -AND- / the beneficiary has the capabilities ...": a requirement joined to the
            # rule above, which no statement of the grammar continued; a note would drop it from the rule
            self.unread.append(Unread(Span(a, b, self.text[a:b]), "a sentence joined to the rule above by a joiner line"))
            return
        if _HEADING.match(text) and len(text.split()) <= 10 and (not self._deciding(a, b) or not _FINITE.search(fold(text))):
            ctx.titles.append(Span(a, b, self.text[a:b]))
            self.notes.append(Note("heading", Span(a, b, self.text[a:b])))
            self._set_aside()
            return
        if continues([*self.headings, *(t.text for t in ctx.titles)]):
            rule, unread = standalone_rule(self.text, a, b, self.lex, self.conditions, self.fresh)
            if rule is not None:
                self.rules.append(rule)  # "Continued Coverage / Every 6 months, the practitioner sees ..."
                return
            if unread:
                self.unread.extend(unread)  # a requirement of continued cover, not read whole: never a note
                return
        if self._deciding(a, b):
            self.unread.append(Unread(Span(a, b, self.text[a:b]), "a sentence that may decide, in no form the grammar reads"))
        else:
            self.notes.append(Note("statement", Span(a, b, self.text[a:b])))
            if not any(v.unit or v.explicit for v in values(self.text[a:b])) and \
                    len(self.sentence_roles) - 2 not in self.questions:
                # a figure with a unit or a bound may be a threshold the cues missed ("30 percent or more is
                # enough"), and a question's answer is what the question's entry decides (the question's own
                # words name no role of it): not sure, it decides
                self._set_aside()

    def _set_aside(self) -> None:
        """The sentence just read is a note with no deciding word: it names no role, and it cannot decide."""
        if self.sentence_roles and self.sentence_roles[-1] is None:
            self.sentence_roles[-1] = NOTE

    def amendment(self, a: int, b: int) -> bool:
        """A rider's sentence that changes a named requirement of another document."""
        low = self.folded[a:b]
        if "in which case" in low or not _AMENDS.search(self.text[a:b]):
            return False
        toks = tag(self.text, a, b)
        if len(toks) > 1 and toks[0].type == "TEXT" and not _PRONOUN.match(toks[0].span.text) and \
                toks[1].type in ("COVERED", "DENIED", "WITHHELD", "LIMITED"):
            return False  # "X is covered after ...; this requirement does not apply to ...": its own rule, not a rider's change
        found = self.amender.read(a, b)
        if found is None:
            return False
        self.amendments.extend(found[0])
        return True

    def _deciding(self, a: int, b: int) -> bool:
        return any(p.regex.search(self.folded, a, b) for p in phrases().of("deciding_cue"))

    # -- statements --------------------------------------------------------------------------

    def rule(self, st: Statement, items: ItemList | None, ctx: _Context) -> None:
        if st.effect == "exempt_waiting":
            self.notes.append(Note("exemption", st.span))
            return
        if st.effect == "lift_waiting":
            got = self.condition(st.conditions[0], None)
            if got is None:
                self.unread.append(Unread(st.span, "the occasion that lifts the waiting period is not read"))
                return
            self.lifts.append(got)
            return
        effect = "covered" if st.effect == "approve" else st.effect
        scope = next((c for c in st.leads if c.intro == "lead_scope" and len(c.parts) > 1), None)
        if scope is not None and (st.subject is None or _PRONOUN.match(st.subject.text)):
            # "For all glucose monitors and supplies, if ..., the item(s) will be denied"
            st.subject = scope.parts[1].span
        occasion = self.parts.provided(st)
        supplied: list[Node] = []
        if occasion is not None:
            # "If X is supplied and ... are not met, it is denied": X is what "it" names; with a subject of its
            # own ("the surplus is denied"), X being supplied is the rule's occasion
            if st.subject is None or _PRONOUN.match(st.subject.text):
                st.subject = occasion[0]
            else:
                supplied.append(Condition(self.fresh(), occasion[1], concept=fold(occasion[1].text)))
        if items is not None and st.subject is not None and _LISTED.match(st.subject.text) and not st.conditions:
            # "The following are considered investigational: a. X for Y; b. Z": one rule per listed service
            self.rules.extend(self.parts.listed(st, items.items, effect))
            return
        subject, limit = self.parts.subject(st, next((r.subject for r in reversed(self.rules) if r.subject is not None), None))
        population: list[Node] = []
        when: list[Node] = []
        trigger: list[Node] = supplied
        quantified_list = any(t.type == "QUANT" for c in [*st.leads, *st.conditions] for t in c.parts)
        for cond in [*st.leads, *st.conditions]:
            if cond.intro.startswith("lead_"):
                continue  # "Therefore," / "For all X," set the scene; they require nothing
            node = self.condition(cond, items)
            if node is None:
                continue
            if cond.intro == "population_who" and effect in ("not_covered", "withheld"):
                trigger.append(node)  # "not covered for a member who already has X": X is the occasion
                continue
            (population if cond.intro in ("population", "population_who") else when).append(node)
        population, required = diagnoses_first(population)
        when = required + when
        if items is not None and not quantified_list:
            # "... including the following:" / "... for the following:": each listed item on its own; "meets
            # criterion a) or criterion b):" names the items below, which are what its references mean
            named = _names_the_list(when, items)
            kind = named or ("any" if effect == "not_covered" else "all")
            node = self.list_node(items, kind, None)
            if node is not None:
                when = [n for n in when if not named or n is not when[-1]] + [node] if named else [*when, node]
        bounds: list[Count] = []
        first_cap = len(self.caps)
        for extra in st.extra:
            found = self.parts.after_effect(extra, st)
            if isinstance(found, tuple):
                cap = found[1]
                if effect == "covered" and isinstance(cap, Count) and cap.comparator == "<=":
                    # "covered up to 200 units per month": covered, and what is covered is bounded (a limit)
                    bounds.append(cap)
                else:
                    when.append(cap)  # a frequency the request must keep within
            elif found is not None:
                population.append(found)
        titles = [st.title] if st.title is not None else []
        titles += list(reversed(ctx.titles)) if st.effect == "approve" else []
        for heading in titles:
            title = self.parts.title_population(heading)
            if title is not None:
                stated, when = stated_diagnosis(title, when)  # "Ulcerative Colitis." over "ii. ... moderately to
                population.insert(0, stated or title)          # severely active ulcerative colitis": the item's words
                break
        if effect == "covered" and when and not population:
            kept, moved = leading_diagnosis(when)
            when = kept
            population.extend(moved)
        if effect == "limit" and limit is None:
            for extra in st.extra:
                per_values = [v for v in values(extra.text) if v.per is not None]
                if per_values and per_values[0].per is not None:
                    item = subject.concept if subject is not None else "units"
                    limit = ("limit", Count(self.fresh(), extra, item=item, comparator="<=", value=per_values[0].value,
                                            per=per_values[0].per))
                    when = [n for n in when if not (isinstance(n, Count) and (n.span.start, n.span.end) == (extra.start, extra.end))]
                    break
            if limit is None:
                self.unread.append(Unread(st.span, "a limit whose quantity and period are not written together"))
        if limit is not None:
            kind, count = limit
            if kind == "trigger":
                trigger.append(count)
            elif kind == "population":
                population.append(count)
            else:
                effect = "limit"
                when.insert(0, count)
        if st.waiting is not None:
            trigger.insert(0, self.parts.tenure_below(st.waiting))
        waiting = self.parts.waiting_extra(st)
        if waiting is not None and effect in ("covered", "limit"):
            # "payable only after three (3) months of insurance": not covered before then
            effect, trigger = "not_covered", [waiting, *trigger]
        body = all_of(when)
        for cond, target in st.exceptions:
            body = self.parts.exception(body, cond, target)
        approval, period = self.parts.approval(st, ctx.titles)
        self.rules.append(Rule(effect, st.span, subject, all_of(population), all_of(trigger), body,  # type: ignore[arg-type]
                               approval=approval, approval_period=period))  # type: ignore[arg-type]
        for service, count in self.parts.more:  # "no more than 50 A and no more than 50 B per quarter"
            if count.comparator == "<=":
                rest = [n for n in when if not (isinstance(n, Count) and n is when[0])]
                self.rules.append(Rule("limit", st.span, service, all_of(population), all_of(trigger), all_of([count, *rest])))
            else:
                others = [n for n in trigger if not (isinstance(n, Count) and n is trigger[-1])]
                self.rules.append(Rule(effect, st.span, service, all_of(population), all_of([*others, count]), body))  # type: ignore[arg-type]
        self.parts.more.clear()
        for n in range(first_cap, len(self.caps)):  # a money cap bounds the statement's own service
            if self.caps[n].subject is None:
                self.caps[n] = dataclasses.replace(self.caps[n], subject=subject)
        for cap in bounds:
            item = cap.item if cap.item != "the requested service" else subject.concept if subject is not None else cap.item
            # "covered up to 4 units per month when Y": the bound holds for those the statement covers
            self.caps.append(Rule("limit", st.span, subject, all_of(population + when), None, dataclasses.replace(cap, item=item)))

def _names_the_list(when: list[Node], items: ItemList) -> str | None:
    """"any" or "all" when the last requirement is a reference (or a choice of references) to exactly the
    marks of the list that follows; else None."""
    if not when:
        return None
    last = when[-1]
    refs = last.children if isinstance(last, AnyOf | AllOf) else (last,)
    if not refs or not all(isinstance(r, Ref) and r.clause is None and r.service is None for r in refs):
        return None
    marks = {i.mark for i in items.items if i.mark}
    labels = {label.lower() for r in refs for label in r.labels}  # type: ignore[union-attr]
    if not labels or labels != marks:
        return None
    return "any" if isinstance(last, AnyOf) else "all"


def compile_text(text: str, lexicon: Lexicon) -> Criteria | Refusal:
    """Compile a clause's prose into criteria; a sentence it cannot read whole refuses the clause."""
    return ClauseCompiler(text, lexicon).run()


__all__ = ["AnyOf", "ClauseCompiler", "Tok", "compile_text"]
