"""Domain knowledge as data: the versioned lexicon files, loaded from package data and fingerprinted.

It owns how terms match text and the look-ups the reader needs; it never reads the network and never
holds a domain term in code: every term lives in a data file.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Final, TypeVar

from clauseguard import text as toolkit
from clauseguard.datafiles import load_terms
from clauseguard.errors import ClauseguardError

LEXICON_PACKAGE: Final = "clauseguard/data/lexicon"
CONCEPT_DOMAINS: Final[dict[str, str]] = {
    "conditions.yaml": "condition",
    "therapies.yaml": "therapy",
    "services.yaml": "service",
}

_T = TypeVar("_T")
_MEMO_LIMIT: Final = 50_000  # look-ups kept per lexicon before the memo starts afresh
_TOKEN = re.compile(r"\d+(?:\.\d+)?|[a-z0-9²]+(?:['’\-/][a-z0-9²]+)*|%|\$|£|€")


class LexiconError(ClauseguardError):
    """A lexicon data file that does not load; names the file and the key."""


@dataclass(frozen=True)
class Token:
    """One word of a text: its normalised form and where it sits in the original."""

    text: str
    start: int
    end: int


def normalise(text: str) -> str:
    """The form terms are compared in: the text toolkit's comparison key."""
    return toolkit.normalise(text)


def tokenize(text: str) -> list[Token]:
    """Words of `text` with their offsets; numbers keep their decimals, hyphenated words stay whole."""
    lowered = text.lower().replace("’", "'")
    return [Token(m.group(0), m.start(), m.end()) for m in _TOKEN.finditer(lowered)]


def term_key(term: str) -> tuple[str, ...]:
    return tuple(t.text for t in tokenize(normalise(term)))


def _variants(key: tuple[str, ...]) -> set[tuple[str, ...]]:
    """A term also matches with its last word in the other number (test / tests, injury / injuries)."""
    out = {key}
    if not key:
        return out
    last = key[-1]
    if not last.isalpha() or len(last) < 3:
        return out
    if last.endswith("ies"):
        out.add((*key[:-1], last[:-3] + "y"))
    elif last.endswith("ses") or last.endswith("xes"):
        out.add((*key[:-1], last[:-2]))
    elif last.endswith("s") and not last.endswith("ss") and not last.endswith("is"):
        out.add((*key[:-1], last[:-1]))
    elif last.endswith("y") and last[-2:-1] not in "aeiou":
        out.add((*key[:-1], last[:-1] + "ies"))
    elif last.endswith(("s", "x", "ch", "sh")):
        out.add((*key[:-1], last + "es"))
    else:
        out.add((*key[:-1], last + "s"))
    return out


@dataclass(frozen=True)
class Concept:
    """A condition, therapy or service: its canonical name and what identifies it."""

    name: str
    domain: str
    terms: tuple[str, ...]
    icd10: tuple[str, ...] = ()
    codes: tuple[str, ...] = ()
    is_a: tuple[str, ...] = ()
    exclusive: str | None = None


@dataclass(frozen=True)
class QuantityDef:
    """A measured quantity (A1c, BMI, fingerstick tests per day) and its usual unit."""

    name: str
    terms: tuple[str, ...]
    unit: str = ""
    is_a: tuple[str, ...] = ()
    per: str | None = None  # the usual counting window ("day") for a frequency quantity
    # a per-day count the regimen states dose by dose ("glargine once at bedtime, no mealtime insulin"):
    # the therapy class whose doses it counts, and the members of that class that are not counted
    counted_from: str | None = None
    not_counted: tuple[str, ...] = ()


@dataclass(frozen=True)
class Match:
    """A lexicon entry found in a text: tokens [first, last) and characters [start, end)."""

    name: str
    first: int
    last: int
    start: int
    end: int


@dataclass
class _Trie:
    children: dict[str, _Trie] = field(default_factory=dict)
    value: str | None = None


