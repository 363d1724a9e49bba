"""The retrieval index of one corpus: clause rows, BM25, embeddings, exact-reference lookups, calibration.

Built once per corpus fingerprint and backend (kept in this process; embeddings also on disk beside
the store). It holds no eligibility: every query brings its own mask.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from clauseguard.corpus.model import Corpus
from clauseguard.reading.stated import what_it_states
from clauseguard.retrieval.calibration import Calibrator, load_calibration
from clauseguard.retrieval.clauses import ClauseTable
from clauseguard.retrieval.dense import DenseIndex, cache_path
from clauseguard.retrieval.embedders import DEFAULT_BACKEND, Embedder, load_embedder
from clauseguard.retrieval.lexical import LexicalIndex
from clauseguard.retrieval.tokens import TOKENS_VERSION

LEXICAL_ONLY = "lexical"


@dataclass(frozen=True, eq=False)
class RetrievalIndex:
    """Everything a query needs about one corpus, built once; read-only after build."""

    fingerprint: str
    clauses: ClauseTable
    lexical: LexicalIndex
    dense: DenseIndex | None
    calibrator: Calibrator
    article_rows: Mapping[str, np.ndarray]  # article number -> rows with that number
    code_rows: Mapping[str, np.ndarray]  # code -> rows whose text names it
    document_code_rows: Mapping[str, np.ndarray]  # code -> rows whose document governs it
    # what each row's text states (kinds of value, grants / refuses), read on first use and kept
    stated: dict[int, frozenset[str]] = field(default_factory=dict, compare=False, repr=False)
    # row masks of eligibility decisions, shared by the requests of one plan and date interval
    shared_by_decision: dict[tuple[str, int], tuple[object, Any]] = field(default_factory=dict, compare=False, repr=False)

    def states(self, row: int) -> frozenset[str]:
        found = self.stated.get(row)
        if found is None:
            found = what_it_states(self.clauses.rows[row].text)
            self.stated[row] = found
        return found

    @property
    def backend(self) -> str:
        """The dense backend's name, or "lexical" without one: which calibration applies."""
        return self.dense.name if self.dense is not None else LEXICAL_ONLY

    @property
    def size(self) -> int:
        return len(self.clauses)


def _rows_by(keys: list[tuple[str, ...]]) -> dict[str, np.ndarray]:
    found: dict[str, list[int]] = {}
    for row, row_keys in enumerate(keys):
        for key in row_keys:
            found.setdefault(key, []).append(row)
    return {k: np.asarray(v, dtype=np.int64) for k, v in sorted(found.items())}


def build_index(
    corpus: Corpus,
    *,
    embedder: Embedder | str | None = DEFAULT_BACKEND,
    cache_dir: Path | None = None,
    calibrator: Calibrator | None = None,
    fingerprint: str | None = None,
) -> RetrievalIndex:
    """Index a corpus. `embedder` is a backend name, an Embedder, or None for lexical only; with a
    `cache_dir`, corpus embeddings are read from / written to `<cache_dir>/<fingerprint>.<backend>.npz`.
    The calibration is the one shipped for the backend unless one is given."""
    fingerprint = fingerprint or corpus.fingerprint()
    table = ClauseTable.from_corpus(corpus)
    if isinstance(embedder, str):
        embedder = load_embedder(embedder)
    dense = (
        DenseIndex.build(table, embedder, fingerprint=fingerprint, cache_dir=cache_dir)
        if embedder is not None
        else None
    )
    backend = embedder.name if embedder is not None else LEXICAL_ONLY
    return RetrievalIndex(
        fingerprint=fingerprint,
        clauses=table,
        # the tokenizer's version is in the name: a change of tokens must not load an old index
        lexical=LexicalIndex.build(table, cache=cache_path(cache_dir, fingerprint, f"bm25-{TOKENS_VERSION}") if cache_dir else None),
        dense=dense,
        calibrator=calibrator or load_calibration(backend),
        article_rows=_rows_by([(r.article_number,) if r.article_number else () for r in table.rows]),
        code_rows=_rows_by([r.codes for r in table.rows]),
        document_code_rows=_rows_by([r.document_codes for r in table.rows]),
    )


_BUILT: dict[tuple[str, str, str], RetrievalIndex] = {}
_LOCK = threading.Lock()


def index_for(
    corpus: Corpus, *, backend: str | None = DEFAULT_BACKEND, cache_dir: Path | None = None
) -> RetrievalIndex:
    """The index of a corpus for a backend, built on first use and kept for the life of the process.

    Pass the store's folder (e.g. `<store dir>/index`) as `cache_dir` so corpus embeddings are
    computed once per corpus fingerprint and survive restarts; None keeps them in memory only."""
    fingerprint = corpus.fingerprint()
    key = (fingerprint, backend or LEXICAL_ONLY, str(cache_dir or ""))
    with _LOCK:
        found = _BUILT.get(key)
        if found is None:
            found = build_index(corpus, embedder=backend, cache_dir=cache_dir, fingerprint=fingerprint)
            _BUILT[key] = found
        return found
