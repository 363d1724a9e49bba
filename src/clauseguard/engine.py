"""The one entry point every interface calls: search(), determine(), compare(), evaluate_retrieval().

It holds what a process builds once per corpus (the version index, the retrieval index, the
lexicon) and stamps each answer with ids derived from the request, the corpus fingerprint and the
settings. It never parses transport formats and never renders: interfaces do that.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Final

from clauseguard.audit import digest
from clauseguard.compare import compare as run_compare
from clauseguard.corpus.model import Corpus
from clauseguard.corpus.sources import Opened
from clauseguard.requests import CompareRequest, SearchRequest, parse_request
from clauseguard.retrieval import DEFAULT_BACKEND, RetrievalIndex, index_for
from clauseguard.search import search as run_search

ENGINE_VERSION: Final = "1"


@dataclass(frozen=True)
class Settings:
    """Knobs that change answers; they are part of every trace and assertion id."""

    dense_backend: str | None = DEFAULT_BACKEND
    engine_version: str = ENGINE_VERSION

    def knobs(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Engine:
    """A corpus opened for answering, and what is built once for it."""

    opened: Opened
    settings: Settings = field(default_factory=Settings)

    @property
    def corpus(self) -> Corpus:
        return self.opened.corpus

    @cached_property
    def corpus_fingerprint(self) -> str:
        return self.corpus.fingerprint()

    @property
    def knobs(self) -> dict[str, Any]:
        return self.settings.knobs()

    @cached_property
    def index(self) -> RetrievalIndex:
        cache = Path(self.opened.store.path).parent / "index" if hasattr(self.opened.store, "path") else None
        return index_for(self.corpus, backend=self.settings.dense_backend, cache_dir=cache)

    def _ids(self, kind: str, request: dict[str, Any]) -> str:
        return digest({"kind": kind, "request": request, "corpus": self.corpus_fingerprint, "knobs": self.knobs})

    def search(self, request: dict[str, Any] | SearchRequest) -> dict[str, Any]:
        """A question over the terms that govern a contract or a plan on a date (design: "search")."""
        parsed = request if isinstance(request, SearchRequest) else parse_request(SearchRequest, request)
        started = time.perf_counter()
        response = run_search(parsed, corpus=self.corpus, store=self.opened.store, index=self.index)
        response["trace_id"] = self._ids("search", parsed.model_dump(mode="json"))
        response["timings"] = {"engine_s": round(time.perf_counter() - started, 6)}
        return response

    def compare(self, request: dict[str, Any] | CompareRequest) -> dict[str, Any]:
        """The same question against two targets, each side answered, differences point by point."""
        parsed = request if isinstance(request, CompareRequest) else parse_request(CompareRequest, request)
        started = time.perf_counter()
        response = run_compare(parsed, corpus=self.corpus, store=self.opened.store, index=self.index)
        response["trace_id"] = self._ids("compare", parsed.model_dump(mode="json"))
        response["timings"] = {"engine_s": round(time.perf_counter() - started, 6)}
        return response
