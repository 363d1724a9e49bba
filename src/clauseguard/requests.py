"""The request shapes every interface hands to the engine: search, determination, compare, retrieval eval.

It checks that a request is well-formed *as data* (an object, known keys, right types, parseable
search dates) and raises RequestError naming the field. It never judges a determination's values:
an empty payer or a malformed code is preflight's HALT, not an error here.

One vocabulary for every request: `payer_id`, `plan_id`, `contract_id`, `procedure_codes`,
`diagnosis_codes`, `as_of_date`, `question`. On search and retrieval evaluation, `effective_date` is
a documented alias of `as_of_date` (the broker's published call shape), never deprecated; `codes` is
the old name of `procedure_codes` on search, accepted for one release (DEPRECATED_KEYS).
"""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any, Final, TypeVar

from pydantic import (
    AliasChoices,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    model_validator,
)

from clauseguard.corpus.model import parse_iso_date
from clauseguard.errors import RequestError

DEFAULT_THRESHOLD: Final = 0.62
DEFAULT_K: Final = 3
MAX_K: Final = 50

RequestDate = Annotated[date, BeforeValidator(parse_iso_date)]


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


# Old key -> the key of the one vocabulary; accepted for one release, answered with a Deprecation header.
DEPRECATED_KEYS: Final[dict[str, dict[str, str]]] = {"SearchRequest": {"codes": "procedure_codes"}}
# Two names of one field that are both current: never deprecated.
ALIASES: Final[dict[str, str]] = {"effective_date": "as_of_date"}


def _date_alias() -> Any:
    return Field(default=None, strict=False, validation_alias=AliasChoices("as_of_date", "effective_date"),
                 description="YYYY-MM-DD; `effective_date` is the same field under the broker's name")


def _one_of_each_alias(data: Any, pairs: tuple[tuple[str, str], ...]) -> Any:
    if isinstance(data, dict):
        for first, second in pairs:
            if first in data and second in data:
                raise RequestError(second, f"is another name of {first}; give one of them, not both")
    return data


def deprecated_keys(model: type[BaseModel], data: Any) -> list[tuple[str, str]]:
    """The old keys a request used, each with the key to use instead (empty for a current request)."""
    old = DEPRECATED_KEYS.get(model.__name__, {})
    return [(k, old[k]) for k in sorted(old) if isinstance(data, dict) and k in data]


def published_keys(model: type[BaseModel]) -> list[str]:
    """The keys a request of `model` takes, in the one vocabulary (aliases after their field)."""
    keys: list[str] = []
    for name, field in model.model_fields.items():
        alias = field.validation_alias
        choices = [c for c in alias.choices if isinstance(c, str)] if isinstance(alias, AliasChoices) else [name]
        keys.extend(c for c in choices if c not in DEPRECATED_KEYS.get(model.__name__, {}))
    return keys


class SearchRequest(_Request):
    """A question over the terms that govern a contract, or a payer's plan on a date."""

    question: str = Field(min_length=1)
    contract_id: str | None = None
    payer_id: str | None = None
    plan_id: str | None = None
    effective_date: RequestDate | None = _date_alias()
    threshold: float = Field(default=DEFAULT_THRESHOLD, ge=0.0, le=1.0, strict=False)
    k: int = Field(default=DEFAULT_K, ge=1, le=MAX_K)
    # optional: only documents governing these codes are searched (`codes` is the old name)
    codes: tuple[str, ...] = Field(default=(), validation_alias=AliasChoices("procedure_codes", "codes"))

    @model_validator(mode="before")
    @classmethod
    def _codes_as_tuple(cls, data: Any) -> Any:
        data = _one_of_each_alias(data, (("as_of_date", "effective_date"), ("procedure_codes", "codes")))
        if isinstance(data, dict):
            for key in ("codes", "procedure_codes"):
                if isinstance(data.get(key), list):
                    data = {**data, key: tuple(data[key])}
        return data

    @model_validator(mode="after")
    def _one_target(self) -> SearchRequest:
        if self.contract_id is not None:
            if self.payer_id is not None or self.plan_id is not None:
                raise ValueError("give either contract_id, or payer_id + plan_id + as_of_date, not both")
        elif self.payer_id is None or self.plan_id is None or self.effective_date is None:
            raise ValueError("give contract_id (as_of_date optional), or payer_id + plan_id + as_of_date "
                             "(effective_date is the same field as as_of_date)")
        if not self.question.strip():
            raise ValueError("question must not be blank")
        return self


