"""The fact reader's rules as data: assertion cues, note sections and value notations, fingerprinted.

It owns loading `clauseguard/data/facts/*.yaml` and checking their shape; it never holds a cue, a heading
or a notation in code. The fingerprint goes into every trace beside the lexicon's.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Final

from clauseguard.datafiles import load_terms
from clauseguard.errors import ClauseguardError

RULES_PACKAGE: Final = "clauseguard/data/facts"
DIRECTIONS: Final = ("forward", "backward", "both", "terminate", "pseudo")
SCOPES: Final = ("list", "near", "relative", "clause", "phrase", "sentence", "next")
KINDS: Final = ("condition", "therapy", "service", "quantity", "free", "generic", "value")
# values.yaml keys whose value is a list of words; a word that is empty or not a string is refused by name.
WORD_LISTS: Final = ("list_joiners", "not_drugs")
# What each entry of values.yaml `regimens_by_count` must give: the counted quantity, the least count, the period.
REGIMEN_KEYS: Final = ("quantity", "at_least", "per")


class RulesError(ClauseguardError):
    """A fact-reading rules file that does not load; names the file and the key."""


@dataclass(frozen=True)
class Cue:
    """One assertion cue: words or a token pattern, what it asserts, which way and how far it reaches."""

    category: str
    direction: str
    scope: str
    literal: str | None = None
    pattern: tuple[Mapping[str, Any], ...] | None = None
    kinds: tuple[str, ...] = ()
    suspicion: bool = False
    breaks: tuple[str, ...] = ("CLAUSE_BREAK", "SEMICOLON")

    @property
    def name(self) -> str:
        return self.literal if self.literal is not None else repr(self.pattern)


@dataclass(frozen=True)
class ListScope:
    """How far a forward list cue reaches: clause openers end it, long pieces without a mention too."""

    openers: frozenset[str]
    piece_words: int | None


class Rules:
    """The loaded rule files, their typed views, and a fingerprint of their bytes."""

    def __init__(self, files: Mapping[str, bytes]) -> None:
        self.files = dict(sorted(files.items()))
        digest = hashlib.sha256()
        for name, raw in self.files.items():
            digest.update(name.encode() + b"\0" + hashlib.sha256(raw).digest())
        self.fingerprint: str = "sha256:" + digest.hexdigest()
        self.data: dict[str, dict[str, Any]] = {}
        for name, raw in self.files.items():
            loaded = load_terms(raw.decode("utf-8"))
            if not isinstance(loaded, dict) or not isinstance(loaded.get("version"), int):
                raise RulesError(f"fact rules {name}: must be a mapping with an integer `version`")
            self.data[name] = loaded
        self.cues = self._cues()
        context = self.section("context.yaml")
        self.scopes = {name: ListScope(frozenset(_words(spec.get("openers", ()))), spec.get("piece_words"))
                       for name, spec in context.get("scopes", {}).items()}
        self.glue = frozenset(_words(context.get("list_glue", ())))
        self.list_enders = frozenset(_words(context.get("list_enders", ())))
        self.relative_leads = frozenset(_words(context.get("relative_leads", ())))
        self.categories: dict[str, dict[str, str]] = {}
        for category, meaning in context.get("categories", {}).items():
            self.categories[str(category)] = ({"other": str(meaning)} if isinstance(meaning, str)
                                              else {str(k): str(v) for k, v in meaning.items()})
        self.precedence = tuple(str(c) for c in context.get("precedence", ()))
        self.combinations = tuple((frozenset(map(str, when)), str(then)) for when, then in context.get("combinations", ()))
        unknown = set(self.precedence) - set(self.categories)
        if unknown:
            raise RulesError(f"fact rules context.yaml: precedence names unknown categories {sorted(unknown)}")
        self._check_values()

    def _check_values(self) -> None:
        """The shape of the values.yaml keys read whole by name (a bad entry is refused here, not met mid-read)."""
        values = self.section("values.yaml")
        for key in WORD_LISTS:
            words = values.get(key, [])
            if not isinstance(words, list) or not all(isinstance(w, str) and w.strip() for w in words):
                raise RulesError(f"fact rules values.yaml: {key} must be a list of words (non-empty strings)")
        periods = sorted(values.get("period_words", {}))
        regimens = values.get("regimens_by_count", {})
        if not isinstance(regimens, dict):
            raise RulesError("fact rules values.yaml: regimens_by_count must map a therapy to "
                             "{quantity, at_least, per}")
        for therapy, rule in regimens.items():
            where = f"fact rules values.yaml: regimens_by_count.{therapy}"
            if not isinstance(rule, dict) or sorted(rule) != sorted(REGIMEN_KEYS):
                raise RulesError(f"{where} must give exactly {', '.join(REGIMEN_KEYS)}")
            if not isinstance(rule["quantity"], str) or not rule["quantity"].strip():
                raise RulesError(f"{where}.quantity must name a lexicon quantity")
            if isinstance(rule["at_least"], bool) or not isinstance(rule["at_least"], (int, float)) \
                    or rule["at_least"] <= 0:
                raise RulesError(f"{where}.at_least must be a positive number, not {rule['at_least']!r}")
            if rule["per"] not in periods:
                raise RulesError(f"{where}.per must be one of {', '.join(periods)} (values.yaml period_words)")

    def section(self, file: str) -> dict[str, Any]:
        found = self.data.get(file)
        if found is None:
            raise RulesError(f"fact rules file {file} is missing from {RULES_PACKAGE}")
        return found

    def _cues(self) -> tuple[Cue, ...]:
        out: list[Cue] = []
        for i, spec in enumerate(self.section("context.yaml").get("rules", ())):
            where = f"fact rules context.yaml: rules[{i}]"
            direction = str(spec.get("direction", ""))
            if direction not in DIRECTIONS:
                raise RulesError(f"{where}: direction must be one of {', '.join(DIRECTIONS)}")
            scope = str(spec.get("scope", "sentence"))
            if scope not in SCOPES:
                raise RulesError(f"{where}: scope must be one of {', '.join(SCOPES)}")
            kinds = tuple(str(k) for k in spec.get("types", ()))
            if set(kinds) - set(KINDS):
                raise RulesError(f"{where}: types must be among {', '.join(KINDS)}")
            common = {"category": str(spec["category"]), "direction": direction, "scope": scope, "kinds": kinds,
                      "suspicion": str(spec.get("suspicion", "")).lower() in ("true", "yes"),
                      "breaks": tuple(str(b) for b in spec.get(
                          "breaks", ("CLAUSE_BREAK", "SEMICOLON") if scope in ("list", "near") and direction == "forward"
                          else ("SEMICOLON",)))}
            for literal in spec.get("literals", ()):
                out.append(Cue(literal=str(literal).lower(), **common))  # type: ignore[arg-type]
            for pattern in spec.get("patterns", ()):
                out.append(Cue(pattern=tuple(pattern), **common))  # type: ignore[arg-type]
        return tuple(out)

    def meaning(self, category: str, kind: str) -> str | None:
        """The assertion status a cue category gives a mention of `kind` (None: no status)."""
        table = self.categories.get(category)
        if table is None:
            return None
        return table.get(kind, table.get("other"))

    def values(self, *path: str) -> Any:
        node: Any = self.section("values.yaml")
        for part in path:
            if not isinstance(node, dict) or part not in node:
                raise RulesError(f"fact rules values.yaml: no {'.'.join(path)}")
            node = node[part]
        return node


def _words(items: Any) -> list[str]:
    return [str(w).lower() for w in items]


def _package_files() -> dict[str, bytes]:
    root = resources.files("clauseguard").joinpath("data", "facts")
    return {entry.name: entry.read_bytes() for entry in root.iterdir() if entry.name.endswith(".yaml")}


@cache
def default_rules() -> Rules:
    """The rules shipped in the package (loaded once per process)."""
    return Rules(_package_files())


def load_rules(path: Path | None = None) -> Rules:
    """Rules of their own, loaded afresh (the cold verifier keeps its own, like its own lexicon)."""
    if path is None:
        return Rules(_package_files())
    return Rules({p.name: p.read_bytes() for p in sorted(path.glob("*.yaml"))})
