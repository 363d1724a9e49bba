"""The layout of a clause: paragraphs and nested lists of marked items, with their joiners.

A line lexer classifies each line (a list item by its marker family — "1.", "(a)", "ii.", "A)", a
bullet —, a joiner line "-AND-" / "-OR-", a continuation of the item above, or a paragraph line) and
emits _INDENT / _DEDENT as the marker family changes; `blocks.lark` says how the lines nest; a small
Transformer lowers the tree into `Para` and `Item` records with their spans. It reads typography only,
never policy words (the joiner words come from the phrase data).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Final

from lark import Lark, Token, Transformer
from lark.lexer import Lexer

from clauseguard.corpus.criteria import Span
from clauseguard.reading.grammar.phrases import phrases

_ROMAN: Final = re.compile(r"^(?=[ivxlc]+$)m{0,3}(c[md]|d?c{0,3})(x[cl]|l?x{0,3})(i[xv]|v?i{0,3})$")
_MARKER: Final = re.compile(
    r"^(?P<lead>[ \t]*)(?P<marker>\((?P<p>\d{1,2}|[a-zA-Z]{1,5})\)|(?P<d>\d{1,2}|[a-zA-Z]{1,5})(?P<close>[.)]))(?=\s|$)"
)
_BULLET: Final = re.compile(r"^(?P<lead>[ \t]*)(?P<marker>[-\u2022\u25aa\u25e6\u2023\u2043\uf0b7\uf0a7*\u25cf\u25cb]|o)(?=\s)")


@dataclass
class Item:
    """A list item: its marker as printed, the mark a reference names it by ("2", "b", "iii"), its own
    text (first line and continuations), the blocks nested under it, and the joiner after it."""

    marker: Span
    mark: str
    family: str
    text: Span
    children: list[Para | ItemList] = field(default_factory=list)
    joiner: str | None = None  # "and" | "or", from a joiner line or the item's own ending


@dataclass
class ItemList:
    items: list[Item]


@dataclass
class Para:
    text: Span


Block = Para | ItemList


@dataclass
class _Line:
    kind: str  # TEXT | ITEM | JOINER | CONT
    start: int
    end: int
    indent: int
    family: str = ""
    mark: str = ""
    marker_end: int = 0
    joiner: str = ""


def _family(marker: str, label: str, close: str | None, previous: dict[str, str]) -> tuple[str, str]:
    """(family, mark) of a list marker: numbers, lower/upper letters, lower/upper roman, by bracket style."""
    style = "()" if marker.startswith("(") else (close or "")
    if label.isdigit():
        return f"num{style}", label
    low = label.lower()
    letter_case = "lower" if label.islower() else "upper"
    # "i" after "h" (or "v" after "u", "x" after "w") is a letter; any other roman-shaped label is roman
    letter_family = f"{letter_case}{style}"
    prev = previous.get(letter_family)
    if len(label) == 1 and prev is not None and ord(low) == ord(prev) + 1:
        return letter_family, low
    if _ROMAN.match(low):
        return f"roman-{letter_case}{style}", low
    if len(label) == 1:
        return letter_family, low
    return "", ""


@lru_cache(maxsize=1)
def _joiner_words() -> dict[str, str]:
    return {w: name for name in ("and", "or") for w in phrases().words("joiner", name)}


def joiner_line(text: str) -> str | None:
    """"-AND-", "- OR -", "AND", "(or)": a line that is only a joiner word, set apart by dashes,
    brackets or capitals."""
    bare = text.strip().strip("-\u2013\u2014()[] \t").strip()
    name = _joiner_words().get(bare.lower())
    if name is None:
        return None
    if bare.isupper() or text.strip() != bare:
        return name
    return None


def _ending_joiner(text: str) -> str | None:
    """An item that ends "; and", "; or," or ", AND": the connective to the next item."""
    tail = text.rstrip().rstrip(",.;:").rstrip()
    for word, name in _joiner_words().items():
        if re.search(rf"[;,]\s*{re.escape(word)}$", tail, re.IGNORECASE):
            return name
    return None


def _lines(text: str) -> list[_Line]:
    out: list[_Line] = []
    pos = 0
    previous: dict[str, str] = {}
    for raw in text.split("\n"):
        start, end = pos, pos + len(raw)
        pos = end + 1
        if not raw.strip():
            continue
        indent = len(raw) - len(raw.lstrip(" \t"))
        joiner = joiner_line(raw)
        if joiner is not None:
            out.append(_Line("JOINER", start + indent, end, indent, joiner=joiner))
            continue
        m = _MARKER.match(raw)
        family, mark = "", ""
        if m is not None:
            label = m.group("p") or m.group("d") or ""
            family, mark = _family(m.group("marker"), label, m.group("close"), previous)
        if family:
            assert m is not None
            if not family.startswith(("num", "roman")):
                previous[family] = mark
            out.append(_Line("ITEM", start + indent, end, indent, family, mark, start + m.end("marker")))
            continue
        b = _BULLET.match(raw)
        if b is not None:
            out.append(_Line("ITEM", start + indent, end, indent, f"bullet{b.group('marker')}", "",
                             start + b.end("marker")))
            continue
        out.append(_Line("TEXT", start + indent, end, indent))
    return out


def _successor(family: str, mark: str) -> str:
    """The mark after `mark` in its family: "4" -> "5", "b" -> "c", "iii" -> "iv"."""
    if family.startswith("num"):
        return str(int(mark) + 1)
    if family.startswith("roman"):
        return _ROMANS[_ROMANS.index(mark) + 1] if mark in _ROMANS[:-1] else ""
    if len(mark) == 1 and mark.isalpha():
        return chr(ord(mark) + 1)
    return ""


_ROMANS: Final = ("i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x", "xi", "xii")


def _unmarked_run(lines: list[_Line], i: int, last: dict[str, str]) -> bool:
    """Plain lines at the margin inside an open list, when the list's numbering goes on after them
    ("4. ... at least one of the following:" / two plain lines / "5. ..."): lines that lost their
    bullets in extraction, not the end of the list. Only the next mark in sequence proves it."""
    j = i
    while j < len(lines) and lines[j].kind == "TEXT":
        j += 1
    if j == len(lines) or lines[j].kind != "ITEM" or lines[j].family not in last:
        return False
    return _successor(lines[j].family, last[lines[j].family]) == lines[j].mark != ""


def _tokens(text: str) -> Iterator[Token]:
    """The line tokens, with _INDENT / _DEDENT when an item's marker family changes."""
    stack: list[tuple[str, int]] = []  # (family, indent) of the open lists
    last_item_indent = -1
    last: dict[str, str] = {}  # the last mark of each open family
    lines = _lines(text)
    for i, line in enumerate(lines):
        if line.kind == "TEXT" and stack and line.indent <= last_item_indent and _unmarked_run(lines, i, last):
            # a colon before them makes them the item's own sub-items; else they go on its text
            above = lines[i - 1]
            if stack[-1][0] == "plain" or text[above.start:above.end].rstrip().endswith(":"):
                line = _Line("ITEM", line.start, line.end, last_item_indent, "plain", "", line.start)
            else:
                yield Token("CONT", line, start_pos=line.start)
                continue
        if line.kind == "ITEM":
            depth = next((i for i, (fam, _) in enumerate(stack) if fam == line.family), None)
            if depth is None:
                if stack:
                    yield Token("_INDENT", "", start_pos=line.start)
                stack.append((line.family, line.indent))
            else:
                for _ in range(len(stack) - 1 - depth):
                    stack.pop()
                    yield Token("_DEDENT", "", start_pos=line.start)
            last_item_indent = line.indent
            last = {fam: last.get(fam, "") for fam, _ in stack}
            last[line.family] = line.mark
            yield Token("ITEM", line, start_pos=line.start)
        elif line.kind == "JOINER":
            if stack:
                yield Token("JOINER", line, start_pos=line.start)
        elif stack and line.indent > last_item_indent:
            yield Token("CONT", line, start_pos=line.start)
        else:
            while len(stack) > 1:
                stack.pop()
                yield Token("_DEDENT", "", start_pos=line.start)
            stack.clear()
            yield Token("TEXT", line, start_pos=line.start)
    while len(stack) > 1:
        stack.pop()
        yield Token("_DEDENT", "", start_pos=len(text))


