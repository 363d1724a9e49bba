"""A condition's words as a tree: references, inline enumerations, negation, and coordination.

"the basic coverage criteria (1)-(2) are met and the treating practitioner certifies that ..." is a
reference AND a documentation atom; "(1) A; (2) B; and (3) C" is a list; "has A, B, or C" offers
alternatives; "is not currently treated with insulin" negates a treatment. The atoms themselves are
read by atoms.py; this module only says how the pieces combine, and refuses when it cannot tell.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from clauseguard.corpus.criteria import AllOf, AnyOf, AtLeast, Node, Not, Ref, Span, Treatment, with_mark
from clauseguard.reading.grammar.atoms import Reader
from clauseguard.reading.grammar.phrases import phrases
from clauseguard.reading.grammar.result import Unread
from clauseguard.reading.grammar.statement import Tok
from clauseguard.reading.grammar.values import values
from clauseguard.text import fold

_LABEL_LIST: Final = re.compile(r"\d{1,2}|(?<![a-z])[a-z](?![a-z])|[ivx]{1,5}", re.IGNORECASE)
_RANGE: Final = re.compile(r"(?P<a>\d{1,2}|[a-z]|[ivx]{1,5})\W*(?:-|to|through)\W*(?P<b>\d{1,2}|[a-z]|[ivx]{1,5})", re.IGNORECASE)
_ROMANS: Final = ("i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x")
_INLINE_ITEM: Final = re.compile(r"(?:(?<=\s)|^)\((?P<m>\d{1,2}|[a-z]|[ivx]{1,4})\)\s+", re.IGNORECASE)
_PREDICATE: Final = (r"has|have|is|are|was|were|had|does|did|meets|uses|performs|requires|needs|cannot|can|will|must|"
                     r"shows|demonstrates|presents")
# clause-level coordination: a conjunction followed by a new predicate or a new person; a relative
# clause on the person's condition is one more requirement ("with OSA who meets criteria (A)-(C)",
# "who weighs more than 300 pounds and who has ...": CMS LCD, drug policy)
_CLAUSE_JOIN: Final = re.compile(
    r"(?:,\s*|\s+)(?P<j>and|or|AND|OR)\s+(?=(?:the\s+|a\s+|an\s+)?(?:beneficiary|member|patient|insured|individual|"
    rf"treating|practitioner|physician|provider|clinician|{_PREDICATE}|no\s|not\s|there)\b)"
    rf"|,?\s+(?:and\s+)?who\s+(?=(?:{_PREDICATE}|not\s)\b)|,?\s+and\s+for\s+whom\s+"
    # a new subject with its own verb ("..., and the stimulator is ordered by ...") or a span of time that
    # opens a clause ("... evaluated the member and at least twelve (12) months of ... have failed")
    r"|(?:,\s*|\s+)(?P<j2>and|or)\s+(?=at\s+least\s+\S+\s+(?:\(\d+\)\s+)?(?:days?|weeks?|months?|years?)\b)"
)
# "..., and the stimulator is ordered by ...": a new subject with its own verb. Splitting there made a holdout
# entry compile wrong (2026-12-07); an atom whose span holds one is left unread instead, so a requirement
# is never swallowed by the atom before it
_NEW_CLAUSE: Final = re.compile(r"(?:,\s*|\s+)(?:and|or)\s+(?:the|a|an|this|that)\s+(?:[\w-]+\s+){0,3}"
                                r"(?:is|are|was|were|has|have|had)\b", re.IGNORECASE)
_VALUE_JOIN: Final = re.compile(r"(?:,\s*(?P<j>with|and)\s+|\s+(?P<j2>and)\s+(?=(?:a|an|the|at least|no)\b))")
_COMMA_OR: Final = re.compile(r",\s*(?P<j>or|and|and/or)\s+")
_RELATIVE: Final = re.compile(r"\b(?:that|which|who|whose|whom)\b", re.IGNORECASE)
_NEGATION: Final = re.compile(
    r"(?:(?:the\s+)?(?:beneficiary|member|patient|insured person|individual)\s+)?"
    r"(?P<neg>(?:is|are|was|were|has|have|does|do|did)\s+not(?:\s+been)?|(?:has|have)\s+(?:no|never)|no|not|never|without)\s+",
    re.IGNORECASE,
)
_NEGATED_MEETS: Final = re.compile(r"\b(?:does|do|did)\s+not\s+(?:meet|satisfy|fulfil|fulfill)\s*$|\b(?:fails|failed)\s+to\s+meet\s*$",
                                   re.IGNORECASE)
_TRAILERS: Final = re.compile(r"(?:[;,]?\s*\b(?:and|or|and/or|AND|OR)\s*[,.;:]?|[.;:,])\s*$")  # \b: "stimulator." keeps its "or"


# the verb of a reference ("meets criteria (A)-(C)", "continues to meet criteria i and iv", "who meets
# criteria 1 through 4": CMS LCD, drug policy, medical policy) belongs to it, not to a condition before it
_MEETS: Final = re.compile(r"\s*\b(?:(?:and|who)\s+)*(?:meets|meet|satisfies|satisfy|fulfils|fulfills|fulfil|has met|have met|"
                           r"continues to meet|continue to meet)\s*$", re.IGNORECASE)


_WHERE: Final = re.compile(r"\(?\s*(?:above|below|listed above)\s*\)?|(?:of|in|under)\s+(?:the\s+)?(?:[^,;()]{0,60}?\s)?(?:above|below)"
                           r"|(?:of|in|under)\s+(?:section|part|article)\s+[A-Z0-9]{1,4}"
                           r"|(?:of|in|under)\s+the\s+[^,;()]{0,60}?\s(?:section|article|policy|indication)\b"
                           # "criteria (1)-(2) listed above for all monitors and supplies are met": whom they apply to
                           r"|for\s+(?:all|any|each|every)\s+[^,;()]{1,100}$", re.IGNORECASE)


_PERSON: Final = re.compile(r"\s*(?:the\s+|an?\s+)?(?:patient|beneficiary|member|insured person|individual|person)\s*", re.IGNORECASE)


def _drop_meets(pending: list[Tok]) -> bool:
    """Take a reference's verb ("meets", "continues to meet") off the pending text; True when there was one."""
    if not pending or pending[-1].type != "TEXT":
        return False
    last = pending[-1]
    m = _MEETS.search(last.span.text)
    if m is None:
        return False
    if not last.span.text[:m.start()].strip(" ,") or _PERSON.fullmatch(last.span.text[:m.start()]):
        pending.pop()  # "the patient continues to meet criteria i and iv": the reference is all of it
        return True
    pending[-1] = Tok(last.type, last.name, Span(last.span.start, last.span.start + m.start(), last.span.text[:m.start()]))
    return True


