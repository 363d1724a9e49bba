"""The PostgreSQL store: the same tables, seals, triggers and fingerprint as SQLite, shared by instances.

psycopg 3 with a `psycopg_pool` connection pool; the queries are `store_sql`'s. Appends from every
instance are serialised by an advisory lock, so two concurrent ingests of one document either both
land as distinct versions or the second is refused by the timeline rules with their message. A
wrong password or an unreachable host is StoreUrlError (exit 2) naming the URL without its
password; a database lost mid-run is EnvironmentFailure. It never shows a password.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any, Final

from clauseguard.corpus.model import Corpus
from clauseguard.corpus.pg_migrations import MIGRATIONS, migrate
from clauseguard.corpus.store import AddReport, Clock, StoredClause, append, stored_clause, utc_now
from clauseguard.corpus.store_sql import (
    Db,
    VersionState,
    read_corpus,
    read_timeline,
    stored_fingerprint,
    version_states,
)
from clauseguard.corpus.store_url import redact_url
from clauseguard.corpus.timeline import TimelineEvent
from clauseguard.errors import ClauseguardError, CorpusError, EnvironmentFailure, Problem, StoreUrlError

try:
    import psycopg
    from psycopg_pool import ConnectionPool
except ImportError:  # pragma: no cover - the extra is not installed
    psycopg = None  # type: ignore[assignment]
    ConnectionPool = None  # type: ignore[assignment,misc]

APPEND_LOCK: Final = 7270_0010  # pg_advisory_xact_lock key: one append at a time across instances
CONNECT_TIMEOUT_S: Final = 5
POOL_MAX: Final = 4


class PgDb:
    """A psycopg connection inside a transaction, taking `store_sql`'s `?` placeholders."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return list(self.conn.execute(sql.replace("?", "%s"), tuple(params)).fetchall())

    def run(self, sql: str, params: Sequence[Any] = ()) -> int:
        return int(self.conn.execute(sql.replace("?", "%s"), tuple(params)).rowcount)

    def many(self, sql: str, params: Iterable[Sequence[Any]]) -> None:
        batch = [tuple(p) for p in params]
        if batch:
            with self.conn.cursor() as cursor:
                cursor.executemany(sql.replace("?", "%s"), batch)


def _hide(text: str, url: str) -> str:
    """A driver message with the URL's password taken out, should the driver ever echo it."""
    from urllib.parse import urlsplit

    password = urlsplit(url).password
    return text.replace(password, "***") if password else text


def connect_check(url: str) -> None:
    """One direct connection, so a wrong password or a dead host is told at once, in the driver's words."""
    if psycopg is None:
        raise StoreUrlError(redact_url(url), "PostgreSQL needs the driver: pip install 'clauseguard[postgres]'")
    try:
        psycopg.connect(url, connect_timeout=CONNECT_TIMEOUT_S).close()
    except psycopg.Error as exc:
        reason = _hide(str(exc).strip().splitlines()[-1] if str(exc).strip() else type(exc).__name__, url)
        raise StoreUrlError(redact_url(url), f"cannot connect ({reason}); check the host, port, user, password and "
                            "database name") from exc


