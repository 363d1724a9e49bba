"""Derived data cached on disk under `CLAUSEGUARD_HOME/cache/`: tables built from installed data files
(PHI name lists, the drug dictionary) that take seconds to build and milliseconds to load.

A cache file is named by a digest of everything it is built from, so a changed source is a new file;
it is written atomically and read defensively: an unreadable or wrong-shaped file is rebuilt, never
trusted, and a cache that cannot be written is simply not written (the answer never depends on it).
A file is touched when read; writing a new one removes the files of its kind that no process has
read for a week (the tables of a library version or lexicon since replaced), so the cache does not
grow with every upgrade while two checkouts sharing one home keep their own.
"""

from __future__ import annotations

import hashlib
import importlib.util
import marshal
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Final

STALE_AFTER_S: Final = 7 * 24 * 3600


def package_dir(module: str, distribution: str) -> Path:
    """The folder of an installed package, found without importing it (for libraries whose import is
    the slow part and whose data files a cached table is built from)."""
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError(f"{distribution} is not installed: `make install` installs it")
    return Path(next(iter(spec.submodule_search_locations)))


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
    if not valid(value):
        return None
    try:
        os.utime(path)  # read now: not stale for the pruning in write_cache
    except OSError:
        pass
    return value


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
    _prune(path)


def _prune(kept: Path, now: float | None = None) -> None:
    """Remove the other cache files of `kept`'s kind that nothing has read for STALE_AFTER_S."""
    now = time.time() if now is None else now
    for other in kept.parent.glob("*.marshal"):
        try:
            if other != kept and now - other.stat().st_mtime > STALE_AFTER_S:
                other.unlink()
        except OSError:
            continue
