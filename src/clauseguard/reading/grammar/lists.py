"""Lists as criteria: a list's items under its head's quantifier ("all of the following", "at least two
of"), each item's own words or nested list, and the notes under an item that waive a named criterion.
A list head that states something of its own, or names no quantifier over a nested list, is unread:
reading the list alone would drop it.
"""

from __future__ import annotations

import re
from typing import Final

from clauseguard.corpus.criteria import Node, Note, Span, Waiver, with_mark
from clauseguard.reading.grammar.blocks import Item, ItemList, Para
from clauseguard.reading.grammar.conditions import ConditionReader, labels_of, quantified
from clauseguard.reading.grammar.phrases import phrases
from clauseguard.reading.grammar.result import Unread
from clauseguard.reading.grammar.statement import Cond, tag
from clauseguard.reading.grammar.trees import first_list, marked_atoms
from clauseguard.reading.grammar.values import values
from clauseguard.text import fold


class ListReader:
    """Reads conditions and the lists they head; what it cannot place goes to the compiler's `unread`."""

    def __init__(self, conditions: ConditionReader, notes: list[Note], unread: list[Unread]) -> None:
        self.conditions = conditions
        self.text = conditions.text
        self.notes = notes
        self.unread = unread

    def condition(self, cond: Cond, items: ItemList | None) -> Node | None:
        quants = [t for t in cond.parts if t.type == "QUANT"]
        if len(quants) > 1 and items is not None:
            # "two of the following or one of the following for at least 3 months": which count the list takes is not one
            self.unread.append(Unread(Span(cond.parts[0].span.start, cond.parts[-1].span.end,
                                           self.text[cond.parts[0].span.start:cond.parts[-1].span.end]),
                                      "a list counted two ways in one condition"))
            return None
        quant = quants[0] if quants else None
        if quant is not None and items is not None:
            n = next((int(v.value) for v in values(quant.span.text)), None)
            return self.list_node(items, quant.name, n)
        got = self.conditions.tokens(cond.parts)
        self.unread.extend(got.unread)
        return got.node

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
            named = [a for a in marked_atoms(whole, marks)]
            if named:
                whole = Waiver(whole, condition, tuple(a.id for a in named), span)
        return whole

    def item_node(self, item: Item, waivers: list[tuple[Node, tuple[str, ...], Span]]) -> Node | None:
        body = item.text
        toks = tag(self.text, body.start, body.end)
        sub = first_list(item.children)
        quant = next((t for t in toks if t.type == "QUANT"), None)
        if quant is not None and sub is not None:
            n = next((int(v.value) for v in values(quant.span.text)), None)
            node = self.list_node(sub, quant.name, n)
            if node is not None and not _bare_head(self.text[body.start:quant.span.start]):
                # "has a history of X with documentation of one of the following:", "the pain has not
                # responded to six months of therapy, which must have included one of the following:":
                # the head says something itself, which reading the list alone would drop
                end = body.start + len(self.text[body.start:quant.span.start].rstrip())
                self.unread.append(Unread(Span(body.start, end, self.text[body.start:end]),
                                          "a list head that states a requirement of its own"))
                return None
        elif sub is not None:
            # "one of the requirements listed below:" with items under it: a head the grammar does
            # not read as a quantifier would drop the items below it silently
            self.unread.append(Unread(body, "an item with a list under it whose head names no quantifier the grammar reads"))
            return None
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



_BARE_HEAD: Final = re.compile(
    r"^(?:(?:the|a|an|this)\s+)?(?:(?:patient|member|beneficiary|insured person|individual|enrollee)(?:'s)?\s+)?"
    r"(?:(?:must\s+)?(?:also\s+)?(?:meets?|has|have|had|shows?|showed|demonstrates?|satisfies|satisfy)\s*)?"
    r"(?:(?:documentation|documented evidence|evidence)\s+of\s*)?$")


def _bare_head(words: str) -> bool:
    """A list head that only introduces its list: "The beneficiary meets", "Documentation of"."""
    return _BARE_HEAD.match(" ".join(fold(words).split()).strip(" ,:;")) is not None
