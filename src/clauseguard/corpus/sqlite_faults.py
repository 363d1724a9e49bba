"""What a failing SQLite file means to its user: locked, corrupt, full, read-only or gone, one sentence each.

The corpus store and the audit log both turn sqlite3 and OS errors into these sentences, so a user
reads "locked by another process" or "corrupt", never a traceback. It never retries or repairs.
"""

from __future__ import annotations

import errno
import os
import sqlite3
from typing import Final, Literal

LOCK_TIMEOUT_ENV: Final = "CLAUSEGUARD_LOCK_TIMEOUT"
DEFAULT_LOCK_TIMEOUT_S: Final = 30.0

Fault = Literal["locked", "corrupt", "full", "read-only", "unopenable", "other"]


def lock_timeout() -> float:
    """Seconds to wait for another process's lock on a SQLite file (`CLAUSEGUARD_LOCK_TIMEOUT`, default 30)."""
    raw = os.environ.get(LOCK_TIMEOUT_ENV, "")
    try:
        value = float(raw) if raw.strip() else DEFAULT_LOCK_TIMEOUT_S
    except ValueError:
        value = DEFAULT_LOCK_TIMEOUT_S
    return value if value >= 0 else DEFAULT_LOCK_TIMEOUT_S


def classify(exc: BaseException) -> Fault:
    """Which of the user-facing faults an sqlite3 or OS error is."""
    if isinstance(exc, OSError):
        if exc.errno in (errno.ENOSPC, errno.EFBIG, errno.EDQUOT):
            return "full"
        if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            return "read-only"
        if exc.errno in (errno.EISDIR, errno.ENOTDIR, errno.ENOENT):
            return "unopenable"
        return "other"
    text = str(exc).lower()
    if "locked" in text or "busy" in text:
        return "locked"
    if "not a database" in text or "malformed" in text or "corrupt" in text:
        return "corrupt"
    if "full" in text or "too big" in text:
        return "full"
    if "readonly" in text or "read-only" in text:
        return "read-only"
    if "unable to open" in text:
        return "unopenable"
    if isinstance(exc, sqlite3.OperationalError) and "disk i/o" in text:
        return "full"  # what SQLite reports when a write hits the file-size limit (EFBIG)
    return "other"


ADVICE: Final[dict[Fault, str]] = {
    "locked": "it is locked by another process (a long write, or a tool holding it open); retry when that "
              f"finishes, or raise {LOCK_TIMEOUT_ENV} (seconds to wait)",
    "corrupt": "it is corrupt or not a clauseguard database; restore it from a backup or move it aside",
    "full": "the disk is full or the file-size limit was reached; free space or raise the limit",
    "read-only": "it is not writable by this process; fix its permissions or its mount",
    "unopenable": "it cannot be opened as a file (a folder in its place, or a missing parent folder)",
    "other": "it could not be used",
}


def explain(exc: BaseException) -> str:
    """One sentence for the user: what is wrong with the file and what to do, with the system's words."""
    return f"{ADVICE[classify(exc)]} ({exc})"