class Lexicon:
    """The loaded lexicon: look-ups over every data file, and a fingerprint of their bytes.

    What depends only on the data (phrase lists, patterns, the compiler's grammar) is built once per
    instance and kept on it, never in a module global: two instances share no derived object.
    """

    def __init__(self, files: Mapping[str, bytes]) -> None:
        self.files = dict(sorted(files.items()))
        digest = hashlib.sha256()
        for name, raw in self.files.items():
            digest.update(name.encode() + b"\0" + hashlib.sha256(raw).digest())
        self.fingerprint: str = "sha256:" + digest.hexdigest()
        self.data: dict[str, dict[str, Any]] = {}
        self.versions: dict[str, int] = {}
        for name, raw in self.files.items():
            loaded = load_terms(raw.decode("utf-8"))
            if not isinstance(loaded, dict):
                raise LexiconError(f"lexicon {name}: must be a mapping with a version key")
            version = loaded.get("version")
            if not isinstance(version, int) or isinstance(version, bool):
                raise LexiconError(f"lexicon {name}: `version` must be an integer, e.g. `version: 1`")
            self.versions[name] = version
            self.data[name] = loaded
        self.concepts: dict[str, Concept] = {}
        self.quantities: dict[str, QuantityDef] = {}
        self._concept_trie = _Trie()
        self._quantity_trie = _Trie()
        self._patterns: dict[tuple[str, ...], re.Pattern[str]] = {}
        self._derived: dict[str, Any] = {}
        self._named: dict[tuple[str, str], str | None] = {}  # (trie, phrase) -> name: look-ups are pure
        self._by_code: dict[tuple[str, str], tuple[str, ...]] = {}
        self._load_concepts()
        self._load_quantities()
        self._check_counted_from()
        self._ancestors: dict[str, frozenset[str]] = {}
        for name in self.concepts:
            self._ancestors[name] = self._walk_up(name, lambda n: self.concepts[n].is_a)
        for name in self.quantities:
            self._ancestors[name] = self._walk_up(name, lambda n: self.quantities[n].is_a)

    # --- loading ---------------------------------------------------------------------------

    def _load_concepts(self) -> None:
        for file, domain in CONCEPT_DOMAINS.items():
            entries = self._section(file, "concepts")
            for name, spec in entries.items():
                where = f"lexicon {file}: concepts.{name}"
                if not isinstance(spec, dict):
                    raise LexiconError(f"{where}: must be a mapping with terms")
                unknown = set(spec) - {"terms", "icd10", "codes", "is_a", "exclusive"}
                if unknown:
                    raise LexiconError(f"{where}: unknown key {sorted(unknown)[0]!r}")
                canonical = normalise(str(name))
                if canonical in self.concepts:
                    raise LexiconError(f"{where}: defined twice (also in another file)")
                concept = Concept(
                    name=canonical,
                    domain=domain,
                    terms=tuple(normalise(str(t)) for t in spec.get("terms", ())),
                    icd10=tuple(str(c).upper() for c in spec.get("icd10", ())),
                    codes=tuple(str(c).upper() for c in spec.get("codes", ())),
                    is_a=tuple(normalise(str(p)) for p in spec.get("is_a", ())),
                    exclusive=spec.get("exclusive"),
                )
                self.concepts[canonical] = concept
                for term in {canonical, *concept.terms}:
                    self._index(self._concept_trie, term, canonical, where)
        for concept in self.concepts.values():
            for parent in concept.is_a:
                if parent not in self.concepts:
                    raise LexiconError(f"lexicon: concept {concept.name!r} is_a {parent!r}, which no file defines")

    def _load_quantities(self) -> None:
        file = "measures.yaml"
        for name, spec in self._section(file, "quantities").items():
            where = f"lexicon {file}: quantities.{name}"
            unknown = set(spec) - {"terms", "unit", "is_a", "per_day", "per_month", "counted_from"}
            if unknown:
                raise LexiconError(f"{where}: unknown key {sorted(unknown)[0]!r}")
            canonical = normalise(str(name))
            per = "day" if spec.get("per_day") else "month" if spec.get("per_month") else None
            quantity = QuantityDef(
                name=canonical,
                terms=tuple(normalise(str(t)) for t in spec.get("terms", ())),
                unit=str(spec.get("unit", "")),
                is_a=tuple(normalise(str(p)) for p in spec.get("is_a", ())),
                per=per,
                **_counted_from(spec.get("counted_from"), where),
            )
            self.quantities[canonical] = quantity
            for term in {canonical, *quantity.terms}:
                self._index(self._quantity_trie, term, canonical, where)

    def _check_counted_from(self) -> None:
        for q in self.quantities.values():
            for name in (q.counted_from, *q.not_counted):
                if name is not None and name not in self.concepts:
                    raise LexiconError(f"lexicon measures.yaml: quantities.{q.name}: counted_from names {name!r}, "
                                       "which no concept file defines")

    def _section(self, file: str, key: str) -> dict[str, Any]:
        data = self.data.get(file)
        if data is None:
            raise LexiconError(f"lexicon file {file} is missing from {LEXICON_PACKAGE}")
        section = data.get(key, {})
        if not isinstance(section, dict):
            raise LexiconError(f"lexicon {file}: `{key}` must be a mapping")
        return section

    @staticmethod
    def _index(trie: _Trie, term: str, name: str, where: str) -> None:
        for key in _variants(term_key(term)):
            node = trie
            for word in key:
                node = node.children.setdefault(word, _Trie())
            if node.value is not None and node.value != name:
                if key == term_key(term):
                    raise LexiconError(f"{where}: term {term!r} already stands for {node.value!r}")
                continue  # an automatic plural never overrides a written term
            node.value = name

    def _walk_up(self, name: str, parents: Any) -> frozenset[str]:
        seen = {name}
        stack = [name]
        while stack:
            for parent in parents(stack.pop()):
                if parent not in seen:
                    seen.add(parent)
                    stack.append(parent)
        return frozenset(seen)

    # --- text matching ---------------------------------------------------------------------

    def _scan(self, trie: _Trie, tokens: list[Token]) -> list[Match]:
        found: list[Match] = []
        i = 0
        while i < len(tokens):
            node, best = trie, None
            j = i
            while j < len(tokens) and tokens[j].text in node.children:
                node = node.children[tokens[j].text]
                j += 1
                if node.value is not None:
                    best = (j, node.value)
            if best is None:
                i += 1
                continue
            last, name = best
            found.append(Match(name, i, last, tokens[i].start, tokens[last - 1].end))
            i = last
        return found

    def find_concepts(self, text: str, tokens: list[Token] | None = None) -> list[Match]:
        """Concepts named in `text`, longest match first, left to right, never overlapping."""
        return self._scan(self._concept_trie, tokens if tokens is not None else tokenize(text))

    def find_quantities(self, text: str, tokens: list[Token] | None = None) -> list[Match]:
        return self._scan(self._quantity_trie, tokens if tokens is not None else tokenize(text))

    def concept_named(self, phrase: str) -> str | None:
        """The concept a whole phrase names (a term or its other number), else None."""
        return self._remember(("concept", phrase), self._concept_trie)

    def quantity_named(self, phrase: str) -> str | None:
        return self._remember(("quantity", phrase), self._quantity_trie)

    def _remember(self, key: tuple[str, str], trie: _Trie) -> str | None:
        if key not in self._named:
            if len(self._named) >= _MEMO_LIMIT:
                self._named.clear()  # phrases come from requests too: the memo stays bounded
            self._named[key] = self._exact(trie, key[1])
        return self._named[key]

    @staticmethod
    def _exact(trie: _Trie, phrase: str) -> str | None:
        node = trie
        for word in term_key(phrase):
            nxt = node.children.get(word)
            if nxt is None:
                return None
            node = nxt
        return node.value

    # --- relations -------------------------------------------------------------------------

    def broader(self, name: str) -> frozenset[str]:
        """`name` and every concept it is a kind of (methotrexate -> csDMARD -> DMARD)."""
        return self._ancestors.get(name, frozenset({name}))

    def is_a(self, narrower: str, broader: str) -> bool:
        return broader in self.broader(narrower)

    def knows(self, name: str) -> bool:
        return name in self.concepts or name in self.quantities

    def exclusive_group(self, name: str) -> str | None:
        concept = self.concepts.get(name)
        return concept.exclusive if concept else None

    def conditions_for_code(self, code: str) -> tuple[str, ...]:
        """The most specific conditions whose ICD-10-CM family holds `code` (E10.9 -> type 1 diabetes)."""
        key = ("dx", code.upper())
        if len(self._by_code) >= _MEMO_LIMIT:
            self._by_code.clear()
        if key not in self._by_code:
            self._by_code[key] = self._conditions_for_code(key[1])
        return self._by_code[key]

    def _conditions_for_code(self, code: str) -> tuple[str, ...]:
        best: list[tuple[int, str]] = []
        for concept in self.concepts.values():
            for family in concept.icd10:
                inside = code.startswith(family) if "." in family else code.split(".")[0] == family
                if inside:
                    best.append((len(family), concept.name))
        if not best:
            return ()
        top = max(length for length, _ in best)
        names = {name for length, name in best if length == top}
        # a family also listed by a narrower concept is read as the narrower one
        narrowest = {n for n in names if not any(o != n and self.is_a(o, n) for o in names)}
        return tuple(sorted(narrowest))

    def services_for_code(self, code: str) -> tuple[str, ...]:
        """Services (and therapies) billed under a procedure code; empty when the lexicon lacks it."""
        key = ("px", code.upper())
        if len(self._by_code) >= _MEMO_LIMIT:
            self._by_code.clear()
        if key not in self._by_code:
            self._by_code[key] = self._services_for_code(key[1])
        return self._by_code[key]

    def _services_for_code(self, code: str) -> tuple[str, ...]:
        names = [c.name for c in self.concepts.values() if code in c.codes]
        narrowest = {n for n in names if not any(o != n and self.is_a(o, n) for o in names)}
        return tuple(sorted(narrowest))

    # --- derived data, built once per instance ---------------------------------------------

    def derived(self, name: str, build: Callable[[Lexicon], _T]) -> _T:
        """`build(self)`, computed on first use and kept on this instance (it depends only on the data)."""
        found = self._derived.get(name)
        if found is None:
            found = build(self)
            self._derived[name] = found
        return found  # type: ignore[no-any-return]

    # --- numbers, units, phrases -----------------------------------------------------------
    # Look-ups return fresh dicts (callers may keep or change them) over a table built once.

    def number_words(self) -> dict[str, float]:
        return dict(self.derived("number_words", lambda lex: {
            normalise(str(k)): float(v) for k, v in lex._section("numbers.yaml", "words").items()}))

    def times_words(self) -> dict[str, float]:
        return dict(self.derived("times_words", lambda lex: {
            normalise(str(k)): float(v) for k, v in lex._section("numbers.yaml", "times").items()}))

    def article_numbers(self) -> frozenset[str]:
        return self.derived("article_numbers", lambda lex: frozenset(
            normalise(str(w)) for w in lex.data["numbers.yaml"].get("article_numbers", ())))

    def units(self) -> dict[str, str]:
        """Written unit form -> canonical unit."""
        def build(lex: Lexicon) -> dict[str, str]:
            out: dict[str, str] = {}
            for unit, forms in lex._section("measures.yaml", "units").items():
                for form in forms:
                    out[normalise(str(form))] = str(unit)
            return out
        return dict(self.derived("units", build))

    def time_units(self) -> dict[str, tuple[str, float]]:
        """Written time unit -> (canonical unit, length in days)."""
        def build(lex: Lexicon) -> dict[str, tuple[str, float]]:
            out: dict[str, tuple[str, float]] = {}
            for unit, spec in lex._section("measures.yaml", "time_units").items():
                for form in spec["terms"]:
                    out[normalise(str(form))] = (str(unit), float(spec["days"]))
            return out
        return dict(self.derived("time_units", build))

    def period_names(self) -> dict[str, str]:
        def build(lex: Lexicon) -> dict[str, str]:
            out: dict[str, str] = {}
            for unit, forms in lex._section("measures.yaml", "periods").items():
                for form in forms:
                    out[normalise(str(form))] = str(unit)
            return out
        return dict(self.derived("period_names", build))

    def currencies(self) -> dict[str, str]:
        """Written currency form ("£", "gbp", "pounds") -> currency code ("GBP")."""
        def build(lex: Lexicon) -> dict[str, str]:
            out: dict[str, str] = {}
            for code, forms in lex.data["measures.yaml"].get("currencies", {}).items():
                for form in forms:
                    out[normalise(str(form))] = str(code)
            return out
        return dict(self.derived("currencies", build))

    def frequency_words(self) -> dict[str, str]:
        return dict(self.derived("frequency_words", lambda lex: {
            normalise(str(k)): str(v["per"]) for k, v in lex._section("measures.yaml", "frequency_words").items()}))

    def phrases(self, file: str, *path: str) -> tuple[str, ...]:
        """A list of phrases from a cue or phrasing file, e.g. phrases("cues.yaml", "hedge")."""
        key = "phrases:" + file + ":" + ".".join(path)
        found = self._derived.get(key)
        if found is not None:
            return found  # type: ignore[no-any-return]
        node: Any = self.data.get(file)
        for part in path:
            if not isinstance(node, dict) or part not in node:
                raise LexiconError(f"lexicon {file}: no {'.'.join(path)}")
            node = node[part]
        if not isinstance(node, list):
            raise LexiconError(f"lexicon {file}: {'.'.join(path)} must be a list of phrases")
        out = tuple(normalise(str(p)) for p in node)
        self._derived[key] = out
        return out

    def phrase_map(self, file: str, *path: str) -> dict[str, tuple[str, ...]]:
        """A mapping of label -> phrases, e.g. phrase_map("phrasing.yaml", "effects")."""
        key = "phrase_map:" + file + ":" + ".".join(path)
        found = self._derived.get(key)
        if found is None:
            node: Any = self.data.get(file)
            for part in path:
                node = node[part] if isinstance(node, dict) and part in node else None
            if not isinstance(node, dict):
                raise LexiconError(f"lexicon {file}: {'.'.join(path)} must be a mapping")
            found = {str(k): tuple(normalise(str(p)) for p in v) for k, v in node.items()}
            self._derived[key] = found
        return dict(found)

    def pattern(self, phrases: Iterable[str], key: str | None = None) -> re.Pattern[str]:
        """A case-insensitive regex matching any phrase on word boundaries, longest first.

        With a `key`, the pattern is built on the first call and later calls with that key reuse it
        (callers pass the same phrases for the same key)."""
        if key:
            keyed = self._patterns.get((key,))
            if keyed is not None:
                return keyed
        items = tuple(sorted(set(phrases), key=lambda p: (-len(p), p)))
        cache_key = (key,) if key else items
        found = self._patterns.get(cache_key)
        if found is None:
            parts = [r"\s+".join(re.escape(w) for w in p.split()) for p in items if p]
            body = "|".join(parts) if parts else r"(?!x)x"
            found = re.compile(rf"(?<![\w'-])(?:{body})(?![\w'-])", re.IGNORECASE)
            self._patterns[cache_key] = found
        return found


