"""Counts that describe a corpus (what `clauseguard corpus stats` prints); reads the model only."""

from __future__ import annotations

from collections import Counter
from typing import Any

from clauseguard.corpus.model import Corpus


def corpus_stats(corpus: Corpus) -> dict[str, Any]:
    """Entity counts, documents by kind (kinds present only) and the fingerprint."""
    by_kind = Counter(d.kind for d in corpus.documents)
    return {
        "payers": len(corpus.payers),
        "plans": len(corpus.plans),
        "contracts": len(corpus.contracts),
        "codes": len(corpus.codes),
        "documents": len(corpus.documents),
        "riders": by_kind.get("rider", 0),
        "versions": sum(len(d.versions) for d in corpus.documents),
        "clauses": sum(len(v.clauses) for d in corpus.documents for v in d.versions),
        "documents_by_kind": dict(sorted(by_kind.items())),
        "fingerprint": corpus.fingerprint(),
    }
