"""Retrieval fixtures: small corpora built in code, the demo corpus, and indexes over them."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from clauseguard.corpus.loader import load_demo
from clauseguard.corpus.model import Corpus
from clauseguard.retrieval import HashingEmbedder, RetrievalIndex, build_index
from clauseguard.retrieval.calibration import uncalibrated


def clause(
    cid: str, text: str, *, kind: str | None = None, article: str | None = None, section: str = "Terms"
) -> dict[str, Any]:
    data: dict[str, Any] = {"id": cid, "section": section, "text": text}
    if kind:
        data["kind"] = kind
    if article:
        data["article"] = article
    return data


def tiny_corpus(
    clauses: Sequence[dict[str, Any]],
    *,
    doc_id: str = "DOC",
    codes: Sequence[str] = (),
    title: str = "Policy terms",
) -> Corpus:
    """One payer, one plan, one document with one open-ended version holding the given clauses."""
    return Corpus.model_validate(
        {
            "format": "clauseguard.corpus/v1",
            "payers": [{"id": "PAY", "name": "Payer"}],
            "plans": [{"id": "PLAN", "payer": "PAY", "name": "Plan"}],
            "documents": [
                {
                    "id": doc_id,
                    "payer": "PAY",
                    "kind": "policy_terms",
                    "title": title,
                    "codes": list(codes),
                    "versions": [
                        {"version": "v1", "effective_start": "2020-01-01", "clauses": list(clauses)}
                    ],
                }
            ],
        }
    )


def hashing_index(
    corpus: Corpus, *, cache_dir: Path | None = None, embedder: HashingEmbedder | None = None
) -> RetrievalIndex:
    embedder = embedder or HashingEmbedder()
    return build_index(corpus, embedder=embedder, cache_dir=cache_dir, calibrator=uncalibrated(embedder.name))


def everything(index: RetrievalIndex) -> np.ndarray:
    return np.ones(index.size, dtype=bool)


@pytest.fixture(scope="session")
def demo() -> Corpus:
    return load_demo()


@pytest.fixture(scope="session")
def demo_index(demo: Corpus) -> RetrievalIndex:
    """The demo corpus under the embedded default (wordllama) and its shipped calibration."""
    return build_index(demo)
