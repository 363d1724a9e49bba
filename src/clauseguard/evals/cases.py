"""Case files: determination cases (the external suite's format) and search cases (the design's format).

It owns reading `{"description": ..., "cases": [...]}` files, telling the two kinds apart per file,
splitting each case into the request the engine sees and the answer key it never sees, and the
case-set hash. A malformed file is a CaseFileError naming the file, the case and the field; it never
judges a label against the corpus (that is `validate.py`).
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Final, Literal

from clauseguard import packed
from clauseguard.errors import RequestError
from clauseguard.requests import STRUCTURED_FIELDS, DeterminationRequest, SearchRequest, parse_request

DETERMINATION_INPUTS: Final = (
    "payer_id",
    "plan_id",
    "procedure_codes",
    "diagnosis_codes",
    "as_of_date",
    "narrative",
    "question",
    # the optional structured facts of a prior-authorization form (design: determination request)
    *STRUCTURED_FIELDS,
)
SEARCH_INPUTS: Final = ("contract_id", "payer_id", "plan_id", "effective_date", "question", "threshold", "k")

OUTCOMES: Final = ("COVERED", "NOT_COVERED", "INSUFFICIENT_EVIDENCE")
GATES: Final = ("DETERMINE", "REVIEW", "REFUSE", "HALT")
SEARCH_STATUSES: Final = ("answered", "refused", "error")
ACTIONS: Final = ("none", "escalate to handler")

CaseKind = Literal["determination", "search"]


class CaseFileError(RequestError):
    """A case file that cannot be read as a suite: names the file, the case and the field (exit 2)."""


@dataclass(frozen=True)
class DeterminationCase:
    """One structured case: the request fields the engine sees (the seven, and any structured facts a
    prior-authorization form gives), and the answer key it never sees."""

    kind: ClassVar[CaseKind] = "determination"

    case_id: str
    trap: str
    request: Mapping[str, Any]  # only the input fields the file gives, as written
    expected_outcome: str
    expected_gate: str
    gold_clause_ids: tuple[str, ...]
    rationale: str = ""
    file: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)  # unknown fields: kept, never used

    def engine_request(self) -> dict[str, Any]:
        """A fresh copy of the request, so an engine that mutates it cannot change the suite."""
        return copy.deepcopy(dict(self.request))


@dataclass(frozen=True)
class SearchCase:
    """One question over a contract's (or a plan's) terms, and what its answer must and must not hold."""

    kind: ClassVar[CaseKind] = "search"

    case_id: str
    trap: str
    request: Mapping[str, Any]
    expected_status: str
    expected_applicable_version: str | None
    must_include_clause_ids: tuple[str, ...]
    must_exclude_clause_ids: tuple[str, ...]
    expected_action: str | None
    expected_reason: str | None = None
    rationale: str = ""
    file: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)
    # {part as written in the question (or "*" for a one-part question): value each answered part must state}
    expected_values: Mapping[str, str] = field(default_factory=dict)

    def engine_request(self) -> dict[str, Any]:
        return copy.deepcopy(dict(self.request))


Case = DeterminationCase | SearchCase


@dataclass(frozen=True)
class CaseFile:
    """One file of one kind of case."""

    path: str
    kind: CaseKind
    description: str
    cases: tuple[Case, ...]


@dataclass(frozen=True)
class Suite:
    """The cases of every file given to one run, in file order."""

    files: tuple[CaseFile, ...]

    @property
    def cases(self) -> tuple[Case, ...]:
        return tuple(c for f in self.files for c in f.cases)

    @property
    def determinations(self) -> tuple[DeterminationCase, ...]:
        return tuple(c for c in self.cases if isinstance(c, DeterminationCase))

    @property
    def searches(self) -> tuple[SearchCase, ...]:
        return tuple(c for c in self.cases if isinstance(c, SearchCase))

    @property
    def count(self) -> int:
        return len(self.cases)

    @property
    def hash(self) -> str:
        return case_set_hash(self.cases)


def case_set_hash(cases: Iterable[Case]) -> str:
    """sha256 over the case ids in sorted order, each with its input fields (never the answer key)."""
    rows = [[c.case_id, dict(c.request)] for c in sorted(cases, key=lambda c: c.case_id)]
    text = json.dumps(rows, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


# --- reading -----------------------------------------------------------------------------------


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"key {key!r} appears twice in one object")
        out[key] = value
    return out


def _read_json(path: Path) -> Any:
    where = str(path)
    if not path.is_file():
        raise CaseFileError(where, "no such case file")
    try:
        text = packed.read_text(path)
    except (OSError, UnicodeDecodeError, ValueError, EOFError) as exc:
        raise CaseFileError(where, f"cannot be read: {exc}") from exc
    try:
        return json.loads(text, object_pairs_hook=_no_duplicate_keys)
    except json.JSONDecodeError as exc:
        raise CaseFileError(where, f"not valid JSON at line {exc.lineno}: {exc.msg}") from exc
    except ValueError as exc:
        raise CaseFileError(where, f"not a usable case file: {exc}") from exc


class _CaseReader:
    """Typed access to one case's fields; every complaint names the file, the case and the field."""

    def __init__(self, file: str, index: int, raw: Mapping[str, Any]) -> None:
        self.file = file
        self.index = index
        self.raw = raw
        ident = raw.get("case_id")
        self.label = f"case {ident!r} (cases[{index}])" if isinstance(ident, str) else f"cases[{index}]"

    def fail(self, key: str, message: str) -> CaseFileError:
        return CaseFileError(f"{self.file}: {self.label}.{key}", message)

    def text(self, key: str, *, required: bool = False, default: str = "") -> str:
        if key not in self.raw:
            if required:
                raise self.fail(key, "required")
            return default
        value = self.raw[key]
        if not isinstance(value, str):
            raise self.fail(key, f"must be text (got {value!r})")
        return value

    def optional_text(self, key: str) -> str | None:
        value = self.raw.get(key)
        if value is None:
            return None
        if not isinstance(value, str):
            raise self.fail(key, f"must be text or null (got {value!r})")
        return value

    def choice(self, key: str, valid: Sequence[str], *, required: bool = True) -> str | None:
        value = self.raw.get(key)
        if value is None and not required:
            return None
        if key not in self.raw:
            raise self.fail(key, f"required; one of {', '.join(valid)}")
        if value not in valid:
            raise self.fail(key, f"{value!r} is not valid; one of {', '.join(valid)}")
        return str(value)

    def ids(self, key: str) -> tuple[str, ...]:
        value = self.raw.get(key)
        if value is None:
            return ()
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise self.fail(key, f"must be a list of clause ids (got {value!r})")
        return tuple(value)

    def values(self, key: str) -> dict[str, str]:
        value = self.raw.get(key)
        if value is None:
            return {}
        if not isinstance(value, dict) or not all(isinstance(k, str) and k.strip() and isinstance(v, str) and v.strip()
                                                  for k, v in value.items()):
            raise self.fail(key, f"must map each part (or \"*\") to a value as text, e.g. {{\"annual cap\": \"EUR 1,500\"}} (got {value!r})")
        return dict(value)

    def request(self, inputs: Sequence[str]) -> dict[str, Any]:
        return {key: copy.deepcopy(self.raw[key]) for key in inputs if key in self.raw}

    def unknown_fields(self, known: Iterable[str]) -> dict[str, Any]:
        known_set = set(known)
        return {k: v for k, v in self.raw.items() if k not in known_set}

    def check_request(self, model: type[DeterminationRequest] | type[SearchRequest], request: dict[str, Any]) -> None:
        try:
            parse_request(model, request)
        except RequestError as exc:
            message = str(exc).removeprefix(f"{exc.field}: ")
            raise self.fail(exc.field, message) from exc


