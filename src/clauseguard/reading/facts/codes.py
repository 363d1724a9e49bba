"""Facts from the request's codes: diagnosis codes read through the ICD-10-CM tabular list
(simple-icd-10-cm: every valid code, its description and ancestors, from a table built once from the
library and cached) and the
lexicon's families; procedure codes through the lexicon; and the narrative's statement governing a
code it denies, hedges or contradicts.

It owns what a code states and the discrepancy flags; it never builds matcher rules from the tabular
list (one look-up per code, memoised) and never guesses a code's meaning from its shape.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import replace
from functools import cache, lru_cache
from importlib import metadata
from typing import Any, Final

from clauseguard.derived import cache_path, package_dir, read_cache, write_cache
from clauseguard.reading.facts.note import Flag, Note
from clauseguard.reading.facts.sheet import ConditionFact, Fact, ServiceFact
from clauseguard.reading.lexicon import Lexicon


@cache
def _icd() -> Any:
    with warnings.catch_warnings():  # it reads its data with a deprecated importlib call
        warnings.simplefilter("ignore", DeprecationWarning)
        import simple_icd_10_cm as cm

        cm.is_valid_item("A00")  # loads the tabular list now, under the same filter
    return cm


def _library_entry(code: str) -> tuple[str, tuple[str, ...]] | None:
    """What the library says of a code: (description, ancestors' descriptions nearest first), or None."""
    cm = _icd()
    if not cm.is_valid_item(code):
        return None
    ancestors = tuple(cm.get_description(a) for a in cm.get_ancestors(code) if cm.is_valid_item(a) and "-" not in a)
    return str(cm.get_description(code)), ancestors


_ICD_FORMAT: Final = b"icd-table/1"


def _icd_files() -> list[tuple[str, bytes]]:
    """The library's data files and version, found without importing it (its import parses the XML)."""
    data = package_dir("simple_icd_10_cm", "simple-icd-10-cm") / "data"
    found = [(f.name, f.read_bytes()) for f in sorted(data.iterdir(), key=lambda f: f.name) if f.is_file()]
    return [*found, ("version", metadata.version("simple-icd-10-cm").encode())]


@cache
def _icd_table() -> dict[str, tuple[str, tuple[str, ...]]]:
    """Every item of the tabular list (dotted, as the library keys them) with its entry: built once from
    the library, kept under `$CLAUSEGUARD_HOME/cache/icd/` (importing the library parses 10 MB of XML)."""
    path = cache_path("icd", _icd_files(), _ICD_FORMAT)
    table = read_cache(path, lambda v: isinstance(v, dict) and bool(v))
    if table is None:
        table = {}
        for code in _icd().get_all_codes(True):
            entry = _library_entry(code)
            if entry is not None:
                table[code] = entry
        write_cache(path, table)
    return table  # type: ignore[no-any-return]


@lru_cache(maxsize=8192)
def icd_entry(code: str) -> tuple[str, tuple[str, ...]] | None:
    """(description, ancestors' descriptions nearest first) of a valid ICD-10-CM code, else None; read
    from the cached table, with the library's own rule for a code written without its dot ("E109")."""
    table = _icd_table()
    if code in table:
        return table[code]
    if len(code) >= 4 and code[3] != ".":
        return table.get(code[:3] + "." + code[3:])
    return None


def _stated_part(description: str) -> str:
    """What a description states as present: the part before "without" ("... without complications")."""
    return re.split(r"\b(?:without|w/o|not elsewhere classified)\b", description, maxsplit=1, flags=re.I)[0]


def conditions_of_code(lexicon: Lexicon, code: str, vocabulary: tuple[str, ...]) -> tuple[tuple[str, ...], bool]:
    """The conditions a diagnosis code states, and whether the code is known at all: the lexicon's
    families, and the concepts the code's own ICD-10-CM description names (a combination code states
    both: E11.649 is type 2 diabetes *with hypoglycemia*); with no family, the concepts its description
    or its nearest ancestor's names."""
    concepts = lexicon.conditions_for_code(code)
    entry = icd_entry(code)
    if concepts:
        if entry is None:
            return concepts, True
        found = set(concepts) | set(_named_in(lexicon, entry[0], vocabulary))
        return tuple(sorted(n for n in found if not any(o != n and lexicon.is_a(o, n) for o in found))), True
    if entry is None:
        return (), False
    description, ancestors = entry
    for text in (description, *ancestors):
        narrowest = _named_in(lexicon, text, vocabulary)
        if narrowest:
            return narrowest, True
    return (), True


def _named_in(lexicon: Lexicon, text: str, vocabulary: tuple[str, ...]) -> tuple[str, ...]:
    """The narrowest condition concepts a code description states (the part before "without")."""
    stated = _stated_part(text)
    found = [m.name for m in lexicon.find_concepts(stated) if lexicon.concepts[m.name].domain == "condition"]
    lowered = stated.lower()
    found += [v for v in vocabulary if re.search(rf"(?<![\w-]){re.escape(v.lower())}(?![\w-])", lowered)]
    return tuple(sorted({n for n in found if not any(o != n and lexicon.is_a(o, n) for o in found)}))


def code_facts(note: Note, dx_codes: tuple[str, ...], px_codes: tuple[str, ...],
               vocabulary: tuple[str, ...]) -> tuple[list[ConditionFact], list[ServiceFact], list[str]]:
    lex = note.lexicon
    conditions: list[ConditionFact] = []
    services: list[ServiceFact] = []
    unknown: list[str] = []
    for code in sorted({c.strip().upper() for c in dx_codes if c and c.strip()}):
        concepts, known = conditions_of_code(lex, code, vocabulary)
        if not known:
            unknown.append(code)
            note.flags.append(Flag("unknown_code", f"diagnosis code {code} is not in ICD-10-CM or the lexicon; "
                                                   "what it states is unknown"))
        for concept in concepts:
            conditions.append(ConditionFact(concept, "present", f"code:{code}", None))
    for code in sorted({c.strip().upper() for c in px_codes if c and c.strip()}):
        concepts = lex.services_for_code(code)
        services.append(ServiceFact(concepts, None, requested=True, code=code, source=f"procedure:{code}"))
        if not concepts:
            unknown.append(code)
            note.flags.append(Flag("unknown_code", f"procedure code {code} is not in the lexicon"))
    return conditions, services, unknown


def reconcile(note: Note, narrative: list[Fact], codes: list[ConditionFact]) -> list[Fact]:
    """The narrative's explicit statement governs a code; a hedge outweighs a bare code."""
    lex = note.lexicon
    out = list(narrative)
    stated = [f for f in narrative if isinstance(f, ConditionFact)]
    for fact in codes:
        same = [f for f in stated if _same(lex, f.concept, fact.concept)]
        code = fact.source.split(":", 1)[1]
        if same:
            if any(f.status == "absent" for f in same) and not any(f.status == "present" for f in same):
                note.flags.append(Flag("discrepancy", f"diagnosis code {code} states {fact.concept}; the narrative "
                                                      "denies it, and the narrative governs", same[0].span))
                out.append(replace(fact, status="absent", note="the narrative denies it"))
            elif any(f.status == "unknown" or f.certainty == "suspected" for f in same) and \
                    not any(f.status == "present" and f.certainty != "suspected" for f in same):
                note.flags.append(Flag("discrepancy", f"diagnosis code {code} states {fact.concept}; the narrative "
                                                      "hedges it, so it is unknown", same[0].span))
                out.append(replace(fact, status="unknown", note="the narrative hedges it"))
            else:
                out.append(fact)
            continue
        group = lex.exclusive_group(fact.concept)
        rivals = [f for f in stated if f.status == "present" and group is not None
                  and lex.exclusive_group(f.concept) == group and f.concept != fact.concept]
        if rivals:
            note.flags.append(Flag("discrepancy", f"diagnosis code {code} states {fact.concept}; the narrative states "
                                                  f"{rivals[0].concept}; the narrative governs and {fact.concept} is "
                                                  "unknown", rivals[0].span))
            out.append(replace(fact, status="unknown", note=f"the narrative states {rivals[0].concept}"))
            continue
        out.append(fact)
    return out


def _same(lex: Lexicon, a: str, b: str) -> bool:
    return a == b or lex.is_a(a, b) or lex.is_a(b, a)
