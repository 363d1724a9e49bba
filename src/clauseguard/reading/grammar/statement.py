"""One sentence as a statement: a phrase tagger, `statement.lark`, and a lowering into a `Statement`.

The tagger turns the sentence into phrase-class tokens (an effect, a condition word, a quantifier, a
reference, "are met", ...) found by the phrase data, with plain TEXT between them; the grammar says
which orders make a statement; the lowering keeps every part as a span of the clause text. What the
parts mean (which atoms, which tree) is decided later (lower.py, atoms.py); this module never reads
a concept.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Final

from lark import Lark, Token, Transformer, Tree
from lark.exceptions import LarkError
from lark.lexer import Lexer

from clauseguard.corpus.criteria import Span
from clauseguard.reading.grammar.phrases import NUMBER_WORDS, phrases
from clauseguard.text import fold

# phrase category/name -> terminal, in the order a tie at one place is settled
_TERMINALS: Final[tuple[tuple[str, str, str], ...]] = (
    ("reference", "criteria", "REF"),
    ("reference", "this_list", "LABELS"),
    ("quantifier", "all", "QUANT"),
    ("quantifier", "any", "QUANT"),
    ("quantifier", "at_least", "QUANT"),
    ("met", "not_met", "NOT_MET"),
    ("met", "met", "MET"),
    ("denied", "not_covered", "DENIED"),
    ("denied", "withheld", "WITHHELD"),
    ("denied", "limited", "LIMITED"),
    ("covered", "covered", "COVERED"),
    ("covered", "approve", "APPROVE"),
    ("covered", "purpose", "PURPOSE"),
    ("considers", "considers", "CONSIDERS"),
    ("verdict", "covered", "VERDICT_COVERED"),
    ("verdict", "not_covered", "VERDICT_DENIED"),
    ("waiting", "period", "WAITING"),
    ("waiting", "lifted", "LIFTED"),
    ("waiting", "exempt", "EXEMPT"),
    ("lead", "scope", "LEAD"),
    ("lead", "connective", "LEAD"),
    ("condition", "when", "COND"),
    ("condition", "population", "COND"),
    ("condition", "unless", "UNLESS"),
    ("condition", "in_which_case", "IN_WHICH_CASE"),
)
_RANK: Final = {(c, n): i for i, (c, n, _) in enumerate(_TERMINALS)}
_PUNCT: Final = {",": "COMMA", ";": "SEMI"}


@dataclass(frozen=True)
class Tok:
    """A tagged stretch of the clause text: its terminal, the phrase name it matched, its span."""

    type: str
    name: str
    span: Span


@dataclass
class Cond:
    """A condition: how it was introduced (when / population / lead / unless) and its tokens."""

    intro: str
    parts: list[Tok]

    @property
    def span(self) -> Span | None:
        if not self.parts:
            return None
        first, last = self.parts[0].span, self.parts[-1].span
        return Span(first.start, last.end, "")


@dataclass
class Statement:
    """What one sentence says, as spans: effect, subject, the other words, conditions, exceptions."""

    effect: str  # covered | not_covered | withheld | approve
    span: Span
    subject: Span | None = None
    extra: list[Span] = field(default_factory=list)
    conditions: list[Cond] = field(default_factory=list)
    exceptions: list[tuple[Cond, Span | None]] = field(default_factory=list)  # (unless, "in which case" target)
    leads: list[Cond] = field(default_factory=list)
    opens_list: bool = False  # ends with ":" or asks "of the following": the next list is its criteria
    title: Span | None = None  # the headings before "Approve" ("Plaque Psoriasis. Initial Therapy.")
    waiting: Span | None = None  # "a waiting period of three (3) months": the occasion of a not-covered rule


def tag(text: str, start: int, end: int) -> list[Tok]:
    """The tokens of `text[start:end]` (offsets into the whole clause `text`)."""
    folded = fold(text)
    piece = folded[start:end]
    table = phrases()
    found: list[tuple[int, int, int, str, str]] = []
    for category, name, terminal in _TERMINALS:
        if category not in table.table:
            continue
        for phrase in table.of(category, name):
            for m in phrase.regex.finditer(piece):
                found.append((m.start(), m.end(), _RANK[(category, name)], terminal, name))
    found.sort(key=lambda f: (f[0], -(f[1] - f[0]), f[2]))
    chosen: list[tuple[int, int, str, str]] = []
    taken_to = 0
    for s, e, _, terminal, name in found:
        if s < taken_to:
            continue
        chosen.append((s, e, terminal, name))
        taken_to = e
    has_considers = any(t == "CONSIDERS" for _, _, t, _ in chosen)
    effects = [i for i, (_, _, t, _) in enumerate(chosen) if t in ("COVERED", "DENIED", "WITHHELD", "LIMITED")]
    out: list[Tok] = []
    pos = 0
    for i, (s, e, terminal, name) in enumerate(chosen):
        if terminal in ("VERDICT_COVERED", "VERDICT_DENIED") and not has_considers:
            continue  # "medically necessary" is a verdict only after "considers"
        if terminal == "LEAD" and piece[:s].strip() and not piece[:s].rstrip().endswith(";"):
            continue  # "Therefore," / "For all X," open a sentence (or follow a semicolon); elsewhere they are words
        if terminal == "LABELS" and _NUMBER_BEFORE.search(piece[:s]):
            continue  # "six (6) months": a number written twice, not a list of labels
        if terminal == "APPROVE" and (effects and effects[0] < i or piece[:s].strip(" .:")
                                      and not _title_only(piece[:s])):
            continue  # "approve" leads a statement; elsewhere it is a word
        out.extend(_plain(text, start, pos, s, last=False))
        out.append(Tok(terminal, name, Span(start + s, start + e, text[start + s:start + e])))
        pos = e
    out.extend(_plain(text, start, pos, len(piece), last=True))
    return out


_NUMBER_BEFORE: Final = re.compile(rf"(?:\d|\b(?:{'|'.join(NUMBER_WORDS)}))\s*$")
_TITLE: Final = re.compile(r"^[^.:;]*[.:]\s*([^.:;]*[.:]\s*)?$")


def _title_only(before: str) -> bool:
    """"Plaque Psoriasis. Initial Therapy. Approve ...": only headings stand before "Approve"."""
    return bool(_TITLE.match(before.strip() + " ")) and len(before.split()) <= 12


def _plain(text: str, base: int, a: int, b: int, last: bool) -> list[Tok]:
    """TEXT runs between phrase matches, with commas and semicolons as their own tokens and a
    sentence-final full stop or colon as DOT / COLON."""
    out: list[Tok] = []
    chunk = text[base + a:base + b]
    pos = 0
    for m in re.finditer(r"[,;]|[.:](?=\s*$)", chunk):
        if m.group() in ",;" and _inside_brackets(chunk, m.start()):
            continue
        if m.group() in ".:" and not last:
            continue
        _text(out, text, base + a + pos, base + a + m.start())
        kind = _PUNCT.get(m.group(), "DOT" if m.group() == "." else "COLON")
        out.append(Tok(kind, m.group(), Span(base + a + m.start(), base + a + m.end(), m.group())))
        pos = m.end()
    _text(out, text, base + a + pos, base + b)
    return out


def _inside_brackets(chunk: str, at: int) -> bool:
    return chunk[:at].count("(") > chunk[:at].count(")")


def _text(out: list[Tok], text: str, a: int, b: int) -> None:
    lead = len(text[a:b]) - len(text[a:b].lstrip())
    trail = len(text[a:b]) - len(text[a:b].rstrip())
    if text[a:b].strip():
        out.append(Tok("TEXT", "", Span(a + lead, b - trail, text[a + lead:b - trail])))


class _TokLexer(Lexer):
    def __init__(self, lexer_conf: object) -> None:
        pass

    def lex(self, data: list[Tok]):  # type: ignore[override] # lark's custom-lexer interface
        for i, tok in enumerate(data):
            yield Token(tok.type, tok, start_pos=i)


@lru_cache(maxsize=1)
def _parser() -> Lark:
    grammar = (resources.files("clauseguard.reading.grammar") / "statement.lark").read_text(encoding="utf-8")
    return Lark(grammar, parser="earley", lexer=_TokLexer, ambiguity="resolve")


def _toks(children: list[object]) -> list[Tok]:
    out: list[Tok] = []
    for c in children:
        if isinstance(c, Token):
            out.append(c.value)
        elif isinstance(c, Tok):
            out.append(c)
        elif isinstance(c, list):
            out.extend(_toks(c))
    return out


def _word(p: object) -> bool:
    """An effect word from a rule method (a plain str), not a lark Token (which is a str too)."""
    return type(p) is str


class _Lower(Transformer[Token, object]):
    """One method per rule of statement.lark."""

    def cond(self, parts: list[object]) -> list[Tok]:
        return _toks(parts)

    def subject(self, parts: list[Token]) -> Span:
        first, last = parts[0].value.span, parts[-1].value.span
        return Span(first.start, last.end, "")

    def extra(self, parts: list[Token]) -> list[Span]:
        return [p.value.span for p in parts if p.type == "TEXT"]

    def covered(self, _: list[object]) -> str:
        return "covered"

    def denied(self, _: list[object]) -> str:
        return "not_covered"

    def withheld(self, _: list[object]) -> str:
        return "withheld"

    def limited(self, _: list[object]) -> str:
        return "limit"

    def when(self, parts: list[object]) -> Cond:
        intro = parts[0]
        assert isinstance(intro, Token)
        kind = "population" if intro.value.name == "population" else "when"
        return Cond(kind, _toks(parts[1:2]))

    def routing(self, parts: list[Token]) -> Span:
        return [p for p in parts if p.type == "TEXT"][-1].value.span

    def unless(self, parts: list[object]) -> tuple[Cond, Span | None]:
        routed = parts[2] if len(parts) > 2 and isinstance(parts[2], Span) else None
        return Cond("unless", _toks(parts[1:2])), routed

    def pause(self, _: list[object]) -> None:
        return None

    def lead_when(self, parts: list[object]) -> Cond:
        intro = parts[0]
        assert isinstance(intro, Token)
        return Cond("population" if intro.value.name == "population" else "lead", _toks(parts[1:2]))

    def lead_text(self, parts: list[Token]) -> Cond:
        return Cond(f"lead_{parts[0].value.name}", [p.value for p in parts if p.type in ("LEAD", "TEXT")])

    def _main(self, effect: str, subject: Span | None, rest: list[object]) -> Statement:
        st = Statement(effect, Span(0, 0, ""), subject)
        for item in rest:
            if isinstance(item, Cond):
                st.conditions.append(item)
            elif isinstance(item, tuple):
                st.exceptions.append(item)
            elif isinstance(item, list):
                st.extra.extend(x for x in item if isinstance(x, Span))
        return st

    def stated(self, parts: list[object]) -> Statement:
        subject = parts[0] if isinstance(parts[0], Span) else None
        at = next(i for i, p in enumerate(parts) if _word(p))
        return self._main(str(parts[at]), subject, parts[at + 1:])

    def considered(self, parts: list[object]) -> Statement:
        at = next(i for i, p in enumerate(parts) if _word(p))
        spans = [p for p in parts[:at] if isinstance(p, Span)]
        return self._main(str(parts[at]), spans[-1] if spans else None, parts[at + 1:])

    def title(self, parts: list[Token]) -> Tree[Token]:
        return Tree("title", [parts[0].value.span])

    def waiting(self, parts: list[object]) -> Statement:
        """"A waiting period of three (3) months of insurance applies to hospitalisation": not covered
        while the member has been insured for less than the period."""
        head = next(p for p in parts if isinstance(p, Token) and p.type == "WAITING")
        subject = next((p for p in parts if isinstance(p, list)), [None])[0]
        st = self._main("not_covered", subject if isinstance(subject, Span) else None, [])
        st.waiting = head.value.span
        return st

    def lifted(self, parts: list[object]) -> Statement:
        """"No waiting period applies where the treatment is made necessary by an accident"."""
        cond = next((p for p in parts if isinstance(p, list)), [])
        st = Statement("lift_waiting", Span(0, 0, ""))
        st.conditions.append(Cond("when", _toks(cond)))
        return st

    def exempt(self, parts: list[object]) -> Statement:
        subject = parts[0] if isinstance(parts[0], Span) else None
        return Statement("exempt_waiting", Span(0, 0, ""), subject)

    def approval(self, parts: list[object]) -> Statement:
        at = next(i for i, p in enumerate(parts) if isinstance(p, Token) and p.type == "APPROVE")
        st = self._main("approve", None, parts[at + 1:])
        title = next((p for p in parts[:at] if isinstance(p, Tree) and p.data == "title"), None)
        if title is not None:
            st.title = title.children[0]  # type: ignore[assignment]
        return st

    def purpose(self, parts: list[object]) -> Statement:
        """"To be eligible for coverage of X, the beneficiary must meet ...": X is covered when ..."""
        subject = next(p for p in parts if isinstance(p, Span))
        rest = [p for p in parts if isinstance(p, list)]
        st = Statement("covered", Span(0, 0, ""), subject)
        if rest:
            st.conditions.append(Cond("when", _toks(rest[-1])))
        return st

    def clause(self, parts: list[object]) -> Statement:
        main = parts[-1]
        assert isinstance(main, Statement)
        main.leads = [p for p in parts[:-1] if isinstance(p, Cond)]
        return main

    def lead_only(self, parts: list[object]) -> None:
        return None

    def start(self, parts: list[object]) -> list[Statement]:
        return [p for p in parts if isinstance(p, Statement)]


def statements(text: str, start: int, end: int) -> list[Statement] | None:
    """The statements of one sentence `text[start:end]`, or None when the grammar does not read it
    (no effect, or an order of parts no statement has)."""
    toks = tag(text, start, end)
    if not any(t.type in ("COVERED", "DENIED", "WITHHELD", "LIMITED", "APPROVE", "CONSIDERS", "PURPOSE", "WAITING",
                          "LIFTED", "EXEMPT") for t in toks):
        return None
    try:
        tree = _parser().parse(toks)  # type: ignore[arg-type]
    except LarkError:
        return None
    found = _Lower().transform(tree)
    assert isinstance(found, list)
    opens = toks[-1].type == "COLON" or any(t.type == "QUANT" for t in toks)
    for st in found:
        st.span = Span(start, end, text[start:end])
        st.opens_list = opens
        if st.subject is not None:
            st.subject = Span(st.subject.start, st.subject.end, text[st.subject.start:st.subject.end])
    return found


def tagged(text: str, start: int, end: int) -> list[Tok]:
    return tag(text, start, end)


__all__ = ["Cond", "Statement", "Tok", "Tree", "statements", "tag"]
