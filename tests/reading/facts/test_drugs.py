"""The cached drug table matches exactly as the library's own `find_drugs(..., is_ignore_case=True)`:
same drugs, same names and synonyms, same token spans, same order, on the narratives of the notes
suite, on spellings drawn from the dictionary itself (one and two words, any case, side by side), and
on tokens that only nearly match."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

from clauseguard.reading.facts import drugs

ROOT = Path(__file__).resolve().parents[3]


def _library(tokens: list[str]) -> list[tuple[str, tuple[str, ...], int, int]]:
    from drug_named_entity_recognition import find_drugs  # type: ignore[import-untyped]

    return [(str(info.get("name", "")), tuple(info.get("synonyms", ())), a, b)
            for info, a, b in find_drugs(tokens, is_ignore_case=True)]


def _ours(tokens: list[str]) -> list[tuple[str, tuple[str, ...], int, int]]:
    return [(d.name, d.synonyms, a, b) for d, a, b in drugs.find(tokens)]


def _narratives() -> list[str]:
    found: list[str] = []
    for path in sorted((ROOT / "evals" / "notes" / "dev").glob("*.json")):
        data: Any = json.loads(path.read_text(encoding="utf-8"))
        found += [c["narrative"] for c in data.get("cases", []) if c.get("narrative")]
    return found


def _token_lists() -> list[list[str]]:
    from drug_named_entity_recognition import drugs_finder  # type: ignore[import-untyped]

    lists = [re.findall(r"[A-Za-z0-9][A-Za-z0-9'-]*", text) for text in _narratives()]
    rng = random.Random(7)  # noqa: S311 - a fixed draw of test inputs, not a secret
    spellings = sorted(drugs_finder.drug_variant_to_canonical)
    for _ in range(300):
        picked = rng.sample(spellings, 4)
        words = " ".join(f"takes {p} daily" for p in picked).split()
        lists.append([w.upper() if rng.random() < 0.3 else w.title() if rng.random() < 0.3 else w for w in words])
        lists.append([w[:-1] for w in words])  # near misses: an exact matcher finds none of them
    return [t for t in lists if t]


@pytest.mark.slow
def test_the_cached_table_finds_what_the_library_finds() -> None:
    lists = _token_lists()
    assert len(lists) > 300
    for tokens in lists:
        assert _ours(tokens) == _library(tokens), tokens


def test_the_table_is_read_back_from_its_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAUSEGUARD_HOME", str(tmp_path))
    drugs._table.cache_clear()
    try:
        first = drugs.find(["Lantus", "and", "metformin"])
        assert [d.name for d, _, _ in first] == ["Insulin Glargine", "Metformin"]
        assert list((tmp_path / "cache" / "drugs").glob("*.marshal"))
        drugs._table.cache_clear()
        assert drugs.find(["Lantus", "and", "metformin"]) == first  # from the file this time
    finally:
        drugs._table.cache_clear()
