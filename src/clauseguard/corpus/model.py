"""The corpus model: interchange format v1 as frozen, strictly validated records.

It owns the shape of one corpus file (unknown keys are errors, ids stay text) and the
normalised, fingerprinted corpus; cross-references are checked in `validate.py`, never here.
"""

from __future__ import annotations

import hashlib
import json
import re
from datetime import date
from typing import Annotated, Any, Final, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator, model_validator

from clauseguard.corpus.codes import CODE_SYSTEMS, SHAPE_HELP, canonical_system, has_shape
from clauseguard.corpus.criteria import CriteriaError, criteria_from_json, criteria_to_json

FORMAT_V1: Final = "clauseguard.corpus/v1"

DocumentKind = Literal["medical_policy", "policy_terms", "rider", "faq", "schedule_of_benefits"]
DOCUMENT_KINDS: Final[tuple[str, ...]] = (
    "medical_policy",
    "policy_terms",
    "rider",
    "faq",
    "schedule_of_benefits",
)
ClauseKind = Literal[
    "scope", "criteria", "exclusion", "limit", "waiting_period", "documents", "definition", "other"
]
CoverageType = Literal["covered", "not_covered", "conditional", "unknown"]
TermsAnchor = Literal["contract_date", "service_date"]

_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_LATE_OPTIONAL: Final = ("page_end", "page_end_label")  # clause fields added to v1 later: hashed only when given
# Characters that make two ids look equal while differing, or hide text from a reader: NUL and the
# other control characters (tab and line breaks are allowed in text, never in ids), zero-width and
# joiner characters, bidirectional overrides and the byte-order mark.
_INVISIBLE_IN_TEXT = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")
_INVISIBLE_IN_IDS = re.compile("[\x00-\x1f\x7f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")


def _refuse_invisible(value: str, pattern: re.Pattern[str], what: str) -> None:
    found = pattern.search(value)
    if found is not None:
        raise ValueError(
            f"contains the invisible character U+{ord(found.group()):04X} at offset {found.start()}; "
            f"{what} may not hold NUL, control or zero-width characters: remove it"
        )


def _as_text(value: Any) -> Any:
    """Text stays text: a number or bool where text is expected is refused with a way out."""
    if isinstance(value, (bool, int, float)):
        raise ValueError(
            f"{json.dumps(value)} is read as a {type(value).__name__}, not text; quote it "
            f'(write "{value}" if that is what you meant)'
        )
    if isinstance(value, str):
        _refuse_invisible(value, _INVISIBLE_IN_TEXT, "text")
    return value


def _as_ident(value: Any) -> Any:
    """Ids, codes and labels: a JSON integer is kept as its digits (exact); floats and bools are refused."""
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if isinstance(value, str):
        _refuse_invisible(value, _INVISIBLE_IN_IDS, "ids")
    value = _as_text(value)
    if isinstance(value, str) and (not value.strip() or value != value.strip()):
        raise ValueError(f"{value!r} is not a usable id; ids are non-empty text without surrounding spaces")
    return value


def parse_iso_date(value: Any) -> date:
    """ISO `YYYY-MM-DD` only (no timestamps, no other orders, no YAML date coercion), or ValueError
    with a sentence saying what would be valid. Shared by the corpus and by requests."""
    if isinstance(value, date):
        return value
    if isinstance(value, str) and _ISO_DATE.fullmatch(value):
        try:
            return date.fromisoformat(value)
        except ValueError:
            pass
    raise ValueError(f"{value!r} is not a date; write an ISO date YYYY-MM-DD, e.g. 2024-03-15")


def _none_as_empty(value: Any) -> Any:
    return () if value is None else value


Text = Annotated[str, BeforeValidator(_as_text)]
Ident = Annotated[str, BeforeValidator(_as_ident)]
IsoDate = Annotated[date, BeforeValidator(parse_iso_date), Field(json_schema_extra={"format": "date"})]
IdentList = Annotated[tuple[Ident, ...], BeforeValidator(_none_as_empty)]


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=False)


class Payer(_Record):
    id: Ident
    name: Text


class Plan(_Record):
    id: Ident
    payer: Ident
    name: Text
    riders: IdentList = ()


class Contract(_Record):
    """A group contract: its own date can pick the terms (`terms_anchor: contract_date`)."""

    id: Ident
    plan: Ident
    holder: Text = ""
    effective_date: IsoDate
    end_date: IsoDate | None = None
    terms_anchor: TermsAnchor = "service_date"


class Code(_Record):
    code: Ident
    system: Text
    descriptor: Text = ""

    @field_validator("system", mode="before")
    @classmethod
    def _known_system(cls, value: Any) -> Any:
        value = _as_text(value)
        if isinstance(value, str):
            value = canonical_system(value)
            if value not in CODE_SYSTEMS:
                raise ValueError(f"{value!r} is not a code system; use one of {', '.join(CODE_SYSTEMS)}")
        return value

    @model_validator(mode="after")
    def _shaped(self) -> Code:
        if not has_shape(self.code, self.system):
            raise ValueError(
                f"code {self.code!r} does not have the {self.system} shape: {SHAPE_HELP[self.system]}"
            )
        return self


