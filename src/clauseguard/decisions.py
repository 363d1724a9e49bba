"""A person's final decision on an assertion, and how often people agree with the engine.

Decisions live in their own append-only table of the audit database (migration
`d001_20261201_final_decisions`; triggers refuse UPDATE and DELETE). A later decision on the same
assertion supersedes the earlier one in the report and never rewrites it. Nothing here changes an
answer or the audit row it is recorded against; the free-text reason is redacted before it is stored.
"""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final, get_args

from clauseguard.corpus.migrations import migrate, refuse_update_delete
from clauseguard.errors import RequestError
from clauseguard.responses import DecisionReport, FinalDecision, Outcome, RateRow

OUTCOMES: Final[tuple[str, ...]] = get_args(Outcome)
MAX_TEXT: Final = 2000

# Kept in its own module and numbered apart from the audit log's own migrations (`a...`), so that the
# storage work and this one each append their entries without renumbering the other's.
DECISION_MIGRATIONS: Final[list[tuple[str, str]]] = [
    (
        "d001_20261201_final_decisions",
        """
CREATE TABLE final_decisions (
    seq            INTEGER PRIMARY KEY AUTOINCREMENT,
    assertion_id   TEXT NOT NULL,
    final_outcome  TEXT NOT NULL,
    decided_by     TEXT NOT NULL,
    reason         TEXT NOT NULL,
    engine_gate    TEXT NOT NULL,
    engine_outcome TEXT NOT NULL,
    documents      TEXT NOT NULL,
    reason_codes   TEXT NOT NULL,
    recorded_at    TEXT NOT NULL
);
CREATE INDEX final_decisions_assertion ON final_decisions (assertion_id, seq);
"""
        + refuse_update_delete("final_decisions", "the decision log"),
    ),
]

_COLUMNS: Final = ("seq, assertion_id, final_outcome, decided_by, reason, engine_gate, engine_outcome, "
                   "documents, reason_codes, recorded_at")


def _text(field: str, value: str, what: str) -> str:
    cleaned = " ".join(value.split())
    if not cleaned:
        raise RequestError(field, f"give {what}; it must not be blank")
    if len(cleaned) > MAX_TEXT:
        raise RequestError(field, f"is {len(cleaned)} characters long; keep it under {MAX_TEXT}")
    if any(ord(ch) < 32 or 0xD800 <= ord(ch) <= 0xDFFF for ch in cleaned):
        raise RequestError(field, "holds control characters or unpaired surrogates; send plain text")
    return cleaned


def documents_of(response: Mapping[str, Any]) -> list[str]:
    """The documents an answer rests on: those of its citations, else of the clauses it read."""
    by_clause = {r["clause_id"]: r["document_id"] for r in response.get("retrieved", []) if "document_id" in r}
    cited = sorted({by_clause[c["clause_id"]] for c in response.get("citations", []) if c["clause_id"] in by_clause})
    return cited or sorted(set(by_clause.values()))


