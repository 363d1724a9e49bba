"""Budgets a corpus file must keep before it is built into data: nesting depth, alias expansion, integer size.

It reads the parser's event stream (never the composed document), so a 435-byte alias bomb or a
5,000-deep nesting is refused in time and memory proportional to the file itself, with the line and
key path named. It works with the pure-Python and the libyaml (C) loaders alike. It never quotes the
content an alias would expand to, and never builds the document it is checking.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Final

import yaml

from clauseguard.errors import CorpusError, Problem

MAX_DEPTH: Final = 64  # nested mappings and lists; the v1 format needs 8, criteria trees a few dozen
ALIAS_BUDGET: Final = 10_000  # nodes all aliases of one file may add when expanded
MAX_INT_DIGITS: Final = 30  # a JSON integer longer than this is no id, page or count

_KEY_SHOWN: Final = 40


def _shown_key(value: str) -> str:
    return value if len(value) <= _KEY_SHOWN else value[:_KEY_SHOWN] + "..."


@dataclass
class _Frame:
    """One open mapping or list while the event stream is read."""

    is_mapping: bool
    anchor: str | None
    size: int = 1
    index: int = 0  # next list index
    key: str | None = None  # the mapping key whose value comes next
    expecting_key: bool = True


def _path(stack: list[_Frame]) -> str:
    out = ""
    for frame in stack:
        if frame.is_mapping:
            if frame.key is not None and not frame.expecting_key:
                out += ("." if out else "") + frame.key
        else:
            out += f"[{frame.index}]"
    return out


def check_yaml_budgets(text: str, file: str, loader: type[Any] = yaml.SafeLoader) -> None:
    """Raise CorpusError (naming the line and key path) when `text` nests deeper than MAX_DEPTH or
    its aliases would expand to more than ALIAS_BUDGET nodes. Syntax errors are left to the loader."""
    stack: list[_Frame] = []
    sizes: dict[str, int] = {}
    expanded = 0

    def fail(event: yaml.Event, path: str, message: str) -> CorpusError:
        line = event.start_mark.line + 1 if event.start_mark is not None else 0
        where = f"line {line}" + (f", {path}" if path else "")
        return CorpusError([Problem(file, where, message)])

    def node_done(size: int, scalar: str | None = None) -> None:
        if not stack:
            return
        parent = stack[-1]
        parent.size += size
        if parent.is_mapping:
            if parent.expecting_key:
                parent.key = _shown_key(scalar) if scalar is not None else "?"
            parent.expecting_key = not parent.expecting_key
        else:
            parent.index += 1

    try:
        for event in yaml.parse(text, Loader=loader):
            if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                if len(stack) >= MAX_DEPTH:
                    raise fail(event, _path(stack), f"nesting deeper than {MAX_DEPTH} levels; a corpus file "
                               "needs far fewer (documents > versions > clauses > criteria)")
                stack.append(_Frame(isinstance(event, yaml.MappingStartEvent), event.anchor))
            elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                done = stack.pop()
                if done.anchor is not None:
                    sizes[done.anchor] = done.size
                node_done(done.size)
            elif isinstance(event, yaml.ScalarEvent):
                if event.anchor is not None:
                    sizes[event.anchor] = 1
                node_done(1, event.value)
            elif isinstance(event, yaml.AliasEvent):
                size = sizes.get(event.anchor or "", 1)
                expanded += size
                if expanded > ALIAS_BUDGET:
                    raise fail(event, _path(stack), f"the alias *{_shown_key(event.anchor or '')} takes the "
                               f"file's aliases past {ALIAS_BUDGET} expanded nodes; write the values out, or "
                               "use aliases only for small repeated values")
                node_done(size)
    except yaml.MarkedYAMLError as exc:
        if "nesting depth" not in str(exc.problem):  # libyaml's own depth limit (1,000) says so
            return  # the loader reports syntax errors with its own marks
        line = exc.problem_mark.line + 1 if exc.problem_mark is not None else 0
        raise CorpusError([Problem(file, f"line {line}" + (f", {_path(stack)}" if stack else ""),
                                   f"nesting deeper than {MAX_DEPTH} levels; a corpus file needs far fewer")]) from None
    except yaml.YAMLError:
        return


_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


def check_json_depth(text: str, file: str) -> None:
    """Raise CorpusError naming the line where `text` nests deeper than MAX_DEPTH (strings skipped)."""
    depth = 0
    for token in _JSON_TOKEN.finditer(text):
        char = token.group()
        if char in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                line = text.count("\n", 0, token.start()) + 1
                raise CorpusError([Problem(file, f"line {line}", f"nesting deeper than {MAX_DEPTH} levels; "
                                           "a corpus file needs far fewer")])
        elif char in "]}":
            depth -= 1


class HugeInteger(str):
    """A JSON integer too long to be anything a corpus holds; reported with its key path after parsing."""

    __slots__ = ()


def parse_json_int(digits: str) -> int | HugeInteger:
    """json.loads' parse_int: ordinary integers as int, oversized ones kept aside (never int() on 5,000 digits)."""
    return HugeInteger(digits) if len(digits.lstrip("-")) > MAX_INT_DIGITS else int(digits)


def huge_integer_problems(data: Any, file: str) -> list[Problem]:
    """Every HugeInteger left in parsed JSON, by key path (iterative: depth is already bounded)."""
    problems: list[Problem] = []
    todo: list[tuple[Any, str]] = [(data, "")]
    while todo:
        value, path = todo.pop()
        if isinstance(value, HugeInteger):
            problems.append(Problem(file, path or "(top level)", f"an integer of {len(value.lstrip('-'))} digits; "
                                    f"ids, pages and counts have at most {MAX_INT_DIGITS} (quote an id to keep it as text)"))
        elif isinstance(value, dict):
            todo.extend((v, f"{path}.{_shown_key(str(k))}" if path else _shown_key(str(k))) for k, v in value.items())
        elif isinstance(value, list):
            todo.extend((v, f"{path}[{i}]") for i, v in enumerate(value))
    return sorted(problems, key=lambda p: p.path)


def shown_input(value: Any, limit: int = 60) -> str:
    """A bad value as an error message may show it: its repr, cut to `limit` characters with its length."""
    text = repr(value)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(str(value))} characters)"
