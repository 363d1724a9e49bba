"""What was recorded, read back for people: the audit log's rows and the JSONL traces.

Read-only: it opens the audit log and the trace file the engine writes under CLAUSEGUARD_HOME and
never appends, repairs or rewrites either. Both already hold only redacted text.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

from clauseguard.errors import NotFoundError, RequestError
from clauseguard.responses import AuditEntry, TraceView

AUDIT_FILE: Final = "audit.sqlite"
TRACE_FILE: Final = "traces.jsonl"
KINDS: Final = ("determination", "search")
MAX_LIMIT: Final = 10_000


def _entry(record: Any, finals: dict[str, str]) -> AuditEntry:
    response = record.response
    return AuditEntry(
        seq=record.seq, recorded_at=record.recorded_at, kind=record.kind, assertion_id=record.assertion_id,
        trace_id=record.trace_id, corpus_fingerprint=record.corpus_fingerprint, gate=response.get("gate"),
        outcome=response.get("outcome"), status=response.get("status"), final_outcome=finals.get(record.assertion_id),
    )


def audit_entries(home: Path, *, limit: int = 20, kind: str | None = None) -> list[AuditEntry]:
    """The latest audit rows, newest first, each with the latest final decision recorded against it."""
    if not 1 <= limit <= MAX_LIMIT:
        raise RequestError("limit", f"{limit} is out of range; give a number from 1 to {MAX_LIMIT}")
    if kind is not None and kind not in KINDS:
        raise RequestError("kind", f"{kind!r} is not a kind of record; use one of {', '.join(KINDS)}")
    path = home / AUDIT_FILE
    if not path.exists():
        return []
    from clauseguard.decisions import DecisionLog

    with DecisionLog(path) as decisions:
        finals = decisions.final_outcomes()
        records = decisions.audit.entries(limit=limit, kind=kind)
    return [_entry(r, finals) for r in records]


def trace(home: Path, ident: str) -> TraceView:
    """Every trace line recorded for a trace or assertion id, and its audit row (NotFoundError if none)."""
    lines: list[dict[str, Any]] = []
    trace_path = home / TRACE_FILE
    if trace_path.exists():
        with trace_path.open(encoding="utf-8", errors="replace") as handle:
            for line in handle:
                if ident not in line:  # cheap filter before parsing
                    continue
                try:
                    data = json.loads(line)
                except json.JSONDecodeError:
                    continue  # a line cut short by a crash is not a trace
                if ident in (data.get("trace_id"), data.get("assertion_id")):
                    lines.append(data)
    audit = None
    if (home / AUDIT_FILE).exists():
        from clauseguard.decisions import DecisionLog

        with DecisionLog(home / AUDIT_FILE) as decisions:
            try:
                record = decisions.audit.get(ident)
            except NotFoundError:
                record = None
            if record is None:
                found = decisions.audit.entries(limit=1, trace_id=ident)
                record = found[0] if found else None
            if record is not None:
                audit = _entry(record, decisions.final_outcomes())
    if not lines and audit is None:
        raise NotFoundError("trace or assertion", ident,
                            "ids are printed under every answer (assertion as-..., trace tr-...); "
                            "`clauseguard audit list` shows the latest")
    return TraceView(id=ident, traces=lines, audit=audit)
