"""A clause's layout and statements lowered into its criteria tree: one method per kind of part.

blocks.py gives paragraphs and lists, statement.py the statements of each sentence, conditions.py
and atoms.py the trees of conditions. Here a statement that opens a list takes that list's items as
its criteria (quantified by its head, or by the items' joiners), item notes become waivers, list
heads of indications become populations, and a quantity in a statement's subject becomes its limit.
A sentence nothing reads is a note when no deciding word is in it, and an unread span otherwise.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from typing import Final

from clauseguard.corpus.criteria import (
    AllOf,
    Amendment,
    Amount,
    AnyOf,
    Atom,
    Condition,
    Count,
    Criteria,
    Node,
    Not,
    Note,
    Period,
    Ref,
    Routing,
    Rule,
    Service,
    Span,
    Tenure,
    Treatment,
    Waiver,
    iter_atoms,
    renumber,
    with_mark,
)
from clauseguard.reading.grammar.amendments import AmendmentReader
from clauseguard.reading.grammar.atoms import Reader
from clauseguard.reading.grammar.blocks import Item, ItemList, Para, blocks
from clauseguard.reading.grammar.conditions import ConditionReader, labels_of, quantified
from clauseguard.reading.grammar.mentions import codes_of_mention
from clauseguard.reading.grammar.phrases import phrases
from clauseguard.reading.grammar.result import Refusal, Unread
from clauseguard.reading.grammar.statement import Cond, Statement, Tok, statements, tag
from clauseguard.reading.grammar.values import values
from clauseguard.reading.lexicon import Lexicon
from clauseguard.reading.roles import heading_role, sentence_role
from clauseguard.text import fold, sentences

_CODES: Final = re.compile(r"(?<![\w.])([A-Z]\d{4}|\d{4}[A-Z0-9]|\d{5})(?![\w])")
_SUBJECT_LEAD: Final = re.compile(r"^(?:claims?\s+for|coverage\s+of|the\s+use\s+of|use\s+of|the\s+medical\s+necessity\s+(?:for|of)|the|a|an|all|any)\s+", re.IGNORECASE)
_BENEFIT_LEAD: Final = re.compile(r"^(?:(?:the\s+)?(?:benefits?|costs?|fees?|expenses?|claims?|medical\s+necessity)\s+(?:for|of)\s+)", re.IGNORECASE)
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
    def __init__(self, text: str, lexicon: Lexicon) -> None:
        self.text = text
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
        self.folded = fold(text)

    def lift(self, rule: Rule) -> Rule:
        """A waiting-period rule with the clause's "no waiting period applies where X" as NOT X."""
        if rule.effect != "not_covered" or not any(isinstance(a, Tenure) for a in iter_atoms(rule.trigger)):
            return rule
        nots: list[Node] = [Not(n) for n in self.lifts]
        parts = [rule.trigger, *nots] if rule.trigger is not None else nots
        return dataclasses.replace(rule, trigger=AllOf(tuple(parts)))  # type: ignore[arg-type]

    def fresh(self) -> str:
        self.counter += 1
        return f"a{self.counter}"

    def run(self) -> Criteria | Refusal:
        self.walk(blocks(self.text), _Context())
        if self.lifts:
            self.rules = [self.lift(r) for r in self.rules]
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
        found = sentences(span.text)
        took = False
        for n, s in enumerate(found):
            a, b = span.start + s.start, span.start + s.end
            last = n == len(found) - 1
            changed = self.amendment(a, b)
            if changed:
                self.sentence_roles.append(None)
                continue
            role = sentence_role(self.text[a:b])
            if role is None and self.sentence_roles and _ANSWER.match(self.text[a:b]):
                role = self.sentence_roles[-1]  # "Q: Can I fax ...? A: No.": the answer is what its question is
            if not self.sentence_roles:
                self.heading = heading_role(self.text[a:b])
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
        named = {m for r in self.rules for n in _walk_refs(r) for m in n.labels}
        if not marks or not marks & named:
            return False
        return not any(statements(self.text, i.text.start, i.text.end) for i in lst.items)

    def sections(self, lst: ItemList, ctx: _Context) -> None:
        """A list no statement heads: each item is a section (an indication, an article) of its own."""
        for item in lst.items:
            inner = _Context(list(ctx.titles))
            self.para(item.text, inner, _first_list(item.children))
            rest = item.children[1:] if item.children and isinstance(item.children[0], ItemList) and \
                statements(self.text, item.text.start, item.text.end) else item.children
            self.walk(list(rest), inner)

    def aside(self, a: int, b: int, ctx: _Context) -> None:
        """A sentence that is not a statement: a heading, a note, or (with a deciding word) unread."""
        text = self.text[a:b].strip()
        if _HEADING.match(text) and len(text.split()) <= 10 and (not self._deciding(a, b) or not _FINITE.search(fold(text))):
            ctx.titles.append(Span(a, b, self.text[a:b]))
            self.notes.append(Note("heading", Span(a, b, self.text[a:b])))
            return
        if self._deciding(a, b):
            self.unread.append(Unread(Span(a, b, self.text[a:b]), "a sentence that may decide, in no form the grammar reads"))
        else:
            self.notes.append(Note("statement", Span(a, b, self.text[a:b])))

    def amendment(self, a: int, b: int) -> bool:
        """A rider's sentence that changes a named requirement of another document."""
        low = self.folded[a:b]
        if "in which case" in low or not _AMENDS.search(self.text[a:b]):
            return False
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
        subject, limit = self.subject(st)
        population: list[Node] = []
        when: list[Node] = []
        trigger: list[Node] = []
        quantified_list = any(t.type == "QUANT" for c in [*st.leads, *st.conditions] for t in c.parts)
        for cond in [*st.leads, *st.conditions]:
            if cond.intro.startswith("lead_"):
                continue  # "Therefore," / "For all X," set the scene; they require nothing
            node = self.condition(cond, items)
            if node is None:
                continue
            (population if cond.intro == "population" else when).append(node)
        if items is not None and not quantified_list:
            # "... including the following:" / "... for the following:": each listed item on its own
            node = self.list_node(items, "any" if effect == "not_covered" else "all", None)
            if node is not None:
                when.append(node)
        bounds: list[Count] = []
        first_cap = len(self.caps)
        for extra in st.extra:
            found = self.after_effect(extra, st)
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
            title = self.title_population(heading)
            if title is not None:
                population.insert(0, title)
                break
        if effect == "covered" and when and not population:
            kept, moved = _leading_diagnosis(when)
            when = kept
            population.extend(moved)
        if effect == "limit" and limit is None:
            for extra in st.extra:
                per_values = [v for v in values(extra.text) if v.per is not None]
                if per_values and per_values[0].per is not None:
                    item = subject.concept if subject is not None else "units"
                    limit = ("limit", Count(self.fresh(), extra, item=item, comparator="<=", value=per_values[0].value,
                                            per=per_values[0].per))
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
            trigger.insert(0, self.tenure_below(st.waiting))
        waiting = self.waiting_extra(st)
        if waiting is not None and effect in ("covered", "limit"):
            # "payable only after three (3) months of insurance": not covered before then
            effect, trigger = "not_covered", [waiting, *trigger]
        body = _all(when)
        for cond, target in st.exceptions:
            body = self.exception(body, cond, target)
        approval, period = self.approval(st, ctx)
        self.rules.append(Rule(effect, st.span, subject, _all(population), _all(trigger), body,  # type: ignore[arg-type]
                               approval=approval, approval_period=period))  # type: ignore[arg-type]
        for n in range(first_cap, len(self.caps)):  # a money cap bounds the statement's own service
            if self.caps[n].subject is None:
                self.caps[n] = dataclasses.replace(self.caps[n], subject=subject)
        for cap in bounds:
            item = cap.item if cap.item != "the requested service" else subject.concept if subject is not None else cap.item
            self.caps.append(Rule("limit", st.span, subject, _all(population), None, dataclasses.replace(cap, item=item)))

    def subject(self, st: Statement) -> tuple[Service | None, tuple[str, Node] | None]:
        """The service a statement is about, and a quantity its subject states ("up to 100 test strips
        every 3 months" is a limit; "more than 100 ... are covered if" is the occasion)."""
        if st.subject is None:
            return None, None
        span = st.subject
        limit: tuple[str, Node] | None = None
        vals = [v for v in values(span.text) if v.per is not None and v.unit in ("", "units")]
        if vals:
            v = vals[0]
            assert v.per is not None
            item = re.split(r"\s+(?:and|every|per|each|in any|within)\s+", span.text[v.end:].strip())[0]
            item = _SUBJECT_LEAD.sub("", re.sub(r"\([^()]*\)", "", item)).strip(" ,")
            before = re.sub(r"\s+\w+ed\s*$", "", span.text[:v.start].rstrip())
            bound_end = v.per_span[1] if v.per_span else v.end
            if v.comparator != "==" and v.start > 0 and before.strip() and not span.text[bound_end:].strip(" ,"):
                # "Occipital nerve blocks performed more often than once every 8 weeks": the service, then its bound
                span = Span(span.start, span.start + len(before), before)
                item = _SUBJECT_LEAD.sub("", re.sub(r"\([^()]*\)", "", before)).strip(" ,")
            name = fold(item) or "units"
            cmp = v.comparator
            if st.effect in ("covered", "approve") and cmp in ("<=", "=="):
                limit = ("limit", Count(self.fresh(), Span(span.start, span.end, span.text), item=name, comparator="<=",
                                        value=v.value, per=v.per))
            elif st.effect == "not_covered" and cmp in (">", ">="):
                top = v.value if cmp == ">" else v.value - 1
                limit = ("limit", Count(self.fresh(), Span(span.start, span.end, span.text), item=name, comparator="<=",
                                        value=top, per=v.per))
            elif st.effect in ("covered", "approve") and cmp in (">", ">="):
                limit = ("trigger", Count(self.fresh(), Span(span.start, span.end, span.text), item=name,
                                          comparator=cmp, value=v.value, per=v.per))  # type: ignore[arg-type]
        combined = next((m for p in phrases().of("combination") for m in [p.regex.search(fold(span.text))] if m), None)
        if combined is not None:
            # "Claims for a BGM, billed in addition to an approved CGM": the CGM is the occasion
            other = self.atoms.name(span.start + combined.end(), span.end)
            if other is not None:
                limit = ("trigger", Treatment(self.fresh(), Span(span.start + combined.end(), span.end,
                                                                  self.text[span.start + combined.end():span.end]),
                                              therapy=other))
            span = Span(span.start, span.start + combined.start(), self.text[span.start:span.start + combined.start()].rstrip(" ,"))
        lead = _BENEFIT_LEAD.match(span.text)
        if lead is not None:  # "Benefits for hospitalisation ...", "The costs of childbirth ...": the service follows
            span = Span(span.start + lead.end(), span.end, span.text[lead.end():])
        span, qualifiers = self.qualified(span, st)
        if qualifiers is not None:
            limit = limit or qualifiers
        if limit is None and any(v.explicit for v in values(span.text)):
            self.unread.append(Unread(span, "a service bounded by a number the reader does not place"))
        codes = tuple(dict.fromkeys(_CODES.findall(span.text))) or codes_of_mention(self.text, span.start, span.end)
        words = _SUBJECT_LEAD.sub("", re.sub(r"\([^()]*\)", "", span.text)).strip(" ,")
        concept = self.lex.concept_named(words) or fold(words) or "the requested service"
        return Service(self.fresh(), span, concept=concept, codes=codes), limit

    def tenure_below(self, span: Span) -> Node:
        v = next(v for v in values(span.text) if v.unit in ("day", "week", "month", "year"))
        return Tenure(self.fresh(), span, comparator="<", value=v.value, unit=v.unit)  # type: ignore[arg-type]

    def waiting_extra(self, st: Statement) -> Node | None:
        """A period of insurance after the effect ("only after three (3) months of insurance")."""
        for extra in st.extra:
            low = fold(extra.text)
            if re.search(r"\b(?:insurance|insured|membership|cover|joined|joining|entry)\b", low):
                found = [v for v in values(extra.text) if v.unit in ("day", "week", "month", "year")]
                if found and re.search(r"\b(?:only|after|once|completed|first)\b", low):
                    st.extra = [e for e in st.extra if e is not extra]
                    return self.tenure_below(extra)
        return None

    def qualified(self, span: Span, st: Statement) -> tuple[Span, tuple[str, Node] | None]:
        """"CGM systems dispensed solely for gestational diabetes", "spinal fusion ... without
        instability": the service, and the occasion (or population) its own words give it."""
        low = fold(span.text)
        found = sorted((m.start(), m.end(), name) for name in phrases().names("subject_qualifier")
                       for p in phrases().of("subject_qualifier", name) for m in [p.regex.search(low)] if m)
        if not found:
            return span, None
        start, end, name = found[0]
        a = span.start + end
        got = self.conditions.text_span(a, span.end) if name != "without" else self.conditions.text_span(a, span.end)
        self.unread.extend(got.unread)
        if got.node is None:
            self.unread.append(Unread(span, "a service described with words that qualify it, not read"))
            return span, None
        node: Node = Not(got.node) if name == "without" else got.node
        kind = "trigger" if st.effect in ("not_covered", "withheld") else "population"
        head = Span(span.start, span.start + start, self.text[span.start:span.start + start].rstrip(" ,"))
        return head, (kind, node)

    def condition(self, cond: Cond, items: ItemList | None) -> Node | None:
        quant = next((t for t in cond.parts if t.type == "QUANT"), None)
        if quant is not None and items is not None:
            n = next((int(v.value) for v in values(quant.span.text)), None)
            return self.list_node(items, quant.name, n)
        got = self.conditions.tokens(cond.parts)
        self.unread.extend(got.unread)
        return got.node

    def after_effect(self, span: Span, st: Statement) -> Node | None:
        """Words after the effect, each accounted for: "for chronic intractable pain" names the
        population; "once per calendar year" a frequency the request must keep within; "for 6 months"
        (an approval's period), "by Medicare", "as a preventive service" name nothing to check. Any
        other words are unread: nothing a statement says is dropped."""
        text = span.text.strip()
        low = fold(text)
        if any(p.regex.fullmatch(low) for p in phrases().of("benefit_words", "scope")):
            self.notes.append(Note("benefit", span))
            return None
        vals = values(text)
        if low.startswith("at ") and vals and vals[0].unit == "percent" and vals[0].start <= 4:
            # "at 90% of the agreed tariff": what the benefit pays, for search to quote; not a requirement
            self.notes.append(Note("rate", span))
            return None
        money = [v for v in vals if v.unit in ("EUR", "GBP", "USD")]
        if money and len(money) == len(vals):
            # "up to EUR 200 per insured person": a cap, its own limit rule (it decides an amount question)
            v = money[0]
            self.caps.append(Rule("limit", st.span, None, None, None, Amount(
                self.fresh(), span, currency=v.unit, comparator="<=" if v.comparator in ("==", "<=") else v.comparator,  # type: ignore[arg-type]
                value=v.value, per=v.per)))
            return None
        if low.startswith("only ") and not vals:
            a = span.start + span.text.find(text) + 5
            cond = re.match(r"(?:with|if|when|where|after|provided that)\s+", fold(self.text[a:span.end]))
            got = self.conditions.text_span(a + (cond.end() if cond else 0), span.end)
            self.unread.extend(got.unread)
            return got.node
        if st.effect == "approve" and vals and all(v.unit in ("day", "week", "month", "year") for v in vals) \
                and low.startswith("for "):
            return None  # the approval period (approval())
        if vals and all(v.per is not None for v in vals) and len(vals) == 1:
            v = vals[0]
            assert v.per is not None
            counted = re.sub(r"\([^()]*\)", "", text[v.end:v.per_span[0]] if v.per_span else "")
            counted = re.split(r"\s+(?:per|every|each|in|over|a|an)\s+", " " + counted.strip() + " ")[0].strip(" ,")
            return ("frequency", Count(self.fresh(), span, item=fold(counted) or "the requested service", comparator="<="
                                       if v.comparator in ("==", "<=") else v.comparator,  # type: ignore[arg-type]
                                       value=v.value, per=v.per))  # type: ignore[return-value]
        lead = re.match(r"(?:for|in)\s+(?:the\s+)?(?:treatment|management|diagnosis)\s+of\s+|for\s+", low)
        if lead is not None:
            a = span.start + span.text.find(text) + lead.end()
            got = self.conditions.text_span(a, span.end)
            self.unread.extend(got.unread)
            return got.node
        self.unread.append(Unread(span, "words after the statement's effect that no reading accounts for"))
        return None

    def title_population(self, title: Span) -> Node | None:
        """An indication heading ("Plaque Psoriasis.", "2. Psoriatic Arthritis (guselkumab only).") is
        the population of the approvals under it, when it names a condition (not "Initial Therapy")."""
        kind_with_topic = re.search(r"\(([^()]+)\)", title.text)
        if kind_with_topic and any(p.regex.search(fold(title.text)) for p in phrases().of("approval_kind")):
            # "Initial Approval (plaque psoriasis):": the topic is in brackets
            a = title.start + kind_with_topic.start(1)
            return self.atoms.condition(a, a + len(kind_with_topic.group(1)))
        text = re.sub(r"\([^()]*\)", "", title.text)
        for piece in re.split(r"[.:]\s*", text.strip()):
            piece = re.sub(r"^\s*(?:[0-9]{1,2}|[A-Za-z])[.)]\s*", "", piece).strip(" ,")
            if not piece or any(p.regex.search(fold(piece)) for p in phrases().of("approval_kind")):
                continue
            a = title.start + title.text.find(piece)
            return self.atoms.condition(a, a + len(piece))
        return None

    def approval(self, st: Statement, ctx: _Context) -> tuple[str | None, Period | None]:
        if st.effect != "approve":
            return None, None
        where = " ".join([*(t.text for t in ctx.titles[-2:]), st.title.text if st.title else ""])
        kind = next((name for name in phrases().names("approval_kind")
                     if any(p.regex.search(fold(where)) for p in phrases().of("approval_kind", name))), None)
        period = None
        for extra in st.extra:
            found = [v for v in values(extra.text) if v.unit in ("day", "week", "month", "year")]
            if found:
                period = Period(found[0].value, found[0].unit)  # type: ignore[arg-type]
        return kind, period

    def exception(self, body: Node | None, cond: Cond, target: Span | None) -> Node | None:
        got = self.conditions.tokens(cond.parts)
        self.unread.extend(got.unread)
        if got.node is None:
            return body
        what = fold(target.text) if target is not None else ""
        if body is not None and any(p.regex.search(what) for p in phrases().of("exception_effect", "waiver")):
            waived = _named_atoms(body, what)
            if waived:
                return Waiver(body, got.node, tuple(a.id for a in waived), target)  # type: ignore[arg-type]
            self.unread.append(Unread(target, "the requirement this exception lifts is not one the rule names"))  # type: ignore[arg-type]
            return body
        routed = None
        if target is not None and any(p.regex.search(what) for p in phrases().of("exception_effect", "routing")):
            routed = Service(self.fresh(), target, concept=fold(_SUBJECT_LEAD.sub("", target.text)))
        span = target if target is not None else Span(0, 0, "")
        return Routing(got.node, span, body, routed)

    # -- lists -------------------------------------------------------------------------------

    def list_node(self, items: ItemList, kind: str, n: int | None) -> Node | None:
        nodes: list[Node] = []
        waivers: list[tuple[Node, tuple[str, ...], Span]] = []
        joiners = {i.joiner for i in items.items[:-1] if i.joiner}
        for item in items.items:
            node = self.item_node(item, waivers)
            if node is not None:
                nodes.append(node)
        if not nodes:
            return None
        if kind == "all" and joiners == {"or"}:
            kind = "any"
        whole = quantified(kind, n, nodes)
        for condition, marks, span in waivers:
            named = [a for a in _marked_atoms(whole, marks)]
            if named:
                whole = Waiver(whole, condition, tuple(a.id for a in named), span)
        return whole

    def item_node(self, item: Item, waivers: list[tuple[Node, tuple[str, ...], Span]]) -> Node | None:
        body = item.text
        toks = tag(self.text, body.start, body.end)
        sub = _first_list(item.children)
        quant = next((t for t in toks if t.type == "QUANT"), None)
        if quant is not None and sub is not None:
            n = next((int(v.value) for v in values(quant.span.text)), None)
            node = self.list_node(sub, quant.name, n)
        else:
            got = self.conditions.tokens([t for t in toks if t.type not in ("DOT", "COLON", "SEMI")])
            self.unread.extend(got.unread)
            node = got.node
        for child in item.children:
            if isinstance(child, Para):
                self.item_note(child.text, waivers)
        if node is None:
            return None
        return with_mark(node, item.mark or None)

    def item_note(self, span: Span, waivers: list[tuple[Node, tuple[str, ...], Span]]) -> None:
        """"Note: A patient who has already ... is not required to meet criterion iii.": a waiver."""
        low = fold(span.text)
        for p in phrases().of("waiver_note"):
            m = p.regex.search(low)
            if m is None:
                continue
            marks = labels_of(span.text[m.end():])
            who = re.sub(r"^\s*note\s*:\s*", "", span.text[:m.start()], flags=re.IGNORECASE)
            start = span.start + span.text.find(who)
            got = self.conditions.text_span(start, start + len(who.rstrip()))
            self.unread.extend(got.unread)
            if got.node is not None and marks:
                waivers.append((got.node, marks, span))
            return
        self.notes.append(Note("statement", span))


