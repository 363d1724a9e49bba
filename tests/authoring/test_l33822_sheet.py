"""The committed L33822 criteria sheet: it checks against the real text, fills every hole the compiler
leaves, and copies none of the policy's words (spans are offsets, the text is named by its hash)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from clauseguard.authoring.check import check_sheet
from clauseguard.authoring.draft import compiler_reading
from clauseguard.authoring.sheet import load_sheet
from clauseguard.corpus.loader import load_path
from clauseguard.corpus.model import Corpus
from clauseguard.reading.grammar import Refusal
from clauseguard.reading.lexicon import default_lexicon

REPO = Path(__file__).resolve().parents[2]
SHEET = REPO / "evals" / "real" / "l33822" / "authored" / "criteria.yaml"
REAL = REPO.parent / "shared" / "real" / "cms-l33822" / "corpus.yaml"


@pytest.fixture(scope="module")
def real() -> Corpus:
    if not REAL.exists():
        pytest.skip(f"the real CMS text is not at {REAL} (clone with shared/ beside the repo)")
    return load_path(REAL)


def test_the_sheet_checks_against_the_real_text(real: Corpus) -> None:
    report = check_sheet(load_sheet(SHEET), real)
    assert report.ok, [str(p) for p in report.problems][:10]
    assert all(not e.same_as_compiler() for e in report.entries)


def test_every_hole_the_compiler_leaves_is_authored(real: Corpus) -> None:
    authored = {e.clause_id for e in load_sheet(SHEET).entries}
    lex = default_lexicon()
    holes = [c.id for d in real.documents for v in d.versions for c in v.clauses
             if (r := compiler_reading(c, lex)).deciding and isinstance(r.result, Refusal)]
    assert holes and set(holes) <= authored


def test_the_sheet_copies_no_clause_text() -> None:
    data = yaml.safe_load(SHEET.read_text(encoding="utf-8"))

    def spans(value: object) -> list[dict[str, object]]:
        if isinstance(value, dict):
            found = [value["span"]] if isinstance(value.get("span"), dict) else []
            return found + [s for k, v in value.items() if k != "span" for s in spans(v)]
        if isinstance(value, list):
            return [s for v in value for s in spans(v)]
        return []

    assert all("text" not in c and "plain" not in c for c in data["clauses"])
    found = spans(data)
    assert found and all(set(s) == {"start", "end"} for s in found)
