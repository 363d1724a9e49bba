"""Importer for the external "mkrafa" coverage-determination corpus (its own JSON shape) into v1.

It owns the key mapping from that format to the corpus model and refuses what it does not know,
naming the key path as written in the source file. It never keys a rule on that corpus's ids or
sentences, and it never carries free-text notes into the corpus (they are not policy text).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, TypeVar

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from clauseguard.corpus.loader import format_loc
from clauseguard.corpus.model import FORMAT_V1, Clause, Code, Corpus, Document, Payer, Plan, Version
from clauseguard.errors import CorpusError, Problem

DOCUMENT_KINDS: Final[dict[str, str]] = {
    "medical_policy_bulletin": "medical_policy",
    "provider_faq": "faq",
}
RIDER_VERSION: Final = "v1"  # that format's riders carry one period and no version label

# A clause's kind read from its section heading as written (case and spacing ignored). General
# headings only: a heading not listed here leaves the kind unset rather than guessed.
SECTION_KINDS: Final[dict[str, str]] = {
    "scope": "scope",
    "coverage criteria": "criteria",
    "criteria": "criteria",
    "limitations": "limit",
    "limits": "limit",
    "exclusions": "exclusion",
    "waiting period": "waiting_period",
    "waiting periods": "waiting_period",
    "definitions": "definition",
    "documentation requirements": "documents",
}


def clause_kind(section: str) -> str | None:
    """The kind a general section heading implies ("Coverage Criteria" -> criteria), else None."""
    return SECTION_KINDS.get(" ".join(section.split()).casefold())


@dataclass(frozen=True)
class _Shape:
    """The keys one record of that format may carry; `lists` are the keys holding a list."""

    what: str
    required: tuple[str, ...]
    optional: tuple[str, ...] = ()
    lists: Mapping[str, _Shape | None] = field(default_factory=dict)

    @property
    def keys(self) -> tuple[str, ...]:
        return self.required + self.optional


_CLAUSE = _Shape("clause", ("clause_id", "section", "text"))
_VERSION = _Shape(
    "version", ("version", "effective_start", "clauses"), ("effective_end",), {"clauses": _CLAUSE}
)
_POLICY = _Shape(
    "policy",
    ("policy_id", "payer_id", "title", "doc_type", "versions"),
    ("codes", "notes"),  # notes: the generator's own annotations, read and dropped
    {"versions": _VERSION, "codes": None},
)
_RIDER = _Shape(
    "rider",
    ("rider_id", "payer_id", "plan_id", "title", "effective_start", "clauses"),
    ("effective_end", "overrides_policy_ids"),
    {"clauses": _CLAUSE, "overrides_policy_ids": None},
)
_PAYER = _Shape("payer", ("payer_id", "name"))
_PLAN = _Shape("plan", ("plan_id", "payer_id", "name"), ("rider_ids",), {"rider_ids": None})
_CODE = _Shape("code", ("code", "system"), ("descriptor",))
# The flattened copy repeats each clause with where it sits; only a cross-check reads it.
_FLAT_CLAUSE = _Shape(
    "flattened clause",
    ("clause_id", "section", "text"),
    (
        "policy_id",
        "policy_title",
        "doc_type",
        "payer_id",
        "plan_id",
        "version",
        "effective_start",
        "effective_end",
        "codes",
        "source",
        "overrides_policy_ids",
    ),
)
_CORPUS = _Shape(
    "corpus",
    ("payers", "policies"),
    ("plans", "riders", "clauses", "codes"),
    {
        "payers": _PAYER,
        "plans": _PLAN,
        "policies": _POLICY,
        "riders": _RIDER,
        "clauses": _FLAT_CLAUSE,
        "codes": _CODE,
    },
)


def detect(data: Any) -> bool:
    """That format: an object with `payers` and `policies` and no v1 `format` key."""
    return isinstance(data, dict) and "format" not in data and {"payers", "policies"} <= data.keys()


def import_corpus(file: str, data: Any) -> Corpus:
    """That format's corpus as a v1 record (not yet cross-checked), or CorpusError naming each bad path."""
    reader = _Reader(file)
    reader.check_shape(data, _CORPUS, "")
    reader.raise_problems()
    corpus = reader.build(data)
    reader.raise_problems()
    reader.check_flattened(data.get("clauses"))
    reader.raise_problems()
    return corpus


R = TypeVar("R", bound=BaseModel)


@dataclass(frozen=True)
class _One:
    """A scalar the model holds as a one-element list (a rider's single `plan_id`)."""

    value: Any


@dataclass(frozen=True)
class _Placed:
    """A clause as built, with where it was written and which document version holds it."""

    path: str
    clause: Clause
    document: str
    version: str