def _walk_refs(rule: Rule) -> list[Ref]:
    out: list[Ref] = []

    def walk(n: Node | None) -> None:
        if n is None:
            return
        if isinstance(n, Ref):
            out.append(n)
        for child in getattr(n, "children", ()) or ():
            walk(child)
        for name in ("child", "body", "condition"):
            walk(getattr(n, name, None))

    for part in (rule.population, rule.trigger, rule.when):
        walk(part)
    return out


def _leading_diagnosis(when: list[Node]) -> tuple[list[Node], list[Node]]:
    """The diagnosis a criteria list opens with ("1. The beneficiary has diabetes"; "A. The member has
    one of the following conditions") is who the rule is for: its population, not a requirement."""
    if len(when) != 1 or not isinstance(when[0], AllOf) or len(when[0].children) < 2:
        return when, []
    first = when[0].children[0]
    diagnosis = isinstance(first, Condition) and not first.documented or (
        isinstance(first, AnyOf) and all(isinstance(c, Condition) for c in first.children))
    if not diagnosis:
        return when, []
    rest = when[0].children[1:]
    body = rest[0] if len(rest) == 1 else dataclasses.replace(when[0], children=tuple(rest))
    return [body], [first]


def _first_list(children: list[Para | ItemList]) -> ItemList | None:
    return next((c for c in children if isinstance(c, ItemList)), None)