class _LineLexer(Lexer):
    def __init__(self, lexer_conf: object) -> None:
        pass

    def lex(self, data: str) -> Iterator[Token]:  # type: ignore[override] # lark's custom-lexer interface
        return _tokens(data)


@lru_cache(maxsize=1)
def _parser() -> Lark:
    grammar = (resources.files("clauseguard.reading.grammar") / "blocks.lark").read_text(encoding="utf-8")
    return Lark(grammar, parser="lalr", lexer=_LineLexer)


class _Lower(Transformer[Token, list[Block]]):
    """One method per rule of blocks.lark: the parse tree as Para / ItemList / Item records."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def _span(self, start: int, end: int) -> Span:
        return Span(start, end, self.text[start:end])

    def start(self, blocks: list[Block]) -> list[Block]:
        return blocks

    def para(self, lines: list[Token]) -> Para:
        first, last = lines[0].value, lines[-1].value
        return Para(self._span(first.start, last.end))

    def itemlist(self, items: list[Item]) -> ItemList:
        return ItemList(items)

    def children(self, blocks: list[Block]) -> list[Block]:
        return blocks

    def item(self, parts: list[object]) -> Item:
        head = parts[0].value  # type: ignore[attr-defined]
        conts = [p.value for p in parts[1:] if isinstance(p, Token) and p.type == "CONT"]
        joiner = next((p.value.joiner for p in parts if isinstance(p, Token) and p.type == "JOINER"), None)
        nested = next((p for p in parts if isinstance(p, list)), [])
        body_start = head.marker_end + (len(self.text[head.marker_end:head.end]) -
                                        len(self.text[head.marker_end:head.end].lstrip()))
        body_end = conts[-1].end if conts else head.end
        body = self._span(body_start, body_end)
        return Item(self._span(head.start, head.marker_end), head.mark, head.family, body, list(nested),
                    joiner or _ending_joiner(body.text))


def blocks(text: str) -> list[Block]:
    """The clause's layout, every span quoting `text`."""
    tree = _parser().parse(text)
    return _Lower(text).transform(tree)


