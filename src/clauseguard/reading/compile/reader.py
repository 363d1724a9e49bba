"""What reading one clause shares: the stretch of text a reader works on, the rule being drafted, the
stretch it cannot read, and the base every reader builds on (the clause's text, lexicon, patterns,
ids, what earlier sentences named; spans, numbers, comparators). It reads no sentence shape itself.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass

from clauseguard.corpus.criteria import (
    AllOf,
    Amount,
    AnyOf,
    Comparator,
    Count,
    Node,
    Note,
    Service,
    Span,
    Tenure,
)
from clauseguard.reading.compile.patterns import _STOP, _grammar
from clauseguard.reading.lexicon import Lexicon, normalise


class _Unread(Exception):
    """A stretch of the clause the grammar cannot account for."""

    def __init__(self, start: int, end: int, reason: str) -> None:
        super().__init__(reason)
        self.start = start
        self.end = end
        self.reason = reason
        self.subject: Service | None = None  # the service the unreadable sentence is about, when read
        self.population: Node | None = None  # the population it is for, when read


class _Ambiguous(_Unread):
    """Words that read two ways (AND and OR mixed without a list): no other split may rescue them."""


# --- the compiler ------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Seg:
    start: int
    end: int


@dataclass
class _RuleDraft:
    effect: str
    span: Span
    subject: Service | None = None
    population: list[Node] = dataclasses.field(default_factory=list)
    trigger: list[Node] = dataclasses.field(default_factory=list)
    when: list[Node] = dataclasses.field(default_factory=list)
    remarks: list[Note] = dataclasses.field(default_factory=list)
    anaphor: str | None = None  # the condition a bare "disease" refers back to
    pending_count: tuple[float, str, int, int] | None = None  # "One X is covered per ..." awaits its period
    also: list[Service] = dataclasses.field(default_factory=list)  # more subjects: "Crowns and bridges are ..."
    caps: list[Amount] = dataclasses.field(default_factory=list)  # money caps: a limit rule of their own


def _flatten(node: Node) -> Node:
    """ALL inside ALL (and ANY inside ANY) read as one list; a one-child list is its child."""
    if isinstance(node, AllOf | AnyOf):
        children: list[Node] = []
        for child in node.children:
            child = _flatten(child)
            if type(child) is type(node):
                children.extend(child.children)  # type: ignore[union-attr]
            else:
                children.append(child)
        if len(children) == 1:
            return children[0]
        return type(node)(tuple(children))
    return node


class _ClauseReader:
    """The clause's text and what every reader uses: spans, ids, bare noun phrases, numbers, comparators."""

    def __init__(self, text: str, lexicon: Lexicon) -> None:
        self.text = text
        self.lex = lexicon
        self.ids = iter(range(1, 1_000_000))
        self.loose: set[int] = set()  # nodes made by splitting at a connective (not by a list)
        self.listed: set[int] = set()  # nodes made from an explicit list ("one of the following: ...")
        self.bare = 0  # > 0 where a bare noun phrase may name a condition (lists, populations, indications)
        self.keep_alive: list[Node] = []
        self.g = _grammar(lexicon)
        self.last_waiting: Tenure | None = None  # the waiting period a later sentence's "that period" means
        self.last_subjects: list[Service] = []  # what "such treatment" in a later sentence means
        self.last_count: Count | None = None  # the allowance "earlier replacement" in a later sentence exceeds

    def fresh(self) -> str:
        return f"t{next(self.ids)}"

    def _span(self, start: int, end: int) -> Span:
        start, end = self._trim(start, end)
        return Span(start, end, self.text[start:end])

    def _trim(self, start: int, end: int) -> tuple[int, int]:
        text = self.text
        while start < end and text[start] in " \t\n,;:":
            start += 1
        while end > start and text[end - 1] in " \t\n,;:.":
            end -= 1
        return start, end

    def _t(self, seg: _Seg) -> str:
        return self.text[seg.start:seg.end]

    def _bare(self, fn: Callable[[], Node]) -> Node:
        """Parse where a noun phrase alone names a condition ("(a) loud snoring", "for members with X")."""
        self.bare += 1
        try:
            return fn()
        finally:
            self.bare -= 1

    def _free_ok(self, phrase: str, max_words: int = 6) -> bool:
        """A phrase the lexicon lacks may stand for itself only if it reads as a plain noun phrase."""
        words = phrase.split()
        if not words or len(words) > max_words or words[0] in self.g.verbs:
            return False
        for w in words:
            if w in _STOP or w in self.g.not_concepts or not re.fullmatch(r"[a-z][a-z'\-]*", w):
                return False
        return True

    def _as_node(self, nodes: list[Node]) -> Node | None:
        if not nodes:
            return None
        if len(nodes) == 1:
            return nodes[0]
        return _flatten(AllOf(tuple(nodes)))

    def _number(self, text: str, at: int) -> float:
        raw = normalise(text)
        m = re.match(r"^(?P<w>[a-z][a-z\- ]*?)\s*\(\s*(?P<d>\d+(?:\.\d+)?)\s*\)$", raw)
        if m:
            word = self._word_number(m.group("w"))
            digits = float(m.group("d"))
            if word is None or word != digits:
                raise _Unread(at, at + len(text), "a number written in words and digits that disagree")
            return digits
        if re.fullmatch(r"\d+(?:\.\d+)?", raw):
            return float(raw)
        value = self._word_number(raw)
        if value is None:
            raise _Unread(at, at + len(text), "a number the compiler cannot read")
        return value

    def _word_number(self, raw: str) -> float | None:
        raw = raw.strip()
        if raw in self.g.words:
            return self.g.words[raw]
        if "-" in raw:
            tens, _, unit = raw.partition("-")
            if tens in self.g.words and unit in self.g.words:
                return self.g.words[tens] + self.g.words[unit]
        return None

    def _cmp(self, pre: str | None, suf: str | None, default: Comparator | None = None) -> Comparator:
        ops = [self.g.cmp_pre[normalise(pre)]] if pre else []
        if suf:
            ops.append(self.g.cmp_suf[normalise(suf)])
        if len(ops) == 2:
            if ops[0] != ops[1]:
                raise _Unread(0, 0, "two comparators that disagree")
            return ops[0]  # type: ignore[return-value]
        if ops:
            return ops[0]  # type: ignore[return-value]
        if default is None:
            raise _Unread(0, 0, "a number without a comparison")
        return default
