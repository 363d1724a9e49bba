"""Fixtures for the hostile suite's store and audit faults: a short lock timeout, and how to read
what the audit log and the trace file hold after a fault."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def short_lock_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    """A locked file is reported after a fraction of a second instead of the default wait."""
    monkeypatch.setenv("CLAUSEGUARD_LOCK_TIMEOUT", "0.2")


def audit_rows(home: Path) -> list[str]:
    """Trace ids of the audit log's assertions, in the order they were recorded."""
    path = home / "audit.sqlite"
    if not path.is_file():
        return []
    with sqlite3.connect(path) as conn:
        return [r[0] for r in conn.execute("SELECT trace_id FROM assertions ORDER BY seq")]


def missing_traces(home: Path) -> list[str]:
    with sqlite3.connect(home / "audit.sqlite") as conn:
        return [r[0] for r in conn.execute("SELECT trace_id FROM missing_traces ORDER BY seq")]


def trace_ids(home: Path) -> list[str]:
    path = home / "traces.jsonl"
    if not path.is_file():
        return []
    return [json.loads(line)["trace_id"] for line in path.read_text().splitlines() if line.strip()]