def _all(nodes: list[Node]) -> Node | None:
    if not nodes:
        return None
    return nodes[0] if len(nodes) == 1 else AllOf(tuple(nodes))


def _marked_atoms(node: Node, marks: tuple[str, ...]) -> list[Atom]:
    out: list[Atom] = []

    def walk(n: Node | None, inside: bool) -> None:
        if n is None:
            return
        hit = inside or getattr(n, "mark", None) in marks
        if isinstance(n, Atom):
            if hit:
                out.append(n)
            return
        for child in getattr(n, "children", ()) or ():
            walk(child, hit)
        for name in ("child", "body", "condition"):
            walk(getattr(n, name, None), hit)

    walk(node, False)
    return out


def _named_atoms(body: Node, what: str) -> list[Atom]:
    """The atoms of `body` an exception names by their words ("the six-month injection requirement")."""
    words = {w for w in re.findall(r"[a-z0-9]+", what) if len(w) > 3} - {"requirement", "apply", "does", "criterion"}
    found = []
    for atom in iter_atoms(body):
        own = set(re.findall(r"[a-z0-9]+", fold(atom.span.text + " " + atom.label)))
        if words and len(words & own) >= max(1, len(words) // 2):
            found.append(atom)
    return found


def compile_text(text: str, lexicon: Lexicon) -> Criteria | Refusal:
    """Compile a clause's prose into criteria; a sentence it cannot read whole refuses the clause."""
    return ClauseCompiler(text, lexicon).run()


__all__ = ["AnyOf", "ClauseCompiler", "Tok", "compile_text"]
