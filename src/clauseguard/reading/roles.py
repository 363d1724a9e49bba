"""What each clause is for: criteria, limitation, exclusion (they decide), or administrative,
definition, framing, reference (they never decide, never force REVIEW).

A clause's `kind`, when the corpus gives it, fixes its role. Otherwise the sentence cues of
`data/grammar/roles.yaml` name the non-deciding sentences, and the compiled rules name the deciding
ones (a limit is a limitation; a clause that only withholds cover is an exclusion). A clause the
reader is not sure of counts as deciding, so a hard clause is never waved through as administrative.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any, Final, Literal

from clauseguard.corpus.criteria import Count, Criteria, iter_atoms
from clauseguard.datafiles import load_yaml
from clauseguard.reading.cues import frames
from clauseguard.reading.grammar.phrases import _compile
from clauseguard.text import fold

Role = Literal["criteria", "limitation", "exclusion", "administrative", "definition", "framing", "reference"]
DECIDING: Final[frozenset[str]] = frozenset({"criteria", "limitation", "exclusion"})
NON_DECIDING: Final[tuple[str, ...]] = ("administrative", "reference", "definition", "framing")
_NUMBERING: Final = re.compile(r"^(?:(?:chapter|section|article|part)\s+)?[\d.]+\.?\s+")  # "Chapter 1. ", "1.1 "
NOTE: Final = "note"  # a sentence the reader set aside: no statement and no deciding word in it
# the corpus format's clause kinds, and the role each fixes (design: "Which clauses decide")
ROLE_OF_KIND: Final[dict[str, Role | None]] = {
    "scope": "framing", "criteria": "criteria", "exclusion": "exclusion", "limit": "limitation",
    "waiting_period": "limitation", "documents": "criteria", "definition": "definition",
    "administrative": "administrative", "reference": "reference", "other": None,
}


@dataclass(frozen=True)
class _Cue:
    role: str
    regex: re.Pattern[str]
    start: bool
    governs: bool  # a heading ("Policy History.", "Q: ..."): the clause's other sentences are its body
    not_persons: bool  # "X is a Y" defines X, unless X is the person a criterion is about
    unless_rule: bool  # the cue names a topic ("studies show"): a sentence stating cover or a denial is a rule


@lru_cache(maxsize=1)
def _cues() -> tuple[_Cue, ...]:
    raw = (resources.files("clauseguard") / "data" / "grammar" / "roles.yaml").read_text(encoding="utf-8")
    data: dict[str, Any] = load_yaml(raw)
    out = []
    for role in NON_DECIDING:
        for entry in data.get(role, ()):
            out.append(_Cue(role, re.compile(_compile(str(entry["pattern"]))), bool(entry.get("start", False)),
                            bool(entry.get("governs", False)), bool(entry.get("not_persons", False)),
                            bool(entry.get("unless_rule", False))))
    return tuple(sorted(out, key=lambda c: not c.governs))  # a heading's cue first: it names the clause


@lru_cache(maxsize=1)
def _section_cues() -> tuple[tuple[str, re.Pattern[str]], ...]:
    raw = (resources.files("clauseguard") / "data" / "grammar" / "roles.yaml").read_text(encoding="utf-8")
    data: dict[str, Any] = load_yaml(raw)
    return tuple((str(role), re.compile(_compile(str(pattern)))) for role, pattern in data.get("sections", {}).items())


def section_role(headings: Sequence[str]) -> str | None:
    """The role a clause's own section or article heading gives it when that role decides nothing
    ("Definitions": definition; "Policy History", "Background", "Summary of Evidence": framing), else None."""
    for heading in headings:
        low = fold(heading or "").strip()
        if not low:
            continue
        if frames(low):
            return "framing"
        bare = _NUMBERING.sub("", low).strip(" .:")
        for role, cue in _section_cues():
            if cue.fullmatch(bare):  # the heading is that word ("1.1 Definitions"), not one word of it
                return role
    return None


def clause_headings(clause: Any) -> tuple[str, ...]:
    """A corpus clause's own headings: its section and, when it has one, its article."""
    return tuple(h for h in (getattr(clause, "section", None), getattr(clause, "article", None)) if h)


@lru_cache(maxsize=1)
def _persons() -> re.Pattern[str]:
    raw = (resources.files("clauseguard") / "data" / "grammar" / "atoms.yaml").read_text(encoding="utf-8")
    words = load_yaml(raw)["persons"]
    return re.compile("|".join(_compile(str(w)) for w in words))


def _cue_of(text: str) -> _Cue | None:
    low = fold(text).strip()
    low = re.sub(r"^(?:[a-z0-9]{1,4}[.)]\s+|\(\s*[a-z0-9]{1,4}\s*\)\s+)", "", low)
    for cue in _cues():
        m = cue.regex.search(low)
        if m is None or (cue.start and m.start() != 0):
            continue
        if cue.not_persons and _persons().match(low):
            continue
        return cue
    return None


def sentence_role(text: str) -> str | None:
    """The non-deciding role a sentence's own words give it, or None (it may decide)."""
    cue = _cue_of(text)
    return cue.role if cue is not None else None


def yields_to_rule(text: str) -> bool:
    """True when the sentence's role cue names only its topic: a statement of cover in it decides."""
    cue = _cue_of(text)
    return cue is not None and cue.unless_rule


def heading_role(text: str) -> str | None:
    """The role a heading sentence gives the clause it opens ("Policy History.", "Q: ..."), or None."""
    cue = _cue_of(text)
    return cue.role if cue is not None and cue.governs else None


def role_of_rules(criteria: Criteria) -> Role:
    """The deciding role compiled rules give a clause."""
    rules = criteria.rules
    if any(r.effect == "limit" or any(isinstance(a, Count) for a in iter_atoms(r.when)) for r in rules):
        return "limitation"
    if rules and all(r.effect in ("not_covered", "withheld") for r in rules):
        return "exclusion"
    return "criteria"


def clause_role(kind: str | None, criteria: Criteria | None, sentence_roles: list[str | None],
                heading: str | None = None) -> Role:
    """The clause's role: its corpus kind when given; else deciding when it states any rule or holds a
    sentence no cue explains (unless a heading opening it names the clause's role); else the role
    most of its sentences name (a sentence set aside as a note, with no deciding word, names none and
    leaves the others' role standing)."""
    fixed = ROLE_OF_KIND.get(kind or "other")
    if fixed is not None:
        return fixed
    if criteria is not None and not criteria.empty:
        return role_of_rules(criteria)
    if heading is not None and criteria is not None:
        return heading  # type: ignore[return-value]
    named = [r for r in sentence_roles if r is not None and r != NOTE]
    if not named or len(named) + sentence_roles.count(NOTE) < len(sentence_roles):
        return "criteria"  # nothing names its role, or a sentence may decide: sure of nothing, it decides
    best = max(NON_DECIDING, key=lambda r: (named.count(r), -NON_DECIDING.index(r)))
    return best  # type: ignore[return-value]
