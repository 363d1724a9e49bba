"""Where criteria revisions are kept: the tables of a SQLite store file or of a PostgreSQL store.

Both hold `criteria_revisions` and `criteria_approvals` (migration m004 and its PostgreSQL twin), with
their append-only and four-eyes triggers. An adapter runs `?`-placeholder SQL on a connection of its
own (never the store's answering connections) and tells a missing clause apart from other refusals.
It never decides what a revision says or whether it may be used.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from clauseguard.corpus.migrations import migrate
from clauseguard.errors import CorpusError, Problem

Clock = Callable[[], datetime]


class RevisionDb(Protocol):
    """One connection to the revision tables, in autocommit mode outside `transaction()`."""

    location: str

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]: ...

    def run(self, sql: str, params: Sequence[Any] = ()) -> None: ...

    def transaction(self) -> AbstractContextManager[None]: ...

    def missing_reference(self, exc: BaseException) -> bool:
        """True when `exc` is the database refusing a row whose clause or revision does not exist."""
        ...

    def close(self) -> None: ...


class SqliteRevisions:
    """The revision tables of a SQLite store file."""

    def __init__(self, path: Path | str, clock: Clock | None = None) -> None:
        self.location = str(path)
        try:
            self._conn = sqlite3.connect(str(path), isolation_level=None, timeout=30.0)
            self._conn.execute("PRAGMA foreign_keys = ON")
            migrate(self._conn, clock or (lambda: datetime.now(UTC)))
        except sqlite3.Error as exc:
            raise CorpusError([Problem(str(path), "", f"cannot open the criteria revisions of this store: {exc}")]) from exc

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return self._conn.execute(sql, tuple(params)).fetchall()

    def run(self, sql: str, params: Sequence[Any] = ()) -> None:
        self._conn.execute(sql, tuple(params))

    @contextmanager
    def transaction(self) -> Iterator[None]:
        self._conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise
        self._conn.execute("COMMIT")

    def missing_reference(self, exc: BaseException) -> bool:
        return isinstance(exc, sqlite3.IntegrityError) and "FOREIGN KEY" in str(exc)

    def close(self) -> None:
        self._conn.close()


class PostgresRevisions:
    """The revision tables of a PostgreSQL store, on one direct connection (the store migrated them)."""

    def __init__(self, store: Any) -> None:
        import psycopg

        self.location = str(store.location)
        try:
            self._conn = psycopg.connect(store.url, autocommit=True, connect_timeout=5)
        except psycopg.Error as exc:
            raise store.failure(exc, "could not be reached for its criteria revisions") from exc
        self._failure = store.failure

    def _run(self, sql: str, params: Sequence[Any]) -> Any:
        import psycopg

        try:
            return self._conn.execute(sql.replace("?", "%s"), tuple(params))
        except psycopg.errors.ForeignKeyViolation:
            raise
        except psycopg.Error as exc:
            raise self._failure(exc, "refused a criteria revision statement") from exc

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return list(self._run(sql, params).fetchall())

    def run(self, sql: str, params: Sequence[Any] = ()) -> None:
        self._run(sql, params)

    @contextmanager
    def transaction(self) -> Iterator[None]:
        with self._conn.transaction():
            yield

    def missing_reference(self, exc: BaseException) -> bool:
        import psycopg

        return isinstance(exc, psycopg.errors.ForeignKeyViolation)

    def close(self) -> None:
        self._conn.close()


def store_file(store: Any) -> Path | None:
    """The file of a SQLite store (None for an in-memory store or another backend)."""
    path = getattr(store, "path", None)
    if path is None or str(path) == ":memory:" or not Path(path).exists():
        return None
    return Path(path)


def revisions_db(store: Any, clock: Clock | None = None) -> RevisionDb | None:
    """The revision tables of a store: its SQLite file, its PostgreSQL database, or None (in memory)."""
    path = store_file(store)
    if path is not None:
        return SqliteRevisions(path, clock)
    if type(store).__name__ == "PostgresStore":
        return PostgresRevisions(store)
    return None
