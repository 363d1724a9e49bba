"""Replay: recompute an audited answer on the corpus it was made on and say whether it still matches.

It reads the audit log's record and corpus snapshot, opens the record's sealed original request
(`privacy.seal`; rows written before sealing are recomputed from their redacted request, and the
result says which), recomputes without logging, compares the answer field by field (timings aside),
re-reads every cited clause from the store the answer came from, replays with the criteria revisions
the answer recorded (a revision row that changed is reported), and
checks the seal of every cited version recorded in the audit row against that store: text or
clauses that changed behind the store's back are a mismatch; an end date set by a recorded
`version_closed` timeline event is reported under `closed_since`, not as a mismatch. It never
repairs or rewrites anything.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from clauseguard.audit import AuditLog, AuditRecord, AuditTrail
from clauseguard.authoring.pinning import pin, recorded_revisions
from clauseguard.corpus.model import Corpus
from clauseguard.corpus.seals import cited_ids, cited_version_seals, version_key
from clauseguard.corpus.sources import home_dir, open_snapshot
from clauseguard.corpus.store import CorpusStore, SqliteStore
from clauseguard.deadline import recorded_cut
from clauseguard.engine import Engine
from clauseguard.errors import ClauseguardError
from clauseguard.gate import DEFAULT_POLICY, GatePolicy
from clauseguard.privacy.seal import original_request
from clauseguard.responses import Answer

VOLATILE = ("timings",)

__all__ = ["cited_ids", "replay", "store_checks"]

def recorded_policy(settings: dict[str, Any]) -> GatePolicy:
    """The gate policy the answer was made under (absent from the settings: the default)."""
    found = settings.get("gate_policy")
    if not found:
        return DEFAULT_POLICY
    return GatePolicy(str(found["name"]), tuple(found["automatic_outcomes"]))


def _open_live_store(store_path: str | None) -> CorpusStore | None:
    """The store an answer came from, if it can still be opened here (a file, or the configured URL)."""
    if not store_path:
        return None
    if "://" in store_path:
        from clauseguard.corpus.store_url import configured_store_url, open_store_url, redact_url

        url = configured_store_url(None)
        if url is None or redact_url(url) != store_path:
            return None
        return open_store_url(url)
    return SqliteStore(store_path) if Path(store_path).exists() else None


def store_checks(record: AuditRecord, corpus: Corpus, store: CorpusStore) -> dict[str, list[Any]]:
    """Cited clauses whose text changed, cited versions whose seal or end changed, recorded closings."""
    snapshot_text = {c.id: c.text for d in corpus.documents for v in d.versions for c in v.clauses}
    tampered_clauses = []
    for clause_id in cited_ids(record.response):
        stored = store.clause(clause_id)
        if stored is None or stored.text != snapshot_text.get(clause_id):
            tampered_clauses.append(clause_id)
    snapshot_ends = {version_key(d.id, v.version): v.effective_end for d in corpus.documents for v in d.versions}
    recorded = record.version_seals or cited_version_seals(corpus, record.response)
    tampered_versions: set[str] = {
        key for key, seal in cited_version_seals(corpus, record.response).items() if recorded.get(key) != seal
    }
    closed_since = []
    states = store.version_states()
    for key, seal in sorted(recorded.items()):
        state = states.get(key)
        if state is None or state.content_hash != seal or not state.intact:
            tampered_versions.add(key)
            continue
        then = snapshot_ends.get(key)
        if state.effective_end == then:
            continue
        document_id, _, label = key.partition("@")
        closing = [e for e in store.timeline(document_id)
                   if e.kind == "version_closed" and e.version == label and e.date == state.effective_end]
        if then is None and closing and state.effective_end is not None:
            closed_since.append({"version": key, "effective_end": state.effective_end.isoformat()})
        else:
            tampered_versions.add(key)
    return {"tampered_clauses": tampered_clauses, "tampered_versions": sorted(tampered_versions),
            "closed_since": closed_since}


def _audit_for(audit_path: Path | None) -> AuditTrail:
    if audit_path is not None:
        return AuditLog(audit_path)
    from clauseguard.corpus.store_url import configured_store_url, open_store_url

    url = configured_store_url(None)
    if url is not None:
        store = open_store_url(url)
        audit_log = getattr(store, "audit_log", None)
        if callable(audit_log):
            trail: AuditTrail = audit_log(home_dir() / "traces.jsonl")
            return trail
    return AuditLog(home_dir() / "audit.sqlite")


def replay(assertion_id: str, audit_path: Path | None = None) -> dict[str, Any]:
    """Match or mismatch for one assertion, with the fields that differ and any tampered clause or version."""
    log = _audit_for(audit_path)
    try:
        record = log.get(assertion_id)
        corpus = log.corpus(record.corpus_fingerprint)
    finally:
        log.close()
    opened = open_snapshot(corpus, f"corpus of assertion {assertion_id}")
    original = original_request(record)  # SealError (exit 3) when sealed with a key this host lacks
    request = original if original is not None else record.request
    store = _open_live_store(record.store_path)
    try:
        # the criteria revisions the answer was made with, checked and pinned (none recorded: none used)
        pinned = pin(recorded_revisions(record.settings), store, opened.store)
        # a replay recomputes the answer whatever the load; an answer whose budget ran out is recomputed
        # running out at the same stage (when is timing, an input recorded with it, not a rule)
        cut = recorded_cut(record.response.get("reasons") or []) if record.kind == "determination" else None
        engine = Engine(opened, log=False, policy=recorded_policy(record.settings), authored=pinned.revisions,
                        deadline_s=None, replay_cut=cut)
        again: Answer
        if record.kind == "determination":
            again = engine.determine(request)
        elif record.kind == "search":
            again = engine.search(request)
        else:  # pragma: no cover - only these two kinds are logged
            raise ValueError(f"cannot replay a {record.kind}")
        recomputed = {k: v for k, v in again.as_json().items() if k not in VOLATILE}
        recorded = {k: v for k, v in record.response.items() if k not in VOLATILE}
        differences = sorted(k for k in set(recomputed) | set(recorded) if recomputed.get(k) != recorded.get(k))

        checks: dict[str, list[Any]] = {"tampered_clauses": [], "tampered_versions": [], "closed_since": []}
        if store is not None:
            try:
                checks = store_checks(record, corpus, store)
            except ClauseguardError:
                checks["tampered_versions"] = sorted(record.version_seals)  # a store that no longer reads: no match
    finally:
        if store is not None:
            store.close()
    return {
        "assertion_id": assertion_id,
        "kind": record.kind,
        "corpus_fingerprint": record.corpus_fingerprint,
        "recorded_at": record.recorded_at,
        "request_source": "sealed original" if original is not None else "redacted",
        "deadline_cut": None if cut is None else {"after": cut[0], "budget_s": cut[1]},
        "match": (not differences and not checks["tampered_clauses"] and not checks["tampered_versions"]
                  and not pinned.tampered and not pinned.missing),
        "differences": differences,
        **checks,
        "tampered_revisions": pinned.tampered,
        "missing_revisions": pinned.missing,
    }
