"""The drug dictionary of `drug-named-entity-recognition` as an exact-match table, cached on disk.

Importing the library unpickles its dictionary and builds a trigram index for fuzzy matching, which we
never use: about 5 s before the first narrative is read. The table here holds what exact matching
reads (each spelling -> the drugs it names, with their generic name and synonyms), built once from the
library's own loaded dictionary and kept under `$CLAUSEGUARD_HOME/cache/drugs/`, keyed by the bytes of
the dictionary file and the library's version. `find` matches exactly as the library's
`find_drugs(tokens, is_ignore_case=True)` does (tests/reading/facts/test_drugs.py compares the two):
two-word spellings first, then single words not already taken.
"""

from __future__ import annotations

from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Final, NamedTuple

from clauseguard.derived import cache_path, package_dir, read_cache, write_cache

_PACKAGE: Final = "drug_named_entity_recognition"
_DICTIONARY: Final = "drug_ner_dictionary.pkl.bz2"
_FORMAT: Final = b"drug-table/1"


class Drug(NamedTuple):
    """A drug a spelling names: its generic name (empty when the dictionary has no data for it)."""

    name: str
    synonyms: tuple[str, ...]


class _Table(NamedTuple):
    drugs: tuple[Drug, ...]
    spellings: dict[str, tuple[int, ...]]  # lower-cased spelling -> indices into drugs, in the library's order


def _build() -> _Table:
    from drug_named_entity_recognition import drugs_finder as lib  # type: ignore[import-untyped]

    drugs: list[Drug] = []
    index: dict[Drug, int] = {}
    spellings: dict[str, tuple[int, ...]] = {}
    for spelling, canonicals in lib.drug_variant_to_canonical.items():
        found = []
        for canonical in canonicals:
            # what find_drugs returns: the canonical's data, updated by the spelling's own
            data = dict(lib.drug_canonical_to_data.get(canonical, {})) | lib.drug_variant_to_variant_data.get(spelling, {})
            drug = Drug(str(data.get("name", "")), tuple(str(s) for s in data.get("synonyms", ())))
            if drug not in index:  # one entry per distinct drug: 107,000 spellings name 20,000 drugs
                index[drug] = len(drugs)
                drugs.append(drug)
            found.append(index[drug])
        spellings[spelling] = tuple(found)
    return _Table(tuple(drugs), spellings)


def _dictionary_file() -> Path:
    """The library's dictionary file, found without importing the library (its import is the slow part)."""
    return package_dir(_PACKAGE, "drug-named-entity-recognition") / _DICTIONARY


def _valid(value: object) -> bool:
    return isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], tuple) and isinstance(value[1], dict)


@cache
def _table() -> _Table:
    raw = _dictionary_file().read_bytes()
    path = cache_path("drugs", [(_DICTIONARY, raw), ("version", metadata.version("drug-named-entity-recognition").encode())],
                      _FORMAT)
    cached = read_cache(path, _valid)
    if cached is not None:
        drugs, spellings = cached
        return _Table(tuple(Drug(n, tuple(s)) for n, s in drugs), spellings)
    table = _build()
    write_cache(path, (tuple((d.name, d.synonyms) for d in table.drugs), table.spellings))
    return table


def find(tokens: list[str]) -> list[tuple[Drug, int, int]]:
    """The drugs the tokens name, as (drug, first token, end token), in the library's order."""
    table = _table()
    found: list[tuple[Drug, int, int]] = []
    taken: set[int] = set()
    for i in range(len(tokens) - 1):
        hit = table.spellings.get(f"{tokens[i]} {tokens[i + 1]}".lower())
        if hit:
            found.extend((table.drugs[j], i, i + 2) for j in hit)
            taken.update((i, i + 1))
    for i, token in enumerate(tokens):
        if i in taken:
            continue
        hit = table.spellings.get(token.lower())
        if hit:
            found.extend((table.drugs[j], i, i + 1) for j in hit)
            taken.add(i)
    return found