_DETERMINATION_KEYS: Final = (
    "case_id",
    "trap",
    *DETERMINATION_INPUTS,
    "expected_outcome",
    "expected_gate",
    "gold_clause_ids",
    "rationale",
)
_SEARCH_KEYS: Final = (
    "case_id",
    "trap",
    *SEARCH_INPUTS,
    "expected_status",
    "expected_applicable_version",
    "must_include_clause_ids",
    "must_exclude_clause_ids",
    "expected_action",
    "expected_reason",
    "expected_values",
    "rationale",
)


def _determination(reader: _CaseReader) -> DeterminationCase:
    request = reader.request(DETERMINATION_INPUTS)
    # Types are the file's business (a wrong type cannot be labelled); values are preflight's.
    reader.check_request(DeterminationRequest, request)
    return DeterminationCase(
        case_id=reader.text("case_id", required=True),
        trap=reader.text("trap"),
        request=request,
        expected_outcome=str(reader.choice("expected_outcome", OUTCOMES)),
        expected_gate=str(reader.choice("expected_gate", GATES)),
        gold_clause_ids=reader.ids("gold_clause_ids"),
        rationale=reader.text("rationale"),
        file=reader.file,
        extra=reader.unknown_fields(_DETERMINATION_KEYS),
    )


def _search(reader: _CaseReader) -> SearchCase:
    request = reader.request(SEARCH_INPUTS)
    status = str(reader.choice("expected_status", SEARCH_STATUSES))
    version: str | None = None
    action: str | None = None
    if status != "error":
        # An expected error may come from a request that is not well-formed; anything else must parse.
        reader.check_request(SearchRequest, request)
        if "expected_applicable_version" not in reader.raw:
            raise reader.fail("expected_applicable_version", "required for an answered or refused case (null when no version covers the date)")
        version = reader.optional_text("expected_applicable_version")
        action = reader.choice("expected_action", ACTIONS)
    else:
        version = reader.optional_text("expected_applicable_version")
        action = reader.choice("expected_action", ACTIONS, required=False)
    return SearchCase(
        case_id=reader.text("case_id", required=True),
        trap=reader.text("trap"),
        request=request,
        expected_status=status,
        expected_applicable_version=version,
        must_include_clause_ids=reader.ids("must_include_clause_ids"),
        must_exclude_clause_ids=reader.ids("must_exclude_clause_ids"),
        expected_action=action,
        expected_reason=reader.optional_text("expected_reason"),
        rationale=reader.text("rationale"),
        file=reader.file,
        extra=reader.unknown_fields(_SEARCH_KEYS),
        expected_values=reader.values("expected_values"),
    )


