"""Reading a request body, path or header that may be hostile, before any of it reaches the engine.

Bounded work on any input: nesting is measured before parsing, integers longer than a number needs
are never converted, NaN and Infinity are refused, and every string (keys too) is checked for unpaired
UTF-16 surrogates and NUL. Each problem is a RequestError naming the field; nothing here raises
anything else, so malformed input is always a 4xx and never a 500.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

from clauseguard.errors import RequestError

MAX_DEPTH: Final = 32  # every request shape is at most 3 levels deep
MAX_INT_DIGITS: Final = 18
_STRINGS: Final = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKETS: Final = bytes.maketrans(b"", b"")
_BAD_TEXT: Final = re.compile("[\x00\ud800-\udfff]")


class _TooLong:
    """An integer literal too long to be any field's value; named with its path once the body is walked."""

    def __init__(self, digits: int) -> None:
        self.digits = digits


class _NotANumber:
    def __init__(self, literal: str) -> None:
        self.literal = literal


def _depth(raw: bytes) -> int:
    """How deeply arrays and objects nest, strings aside; linear in the body's length."""
    brackets = _STRINGS.sub(b"", raw).translate(_BRACKETS, delete=bytes(set(range(256)) - set(b"[]{}")))
    depth = deepest = 0
    for byte in brackets:
        depth += 1 if byte in b"[{" else -1
        deepest = max(deepest, depth)
    return deepest


def _int(literal: str) -> int | _TooLong:
    digits = len(literal.lstrip("-"))
    return _TooLong(digits) if digits > MAX_INT_DIGITS else int(literal)


def check_text(field: str, value: str) -> str:
    """`value` if it is text that can be stored and echoed; else RequestError naming the field."""
    bad = _BAD_TEXT.search(value)
    if bad is not None:
        what = "a NUL character" if bad.group() == "\x00" else f"an unpaired UTF-16 surrogate (\\u{ord(bad.group()):04x})"
        raise RequestError(field, f"contains {what} at position {bad.start()}; send valid Unicode text")
    return value


def _walk(value: Any, path: str) -> None:
    name = path or "request"
    if isinstance(value, _TooLong):
        raise RequestError(name, f"is an integer of {value.digits} digits; no field takes a number that long")
    if isinstance(value, _NotANumber):
        raise RequestError(name, f"is {value.literal}, which is not a JSON number; send a finite number")
    if isinstance(value, str):
        check_text(name, value)
    elif isinstance(value, dict):
        for key, item in value.items():
            try:
                check_text("key", key)
            except RequestError as exc:
                raise RequestError(name, "has a key that " + str(exc).removeprefix("key: ")) from None
            _walk(item, f"{path}.{key}" if path else key)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _walk(item, f"{path}.{i}" if path else str(i))


def parse_json(raw: bytes) -> Any:
    """The body as plain data, or RequestError: empty, not UTF-8, not JSON, too deep, a huge number, bad text."""
    if not raw.strip():
        raise RequestError("request", "the body is empty; send a JSON object")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RequestError("request", f"the body is not UTF-8 (byte {exc.start}); send JSON encoded as UTF-8") from None
    depth = _depth(raw)
    if depth > MAX_DEPTH:
        raise RequestError("request", f"the JSON nests {depth} levels deep; requests nest at most {MAX_DEPTH}")
    try:
        data = json.loads(text, parse_int=_int, parse_constant=_NotANumber)
    except json.JSONDecodeError as exc:
        raise RequestError("request", f"the body is not valid JSON at line {exc.lineno} column {exc.colno}; "
                                      "send a JSON object") from None
    except (ValueError, RecursionError):
        raise RequestError("request", "the body is not valid JSON; send a JSON object") from None
    _walk(data, "")
    return data
