"""The data the criterion readers share: atoms.yaml's sections as compiled patterns, and list splitting."""

from __future__ import annotations

import re
from functools import cache, lru_cache
from importlib import resources
from typing import Any, Final

from clauseguard.datafiles import load_yaml
from clauseguard.reading.grammar.phrases import _compile

EG: Final = re.compile(r"\(\s*(?:e\.g\.|eg\.|e\.g|for example|such as|including)[,:]?\s*(?P<list>[^()]*)\)", re.IGNORECASE)


@lru_cache(maxsize=1)
def data() -> dict[str, Any]:
    raw = (resources.files("clauseguard") / "data" / "grammar" / "atoms.yaml").read_text(encoding="utf-8")
    return load_yaml(raw)


@cache
def rx(patterns: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{_compile(p)})" for p in patterns))


def section(*path: str) -> tuple[str, ...]:
    node: Any = data()
    for key in path:
        node = node[key]
    return tuple(str(p) for p in node)


def list_items(text: str) -> list[str]:
    """"A, B, or C" -> [A, B, C] (brackets kept whole)."""
    text = re.sub(r"\([^()]*\)", lambda m: m.group(0).replace(",", "\0"), text)
    parts = re.split(r",\s*(?:and/or\s+|or\s+|and\s+)?|\s+(?:and/or|or|and)\s+", text.strip(" .;:"))
    return [p.replace("\0", ",").strip() for p in parts if p and p.strip()]