def _kind_of(file: str, cases: list[Any]) -> CaseKind:
    """A file's kind from its cases' answer keys: `expected_gate` (determination) or `expected_status` (search)."""
    determination = any(isinstance(c, dict) and "expected_gate" in c for c in cases)
    search = any(isinstance(c, dict) and "expected_status" in c for c in cases)
    if determination and search:
        raise CaseFileError(file, "mixes determination cases (expected_gate) and search cases (expected_status); a file holds one kind")
    if determination:
        return "determination"
    if search:
        return "search"
    raise CaseFileError(file, "no case has expected_gate (determination) or expected_status (search); cannot tell the kind")


def parse_case_file(file: str, data: Any) -> CaseFile:
    """A suite file's data as cases of one kind, or CaseFileError naming the file, case and field."""
    if not isinstance(data, dict):
        raise CaseFileError(file, 'a case file is a JSON object {"description": ..., "cases": [...]}')
    cases = data.get("cases")
    if not isinstance(cases, list) or not cases:
        raise CaseFileError(f"{file}: cases", "required: a non-empty list of cases")
    description = data.get("description", "")
    if not isinstance(description, str):
        raise CaseFileError(f"{file}: description", f"must be text (got {description!r})")
    kind = _kind_of(file, cases)
    parsed: list[Case] = []
    seen: dict[str, int] = {}
    for i, raw in enumerate(cases):
        if not isinstance(raw, dict):
            raise CaseFileError(f"{file}: cases[{i}]", f"must be an object (got {type(raw).__name__})")
        reader = _CaseReader(file, i, raw)
        case: Case = _determination(reader) if kind == "determination" else _search(reader)
        if not case.case_id.strip():
            raise reader.fail("case_id", "must not be blank")
        if case.case_id in seen:
            raise reader.fail("case_id", f"{case.case_id!r} is already used by cases[{seen[case.case_id]}]")
        seen[case.case_id] = i
        parsed.append(case)
    return CaseFile(path=file, kind=kind, description=description, cases=tuple(parsed))


def load_case_file(path: Path | str) -> CaseFile:
    """Read one case file (JSON)."""
    return parse_case_file(str(path), _read_json(Path(path)))


def load_suite(paths: Sequence[Path | str]) -> Suite:
    """Every case file of one run; a case id used in two files is an error (the hash keys on ids)."""
    if not paths:
        raise CaseFileError("CASES_FILE", "give at least one case file")
    files = tuple(load_case_file(p) for p in paths)
    owner: dict[str, str] = {}
    for f in files:
        for c in f.cases:
            if c.case_id in owner:
                raise CaseFileError(f"{f.path}: case {c.case_id!r}.case_id", f"already used in {owner[c.case_id]}")
            owner[c.case_id] = f.path
    return Suite(files=files)
