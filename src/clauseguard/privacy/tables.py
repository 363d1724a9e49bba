"""The redactor's word tables: names, ordinary English, clinical vocabulary and the cue lists.

Read once per process from the compact files under `clauseguard/data/privacy/` (built by
`build_tables.py`, committed) and from the reader's lexicon (its terms are clinical vocabulary).
It only loads and looks up; it never decides what is PHI and never downloads anything.
"""

from __future__ import annotations

import gzip
import re
import unicodedata
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, Final

from clauseguard.datafiles import load_yaml
from clauseguard.derived import cache_path, read_cache, write_cache

NAME_STRONG: Final = "strong"  # a name and not an ordinary word: redacted wherever it is capitalised
NAME_WEAK: Final = "weak"  # also an ordinary or clinical word ("Hope", "May"): only in a name position

_WORD = re.compile(r"[a-z]+")


def _data(name: str) -> Any:
    return resources.files("clauseguard") / "data" / name


def _lines(name: str) -> list[str]:
    with _data(f"privacy/{name}").open("rb") as raw, gzip.open(raw, "rt", encoding="utf-8") as handle:
        return [line for line in handle.read().split("\n") if line]


def fold(word: str) -> str:
    """Lower case without diacritics or apostrophes: how words are looked up (Nguyễn -> nguyen)."""
    if word.isascii():  # nothing to decompose: the fast path for almost every name of the tables
        return word.lower().replace("'", "")
    decomposed = unicodedata.normalize("NFKD", word.lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c) and c not in "'’")


@dataclass(frozen=True)
class Cues:
    """The cue lists of `data/privacy/cues.yaml`, folded for lookup."""

    before: frozenset[str]
    before_colon: frozenset[str]
    closings: frozenset[str]
    closing_openers: frozenset[str]
    honorifics_after: tuple[str, ...]
    titles: frozenset[str]
    relatives: frozenset[str]
    after_words: frozenset[str]
    reporting_verbs: frozenset[str]
    particles: frozenset[str]
    clinical_heads: frozenset[str]
    calendar: frozenset[str]
    clinical_suffixes: tuple[str, ...]
    therapy_before: frozenset[str]
    therapy_after: frozenset[str]


@dataclass(frozen=True)
class Tables:
    names: dict[str, str]  # folded name -> NAME_STRONG | NAME_WEAK
    ordinary: frozenset[str]
    clinical: frozenset[str]
    cues: Cues

    def name_kind(self, word: str) -> str | None:
        return self.names.get(fold(word))

    def part_kinds(self, word: str) -> list[str | None]:
        """Name kinds of a hyphenated word's parts ("Okonkwo-Eze" -> two names), or of the word."""
        folded = fold(word)
        parts = [p for p in folded.split("-") if p] if "-" in folded else [folded]
        return [self.names.get(p) for p in parts]

    def is_ordinary(self, word: str) -> bool:
        """Ordinary English; a hyphenated word when each part is ("Relapsing-remitting")."""
        folded = fold(word)
        if folded in self.ordinary:
            return True
        parts = [p for p in folded.split("-") if p]
        return len(parts) > 1 and all(p in self.ordinary for p in parts)

    def is_clinical(self, word: str) -> bool:
        """Clinical vocabulary, on folded words ("Waldenström" -> waldenstrom); a hyphenated word when
        each part is clinical or ordinary and one at least is clinical ("Henoch-Schönlein", "Solu-Cortef")."""
        folded = fold(word)
        if self._clinical_word(folded):
            return True
        parts = [p for p in folded.split("-") if p]
        return len(parts) > 1 and any(self._clinical_word(p) for p in parts) and all(
            self._clinical_word(p) or p in self.ordinary for p in parts)

    def _clinical_word(self, folded: str) -> bool:
        if folded in self.clinical or (folded.endswith("s") and folded[:-1] in self.clinical):
            return True
        return folded.isalpha() and folded not in self.names and any(
            folded.endswith(end) and len(folded) >= len(end) + 3 for end in self.cues.clinical_suffixes)