def at_colon_lines(found: list[tuple[int, int]], text: str) -> list[tuple[int, int]]:
    """"... based on the following guidelines:" then a line of its own: the heading and each line after
    it are sentences apart (a heading's role never takes the rules written under it)."""
    out: list[tuple[int, int]] = []
    for a, b in found:
        for m in re.finditer(r":[ \t]*\n\s*", text[a:b]):
            out.append((a, a + m.start() + 1))
            a = a + m.end()
        out.append((a, b))
    return out


_HEAD_LINE: Final = re.compile(r"^[^\W\d][^.;:!?\n]{0,60}$")


def heading_lines(found: list[tuple[int, int]], text: str) -> list[tuple[int, int]]:
    """"Continued Coverage" on a line of its own above a sentence: a heading apart from the sentence it
    heads (a short line with no closing punctuation, then a line break)."""
    out: list[tuple[int, int]] = []
    for a, b in found:
        first, sep, _ = text[a:b].partition("\n")
        if sep and _HEAD_LINE.match(first.strip()) and len(first.split()) <= 6 and text[a + len(first) + 1:b].strip():
            rest = a + len(first) + 1
            while rest < b and text[rest] in " \t\n":
                rest += 1
            out.extend([(a, a + len(first.rstrip())), (rest, b)])
        else:
            out.append((a, b))
    return out