class Source(_Record):
    """Where a version's text came from (file, its sha256, the reader that read it)."""

    file: Text
    sha256: Text = ""
    reader: Text = ""


class Clause(_Record):
    id: Ident
    section: Text
    text: Text
    kind: ClauseKind | None = None
    article: Text | None = None
    page: int | None = Field(default=None, ge=1)
    page_label: Text | None = None
    page_end: int | None = Field(default=None, ge=1)  # the last physical page, when the clause runs over
    page_end_label: Text | None = None  # the label printed on that page
    benefit: Text | None = None
    coverage_type: CoverageType | None = None
    criteria: Any = None  # policy as code (clauseguard.corpus.criteria); published with the corpus schema

    @field_validator("text", "section")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be empty")
        return value

    @model_validator(mode="after")
    def _pages_in_order(self) -> Clause:
        if self.page_end is not None and (self.page is None or self.page_end <= self.page):
            raise ValueError(
                f"page_end {self.page_end} needs a page before it (page is {self.page}); give page_end only for a "
                "clause that runs onto a later page"
            )
        if self.page_end_label is not None and self.page_end is None:
            raise ValueError("page_end_label is the label of page_end; give page_end too, or leave both out")
        return self

    @model_validator(mode="after")
    def _criteria_in_canonical_form(self) -> Clause:
        """Policy-as-code is checked against the criteria schema (spans verbatim in `text`) and kept in
        its canonical JSON form, so the same criteria always fingerprint and export the same way."""
        if self.criteria is not None:
            try:
                canonical = criteria_to_json(criteria_from_json(self.criteria, self.text))
            except CriteriaError as exc:
                raise ValueError(str(exc)) from exc
            object.__setattr__(self, "criteria", canonical)
        return self


class Version(_Record):
    version: Ident
    effective_start: IsoDate
    effective_end: IsoDate | None = None
    source: Source | None = None
    clauses: Annotated[tuple[Clause, ...], BeforeValidator(_none_as_empty)] = ()

    def covers(self, day: date) -> bool:
        """Periods are inclusive at both ends; no end means open-ended."""
        return self.effective_start <= day and (self.effective_end is None or day <= self.effective_end)


class Document(_Record):
    id: Ident
    payer: Ident
    kind: DocumentKind
    title: Text
    codes: IdentList = ()
    plans: IdentList = ()
    overrides: IdentList = ()
    versions: Annotated[tuple[Version, ...], BeforeValidator(_none_as_empty)] = ()


class Corpus(_Record):
    """One corpus file, or several merged; `normalised()` gives the canonical, fingerprinted form."""

    format: Literal["clauseguard.corpus/v1"]
    payers: Annotated[tuple[Payer, ...], BeforeValidator(_none_as_empty)] = ()
    plans: Annotated[tuple[Plan, ...], BeforeValidator(_none_as_empty)] = ()
    contracts: Annotated[tuple[Contract, ...], BeforeValidator(_none_as_empty)] = ()
    codes: Annotated[tuple[Code, ...], BeforeValidator(_none_as_empty)] = ()
    documents: Annotated[tuple[Document, ...], BeforeValidator(_none_as_empty)] = ()

    def normalised(self) -> Corpus:
        """Everything sorted by id (versions by start date; clauses keep the document's order)."""
        docs = tuple(
            d.model_copy(
                update={
                    "codes": tuple(sorted(set(d.codes))),
                    "plans": tuple(sorted(set(d.plans))),
                    "overrides": tuple(sorted(set(d.overrides))),
                    "versions": tuple(sorted(d.versions, key=lambda v: (v.effective_start, v.version))),
                }
            )
            for d in sorted(self.documents, key=lambda d: d.id)
        )
        return Corpus(
            format=FORMAT_V1,
            payers=tuple(sorted(self.payers, key=lambda p: p.id)),
            plans=tuple(
                p.model_copy(update={"riders": tuple(sorted(set(p.riders)))})
                for p in sorted(self.plans, key=lambda p: p.id)
            ),
            contracts=tuple(sorted(self.contracts, key=lambda c: c.id)),
            codes=tuple(sorted(self.codes, key=lambda c: c.code)),
            documents=docs,
        )

    def canonical_json(self) -> str:
        """The normalised corpus as one canonical JSON text (what the fingerprint hashes). The page
        range fields added after v1 shipped are left out when empty, so a corpus without them keeps
        the fingerprint it always had."""
        data = self.normalised().model_dump(mode="json", exclude_none=False)
        for doc in data["documents"]:
            for version in doc["versions"]:
                for clause in version["clauses"]:
                    for key in _LATE_OPTIONAL:
                        if clause.get(key) is None:
                            clause.pop(key, None)
        return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)

    def fingerprint(self) -> str:
        """A stable hash of the normalised model: same corpus, same fingerprint, whatever the files."""
        return "sha256:" + hashlib.sha256(self.canonical_json().encode("utf-8")).hexdigest()


def empty_corpus() -> Corpus:
    return Corpus(format=FORMAT_V1)


def corpus_json_schema() -> dict[str, Any]:
    """The JSON Schema of interchange format v1 (what `clauseguard corpus schema` prints)."""
    schema = Corpus.model_json_schema(mode="validation")
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "clauseguard corpus interchange format v1"
    return schema