class PostgresStore:
    """A corpus store in a PostgreSQL database, shared by every instance given the same URL."""

    def __init__(self, url: str, *, clock: Clock = utc_now, pool_size: int = POOL_MAX) -> None:
        self.url = url
        self.location = redact_url(url)
        self._clock = clock
        self._cold: Any = None  # the pool of `reopen()` handles, made on first use
        self._owns_pool = True
        connect_check(url)
        assert ConnectionPool is not None
        self._pool = ConnectionPool(
            url, min_size=1, max_size=pool_size, open=True, name="clauseguard-store",
            kwargs={"connect_timeout": CONNECT_TIMEOUT_S}, check=ConnectionPool.check_connection,
        )
        try:
            with self._pool.connection() as conn:
                conn.autocommit = True
                try:
                    migrate(conn, MIGRATIONS, "_migrations", clock().isoformat(timespec="seconds"))
                finally:
                    conn.autocommit = False
        except RuntimeError as exc:
            self._pool.close()
            raise CorpusError([Problem(self.location, "", str(exc))]) from exc
        except BaseException:
            self._pool.close()
            raise

    def __repr__(self) -> str:
        return f"PostgresStore({self.location!r})"

    def __enter__(self) -> PostgresStore:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    @property
    def pool(self) -> Any:
        return self._pool

    def failure(self, exc: BaseException, doing: str) -> ClauseguardError:
        """A driver error as the user should read it: the database gone (exit 3) or refusing (exit 2)."""
        assert psycopg is not None
        text = _hide(str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__, self.url)
        if isinstance(exc, psycopg.OperationalError) or type(exc).__name__ == "PoolTimeout":
            return EnvironmentFailure(self.location, f"the database {doing} and cannot be reached ({text}); "
                                      "check that the server is up, then retry")
        return CorpusError([Problem(self.location, "", f"the database {doing}: {text}")])

    @contextmanager
    def _db(self, doing: str, *, write: bool = False) -> Iterator[Db]:
        assert psycopg is not None
        try:
            with self._pool.connection() as conn, conn.transaction():
                if write:
                    conn.execute("SELECT pg_advisory_xact_lock(%s)", (APPEND_LOCK,))
                else:
                    conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                yield PgDb(conn)
        except psycopg.Error as exc:
            raise self.failure(exc, doing) from exc
        except Exception as exc:
            if type(exc).__name__ == "PoolTimeout":
                raise self.failure(exc, doing) from exc
            raise

    # -- reading -----------------------------------------------------------------------------

    def is_empty(self) -> bool:
        with self._db("could not be read") as db:
            return not db.rows("SELECT 1 FROM documents LIMIT 1")

    def corpus(self) -> Corpus:
        with self._db("could not be read") as db:
            return read_corpus(db, self.location)

    def fingerprint(self) -> str:
        return self.corpus().fingerprint()

    def stored_fingerprint(self) -> str | None:
        with self._db("could not be read") as db:
            return stored_fingerprint(db)

    def version_states(self) -> dict[str, VersionState]:
        with self._db("could not be read") as db:
            return version_states(db)

    def clause(self, clause_id: str) -> StoredClause | None:
        with self._db("could not be read") as db:
            return stored_clause(db, clause_id)

    def document_codes(self, document_id: str) -> tuple[str, ...]:
        with self._db("could not be read") as db:
            return tuple(r[0] for r in db.rows(
                "SELECT code FROM document_codes WHERE document_id = ? ORDER BY code", (document_id,)))

    def plan_riders(self, plan_id: str) -> tuple[str, ...]:
        with self._db("could not be read") as db:
            return tuple(r[0] for r in db.rows(
                "SELECT rider FROM plan_riders WHERE plan_id = ? ORDER BY rider", (plan_id,)))

    def timeline(self, document_id: str, *, with_recorded_at: bool = False) -> list[TimelineEvent]:
        with self._db("could not be read") as db:
            return read_timeline(db, document_id, with_recorded_at)

    # -- writing -----------------------------------------------------------------------------

    def add(self, corpus: Corpus, *, source: str = "corpus being added") -> AddReport:
        """Append in one transaction, one instance at a time: all or nothing, like SQLite."""
        with self._db("could not be written, nothing was written", write=True) as db:
            return append(db, corpus, source, self._clock, self.location)

    # -- handles ------------------------------------------------------------------------------

    def audit_log(self, traces: Path) -> Any:
        """The audit log in this database (every instance's rows in one place)."""
        from clauseguard.audit_postgres import PostgresAuditLog

        return PostgresAuditLog(self, traces)

    def reopen(self) -> PostgresStore:
        """An independent handle: its own connections (a second pool, made once, never the answering
        pool's), so the cold verifier re-reads clauses through a path that shares nothing with retrieval.
        Opening it per request costs no new connection; closing it leaves the shared cold pool open."""
        if self._cold is None:
            assert ConnectionPool is not None
            self._cold = ConnectionPool(self.url, min_size=1, max_size=2, open=True, name="clauseguard-cold",
                                        kwargs={"connect_timeout": CONNECT_TIMEOUT_S},
                                        check=ConnectionPool.check_connection)
        handle = object.__new__(PostgresStore)
        handle.url, handle.location, handle._clock = self.url, self.location, self._clock
        handle._pool, handle._cold, handle._owns_pool = self._cold, None, False
        return handle

    def close(self) -> None:
        if self._owns_pool:
            self._pool.close()
            if self._cold is not None:
                self._cold.close()


def now_text() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