def _drop_neither(pending: list[Tok]) -> bool:
    """A "neither" just before a reference (phrase data: `negated_choice`) is taken off the pending text."""
    if not pending or pending[-1].type != "TEXT":
        return False
    last = pending[-1]
    words = phrases().words("negated_choice", "neither")
    m = re.search(rf"\b(?:{'|'.join(words)})\s*$", last.span.text, re.IGNORECASE)
    if m is None:
        return False
    if last.span.text[:m.start()].strip(" ,"):
        pending[-1] = Tok(last.type, last.name, Span(last.span.start, last.span.start + m.start(), last.span.text[:m.start()]))
    else:
        pending.pop()
    return True


def labels_of(text: str) -> tuple[str, ...]:
    """The criterion labels a printed reference names: "(1)-(2)" -> 1, 2; "(1-6)" -> 1..6;
    "(a) - (c)" -> a, b, c; "(i, ii, and iii)" -> i, ii, iii."""
    low = fold(text)
    inner = re.sub(r"\b(?:criteria|criterion|basic|coverage|additional|initial|continued|above|below|listed|stated|the|and|or)\b", " ", low)
    rng = _RANGE.search(inner)
    if rng is not None:
        a, b = rng.group("a"), rng.group("b")
        if a.isdigit() and b.isdigit():
            return tuple(str(i) for i in range(int(a), int(b) + 1))
        if a in _ROMANS and b in _ROMANS and not (len(a) == 1 and len(b) == 1 and a not in "iv"):
            return _ROMANS[_ROMANS.index(a):_ROMANS.index(b) + 1]
        if len(a) == 1 and len(b) == 1 and a.isalpha() and b.isalpha():
            return tuple(chr(c) for c in range(ord(a), ord(b) + 1))
    return tuple(dict.fromkeys(m.group(0).lower() for m in _LABEL_LIST.finditer(inner)))


@dataclass
class Reading:
    """A condition read into a node, or the stretches no reader could account for."""

    node: Node | None
    unread: list[Unread]


