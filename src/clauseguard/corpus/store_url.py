"""Which store a URL names: `sqlite:///PATH` or `postgresql://USER:PASSWORD@HOST:PORT/DB`.

`CLAUSEGUARD_STORE_URL` (or `--store-url`) selects the persistent store; without it the store is
the SQLite file of `--store` or `$CLAUSEGUARD_HOME/store.sqlite`. A URL is shown only through
`redact_url`, so no message, log line or audit row ever holds a password.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Final
from urllib.parse import urlsplit, urlunsplit

from clauseguard.errors import StoreUrlError

if TYPE_CHECKING:
    from clauseguard.corpus.store import CorpusStore

STORE_URL_ENV: Final = "CLAUSEGUARD_STORE_URL"
POSTGRES_SCHEMES: Final = ("postgresql", "postgres")
VALID: Final = "write sqlite:///PATH or postgresql://USER:PASSWORD@HOST:PORT/DATABASE"


def redact_url(url: str) -> str:
    """The URL without its password (`postgresql://app@db:5432/cg`), for messages and audit rows."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = parts.port
    except ValueError:
        return "<a malformed store URL>"
    if parts.password is None:
        return url
    netloc = (f"{parts.username}@" if parts.username else "") + host + (f":{port}" if port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def configured_store_url(option: str | None) -> str | None:
    """`--store-url`, else `CLAUSEGUARD_STORE_URL`, else None (the SQLite default)."""
    url = option if option else os.environ.get(STORE_URL_ENV, "").strip()
    return url or None


def is_postgres(url: str) -> bool:
    return urlsplit(url).scheme in POSTGRES_SCHEMES


def sqlite_path(url: str) -> str:
    """The file of a `sqlite:///PATH` URL (three slashes and an absolute path, or two and a relative one)."""
    parts = urlsplit(url)
    path = (parts.netloc + parts.path) if parts.netloc else parts.path
    if parts.path.startswith("//"):
        path = parts.path[1:]
    if not path:
        raise StoreUrlError(redact_url(url), f"names no file; {VALID}")
    return path


def open_store_url(url: str) -> CorpusStore:
    """The store a URL names; StoreUrlError (exit 2, password-free) if it is malformed or refuses us."""
    scheme = urlsplit(url).scheme
    if scheme == "sqlite":
        from clauseguard.corpus.store import SqliteStore

        return SqliteStore(sqlite_path(url))
    if scheme in POSTGRES_SCHEMES:
        from clauseguard.corpus.postgres_store import PostgresStore

        return PostgresStore(url)
    raise StoreUrlError(redact_url(url), f"the scheme {scheme or '(none)'!r} is not a store; {VALID}")
