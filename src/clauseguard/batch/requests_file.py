"""A batch requests file: one JSON object a line, each a determination or a search, checked as data.

A line may name its kind (`"kind": "determination" | "search"`); otherwise a line with
`procedure_codes`, `diagnosis_codes`, `as_of_date` or `narrative` is a determination and any other a
search. A malformed line is reported with its line number and the rest are processed. The request
hash (of the kind and the request as parsed) keys results, so a rerun skips what is done. It never
answers a request.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal

from clauseguard.audit import digest
from clauseguard.errors import RequestError
from clauseguard.requests import DeterminationRequest, SearchRequest, parse_request

Kind = Literal["determination", "search"]
KINDS: Final[tuple[str, ...]] = ("determination", "search")
DETERMINATION_FIELDS: Final = ("procedure_codes", "diagnosis_codes", "as_of_date", "narrative")


@dataclass(frozen=True)
class BatchItem:
    """One well-formed request of the file."""

    line: int
    kind: Kind
    request: dict[str, Any]  # as parsed (`model_dump(mode="json")`): what workers answer
    request_hash: str


@dataclass(frozen=True)
class BadLine:
    """A line that is not a well-formed request: its number and what would be valid."""

    line: int
    message: str

    def as_json(self) -> dict[str, Any]:
        return {"line": self.line, "error": self.message}


def request_hash(kind: str, request: dict[str, Any]) -> str:
    return "rq-" + digest({"kind": kind, "request": request}, 32)


def parse_line(number: int, text: str) -> BatchItem | BadLine:
    try:
        data = json.loads(text.strip())
    except (json.JSONDecodeError, RecursionError) as exc:
        where = f" at column {exc.colno}" if isinstance(exc, json.JSONDecodeError) else ""
        return BadLine(number, f"not valid JSON{where}; write one JSON object per line")
    if not isinstance(data, dict):
        return BadLine(number, f"a JSON {type(data).__name__}, not an object; write one JSON object per line")
    data = dict(data)
    kind = data.pop("kind", None)
    if kind is None:
        kind = "determination" if any(f in data for f in DETERMINATION_FIELDS) else "search"
    if kind not in KINDS:
        return BadLine(number, f"kind: {kind!r} is not a batch kind; write \"determination\" or \"search\"")
    try:
        if kind == "determination":
            parsed = parse_request(DeterminationRequest, data).model_dump(mode="json")
        else:
            parsed = parse_request(SearchRequest, data).model_dump(mode="json")
    except RequestError as exc:
        return BadLine(number, str(exc))
    return BatchItem(number, kind, parsed, request_hash(kind, parsed))


def read_requests(path: Path) -> Iterator[BatchItem | BadLine]:
    """Every non-blank line of the file, in order (line numbers count from 1)."""
    with path.open(encoding="utf-8", errors="replace") as handle:
        for number, text in enumerate(handle, start=1):
            if text.strip():
                yield parse_line(number, text)