class ConditionReader:
    def __init__(self, atoms: Reader) -> None:
        self.atoms = atoms
        self.text = atoms.text

    def tokens(self, parts: Sequence[Tok], lists: dict[str, Node] | None = None) -> Reading:
        """A condition as the statement grammar tagged it: references and "are met" / "are not met",
        with TEXT between them; a quantifier here is the head of the list that follows (the caller's)."""
        nodes: list[Node] = []
        unread: list[Unread] = []
        i = 0
        pending: list[Tok] = []
        parts = list(parts)

        def flush() -> None:
            if pending:
                got = self.text_span(pending[0].span.start, pending[-1].span.end)
                unread.extend(got.unread)
                if got.node is not None:
                    nodes.append(got.node)
                pending.clear()

        while i < len(parts):
            tok = parts[i]
            if tok.type == "REF" and pending and pending[-1].span.text.rstrip().endswith(",") and i + 1 < len(parts) \
                    and parts[i + 1].span.text.lstrip().startswith(","):
                pending.append(tok)  # "described in Section I, criterion C, has been completed": where, not a requirement
                i += 1
                continue
            if tok.type in ("REF", "LABELS") and pending and _NEGATED_MEETS.search(pending[-1].span.text) and \
                    (len(labels_of(tok.span.text)) > 1 or i + 1 < len(parts) and re.match(r"or\b", fold(parts[i + 1].span.text).strip())):
                # "does not meet criterion A or B": neither, or not both? the text does not say
                unread.append(Unread(Span(pending[-1].span.start, tok.span.end, self.text[pending[-1].span.start:tok.span.end]),
                                     "a negated choice of criteria: 'not A or B' reads two ways"))
                pending.clear()
                i += 1
                continue
            if tok.type in ("REF", "LABELS") and tok.type != "LABELS" or tok.type == "LABELS" and (
                    i + 1 < len(parts) and parts[i + 1].type in ("MET", "NOT_MET")
                    or bool(pending) and re.search(r"\bneither\s*$", pending[-1].span.text, re.IGNORECASE) is not None):
                _drop_meets(pending)
                neither = _drop_neither(pending)
                meets = neither and _drop_meets(pending)  # "the member meets neither criterion 1 nor criterion 2"
                flush()
                if neither:
                    i = self._neither(parts, i, nodes, unread, meets)
                    continue
                ref: Node = Ref(tok.span, labels_of(tok.span.text))
                j = i + 1
                while j < len(parts) and parts[j].type == "TEXT" and (where := _WHERE.match(parts[j].span.text)):
                    # "criteria (A) - (C) of the E0601 indication above", "criteria 1 through 4 of Section I": where they are
                    rest = parts[j].span.text[where.end():]
                    if rest.strip() and not re.match(r"\s*,?\s*(?:and|or)\s", rest):
                        break
                    end = parts[j].span.start + where.end()
                    ref = Ref(Span(tok.span.start, end, self.text[tok.span.start:end]), labels_of(tok.span.text))
                    if rest.strip():
                        parts[j] = Tok("TEXT", "", Span(end, parts[j].span.end, self.text[end:parts[j].span.end]))
                        break
                    j += 1
                if j < len(parts) and parts[j].type == "NOT_MET":
                    ref = Not(ref)
                    j += 1
                elif j < len(parts) and parts[j].type == "MET":
                    j += 1
                nodes.append(ref)
                i = j
                continue
            if tok.type in ("COVERED", "DENIED") and pending:
                # "when a therapeutic CGM (code K0554) is covered": the criteria of the rules covering it
                about = Span(pending[0].span.start, pending[-1].span.end,
                             self.text[pending[0].span.start:pending[-1].span.end])
                pending.clear()
                service = self.atoms.name(about.start, about.end) or fold(about.text)
                covering: Node = Ref(Span(about.start, tok.span.end, self.text[about.start:tok.span.end]), (),
                                     service=service)
                nodes.append(Not(covering) if tok.type == "DENIED" else covering)
                i += 1
                continue
            if tok.type in ("MET", "COMMA", "COVERED", "DENIED") and not pending:
                i += 1
                continue
            pending.append(tok)
            i += 1
        flush()
        if not nodes:
            return Reading(None, unread)
        refs_or = [p for p in parts if p.type == "TEXT" and fold(p.span.text).strip(" ,") == "or"]
        if refs_or and len(nodes) > 1 and all(isinstance(n, Ref) for n in nodes):
            return Reading(AnyOf(tuple(nodes)), unread)  # "meets criterion a) or criterion b)"
        return Reading(nodes[0] if len(nodes) == 1 else AllOf(tuple(nodes)), unread)

    def _neither(self, parts: list[Tok], i: int, nodes: list[Node], unread: list[Unread], meets: bool = False) -> int:
        """"neither criterion (1) nor (2) above is met", "meets neither a) or b)": not one of the references
        is met. The index after the "is met" (or after the last reference, when "meets" came before) is
        returned; anything else before it leaves the whole unread."""
        refs: list[Node] = []
        j = i
        while j < len(parts) and parts[j].type != "MET":
            tok = parts[j]
            if tok.type in ("REF", "LABELS"):
                refs.extend(Ref(tok.span, (label,)) for label in labels_of(tok.span.text))
            elif not (tok.type == "TEXT" and (fold(tok.span.text).strip() in ("or", "nor") or _WHERE.fullmatch(tok.span.text.strip()))):
                break
            j += 1
        if j < len(parts) and parts[j].type == "MET" and len(refs) > 1:
            nodes.append(Not(AnyOf(tuple(refs))))
            return j + 1
        if meets and len(refs) > 1 and (j == len(parts) or parts[j].type == "COMMA"):
            nodes.append(Not(AnyOf(tuple(refs))))
            return j
        end = parts[min(j, len(parts) - 1)].span.end
        unread.append(Unread(Span(parts[i].span.start, end, self.text[parts[i].span.start:end]),
                             "'neither' over references the grammar cannot list"))
        return j + 1

    def text_span(self, a: int, b: int) -> Reading:
        """A condition written in words, read into a node."""
        a, b = self._trim(a, b)
        if a >= b:
            return Reading(None, [])
        inline = self._inline_list(a, b)
        if inline is not None:
            return inline
        pieces = self._split(_CLAUSE_JOIN, a, b)
        if pieces is not None:
            whole = self.atoms.therapies.therapy(a, b)
            if isinstance(whole, Treatment) and len(whole.statuses) > 1:
                return Reading(whole, [])  # "has failed or did not tolerate at least two agents": one therapy
            return self._combine(pieces)
        return self._one(a, b)

    def _trim(self, a: int, b: int) -> tuple[int, int]:
        seg = self.text[a:b]
        while True:
            m = _TRAILERS.search(seg)
            if m is None or not m.group(0).strip():
                break
            seg = seg[:m.start()]
        lead = len(seg) - len(seg.lstrip())
        seg = seg.strip()
        joined = re.match(r"(?:(?:and|or|and/or|but)\s+(?:for\s+whom\s+)?|for\s+whom\s+)", seg, re.IGNORECASE)
        if joined is not None:  # "... are met and the practitioner certifies ...": the joiner is not the criterion
            lead += joined.end()
            seg = seg[joined.end():]
        # "the following" alone, or "the patient meets": nothing to read
        return a + lead, a + lead + len(seg)

    def _one(self, a: int, b: int) -> Reading:
        neg = _NEGATION.match(self.text, a, b)
        if neg is not None:
            inner = self._one(neg.end(), b) if neg.end() < b else Reading(None, [])
            if inner.node is not None:
                return Reading(Not(inner.node), inner.unread)
        got = self.atoms.read(a, b)
        if not isinstance(got, Unread) and any(self._depth(a, m.start()) == 0 for m in _NEW_CLAUSE.finditer(self.text, a, b)):
            return Reading(None, [Unread(Span(a, b, self.text[a:b]), "two clauses joined by 'and', read as one")])
        if isinstance(got, Unread):
            alts = self._split(_COMMA_OR, a, b)
            if alts is not None and (_RELATIVE.search(self.text, a, alts[1][0]) or _RELATIVE.search(self.text, alts[-1][0], alts[-1][1])):
                # ... or after the list: "dermatitis on the face, hands, or genitals that has not responded ...":
                # the relative clause qualifies the whole noun phrase, not its last item
                # "a mobility limitation that prevents the use of a cane, walker, or manual wheelchair": the
                # list is the relative clause's object, not alternatives of the criterion
                return Reading(None, [got])
            if alts is not None:
                return self._combine(alts)
            both = self._split(_VALUE_JOIN, a, b)
            if both is not None and len(values(self.text[a:b])) >= 2:
                # "the AHI is 15 or more events per hour, with a minimum of 30 events": two numbers, two criteria
                return self._combine([(s, e, "and") for s, e, _ in both])
            return Reading(None, [got])
        return Reading(got, [])

    def _split(self, pattern: re.Pattern[str], a: int, b: int) -> list[tuple[int, int, str]] | None:
        """Pieces of text[a:b] between top-level conjunctions (none inside brackets), with the joiner
        before each; None when there is no such conjunction."""
        cuts = [m for m in pattern.finditer(self.text, a, b) if self._depth(a, m.start()) == 0]
        if not cuts:
            return None
        pieces: list[tuple[int, int, str]] = []
        start, joiner = a, ""
        for m in cuts:
            pieces.append((start, m.start(), joiner))
            start, joiner = m.end(), (m.groupdict().get("j") or m.groupdict().get("j2") or "and").lower()
        pieces.append((start, b, joiner))
        return pieces

    def _depth(self, a: int, at: int) -> int:
        seg = self.text[a:at]
        return seg.count("(") - seg.count(")")

    def _combine(self, pieces: list[tuple[int, int, str]]) -> Reading:
        joiners = {j for _, _, j in pieces[1:]}
        if "and" in joiners and "or" in joiners or "and/or" in joiners and "and" in joiners:
            span = Span(pieces[0][0], pieces[-1][1], self.text[pieces[0][0]:pieces[-1][1]])
            return Reading(None, [Unread(span, "'and' and 'or' mixed at one level: which binds tighter is not written")])
        nodes: list[Node] = []
        unread: list[Unread] = []
        for s, e, _ in pieces:
            got = self.text_span(s, e)
            unread.extend(got.unread)
            if got.node is not None:
                nodes.append(got.node)
        if unread or not nodes:
            return Reading(None, unread)
        if len(nodes) == 1:
            return Reading(nodes[0], [])
        joined: Node = AnyOf(tuple(nodes)) if joiners <= {"or", "and/or"} else AllOf(tuple(nodes))
        return Reading(joined, [])

    def _inline_list(self, a: int, b: int) -> Reading | None:
        """"(1) A; (2) B; and (3) C" inside one sentence: marked items and their joiners."""
        marks = [m for m in _INLINE_ITEM.finditer(self.text, a, b) if self._depth(a, m.start()) == 0]
        if len(marks) < 2 or not _consecutive([m.group("m").lower() for m in marks]):
            return None  # "at least seven (7) days ... fourteen (14) days": numbers restated, not items
        items: list[Node] = []
        unread: list[Unread] = []
        joiners: set[str] = set()
        for n, m in enumerate(marks):
            end = marks[n + 1].start() if n + 1 < len(marks) else b
            body = self.text[m.end():end]
            tail = re.search(r"[;,]?\s*\b(and|or)\s*$", body, re.IGNORECASE)
            if tail is not None:
                joiners.add(tail.group(1).lower())
            got = self.text_span(m.end(), end)
            unread.extend(got.unread)
            if got.node is not None:
                items.append(_marked(got.node, m.group("m").lower()))
        if unread:
            return Reading(None, unread)
        if joiners == {"or"}:
            return Reading(AnyOf(tuple(items)), [])
        return Reading(AllOf(tuple(items)), [])


_ROMAN: Final = ("i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x", "xi", "xii")


def _consecutive(labels: Sequence[str]) -> bool:
    """Labels that count one by one: 1 2 3, a b c, i ii iii (roman when the first is "i" and all are)."""
    ranks: list[int]
    if all(x.isdigit() for x in labels):
        ranks = [int(x) for x in labels]
    elif labels[0] == "i" and all(x in _ROMAN for x in labels):
        ranks = [_ROMAN.index(x) for x in labels]
    elif all(len(x) == 1 and x.isalpha() for x in labels):
        ranks = [ord(x) for x in labels]
    else:
        return False
    return all(b == a + 1 for a, b in zip(ranks, ranks[1:], strict=False))


def _marked(node: Node, mark: str) -> Node:
    return with_mark(node, mark)


def quantified(kind: str, n: int | None, children: Sequence[Node]) -> Node:
    """The node a list head's quantifier makes of its items."""
    items = tuple(children)
    if kind == "any":
        return AnyOf(items)
    if kind == "at_least" and n is not None:
        return AtLeast(n, items)
    return AllOf(items)
