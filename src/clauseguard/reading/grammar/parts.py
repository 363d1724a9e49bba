"""What a statement's own words say besides its effect: the service its subject names (and a quantity
or qualifier written into it), the words after its effect (a population, a frequency, a cap, a rate,
an approval's period), a waiting period, and the population an indication heading gives it.

The clause compiler (lower.py) asks for each part; every word is either read into a node, kept as a
note, or recorded unread, so nothing a statement says is dropped.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final

from clauseguard.corpus.criteria import (
    Amount,
    Count,
    Node,
    Not,
    Note,
    Period,
    Routing,
    Rule,
    Service,
    Span,
    Tenure,
    Treatment,
    Waiver,
)
from clauseguard.reading.grammar.atoms import Reader
from clauseguard.reading.grammar.blocks import Item
from clauseguard.reading.grammar.conditions import ConditionReader
from clauseguard.reading.grammar.mentions import codes_of_mention
from clauseguard.reading.grammar.phrases import phrases
from clauseguard.reading.grammar.result import Unread
from clauseguard.reading.grammar.statement import Cond, Statement
from clauseguard.reading.grammar.trees import named_atoms
from clauseguard.reading.grammar.values import values
from clauseguard.reading.lexicon import Lexicon
from clauseguard.text import fold

CODES: Final = re.compile(r"(?<![\w.])([A-Z]\d{4}|\d{4}[A-Z0-9]|\d{5})(?![\w])")
SUBJECT_LEAD: Final = re.compile(r"^(?:claims?\s+for|coverage\s+of|the\s+use\s+of|use\s+of|the\s+medical\s+necessity\s+(?:for|of)|the|a|an|all|any)\s+", re.IGNORECASE)
_BENEFIT_LEAD: Final = re.compile(r"^(?:(?:the\s+)?(?:benefits?|costs?|fees?|expenses?|claims?|medical\s+necessity)\s+(?:for|of)\s+)", re.IGNORECASE)


class StatementParts:
    """Reads the parts of one clause's statements; writes notes, unread spans and caps to the
    compiler's lists (shared, so the clause's result is one)."""

    def __init__(self, text: str, lexicon: Lexicon, atoms: Reader, conditions: ConditionReader,
                 fresh: Callable[[], str], notes: list[Note], unread: list[Unread], caps: list[Rule]) -> None:
        self.text = text
        self.lex = lexicon
        self.atoms = atoms
        self.conditions = conditions
        self.fresh = fresh
        self.notes = notes
        self.unread = unread
        self.caps = caps
        self.more: list[tuple[Service, Count]] = []  # the other items of a subject bounding several

    def subject(self, st: Statement, previous: Service | None = None) -> tuple[Service | None, tuple[str, Node] | None]:
        """The service a statement is about, and a quantity its subject states ("no more than 50
        swabs per quarter" is a limit; "more than 100 ... are covered if" is the occasion). A subject that
        is only a quantity ("... , up to 30 per month are covered") counts the service of the statement
        before it in the clause."""
        if st.subject is None:
            return None, None
        span = st.subject
        limit: tuple[str, Node] | None = None
        several = self.several_bounded(span) if st.effect in ("covered", "approve") else None
        if several:
            # "up to 100 X and up to 100 Y every 3 months are covered": limits; "more than 100 X and more
            # than 100 Y ... are covered if": the occasion of the rule (as for one item)
            self.more.extend(several[1:])
            return several[0][0], ("limit" if several[0][1].comparator == "<=" else "trigger", several[0][1])
        vals = [v for v in values(span.text) if v.per is not None and v.unit in ("", "units")]
        if vals:
            v = vals[0]
            assert v.per is not None
            if not span.text[:v.start].strip() and v.per_span is not None and not span.text[v.end:v.per_span[0]].strip() \
                    and not span.text[v.per_span[1]:].strip(" ,"):
                if previous is None:
                    self.unread.append(Unread(span, "a quantity with nothing named that it counts"))
                    return None, None
                service = Service(self.fresh(), previous.span, concept=previous.concept, codes=previous.codes)
                count = Count(self.fresh(), span, item=previous.concept, comparator="<=" if v.comparator in ("==", "<=") else v.comparator,  # type: ignore[arg-type]
                              value=v.value, per=v.per)
                return service, ("limit", count) if st.effect in ("covered", "approve") else None
            item = re.split(r"\s+(?:and|every|per|each|in any|within)\s+", span.text[v.end:].strip())[0]
            item = SUBJECT_LEAD.sub("", re.sub(r"\([^()]*\)", "", item)).strip(" ,")
            before = re.sub(r"\s+\w+ed\s*$", "", span.text[:v.start].rstrip())
            bound_end = v.per_span[1] if v.per_span else v.end
            if v.comparator != "==" and v.start > 0 and before.strip() and not span.text[bound_end:].strip(" ,"):
                # "Occipital nerve blocks performed more often than once every 8 weeks": the service, then its bound
                span = Span(span.start, span.start + len(before), before)
                item = SUBJECT_LEAD.sub("", re.sub(r"\([^()]*\)", "", before)).strip(" ,")
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
        if Reader.vague(fold(span.text)):
            # "systems not listed in Appendix B", "quantities above the limit": named by what the clause does not show
            self.unread.append(Unread(span, "a service named by reference to a list or amount the clause does not show"))
        codes = tuple(dict.fromkeys(CODES.findall(span.text))) or codes_of_mention(self.text, span.start, span.end)
        words = SUBJECT_LEAD.sub("", re.sub(r"\([^()]*\)", "", span.text)).strip(" ,")
        concept = self.lex.concept_named(words) or fold(words) or "the requested service"
        return Service(self.fresh(), span, concept=concept, codes=codes), limit

    def provided(self, st: Statement) -> tuple[Span, Span] | None:
        """"If a glucose monitor (code E2100) is provided and criteria (1)-(2) are not met, it will be
        denied": the thing supplied and the whole occasion (phrase data `occasion`), taken out of the
        condition, whose words before a reference would otherwise be read as a requirement."""
        for cond in [*st.leads, *st.conditions]:
            for i, tok in enumerate(cond.parts[:-1]):
                if tok.type != "TEXT" or cond.parts[i + 1].type not in ("REF", "LABELS"):
                    continue
                low = fold(tok.span.text)
                for p in phrases().of("occasion"):
                    m = p.regex.search(low)
                    if m is None or low[m.end():].strip(" ,") not in ("", "and") or not low[:m.start()].strip():
                        continue
                    a = tok.span.start
                    b = a + len(tok.span.text[:m.start()].rstrip())
                    del cond.parts[i]
                    return Span(a, b, self.text[a:b]), Span(a, a + m.end(), self.text[a:a + m.end()])
        return None

    def several_bounded(self, span: Span) -> list[tuple[Service, Count]] | None:
        """"no more than 50 swabs and no more than 50 needles per quarter": one bound per item, the window
        written once at the end for all of them (CMS LCD; "up to EUR 45 per session and up to EUR 900
        per year" is the same shape in money, read after the effect)."""
        found = [v for v in values(span.text) if v.explicit and v.unit in ("", "units")]
        if len(found) < 2 or found[-1].per is None or found[-1].per_span is None or any(v.per for v in found[:-1]):
            return None
        if span.text[found[-1].per_span[1]:].strip(" ,") or span.text[:found[0].start].strip():
            return None
        out: list[tuple[Service, Count]] = []
        for n, v in enumerate(found):
            stop = found[n + 1].start if n + 1 < len(found) else found[-1].per_span[0]
            words = re.sub(r"[\s,;]*(?:\band)?[\s,;]*$", "", span.text[v.end:stop])
            lead = len(words) - len(words.lstrip())
            a, b = span.start + v.end + lead, span.start + v.end + len(words)
            name = fold(self.text[a:b])
            if not name or len(name.split()) > 4:
                return None
            service = Service(self.fresh(), Span(a, b, self.text[a:b]), concept=self.lex.concept_named(name) or name,
                              codes=codes_of_mention(self.text, a, b))
            bound = Span(span.start + v.start, b, self.text[span.start + v.start:b])
            if v.comparator not in ("==", "<=", ">", ">=") or (n and v.comparator != found[0].comparator):
                return None
            out.append((service, Count(self.fresh(), bound, item=name, comparator="<=" if v.comparator in ("==", "<=")
                                       else v.comparator, value=v.value, per=found[-1].per)))  # type: ignore[arg-type]
        return out

    def listed(self, st: Statement, items: list[Item], effect: str) -> list[Rule]:
        """One rule per item of a list the statement's subject points at ("The following are considered
        investigational: a. Dorsal root ganglion stimulation for pain outside the lower limbs; ..."):
        each item names a service, and what its own words qualify it by (medical, drug policy)."""
        rules: list[Rule] = []
        for item in items:
            if item.children:
                self.unread.append(Unread(item.text, "a listed service with a list of its own"))
                continue
            text = item.text.text.rstrip(" .;,")
            text = re.sub(r"[;,]?\s*\b(?:and|or)$", "", text).rstrip(" .;,")
            own = Statement(st.effect, st.span, Span(item.text.start, item.text.start + len(text), text))
            subject, qualifier = self.subject(own)
            population = trigger = None
            if qualifier is not None and qualifier[0] in ("population", "trigger"):
                population, trigger = (qualifier[1], None) if qualifier[0] == "population" else (None, qualifier[1])
            elif qualifier is not None:
                self.unread.append(Unread(item.text, "a listed service with a bound the reader does not place"))
                continue
            rules.append(Rule(effect, st.span, subject, population, trigger, None))  # type: ignore[arg-type]
        return rules

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
        """"pumps supplied only for a temporary condition", "a fusion ... where no
        instability is shown": the service, and the occasion (or population) its own words give it."""
        low = fold(span.text)
        found = sorted((m.start(), m.end(), name) for name in phrases().names("subject_qualifier")
                       for p in phrases().of("subject_qualifier", name) for m in [p.regex.search(low)] if m)
        if not found:
            return span, None
        start, end, name = found[0]
        a = span.start + end
        if re.search(r"\(\s*(?:HCPCS\s+|CPT\s+|codes?\s+)?" + CODES.pattern + r"[^()]*\)\s*$", span.text[end:], re.IGNORECASE):
            # "Oxygen contents for a portable system (E0443)", "a device without backup rate (E0470)": the
            # code in brackets at its end names the item, words and all (cms, medical)
            return span, None
        got = self.conditions.text_span(a, span.end) if name != "without" else self.conditions.text_span(a, span.end)
        self.unread.extend(got.unread)
        if got.node is None:
            self.unread.append(Unread(span, "a service described with words that qualify it, not read"))
            return span, None
        node: Node = Not(got.node) if name == "without" else got.node
        kind = "trigger" if st.effect in ("not_covered", "withheld") and name != "for" else "population"
        head = Span(span.start, span.start + start, self.text[span.start:span.start + start].rstrip(" ,"))
        return head, (kind, node)

    def after_effect(self, span: Span, st: Statement) -> Node | None:
        """Words after the effect, each accounted for: "for chronic intractable pain" names the
        population; "once per calendar year" a frequency the request must keep within; "for 6 months"
        (an approval's period), "by Medicare", a note on the basis of payment name nothing to check. Any
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
            # "up to EUR 200 per insured person": a cap, its own limit rule (it decides an amount question);
            # "up to EUR 45 per session and up to EUR 900 per ... year": one cap per amount, each its own words
            origin = span.start + span.text.find(text)
            for n, v in enumerate(money):
                own = span
                if len(money) > 1:
                    words = text[v.start:money[n + 1].start if n + 1 < len(money) else len(text)]
                    words = re.sub(r"[\s,;]*(?:\band)?[\s,;]*$", "", words)
                    own = Span(origin + v.start, origin + v.start + len(words), words)
                self.caps.append(Rule("limit", st.span, None, None, None, Amount(
                    self.fresh(), own, currency=v.unit, comparator="<=" if v.comparator in ("==", "<=") else v.comparator,  # type: ignore[arg-type]
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

    def approval(self, st: Statement, titles: list[Span]) -> tuple[str | None, Period | None]:
        if st.effect != "approve":
            return None, None
        where = " ".join([*(t.text for t in titles[-2:]), st.title.text if st.title else ""])
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
            waived = named_atoms(body, what)
            if waived:
                return Waiver(body, got.node, tuple(a.id for a in waived), target)  # type: ignore[arg-type]
            self.unread.append(Unread(target, "the requirement this exception lifts is not one the rule names"))  # type: ignore[arg-type]
            return body
        routed = None
        if target is not None and any(p.regex.search(what) for p in phrases().of("exception_effect", "routing")):
            routed = Service(self.fresh(), target, concept=fold(SUBJECT_LEAD.sub("", target.text)))
        span = target if target is not None else Span(0, 0, "")
        return Routing(got.node, span, body, routed)
