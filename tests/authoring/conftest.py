"""A small corpus for the authoring tests: one clause the compiler reads, one it cannot, one that
decides nothing; and sheets written against it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from clauseguard.corpus.loader import load_path
from clauseguard.corpus.model import Corpus

READ = "Home blood glucose monitors (code E0607) are covered when the member has diabetes mellitus."
UNREAD = ("Continuous glucose monitors (code E2103) are covered for members aged 65 or older who have diabetes "
          "mellitus and test their blood glucose at least three times a day.")
ADMIN = "Claims are submitted on the standard form within 90 days of the date of service."
STRIPS = ("Test strips (code A4253) are covered when the member has diabetes mellitus. "
          "Strips are dispensed in boxes of fifty.")

CORPUS = {
    "format": "clauseguard.corpus/v1",
    "payers": [{"id": "GHP", "name": "Glucose Health Plan"}],
    "plans": [{"id": "GHP-BASIC", "payer": "GHP", "name": "Basic"}],
    "codes": [{"code": "E0607", "system": "HCPCS", "descriptor": "Home blood glucose monitor"},
              {"code": "E2103", "system": "HCPCS", "descriptor": "Non-adjunctive CGM"},
              {"code": "A4253", "system": "HCPCS", "descriptor": "Test strips"}],
    "documents": [{
        "id": "GM", "payer": "GHP", "kind": "medical_policy", "title": "Glucose monitors",
        "codes": ["E0607", "E2103", "A4253"],
        "versions": [{"version": "v1", "effective_start": "2024-01-01", "effective_end": None, "clauses": [
            {"id": "GM.v1.1", "section": "Coverage", "text": READ},
            {"id": "GM.v1.2", "section": "Coverage", "text": UNREAD},
            {"id": "GM.v1.3", "section": "Claims", "text": ADMIN},
            {"id": "GM.v1.4", "section": "Supplies", "text": STRIPS},
        ]}],
    }],
}


def span(text: str, words: str) -> dict[str, Any]:
    at = text.index(words)
    return {"start": at, "end": at + len(words)}


def cgm_rule(minimum_age: int = 65) -> dict[str, Any]:
    """The analyst's tree for the clause the compiler cannot read."""
    return {"rules": [{
        "effect": "covered", "span": span(UNREAD, UNREAD),
        "subject": {"kind": "service", "id": "s", "span": span(UNREAD, "Continuous glucose monitors (code E2103)"),
                    "concept": "continuous glucose monitors", "codes": ["E2103"]},
        "when": {"kind": "all", "children": [
            {"kind": "age", "id": "age", "span": span(UNREAD, "aged 65 or older"), "comparator": ">=",
             "value": minimum_age},
            {"kind": "condition", "id": "dm", "span": span(UNREAD, "diabetes mellitus"), "concept": "diabetes mellitus"},
            {"kind": "measure", "id": "tests", "span": span(UNREAD, "test their blood glucose at least three times a day"),
             "quantity": "fingerstick tests", "comparator": ">=", "value": 3, "per": {"length": 1, "unit": "day"}},
        ]},
    }]}


def sheet(*entries: dict[str, Any]) -> dict[str, Any]:
    return {"format": "clauseguard.criteria-sheet/v1", "document": "GM", "clauses": list(entries)}


def cgm_entry(**changes: Any) -> dict[str, Any]:
    return {"id": "GM.v1.2", "role": "criteria", "criteria": cgm_rule(), **changes}


@pytest.fixture
def corpus_file(tmp_path: Path) -> Path:
    path = tmp_path / "corpus.yaml"
    path.write_text(yaml.safe_dump(CORPUS, sort_keys=False), encoding="utf-8")
    return path


@pytest.fixture
def corpus(corpus_file: Path) -> Corpus:
    return load_path(corpus_file)


def write(path: Path, data: dict[str, Any]) -> Path:
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path
