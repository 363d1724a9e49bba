"""Exact cosine search over clause embeddings, eligible rows only, and the on-disk embedding cache.

Corpus embeddings are computed once per corpus fingerprint and backend and kept beside the store as
`<cache_dir>/<fingerprint-hex>.<backend>.npz`; a query embeds the question, never the corpus.
Search is exact: numpy over the eligible rows. From `FAISS_ABOVE_ROWS` rows, when `faiss-cpu` is
installed, candidate selection uses an exact `IndexFlatIP` searched with an `IDSelectorBitmap` built
from the same mask (still exact, still filter-before-rank); without faiss, numpy serves every size.
"""

from __future__ import annotations

import logging
import os
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import numpy as np

from clauseguard.retrieval.clauses import ClauseTable, check_mask, dense_text
from clauseguard.retrieval.embedders import Embedder
from clauseguard.retrieval.retriever import Scored

CACHE_FORMAT: Final = 1
# Below this share of eligible rows, gather them (cost ~ eligible rows); above it, one matrix-vector
# product over all rows is cheaper than the copy, and ineligible products are overwritten before use.
GATHER_BELOW: Final = 0.5
GATHERED_KEPT: Final = 256  # eligible matrices kept, one per shared eligibility mask (a plan and date interval)
FAISS_ABOVE_ROWS: Final = 1_000_000  # below this numpy is as fast and needs no extra package
# What np.load raises on a file cut short or overwritten: read as a cache miss, never as an answer.
CORRUPT: Final = (zipfile.BadZipFile, EOFError, ValueError, KeyError)

log = logging.getLogger(__name__)
# A query embeds its first QUERY_CHARS characters (the lexical side reads all of it): the tokenizer
# and the pooling cost grew faster than the text (a 256 KB question cost 14-19x a 25.6 KB one), and a
# question this long is past what any backend reads (MiniLM truncates at 256 tokens).
QUERY_CHARS: Final = 4_096


def cache_path(cache_dir: Path, fingerprint: str, backend: str) -> Path:
    hex_digest = fingerprint.split(":", 1)[-1]
    return Path(cache_dir) / f"{hex_digest}.{backend}.npz"


def _load_cached(path: Path, fingerprint: str, backend: str, rows: int) -> np.ndarray | None:
    """The cached embeddings, or None (a miss: rebuild) when the file is absent, corrupt or for
    another corpus, backend or format. A corrupt file is warned about and later replaced."""
    try:
        with np.load(path, allow_pickle=False) as data:
            meta = (str(data["fingerprint"]), str(data["backend"]), int(data["format"]))
            matrix = np.asarray(data["embeddings"], dtype=np.float32)
    except FileNotFoundError:
        return None
    except (OSError, *CORRUPT) as exc:
        log.warning("embedding cache %s is unreadable (%s: %s); rebuilt from the corpus, and the file replaced",
                    path, type(exc).__name__, exc)
        return None
    if meta != (fingerprint, backend, CACHE_FORMAT) or matrix.shape[0] != rows:
        return None
    return matrix


def _save(path: Path, fingerprint: str, backend: str, matrix: np.ndarray) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    # Write to a temporary file and rename: a reader never sees half a cache.
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            np.savez(
                fh,
                embeddings=matrix,
                fingerprint=np.array(fingerprint),
                backend=np.array(backend),
                format=np.array(CACHE_FORMAT),
            )
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