def _lexicon_words() -> set[str]:
    """Every word of the reader's lexicon files (conditions, therapies, services, measures...)."""
    words: set[str] = set()
    folder = _data("lexicon")
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(".yaml"):
            continue
        todo: list[Any] = [load_yaml(entry.read_text(encoding="utf-8"))]
        while todo:
            value = todo.pop()
            if isinstance(value, dict):
                todo.extend(value.keys())
                todo.extend(value.values())
            elif isinstance(value, list):
                todo.extend(value)
            elif isinstance(value, str):
                words.update(w for w in _WORD.findall(fold(value)) if len(w) >= 3)
    return words


def _cues() -> Cues:
    data = load_yaml(_data("privacy/cues.yaml").read_text(encoding="utf-8"))
    before = data["before"]

    def folded(words: list[str]) -> frozenset[str]:
        return frozenset(fold(w) for w in words)

    return Cues(
        before=folded(before["titles"] + before["labels"] + before["relatives"] + before.get("native_labels", [])),
        before_colon=folded(before.get("before_colon", [])),
        closings=folded(before.get("closings", [])),
        closing_openers=folded(before.get("closing_openers", [])),
        honorifics_after=tuple(data.get("honorifics_after", [])),
        titles=folded(before["titles"]),
        relatives=folded(before["relatives"]),
        after_words=folded(data["after_words"]),
        reporting_verbs=folded(data["reporting_verbs"]),
        particles=folded(data["particles"]),
        clinical_heads=folded(data["clinical_heads"]),
        calendar=folded(data["calendar"]),
        therapy_before=folded(data.get("therapy_before", [])),
        therapy_after=folded(data.get("therapy_after", [])),
        clinical_suffixes=tuple(sorted({fold(w) for w in data.get("clinical_suffixes", [])}, key=len, reverse=True)),
    )


@cache
def tables() -> Tables:
    """The tables, loaded on first use and kept for the process. Building the name table folds about
    160,000 names; the result is kept under `$CLAUSEGUARD_HOME/cache/privacy/`, keyed by the bytes of
    every file it is built from, so a one-shot command reads it back instead of folding again."""
    cues = _cues()
    path = cache_path("privacy", _source_files(), _CACHE_FORMAT)
    built: _Built | None = read_cache(path, _valid)
    if built is None:
        built = _build(cues)
        write_cache(path, built)
    names, ordinary, clinical = built
    return Tables(names=names, ordinary=ordinary, clinical=clinical, cues=cues)


_CACHE_FORMAT: Final = b"privacy-tables/1"


def _source_files() -> list[tuple[str, bytes]]:
    found = [(f"privacy/{n}", _data(f"privacy/{n}").read_bytes()) for n in ("names.tsv.gz", "clinical.txt.gz",
                                                                               "ordinary.txt.gz", "cues.yaml")]
    folder = _data("lexicon")
    found += [(f"lexicon/{e.name}", e.read_bytes()) for e in sorted(folder.iterdir(), key=lambda e: e.name)
              if e.name.endswith(".yaml")]
    return found


_Built = tuple[dict[str, str], frozenset[str], frozenset[str]]


def _valid(value: object) -> bool:
    return isinstance(value, tuple) and len(value) == 3 and isinstance(value[0], dict) and \
        isinstance(value[1], frozenset) and isinstance(value[2], frozenset)


def _build(cues: Cues) -> _Built:
    names: dict[str, str] = {}
    for row in _lines("names.tsv.gz"):
        name, _, flags = row.partition("\t")
        kind = NAME_WEAK if "w" in flags else NAME_STRONG
        key = fold(name)
        if names.get(key) != NAME_WEAK:  # a folded clash with a weak spelling stays weak
            names[key] = kind
    clinical = frozenset(_lines("clinical.txt.gz")) | _lexicon_words()
    for word in clinical | cues.calendar:
        if names.get(word) == NAME_STRONG:
            names[word] = NAME_WEAK
    return dict(sorted(names.items())), frozenset(_lines("ordinary.txt.gz")) | cues.calendar, clinical
