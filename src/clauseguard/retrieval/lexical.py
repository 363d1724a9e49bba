"""BM25 over clause rows (bm25s), eligibility applied through bm25s's `weight_mask` before selection.

Two fields: the clause body (article, section, text) and its document's title and codes, summed
with a fixed weight (a small BM25F). Hits scoring <= 0 are dropped. It never sees a row outside the
mask it is given: masked rows score exactly 0 and are removed before any top-k.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import bm25s  # type: ignore[import-untyped]
import numpy as np

from clauseguard.retrieval.clauses import ClauseTable, check_mask, lexical_text, title_text
from clauseguard.retrieval.retriever import Scored
from clauseguard.retrieval.tokens import tokens

# bm25s sets its own logger to DEBUG on import; a library must not talk on the user's stderr.
logging.getLogger("bm25s").setLevel(logging.WARNING)

DEFAULT_K1: Final = 1.2
DEFAULT_B: Final = 0.75
DEFAULT_TITLE_WEIGHT: Final = 0.3  # a title match says "right document", weaker than "right clause"


class _Field:
    """One bm25s index over one text field, with our own sorted vocabulary (stable token ids)."""

    def __init__(self, docs: list[list[str]], k1: float, b: float) -> None:
        vocab = sorted({t for doc in docs for t in doc})
        self.vocab = {t: i for i, t in enumerate(vocab)}
        ids = [[self.vocab[t] for t in doc] for doc in docs]
        self.empty = not vocab
        self.bm25 = bm25s.BM25(k1=k1, b=b, method="lucene")
        if not self.empty:
            # A row with no tokens still needs a column: bm25s averages lengths over rows.
            self.bm25.index((ids, self.vocab), create_empty_token=False, show_progress=False)

    def presence(self, query_terms: Sequence[str], rows: np.ndarray) -> np.ndarray:
        """(terms, rows) booleans: does the row contain the term. Reads the posting lists, which
        bm25s keeps sorted by row, so each lookup is a binary search."""
        out = np.zeros((len(query_terms), len(rows)), dtype=bool)
        if self.empty or len(rows) == 0:
            return out
        indices, indptr = self.bm25.scores["indices"], self.bm25.scores["indptr"]
        for i, term in enumerate(query_terms):
            tid = self.vocab.get(term)
            if tid is None:
                continue
            posting = indices[indptr[tid] : indptr[tid + 1]]
            if len(posting):
                at = np.minimum(np.searchsorted(posting, rows), len(posting) - 1)
                out[i] = posting[at] == rows
        return out

    def document_frequency(self, term: str) -> int:
        """How many rows contain the term (0 when the vocabulary lacks it)."""
        tid = self.vocab.get(term)
        if self.empty or tid is None:
            return 0
        indptr = self.bm25.scores["indptr"]
        return int(indptr[tid + 1] - indptr[tid])

    def scores(self, query_terms: tuple[str, ...], weight_mask: np.ndarray, size: int) -> np.ndarray:
        term_ids = [self.vocab[t] for t in query_terms if t in self.vocab]
        if self.empty or not term_ids:
            return np.zeros(size, dtype=np.float32)
        # Query terms are distinct and in sorted order, so float sums run in one fixed order.
        scored = self.bm25.get_scores_from_ids(term_ids, weight_mask=weight_mask)
        return np.asarray(scored, dtype=np.float32)


@dataclass(frozen=True, eq=False)
class LexicalIndex:
    """BM25 over a clause table; `search` is the only way in and it takes the eligibility mask."""

    body: _Field
    title: _Field
    size: int
    title_weight: float = DEFAULT_TITLE_WEIGHT

    @classmethod
    def build(
        cls,
        table: ClauseTable,
        *,
        body_tokens: Sequence[list[str]] | None = None,
        k1: float = DEFAULT_K1,
        b: float = DEFAULT_B,
        title_weight: float = DEFAULT_TITLE_WEIGHT,
    ) -> LexicalIndex:
        """Index the table; `body_tokens` (one list per row) saves re-tokenising when the caller has them."""
        if body_tokens is None:
            body_tokens = [tokens(lexical_text(r)) for r in table.rows]
        # A document's title and codes are the same for all its rows: tokenise each distinct one once.
        titles: dict[str, list[str]] = {}
        title_tokens = []
        for row in table.rows:
            text = title_text(row)
            if text not in titles:
                titles[text] = tokens(text)
            title_tokens.append(titles[text])
        return cls(
            body=_Field(list(body_tokens), k1, b),
            title=_Field(title_tokens, k1, b),
            size=len(table),
            title_weight=title_weight,
        )

    name = "bm25"

    def presence(self, query_terms: Sequence[str], rows: np.ndarray) -> np.ndarray:
        """(terms, rows) booleans: does the clause body (article, section, text) contain the term."""
        return self.body.presence(query_terms, rows)

    def search(self, query: str, mask: np.ndarray) -> Scored:
        """BM25 of every row under the mask (others are never candidates); rows at or below 0 are dropped."""
        check_mask(mask, self.size)
        terms = tuple(sorted(set(tokens(query))))
        if not terms or self.size == 0:
            return Scored(np.empty(0, np.int64), np.empty(0, np.float64))
        weight_mask = mask.astype(np.float32)
        total = self.body.scores(terms, weight_mask, self.size).astype(np.float64)
        if self.title_weight:
            total += self.title_weight * self.title.scores(terms, weight_mask, self.size)
        # The mask is applied again as a guard: a zero weight must never be a candidate.
        hit = np.flatnonzero((total > 0) & mask)
        return Scored(hit.astype(np.int64), total[hit])
