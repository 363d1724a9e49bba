"""Retrieval: filter before rank, lexical + dense, fusion, rerank by question part, calibrated scores.

The data flow, one module each:

    tokens -> clauses (rows) -> lexical (bm25s) / dense (embedders) -> fusion -> calibration
    parts (question splitting)     eligible (versions -> masks)     index (built once) -> retrieve

Eligibility is decided by `clauseguard.versions`, handed in as one boolean mask, and applied by every
backend before any top-k; no argument here can switch it off. Retrieval never answers, never reads
the store, and never decides whether a passage is good enough: thresholds belong to the caller.
"""

from clauseguard.retrieval.calibration import (
    Calibrator,
    brier_score,
    expected_calibration_error,
    fit_calibration,
    load_calibration,
)
from clauseguard.retrieval.clauses import ClauseRow, ClauseTable
from clauseguard.retrieval.eligible import eligible_mask, ineligible_mask
from clauseguard.retrieval.embedders import (
    DEFAULT_BACKEND,
    MINILM,
    WORDLLAMA,
    Embedder,
    EmbedderUnavailable,
    HashingEmbedder,
    load_embedder,
)
from clauseguard.retrieval.fusion import FusionConfig
from clauseguard.retrieval.index import LEXICAL_ONLY, RetrievalIndex, build_index, index_for
from clauseguard.retrieval.parts import QuestionPart, aspect_of, split_question
from clauseguard.retrieval.retrieve import DEFAULT_K, Hit, best_ineligible, retrieve
from clauseguard.retrieval.retriever import Retriever, Scored

__all__ = [
    "DEFAULT_BACKEND",
    "DEFAULT_K",
    "LEXICAL_ONLY",
    "MINILM",
    "WORDLLAMA",
    "Calibrator",
    "ClauseRow",
    "ClauseTable",
    "Embedder",
    "EmbedderUnavailable",
    "FusionConfig",
    "HashingEmbedder",
    "Hit",
    "QuestionPart",
    "RetrievalIndex",
    "Retriever",
    "Scored",
    "aspect_of",
    "best_ineligible",
    "brier_score",
    "build_index",
    "eligible_mask",
    "expected_calibration_error",
    "fit_calibration",
    "index_for",
    "ineligible_mask",
    "load_calibration",
    "load_embedder",
    "retrieve",
    "split_question",
]
