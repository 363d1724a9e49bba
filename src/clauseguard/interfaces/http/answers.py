"""The answering routes: search, determinations, compare, retrieval evaluation, and people's decisions.

Each route reads the raw body (bounded, see body.py), parses it with the engine's own request model
so a 422 says what the CLI says, makes one engine call and returns the typed answer's JSON. Old
request keys are still answered for one release, with a `Deprecation` header naming the new key.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel

from clauseguard.interfaces.http import examples
from clauseguard.interfaces.http.body import parse_json
from clauseguard.interfaces.http.docs import ERRORS, HALT_RULE, body_doc
from clauseguard.interfaces.worker import EngineThread
from clauseguard.requests import (
    CompareRequest,
    DecisionRequest,
    DeterminationRequest,
    RetrievalEvalRequest,
    SearchRequest,
    deprecated_keys,
    parse_request,
)
from clauseguard.responses import (
    AnswerModel,
    CompareResponse,
    DeterminationResponse,
    FinalDecision,
    RetrievalEvalResponse,
    SearchResponse,
)

if TYPE_CHECKING:
    from clauseguard.engine import Engine

# RFC 9745: the date the old names were deprecated (this release), as a structured-field date.
DEPRECATED_SINCE: Final = "@1796083200"  # 2026-12-01T00:00:00Z


async def read(request: Request, model: type[Any]) -> tuple[Any, list[tuple[str, str]]]:
    """The body as a request of `model`, and the deprecated keys it used."""
    data = parse_json(await request.body())
    return parse_request(model, data), deprecated_keys(model, data)


def answers_router(worker: EngineThread) -> APIRouter:
    router = APIRouter(tags=["answers"])

    async def answer(fn: Callable[[Engine], Any], old: list[tuple[str, str]] | None = None,
                     status: int = 200) -> JSONResponse:
        found = await worker.call(fn)
        headers = {}
        if old:
            headers["Deprecation"] = DEPRECATED_SINCE
            headers["Clauseguard-Deprecated"] = ", ".join(f"{k} (use {new})" for k, new in old)
        body = found.as_json() if isinstance(found, AnswerModel) else found
        return JSONResponse(body, status_code=status, headers=headers)

    def doc(model: type[BaseModel], shown: dict[str, dict[str, Any]]) -> dict[str, Any]:
        return body_doc(model, shown)

    @router.post("/search", response_model=SearchResponse, responses=ERRORS, openapi_extra=doc(SearchRequest, examples.SEARCH),
                 summary="Search a contract's or a plan's terms")
    async def search(request: Request) -> JSONResponse:
        """A question over the terms that govern a contract, or a payer's plan on a date (logged).

        Give `contract_id` (the date optional), or `payer_id` + `plan_id` + `as_of_date`; `effective_date`
        is the same field as `as_of_date` (the broker's published name). `status: refused` or
        `action: escalate to handler` means a person must look. A date that does not parse is 422:
        a search cannot pick versions without one."""
        parsed, old = await read(request, SearchRequest)
        return await answer(lambda e: e.search(parsed), old)

    @router.post("/determinations", response_model=DeterminationResponse, responses=ERRORS,
                 openapi_extra=doc(DeterminationRequest, examples.DETERMINATION), summary="Determine coverage for a case",
                 description="A structured case -> gate, outcome, verified citations, every criterion mapped to a "
                             "stated fact or named as missing (logged). " + HALT_RULE)
    async def determinations(request: Request) -> JSONResponse:
        parsed, old = await read(request, DeterminationRequest)
        return await answer(lambda e: e.determine(parsed), old)

    @router.post("/compare", response_model=CompareResponse, responses=ERRORS, openapi_extra=doc(CompareRequest, examples.COMPARE),
                 summary="Compare two documents, versions, riders, plans or contracts")
    async def compare(request: Request) -> JSONResponse:
        """The same question against two targets (`document:ID[@VERSION]`, `rider:ID`, `plan:ID`,
        `contract:ID`), each side answered over its own scope, and the differences point by point."""
        parsed, old = await read(request, CompareRequest)
        return await answer(lambda e: e.compare(parsed), old)

    @router.post("/evaluate-retrieval", response_model=RetrievalEvalResponse, responses=ERRORS,
                 openapi_extra=doc(RetrievalEvalRequest, examples.RETRIEVAL), summary="Recall of gold clauses")
    async def evaluate_retrieval(request: Request) -> JSONResponse:
        """Which gold clauses retrieval hands the reader for one question (what `eval` measures)."""
        parsed, old = await read(request, RetrievalEvalRequest)
        return await answer(lambda e: e.evaluate_retrieval(parsed), old)

    @router.post("/decisions", response_model=FinalDecision, status_code=201, responses=ERRORS,
                 openapi_extra=doc(DecisionRequest, examples.DECISION), summary="Record a person's final decision")
    async def decisions(request: Request) -> JSONResponse:
        """A person's final outcome for a determination's `assertion_id`, appended to the audit database
        beside the engine's answer (never changing it); a later decision supersedes an earlier one in
        `/v1/report`. `final_outcome` is COVERED, NOT_COVERED or INSUFFICIENT_EVIDENCE."""
        from clauseguard.decisions import DecisionLog

        parsed, old = await read(request, DecisionRequest)

        def record(engine: Engine) -> FinalDecision:
            with DecisionLog(engine.audit_file) as log:
                return log.record(parsed.assertion_id, parsed.final_outcome, parsed.decided_by, parsed.reason)

        return await answer(record, old, status=201)

    return router
