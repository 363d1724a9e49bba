"""Caches that heal: a retrieval index whose on-disk embedding cache fails to open is rebuilt.

The embedding cache (`<store dir>/index/<fingerprint>.<backend>.npz`) is derived data: when it is
truncated or garbage, its files for that fingerprint are moved out of the way with a warning and
the index is built again from the corpus. It never touches a user's own store or the audit log.
"""

from __future__ import annotations

import logging
from pathlib import Path

from clauseguard.corpus.model import Corpus
from clauseguard.retrieval import DEFAULT_BACKEND, RetrievalIndex, index_for

log = logging.getLogger("clauseguard.caches")


def cache_files(cache_dir: Path, fingerprint: str) -> list[Path]:
    """The embedding cache files of one corpus fingerprint (every backend)."""
    return sorted(cache_dir.glob(f"{fingerprint.split(':', 1)[-1]}.*.npz"))


def healing_index(corpus: Corpus, *, backend: str | None = DEFAULT_BACKEND, cache_dir: Path | None = None) -> RetrievalIndex:
    """`index_for`, but a cache that fails to load is removed (with a warning) and the index rebuilt once."""
    try:
        return index_for(corpus, backend=backend, cache_dir=cache_dir)
    except Exception as exc:  # noqa: BLE001 - any failure to read derived data is healed the same way
        if cache_dir is None:
            raise
        damaged = cache_files(cache_dir, corpus.fingerprint())
        if not damaged:
            raise
        for path in damaged:
            path.unlink(missing_ok=True)
        log.warning("clauseguard: the index cache %s could not be read (%s: %s); it was removed and the index "
                    "rebuilt from the corpus", ", ".join(str(p) for p in damaged), type(exc).__name__, exc)
        return index_for(corpus, backend=backend, cache_dir=cache_dir)


def index_cache_dir(store: object) -> Path:
    """Where a store's embedding cache lives: beside a store file, else `$CLAUSEGUARD_HOME/cache/index`
    (a database store: vectors stay in the process, cached per fingerprint on this machine)."""
    path = getattr(store, "path", None)
    if isinstance(path, Path) and str(path) != ":memory:":
        return path.parent / "index"
    from clauseguard.corpus.sources import home_dir

    return home_dir() / "cache" / "index"
