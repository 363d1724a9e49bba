"""Derived data cached on disk under `CLAUSEGUARD_HOME/cache/`: tables built from installed data files
(PHI name lists, the drug dictionary) that take seconds to build and milliseconds to load.

A cache file is named by a digest of everything it is built from, so a changed source is a new file;
it is written atomically and read defensively: an unreadable or wrong-shaped file is rebuilt, never
trusted, and a cache that cannot be written is simply not written (the answer never depends on it).
"""

from __future__ import annotations

import hashlib
import marshal
import os
import sys
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any


def cache_path(kind: str, sources: Iterable[tuple[str, bytes]], fmt: bytes) -> Path:
    """The cache file for `kind` built from `sources` ((name, bytes) pairs) in format `fmt`."""
    from clauseguard.corpus.sources import home_dir

    digest = hashlib.sha256(fmt + f"|marshal {marshal.version}|{sys.version_info[:2]}".encode())
    for name, raw in sources:
        digest.update(name.encode() + b"\0" + hashlib.sha256(raw).digest())
    return home_dir() / "cache" / kind / f"{digest.hexdigest()[:32]}.marshal"


def read_cache(path: Path, valid: Callable[[Any], bool]) -> Any | None:
    """The cached value, or None when absent, unreadable or not of the shape `valid` accepts."""
    try:
        value = marshal.loads(path.read_bytes())  # noqa: S302 - our own cache file, checked below
    except (OSError, ValueError, EOFError, TypeError):
        return None
    return value if valid(value) else None


def write_cache(path: Path, value: Any) -> None:
    """Write the cache atomically; a cache that cannot be written is simply not written."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, tmp = tempfile.mkstemp(dir=path.parent, prefix=".cache-")
        with os.fdopen(handle, "wb") as out:
            out.write(marshal.dumps(value))
        os.replace(tmp, path)
    except OSError:
        return
