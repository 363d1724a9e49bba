"""The compiler against the phrasebook: compiled exactly / refused honestly / wrong, and wrong stays 0.

A sentence compiled into a tree other than the expected one, or compiled where the phrasebook says
a rule compiler should refuse, is wrong. A refusal of a readable sentence is honest (it costs
coverage, never safety); the count of exact compilations is held above a floor so it cannot slide.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from clauseguard.corpus.criteria import Criteria, all_atoms, criteria_to_json
from clauseguard.reading.compiler import Refusal, compile_clause

PHRASEBOOK = Path(__file__).with_name("phrasebook.yaml")
EXACT_FLOOR = 100


def load_phrasebook() -> list[dict[str, Any]]:
    data = yaml.safe_load(PHRASEBOOK.read_text(encoding="utf-8"))
    entries: list[dict[str, Any]] = data["sentences"]
    return entries


def shape(criteria: Criteria) -> dict[str, Any]:
    """The compiled criteria as the phrasebook writes them: no ids, no spans, waivers by label."""
    labels = {atom.id: atom.label for atom in all_atoms(criteria)}

    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            out = {}
            for key, item in value.items():
                if key in ("id", "span", "remarks"):
                    continue
                if key == "waives":
                    out[key] = [labels[i] for i in item]
                    continue
                out[key] = strip(item)
            return out
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    data = criteria_to_json(criteria)
    data.pop("schema")
    out = strip(data)
    if "notes" in out:
        out["notes"] = [note["kind"] for note in out["notes"]]
    return out


def judge(entry: dict[str, Any]) -> tuple[str, str]:
    """('exact' | 'refused' | 'wrong', detail) for one phrasebook sentence."""
    result = compile_clause(entry["text"])
    expected = entry["expected"]
    if isinstance(result, Refusal):
        return "refused", result.message
    got = shape(result)
    if expected == "refuse":
        return "wrong", f"compiled a sentence that should be refused: {got}"
    if got != expected:
        return "wrong", f"expected {expected}\n got      {got}"
    return "exact", ""


def test_phrasebook_has_enough_varied_sentences() -> None:
    entries = load_phrasebook()
    assert len(entries) >= 60
    assert len({e["id"] for e in entries}) == len(entries)
    assert len({e["text"] for e in entries}) == len(entries)
    assert sum(1 for e in entries if e["expected"] == "refuse") >= 8


def test_phrasebook_wrong_is_zero() -> None:
    counts = {"exact": 0, "refused": 0, "wrong": 0}
    problems = []
    for entry in load_phrasebook():
        verdict, detail = judge(entry)
        counts[verdict] += 1
        if verdict == "wrong":
            problems.append(f"{entry['id']}: {entry['text']}\n  {detail}")
        if verdict == "refused" and entry["expected"] != "refuse":
            print(f"refused (readable) {entry['id']}: {detail}")
    print(f"\nphrasebook: compiled exactly {counts['exact']} / refused honestly {counts['refused']} / wrong {counts['wrong']}")
    assert counts["wrong"] == 0, "\n".join(problems)
    assert counts["exact"] >= EXACT_FLOOR


@pytest.mark.parametrize("entry", load_phrasebook(), ids=lambda e: e["id"])
def test_every_compiled_span_is_verbatim(entry: dict[str, Any]) -> None:
    result = compile_clause(entry["text"])
    if isinstance(result, Refusal):
        for unread in result.unread:
            assert entry["text"][unread.span.start:unread.span.end] == unread.span.text
        return
    for atom in all_atoms(result):
        assert entry["text"][atom.span.start:atom.span.end] == atom.span.text, atom
        assert atom.span.text.strip()