class DeterminationRequest(_Request):
    """The seven input fields of a determination case; values are judged by preflight, not here."""

    payer_id: str = ""
    plan_id: str = ""
    procedure_codes: tuple[str, ...] = ()
    diagnosis_codes: tuple[str, ...] = ()
    as_of_date: str = ""
    narrative: str = ""
    question: str = ""

    @model_validator(mode="before")
    @classmethod
    def _lists_as_tuples(cls, data: Any) -> Any:
        if isinstance(data, dict):
            data = dict(data)
            for key in ("procedure_codes", "diagnosis_codes"):
                if isinstance(data.get(key), list):
                    data[key] = tuple(data[key])
                elif data.get(key) is None and key in data:
                    data[key] = ()
        return data


class CompareRequest(_Request):
    """One question against two targets (document:ID[@VERSION], rider:ID, plan:ID, contract:ID)."""

    question: str = Field(min_length=1)
    a: str = Field(min_length=1)
    b: str = Field(min_length=1)
    as_of_date: Annotated[RequestDate | None, Field(strict=False)] = None
    threshold: float = Field(default=DEFAULT_THRESHOLD, ge=0.0, le=1.0, strict=False)
    k: int = Field(default=DEFAULT_K, ge=1, le=MAX_K)


class RetrievalEvalRequest(_Request):
    """Gold-clause recall for one question: which gold clauses the retriever hands the reader."""

    question: str = Field(min_length=1)
    gold_clause_ids: tuple[str, ...]
    contract_id: str | None = None
    payer_id: str | None = None
    plan_id: str | None = None
    effective_date: RequestDate | None = _date_alias()
    k: int = Field(default=DEFAULT_K, ge=1, le=MAX_K)

    @model_validator(mode="before")
    @classmethod
    def _list_as_tuple(cls, data: Any) -> Any:
        data = _one_of_each_alias(data, (("as_of_date", "effective_date"),))
        if isinstance(data, dict) and isinstance(data.get("gold_clause_ids"), list):
            data = {**data, "gold_clause_ids": tuple(data["gold_clause_ids"])}
        return data

    @model_validator(mode="after")
    def _one_target(self) -> RetrievalEvalRequest:
        if self.contract_id is None and (self.payer_id is None or self.plan_id is None or self.effective_date is None):
            raise ValueError("give contract_id, or payer_id + plan_id + as_of_date")
        return self


class DecisionRequest(_Request):
    """A person's final decision against a determination's assertion id (recorded, append-only)."""

    assertion_id: str = Field(min_length=1)
    final_outcome: str = Field(min_length=1, description="COVERED, NOT_COVERED or INSUFFICIENT_EVIDENCE")
    decided_by: str = Field(min_length=1, description="The name or id of the person deciding")
    reason: str = Field(min_length=1, description="Why; redacted before it is stored")


R = TypeVar("R", bound=_Request)


def _field_of(loc: tuple[int | str, ...]) -> str:
    return ".".join(str(p) for p in loc) or "request"


def parse_request(model: type[R], data: Any) -> R:
    """`data` as a request of `model`, or RequestError naming the first bad field and what is valid."""
    if not isinstance(data, dict):
        raise RequestError("request", f"must be a JSON object, got {type(data).__name__}")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        field = _field_of(tuple(err["loc"]))
        if err["type"] == "extra_forbidden":
            valid = ", ".join(published_keys(model))
            raise RequestError(field, f"unknown key; valid keys are: {valid}") from exc
        if err["type"] in ("tuple_type", "list_type"):
            raise RequestError(field, f"must be a list of strings (got {err.get('input')!r})") from exc
        if err["type"] == "missing":
            raise RequestError(field, "required") from exc
        if err["type"] == "value_error":
            message = str(err["ctx"]["error"]) if "ctx" in err else err["msg"]
            raise RequestError(field, message) from exc
        raise RequestError(field, f"{err['msg']} (got {err.get('input')!r})") from exc
