"""Shared fixtures: an isolated CLAUSEGUARD_HOME for every test, and the external suite's folder."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_plugins = ["tests.pg_fixtures"]  # PostgreSQL server and per-test databases (integration tests)

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
MKRAFA = SHARED / "external" / "mkrafa"


@pytest.fixture(autouse=True)
def isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No test reads or writes the user's real store."""
    home = tmp_path_factory.mktemp("clauseguard-home")
    monkeypatch.setenv("CLAUSEGUARD_HOME", str(home))
    return home


@pytest.fixture
def mkrafa() -> Path:
    """The external suite, read in place from ../shared; skipped with a message when absent."""
    if not (MKRAFA / "corpus.json").exists():
        pytest.skip(f"external suite not found at {MKRAFA} (clone with shared/ beside the repo)")
    return MKRAFA
