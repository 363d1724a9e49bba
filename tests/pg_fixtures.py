"""PostgreSQL for the tests: one throwaway server per session (started as the `postgres` user when
root), a fresh database per test. Without PostgreSQL installed the tests that need it skip with a
message; under CI=true a server that cannot be started fails the run instead."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest

from clauseguard.testing_postgres import PostgresServer, ServerUnavailable, start_server


def _unavailable(why: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"PostgreSQL is required under CI=true and could not be started: {why}")
    pytest.skip(f"PostgreSQL is not available here ({why}); `make test` installs it")


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    try:
        import psycopg  # noqa: F401
    except ImportError:
        _unavailable("the psycopg driver is not installed: pip install -e '.[test]'")
    try:
        server = start_server()
    except ServerUnavailable as exc:
        _unavailable(str(exc))
        raise  # unreachable: skip or fail above
    yield server
    server.stop()


@pytest.fixture
def pg_url(postgres_server: PostgresServer) -> Iterator[str]:
    """The URL of a new, empty database (with the password)."""
    name = f"t_{uuid.uuid4().hex[:12]}"
    url = postgres_server.create_database(name)
    yield url
    postgres_server.drop_database(name)
