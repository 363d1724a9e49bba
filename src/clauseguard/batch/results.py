"""A batch results file: one JSON line per request line, in input order, keyed by request hash.

While a batch runs, each answer is appended to `RESULTS.partial` (a journal, in completion order)
once it is audited; at the end, or when the batch stops, `RESULTS` is written whole in input order
(atomically) and the journal removed. A rerun reads both and skips every request hash already
answered. Lines hold no timings, so a result is byte-identical to the serial answer.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Any

from clauseguard.batch.requests_file import BadLine, BatchItem

VOLATILE = ("timings",)


def line_text(data: dict[str, Any]) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n"


def stable(answer: dict[str, Any]) -> dict[str, Any]:
    """An answer without its timing fields: what the results file keeps."""
    return {k: v for k, v in answer.items() if k not in VOLATILE}


def journal_path(results: Path) -> Path:
    return results.with_name(results.name + ".partial")


def read_done(results: Path) -> dict[str, dict[str, Any]]:
    """Request hash -> recorded outcome (`response` or `error`) from a results file and its journal.

    A half-written last line (a kill mid-write) is ignored: that request is simply answered again."""
    done: dict[str, dict[str, Any]] = {}
    for path in (results, journal_path(results)):
        if not path.is_file():
            continue
        with path.open(encoding="utf-8") as handle:
            for text in handle:
                try:
                    row = json.loads(text)
                except json.JSONDecodeError:
                    continue
                if isinstance(row, dict) and isinstance(row.get("request_hash"), str) and (
                    "response" in row or "error" in row
                ):
                    done[row["request_hash"]] = {k: row[k] for k in ("kind", "response", "error") if k in row}
    return done


class Journal:
    """The append-only progress file of a running batch."""

    def __init__(self, results: Path) -> None:
        self.path = journal_path(results)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._handle: IO[str] = self.path.open("a", encoding="utf-8")

    def append(self, request_hash: str, outcome: dict[str, Any]) -> None:
        self._handle.write(line_text({"request_hash": request_hash, **outcome}))

    def flush(self) -> None:
        self._handle.flush()
        os.fsync(self._handle.fileno())

    def close(self) -> None:
        self._handle.close()


def write_results(results: Path, entries: Iterable[BatchItem | BadLine], done: dict[str, dict[str, Any]]) -> int:
    """Write the results file whole, in input order: every answered request and every bad line.

    Returns how many requests are answered; the journal is removed once the file is in place."""
    results.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=results.parent, prefix=results.name, suffix=".writing")
    answered = 0
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            for entry in entries:
                if isinstance(entry, BadLine):
                    handle.write(line_text(entry.as_json()))
                    continue
                outcome = done.get(entry.request_hash)
                if outcome is None:
                    continue
                answered += 1
                handle.write(line_text({"line": entry.line, "request_hash": entry.request_hash, "kind": entry.kind,
                                        **{k: v for k, v in outcome.items() if k != "kind"}}))
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, results)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    journal_path(results).unlink(missing_ok=True)
    return answered
