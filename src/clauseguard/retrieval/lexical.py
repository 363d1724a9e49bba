"""BM25 over clause rows (bm25s), eligibility applied through bm25s's `weight_mask` before selection.

Two fields: the clause body (article, section, text) and its document's title and codes, summed
with a fixed weight (a small BM25F); both can be saved to and loaded from one .npz per corpus
fingerprint, so a restart does not re-index. Hits scoring <= 0 are dropped. It never sees a row outside the
mask it is given: masked rows score exactly 0 and are removed before any top-k.
"""

from __future__ import annotations

import logging
import os
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
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

    def __init__(self, docs: list[list[str]] | None, k1: float, b: float, saved: dict[str, np.ndarray] | None = None) -> None:
        self.bm25 = bm25s.BM25(k1=k1, b=b, method="lucene")
        if saved is not None:
            vocab = str(saved["vocab"][0]).split("\n") if str(saved["vocab"][0]) else []
            self.vocab = {t: i for i, t in enumerate(vocab)}
            self.empty = not vocab
            if not self.empty:
                self.bm25.scores = {"data": saved["data"], "indices": saved["indices"], "indptr": saved["indptr"],
                                    "num_docs": int(saved["num_docs"][0])}
                self.bm25.vocab_dict = self.vocab
                self.bm25.nonoccurrence_array = None  # lucene scoring has none (bm25s sets it in `index`)
                self.bm25.unique_token_ids_set = set(range(len(vocab)))
            return
        assert docs is not None
        vocab = sorted({t for doc in docs for t in doc})
        self.vocab = {t: i for i, t in enumerate(vocab)}
        ids = [[self.vocab[t] for t in doc] for doc in docs]
        self.empty = not vocab
        if not self.empty:
            # A row with no tokens still needs a column: bm25s averages lengths over rows.
            self.bm25.index((ids, self.vocab), create_empty_token=False, show_progress=False)

    def arrays(self, prefix: str) -> dict[str, np.ndarray]:
        """What `saved=` needs to rebuild this field without re-indexing (no pickled objects)."""
        out = {f"{prefix}vocab": np.asarray(["\n".join(self.vocab)])}
        if not self.empty:
            scores = self.bm25.scores
            out |= {f"{prefix}data": scores["data"], f"{prefix}indices": scores["indices"],
                    f"{prefix}indptr": scores["indptr"], f"{prefix}num_docs": np.asarray([scores["num_docs"]])}
        return out

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

    def rows_with(self, term: str) -> np.ndarray:
        """The rows containing the term, sorted (its posting list; empty when the vocabulary lacks it)."""
        tid = self.vocab.get(term)
        if self.empty or tid is None:
            return np.empty(0, np.int64)
        return np.asarray(self.bm25.scores["indices"][self.bm25.scores["indptr"][tid] : self.bm25.scores["indptr"][tid + 1]])

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
        cache: Path | None = None,
    ) -> LexicalIndex:
        """Index the table; `body_tokens` (one list per row) saves re-tokenising when the caller has them.
        With a `cache` path, the index is read from it when present and written to it when built."""
        if cache is not None and cache.exists():
            loaded = cls.load(cache, len(table), k1=k1, b=b, title_weight=title_weight)
            if loaded is not None:
                return loaded
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
        built = cls(
            body=_Field(list(body_tokens), k1, b),
            title=_Field(title_tokens, k1, b),
            size=len(table),
            title_weight=title_weight,
        )
        if cache is not None:
            built.save(cache)
        return built

    def save(self, path: Path) -> None:
        """Write the index (both fields) as one .npz, atomically, so a restart loads instead of re-indexing."""
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + f".{os.getpid()}.tmp.npz")
        arrays = {"size": np.asarray([self.size]), **self.body.arrays("body_"), **self.title.arrays("title_")}
        np.savez(tmp, **arrays)  # type: ignore[arg-type]  # numpy's stub types **kwds as its bool flag
        os.replace(tmp, path)

    @classmethod
    def load(cls, path: Path, size: int, *, k1: float, b: float, title_weight: float) -> LexicalIndex | None:
        """The index saved at `path`, or None when it is unreadable or for another table size."""
        try:
            with np.load(path, allow_pickle=False) as saved:
                if int(saved["size"][0]) != size:
                    return None
                parts = {k: saved[k] for k in saved.files}
        except FileNotFoundError:
            return None
        except (OSError, zipfile.BadZipFile, EOFError, ValueError, KeyError) as exc:  # cut short or overwritten
            logging.getLogger(__name__).warning(
                "lexical index %s is unreadable (%s: %s); rebuilt from the corpus, and the file replaced",
                path, type(exc).__name__, exc)
            return None

        def field(prefix: str) -> dict[str, np.ndarray]:
            return {k.removeprefix(prefix): v for k, v in parts.items() if k.startswith(prefix)}

        return cls(body=_Field(None, k1, b, field("body_")), title=_Field(None, k1, b, field("title_")),
                   size=size, title_weight=title_weight)

    name = "bm25"

    def rows_naming(self, term: str) -> np.ndarray:
        """The rows whose body or document title contains the term, sorted."""
        return np.union1d(self.body.rows_with(term), self.title.rows_with(term))

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
