"""Replay: recompute an audited answer on the corpus it was made on and say whether it still matches.

It reads the audit log's record and corpus snapshot, recomputes without logging, compares the answer
field by field (timings aside), and re-reads every cited clause from the store the answer came from:
text that changed behind the store's back is a mismatch. It never repairs or rewrites anything.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from clauseguard.audit import AuditLog
from clauseguard.authoring.pinning import pin, recorded_revisions
from clauseguard.corpus.sources import home_dir, open_snapshot
from clauseguard.corpus.store import SqliteStore
from clauseguard.engine import Engine
from clauseguard.gate import DEFAULT_POLICY, GatePolicy
from clauseguard.responses import Answer

VOLATILE = ("timings",)


def recorded_policy(settings: dict[str, Any]) -> GatePolicy:
    """The gate policy the answer was made under (absent from the settings: the default)."""
    found = settings.get("gate_policy")
    if not found:
        return DEFAULT_POLICY
    return GatePolicy(str(found["name"]), tuple(found["automatic_outcomes"]))


def cited_ids(response: dict[str, Any]) -> list[str]:
    ids = [c["clause_id"] for c in response.get("citations", [])]
    ids += [s["clause_id"] for s in response.get("sources", [])]
    return sorted(set(ids))


def replay(assertion_id: str, audit_path: Path | None = None) -> dict[str, Any]:
    """Match or mismatch for one assertion, with the fields that differ and any tampered clause."""
    log = AuditLog(audit_path or home_dir() / "audit.sqlite")
    try:
        record = log.get(assertion_id)
        corpus = log.corpus(record.corpus_fingerprint)
    finally:
        log.close()
    opened = open_snapshot(corpus, f"corpus of assertion {assertion_id}")
    # the criteria revisions the answer was made with, checked and pinned (none recorded: none used)
    pinned = pin(recorded_revisions(record.settings), record.store_path, opened.store)
    engine = Engine(opened, log=False, policy=recorded_policy(record.settings), authored=pinned.revisions)
    again: Answer
    if record.kind == "determination":
        again = engine.determine(record.request)
    elif record.kind == "search":
        again = engine.search(record.request)
    else:  # pragma: no cover - only these two kinds are logged
        raise ValueError(f"cannot replay a {record.kind}")
    recomputed = {k: v for k, v in again.as_json().items() if k not in VOLATILE}
    recorded = {k: v for k, v in record.response.items() if k not in VOLATILE}
    differences = sorted(k for k in set(recomputed) | set(recorded) if recomputed.get(k) != recorded.get(k))

    snapshot_text = {c.id: c.text for d in corpus.documents for v in d.versions for c in v.clauses}
    tampered = []
    if record.store_path and Path(record.store_path).exists():
        store = SqliteStore(record.store_path)
        try:
            for clause_id in cited_ids(record.response):
                stored = store.clause(clause_id)
                if stored is None or stored.text != snapshot_text.get(clause_id):
                    tampered.append(clause_id)
        finally:
            store.close()
    return {
        "assertion_id": assertion_id,
        "kind": record.kind,
        "corpus_fingerprint": record.corpus_fingerprint,
        "recorded_at": record.recorded_at,
        "match": not differences and not tampered and not pinned.tampered and not pinned.missing,
        "differences": differences,
        "tampered_clauses": tampered,
        "tampered_revisions": pinned.tampered,
        "missing_revisions": pinned.missing,
    }