def _join(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def _shown(value: Any, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _message(err: ErrorDetails) -> str:
    if err["type"] == "value_error" and "ctx" in err:
        return str(err["ctx"]["error"])
    if err["type"] == "missing":
        return "required key is missing"
    return f"{err['msg']} (got {err.get('input')!r})"


class _Reader:
    """One import: checks the shape, builds the records, then cross-checks the flattened copy."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.problems: list[Problem] = []
        self.placed: list[_Placed] = []

    def problem(self, path: str, message: str) -> None:
        self.problems.append(Problem(self.file, path, message))

    def raise_problems(self) -> None:
        if self.problems:
            raise CorpusError(self.problems)

    # -- shape: every key known, every required key present, lists are lists -------------------

    def check_shape(self, data: Any, shape: _Shape, where: str) -> None:
        if not isinstance(data, dict):
            self.problem(
                where,
                f"expected a {shape.what} object with keys {', '.join(shape.keys)}; got {type(data).__name__}",
            )
            return
        for key in data:
            if key not in shape.keys:
                self.problem(_join(where, str(key)), f"unknown key {key!r}; valid keys here: {', '.join(shape.keys)}")
        for key in shape.required:
            if key not in data:
                self.problem(_join(where, key), "required key is missing")
        for key, item_shape in shape.lists.items():
            value = data.get(key)
            if value is None:  # absent or null: empty (a required one is reported above)
                continue
            if not isinstance(value, list):
                self.problem(_join(where, key), f"expected a list, got {type(value).__name__}")
            elif item_shape is not None:
                for i, item in enumerate(value):
                    self.check_shape(item, item_shape, f"{_join(where, key)}[{i}]")

    # -- building the v1 records --------------------------------------------------------------

    def record(self, cls: type[R], where: str, fields: dict[str, tuple[str | None, Any]]) -> R | None:
        """Validate one v1 record; errors name the source key each model field was read from."""
        values = {
            name: [value.value] if isinstance(value, _One) else value for name, (_, value) in fields.items()
        }
        try:
            return cls.model_validate(values)
        except ValidationError as exc:
            for err in exc.errors(include_url=False):
                loc = tuple(err["loc"])
                path = where
                if loc and loc[0] in fields:
                    source, value = fields[str(loc[0])]
                    rest = () if isinstance(value, _One) else loc[1:]
                    path = _join(where, format_loc((source, *rest))) if source else where
                self.problem(path, _message(err))
            return None

    def build(self, data: dict[str, Any]) -> Corpus:
        payers = [self.payer(f"payers[{i}]", raw) for i, raw in enumerate(data["payers"] or [])]
        plans = [self.plan(f"plans[{i}]", raw) for i, raw in enumerate(data.get("plans") or [])]
        codes = [self.code(f"codes[{i}]", raw) for i, raw in enumerate(data.get("codes") or [])]
        documents = [self.policy(f"policies[{i}]", raw) for i, raw in enumerate(data["policies"] or [])]
        documents += [self.rider(f"riders[{i}]", raw) for i, raw in enumerate(data.get("riders") or [])]
        return Corpus(
            format=FORMAT_V1,
            payers=tuple(p for p in payers if p is not None),
            plans=tuple(p for p in plans if p is not None),
            codes=tuple(c for c in codes if c is not None),
            documents=tuple(d for d in documents if d is not None),
        )

    def payer(self, where: str, raw: dict[str, Any]) -> Payer | None:
        return self.record(Payer, where, {"id": ("payer_id", raw["payer_id"]), "name": ("name", raw["name"])})

    def plan(self, where: str, raw: dict[str, Any]) -> Plan | None:
        return self.record(
            Plan,
            where,
            {
                "id": ("plan_id", raw["plan_id"]),
                "payer": ("payer_id", raw["payer_id"]),
                "name": ("name", raw["name"]),
                "riders": ("rider_ids", raw.get("rider_ids")),
            },
        )

    def code(self, where: str, raw: dict[str, Any]) -> Code | None:
        return self.record(
            Code,
            where,
            {
                "code": ("code", raw["code"]),
                "system": ("system", raw["system"]),
                "descriptor": ("descriptor", raw.get("descriptor") or ""),
            },
        )

    def clauses(self, where: str, raws: list[Any] | None) -> list[Clause] | None:
        built = [self.clause(f"{where}[{j}]", raw) for j, raw in enumerate(raws or [])]
        return [c for c in built if c is not None] if all(c is not None for c in built) else None

    def clause(self, where: str, raw: dict[str, Any]) -> Clause | None:
        section = raw["section"]
        return self.record(
            Clause,
            where,
            {
                "id": ("clause_id", raw["clause_id"]),
                "section": ("section", section),
                "text": ("text", raw["text"]),
                "kind": ("section", clause_kind(section) if isinstance(section, str) else None),
            },
        )

    def place(self, where: str, clauses_where: str, document: Document | None) -> None:
        """Remember where each built clause was written, for the flattened-copy check."""
        if document is None:
            return
        for i, version in enumerate(document.versions):
            prefix = clauses_where.format(i=i)
            for j, c in enumerate(version.clauses):
                self.placed.append(_Placed(f"{where}.{prefix}[{j}]", c, document.id, version.version))

    def policy(self, where: str, raw: dict[str, Any]) -> Document | None:
        doc_type = raw["doc_type"]
        kind = DOCUMENT_KINDS.get(doc_type) if isinstance(doc_type, str) else None
        if kind is None:
            self.problem(
                f"{where}.doc_type",
                f"unknown doc_type {doc_type!r}; valid values: {', '.join(DOCUMENT_KINDS)}",
            )
        versions = [self.version(f"{where}.versions[{j}]", v) for j, v in enumerate(raw["versions"] or [])]
        if kind is None or any(v is None for v in versions):
            return None
        document = self.record(
            Document,
            where,
            {
                "id": ("policy_id", raw["policy_id"]),
                "payer": ("payer_id", raw["payer_id"]),
                "kind": ("doc_type", kind),
                "title": ("title", raw["title"]),
                "codes": ("codes", raw.get("codes")),
                "plans": (None, ()),  # a policy applies to every plan of its payer
                "versions": ("versions", versions),
            },
        )
        self.place(where, "versions[{i}].clauses", document)
        return document

    def version(self, where: str, raw: dict[str, Any]) -> Version | None:
        clauses = self.clauses(f"{where}.clauses", raw["clauses"])
        if clauses is None:
            return None
        return self.record(
            Version,
            where,
            {
                "version": ("version", raw["version"]),
                "effective_start": ("effective_start", raw["effective_start"]),
                "effective_end": ("effective_end", raw.get("effective_end")),
                "clauses": ("clauses", clauses),
            },
        )

    def rider(self, where: str, raw: dict[str, Any]) -> Document | None:
        clauses = self.clauses(f"{where}.clauses", raw["clauses"])
        if clauses is None:
            return None
        version = self.record(
            Version,
            where,
            {
                "version": (None, RIDER_VERSION),
                "effective_start": ("effective_start", raw["effective_start"]),
                "effective_end": ("effective_end", raw.get("effective_end")),
                "clauses": ("clauses", clauses),
            },
        )
        if version is None:
            return None
        document = self.record(
            Document,
            where,
            {
                "id": ("rider_id", raw["rider_id"]),
                "payer": ("payer_id", raw["payer_id"]),
                "kind": (None, "rider"),
                "title": ("title", raw["title"]),
                "plans": ("plan_id", _One(raw["plan_id"])),
                "overrides": ("overrides_policy_ids", raw.get("overrides_policy_ids")),
                "versions": (None, [version]),
            },
        )
        self.place(where, "clauses", document)
        return document

    # -- the flattened copy must agree with the clauses it copies ------------------------------

    def check_flattened(self, flat: list[dict[str, Any]] | None) -> None:
        """Same clause ids, and for each the same text, section, document and version."""
        if flat is None:
            return
        by_id = {p.clause.id: p for p in self.placed}
        seen: dict[str, str] = {}
        for i, raw in enumerate(flat):
            where = f"clauses[{i}]"
            ident = raw["clause_id"]
            if not isinstance(ident, str):
                self.problem(f"{where}.clause_id", f"expected text, got {type(ident).__name__}")
                continue
            if ident in seen:
                self.problem(f"{where}.clause_id", f"clause {ident!r} is already listed at {seen[ident]}")
                continue
            seen[ident] = where
            placed = by_id.get(ident)
            if placed is None:
                self.problem(
                    f"{where}.clause_id",
                    f"clause {ident!r} of the flattened clauses list is in no policy or rider; "
                    "the list must copy the clauses of policies and riders",
                )
                continue
            expected = {
                "text": placed.clause.text,
                "section": placed.clause.section,
                "policy_id": placed.document,
                "version": placed.version,
            }
            for key, value in expected.items():
                if key in raw and raw[key] != value:
                    self.problem(
                        f"{where}.{key}",
                        f"the flattened copy of clause {ident!r} disagrees with {placed.path}: "
                        f"{_shown(raw[key])} here, {_shown(value)} there",
                    )
        for placed in self.placed:
            if placed.clause.id not in seen:
                self.problem(
                    "clauses",
                    f"clause {placed.clause.id!r} ({placed.path}) is missing from the flattened clauses list",
                )