def _package_files() -> dict[str, bytes]:
    root = resources.files("clauseguard").joinpath("data", "lexicon")
    return {
        entry.name: entry.read_bytes()
        for entry in root.iterdir()
        if entry.name.endswith(".yaml")
    }


def _counted_from(spec: Any, where: str) -> dict[str, Any]:
    """`counted_from: {class: insulin, not: [insulin pump therapy]}` -> the QuantityDef fields."""
    if spec is None:
        return {}
    if not isinstance(spec, dict) or set(spec) - {"class", "not"} or "class" not in spec:
        raise LexiconError(f"{where}: counted_from must be a mapping with `class` (a therapy) and optional `not` (a list)")
    return {"counted_from": normalise(str(spec["class"])),
            "not_counted": tuple(normalise(str(n)) for n in spec.get("not", ()))}


@cache
def default_lexicon() -> Lexicon:
    """The lexicon shipped in the package (loaded once per process)."""
    return Lexicon(_package_files())


def load_lexicon(path: Path | None = None) -> Lexicon:
    """A lexicon of its own, loaded afresh: the shipped files, or the `*.yaml` files of a folder.

    It shares no object or cache with `default_lexicon()` (the cold verifier relies on that); load it
    once and keep it, since every instance builds its own derived tables."""
    if path is None:
        return Lexicon(_package_files())
    return Lexicon({p.name: p.read_bytes() for p in sorted(path.glob("*.yaml"))})