class DecisionLog:
    """The final decisions recorded in one audit database."""

    def __init__(self, audit_path: Path, clock: Callable[[], datetime] | None = None) -> None:
        from clauseguard.audit import (  # the audit log names this module's migration
            AUDIT_MIGRATIONS,
            AuditLog,
        )

        self.audit_path = audit_path
        self._clock = clock or (lambda: datetime.now(UTC))
        self.audit = AuditLog(audit_path, clock=self._clock)
        self._conn = sqlite3.connect(str(audit_path), isolation_level=None, timeout=30)
        migrate(self._conn, self._clock, AUDIT_MIGRATIONS)

    def close(self) -> None:
        self._conn.close()
        self.audit.close()

    def __enter__(self) -> DecisionLog:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def record(self, assertion_id: str, final_outcome: str, decided_by: str, reason: str) -> FinalDecision:
        """Append a person's final decision against a recorded determination (NotFoundError if unknown)."""
        from clauseguard.preflight import redact

        outcome = final_outcome.strip().upper().replace(" ", "_").replace("-", "_")
        if outcome not in OUTCOMES:
            raise RequestError("final_outcome", f"{final_outcome!r} is not an outcome; use one of {', '.join(OUTCOMES)}")
        who = _text("decided_by", decided_by, "the name or id of the person deciding")
        why = redact(_text("reason", reason, "the reason for the decision"))
        record = self.audit.get(assertion_id)
        if record.kind != "determination":
            raise RequestError("assertion_id", f"{assertion_id} is a {record.kind}; a final decision is recorded "
                                               "against a determination's assertion id (as-...)")
        response = record.response
        codes = sorted({r["code"] for r in response.get("reasons", [])})
        now = self._clock().isoformat(timespec="seconds")
        cursor = self._conn.execute(
            "INSERT INTO final_decisions (assertion_id, final_outcome, decided_by, reason, engine_gate, "
            "engine_outcome, documents, reason_codes, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (assertion_id, outcome, who, why, response["gate"], response["outcome"],
             json.dumps(documents_of(response)), json.dumps(codes), now),
        )
        row = self._conn.execute(f"SELECT {_COLUMNS} FROM final_decisions WHERE seq = ?",  # noqa: S608 - fixed columns
                                 (cursor.lastrowid,)).fetchone()
        return _decision(row)

    def latest(self) -> list[tuple[FinalDecision, list[str], list[str]]]:
        """The latest decision on every decided assertion, with its documents and reason codes."""
        rows = self._conn.execute(
            f"SELECT {_COLUMNS} FROM final_decisions WHERE seq IN "  # noqa: S608 - fixed columns
            "(SELECT MAX(seq) FROM final_decisions GROUP BY assertion_id) ORDER BY seq"
        ).fetchall()
        return [(_decision(r), json.loads(r[7]), json.loads(r[8])) for r in rows]

    def final_outcomes(self) -> dict[str, str]:
        """assertion id -> the latest final outcome a person recorded."""
        return {d.assertion_id: d.final_outcome for d, _, _ in self.latest()}

    def report(self) -> DecisionReport:
        """Agreement and override rates over the latest decision per assertion, by gate, document and reason."""
        latest = self.latest()
        by_gate: dict[str, list[bool]] = defaultdict(list)
        by_document: dict[str, list[bool]] = defaultdict(list)
        by_reason: dict[str, list[bool]] = defaultdict(list)
        for decision, documents, codes in latest:
            by_gate[decision.engine_gate].append(decision.agrees)
            for document in documents or ["(no document)"]:
                by_document[document].append(decision.agrees)
            for code in codes or ["(no reason: released on its own)"]:
                by_reason[code].append(decision.agrees)
        agreed = sum(d.agrees for d, _, _ in latest)
        decided = len(latest)
        return DecisionReport(
            decided=decided, agreed=agreed, overridden=decided - agreed,
            agreement_rate=round(agreed / decided, 4) if decided else None,
            override_rate=round((decided - agreed) / decided, 4) if decided else None,
            by_gate=_rows(by_gate.items()), by_document=_rows(by_document.items()), by_reason=_rows(by_reason.items()),
        )


def _decision(row: tuple[Any, ...]) -> FinalDecision:
    return FinalDecision(
        seq=row[0], assertion_id=row[1], final_outcome=row[2], decided_by=row[3], reason=row[4],
        engine_gate=row[5], engine_outcome=row[6], recorded_at=row[9], agrees=row[2] == row[6],
    )


def _rows(groups: Iterable[tuple[str, list[bool]]]) -> list[RateRow]:
    out = []
    for group, agrees in sorted(groups):
        n, ok = len(agrees), sum(agrees)
        out.append(RateRow(group=group, decided=n, agreed=ok, overridden=n - ok,
                           agreement_rate=round(ok / n, 4), override_rate=round((n - ok) / n, 4)))
    return out