@dataclass(frozen=True, eq=False)
class DenseIndex:
    """L2-normalised clause embeddings of one backend; `search` is the only way in and takes the mask."""

    embedder: Embedder
    matrix: np.ndarray  # (rows, dim) float32, unit rows (a row of zeros for an empty text)
    from_cache: bool = False
    _faiss: dict[str, Any] = field(default_factory=dict, repr=False)  # the flat faiss index, built lazily
    # the eligible rows' matrix per read-only mask (a shared eligibility decision), gathered once
    _gathered: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = field(default_factory=dict, repr=False)

    @classmethod
    def build(
        cls, table: ClauseTable, embedder: Embedder, *, fingerprint: str, cache_dir: Path | None = None
    ) -> DenseIndex:
        path = cache_path(cache_dir, fingerprint, embedder.name) if cache_dir is not None else None
        if path is not None:
            cached = _load_cached(path, fingerprint, embedder.name, len(table))
            if cached is not None:
                return cls(embedder, cached, from_cache=True)
        matrix = np.ascontiguousarray(embedder.embed([dense_text(r) for r in table.rows]), dtype=np.float32)
        if path is not None:
            _save(path, fingerprint, embedder.name, matrix)
        return cls(embedder, matrix)

    @property
    def name(self) -> str:
        """The embedding backend ("wordllama", "minilm", ...): which calibration applies."""
        return self.embedder.name

    def embed_query(self, query: str) -> np.ndarray:
        """The question's unit vector (the only text a query embeds)."""
        return np.ascontiguousarray(self.embedder.embed([query[:QUERY_CHARS]])[0], dtype=np.float32)

    def search(self, query: str, mask: np.ndarray) -> Scored:
        """Cosine of the query with every row under the mask (all of them, unordered); no other row."""
        return self.search_vector(self.embed_query(query), mask)

    def search_vector(self, vector: np.ndarray, mask: np.ndarray, limit: int | None = None) -> Scored:
        """`search` for an already embedded query: fast float32 products, for selecting candidates.

        With a `limit`, at least the best `limit` rows under the mask are returned (all of them on
        the numpy path; exactly `limit` on the faiss path, used from `FAISS_ABOVE_ROWS` rows)."""
        check_mask(mask, self.matrix.shape[0])
        if limit is not None and self.matrix.shape[0] >= FAISS_ABOVE_ROWS:
            found = self._faiss_search(vector, mask, limit)
            if found is not None:
                return found
        gathered = self._gathered.get(id(mask))
        if gathered is not None and gathered[0] is mask:
            _, rows, matrix = gathered  # the same mask object as an earlier request: rows and matrix gathered then
            return Scored(rows, (matrix @ vector).astype(np.float64) if len(rows) else np.empty(0, np.float64))
        rows = np.flatnonzero(mask).astype(np.int64)
        if len(rows) == 0:
            return Scored(rows, np.empty(0, np.float64))
        if len(rows) < GATHER_BELOW * self.matrix.shape[0]:
            matrix = np.ascontiguousarray(self.matrix[rows])
            if not mask.flags.writeable and mask.base is None:  # a mask nobody can change keeps its gathered rows
                if len(self._gathered) >= GATHERED_KEPT:
                    self._gathered.pop(next(iter(self._gathered)))
                self._gathered[id(mask)] = (mask, rows, matrix)
            sims = matrix @ vector
        else:
            sims = (self.matrix @ vector)[rows]
        return Scored(rows, sims.astype(np.float64))

    def similarities(self, vector: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """Exact cosines for a few candidate rows, computed row by row in one fixed order (float64).

        BLAS matrix-vector kernels round a row differently depending on where it falls in a block,
        so two identical clauses could differ in the last bit; these values feed the features and
        the ranking, where identical clauses must tie and fall back to clause-id order.
        """
        products = self.matrix[rows].astype(np.float64) * vector.astype(np.float64)
        return np.sum(products, axis=1)

    def _faiss_search(self, vector: np.ndarray, mask: np.ndarray, limit: int) -> Scored | None:
        """Exact inner-product search restricted by a bitmap of the mask; None without faiss."""
        try:
            import faiss  # type: ignore[import-not-found, import-untyped]
        except ImportError:
            return None
        flat = self._faiss.get("flat")
        if flat is None:
            flat = faiss.IndexFlatIP(self.matrix.shape[1])
            flat.add(self.matrix)
            self._faiss["flat"] = flat
        bits = np.packbits(mask, bitorder="little")
        selector = faiss.IDSelectorBitmap(len(mask), faiss.swig_ptr(bits))
        k = min(limit, int(mask.sum()))
        if k == 0:
            return Scored(np.empty(0, np.int64), np.empty(0, np.float64))
        scores, ids = flat.search(vector[None, :], k, params=faiss.SearchParameters(sel=selector))
        keep = ids[0] >= 0
        rows, sims = ids[0][keep].astype(np.int64), scores[0][keep].astype(np.float64)
        order = np.argsort(rows)
        return Scored(rows[order], sims[order])
