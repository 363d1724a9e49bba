"""The lookup routes: clauses, versions, codes, riders, the catalog, and what was recorded.

Each is one engine (or audit log) read; path and query values are checked as text before use, so a
malformed id is a 422 naming the parameter and an unknown one a 404 naming the id.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import APIRouter, Path, Query
from fastapi.responses import JSONResponse

from clauseguard.errors import RequestError
from clauseguard.interfaces.http.body import check_text
from clauseguard.interfaces.http.docs import LOOKUP_ERRORS
from clauseguard.interfaces.http.examples import PARAMETERS
from clauseguard.interfaces.worker import EngineThread
from clauseguard.requests import parse_iso_date
from clauseguard.responses import (
    AnswerModel,
    AuditEntry,
    AuditView,
    Catalog,
    ClauseRecord,
    CodeRecord,
    DecisionReport,
    PlanRiders,
    TraceView,
    VersionTimeline,
)

if TYPE_CHECKING:
    from clauseguard.engine import Engine


def _path(name: str, description: str) -> Any:
    return Path(description=description, examples=[PARAMETERS[name]], max_length=400)


def _text(name: str, value: str, where: str = "path") -> str:
    try:
        return check_text(name, value)
    except RequestError as exc:
        raise RequestError(name, str(exc).removeprefix(f"{name}: "), where) from None


def lookups_router(worker: EngineThread) -> APIRouter:
    router = APIRouter(tags=["lookups"], responses=LOOKUP_ERRORS)

    async def answer(fn: Callable[[Engine], Any]) -> JSONResponse:
        found = await worker.call(fn)
        if isinstance(found, AnswerModel):
            return JSONResponse(found.as_json())
        if isinstance(found, list):
            return JSONResponse([f.as_json() if isinstance(f, AnswerModel) else f for f in found])
        return JSONResponse(found)

    @router.get("/clauses/{clause_id}", response_model=ClauseRecord, summary="One clause, read from the store")
    async def clause(clause_id: Annotated[str, _path("clause_id", "A clause id as cited")]) -> JSONResponse:
        """One clause read from the store by id, with its document and version (ids never change meaning)."""
        ident = _text("clause_id", clause_id)
        return await answer(lambda e: e.clause(ident))

    @router.get("/documents/{document_id}/versions", response_model=VersionTimeline, summary="A document's versions")
    async def versions(document_id: Annotated[str, _path("document_id", "A document id")]) -> JSONResponse:
        """A document's version timeline: labels, effective periods (inclusive; a null end is open-ended),
        clause counts and the recorded timeline events."""
        ident = _text("document_id", document_id)
        return await answer(lambda e: e.versions(ident))

    @router.get("/codes/{code}", response_model=CodeRecord, summary="A code and the documents governing it")
    async def code(code: Annotated[str, _path("code", "A CPT, HCPCS or ICD-10-CM code as written")]) -> JSONResponse:
        """A code, its system and descriptor, and the documents that govern it."""
        ident = _text("code", code)
        return await answer(lambda e: e.code(ident))

    @router.get("/plans/{plan_id}/riders", response_model=PlanRiders, summary="The riders attached to a plan")
    async def plan_riders(
        plan_id: Annotated[str, _path("plan_id", "A plan id")],
        as_of_date: Annotated[str | None, Query(description="YYYY-MM-DD: only riders in effect that day",
                                                examples=[PARAMETERS["as_of_date"]], max_length=40)] = None,
    ) -> JSONResponse:
        """The riders attached to a plan; with `as_of_date`, only those with a version in effect that day."""
        ident = _text("plan_id", plan_id)
        day: date | None = None
        if as_of_date is not None:
            try:
                day = parse_iso_date(_text("as_of_date", as_of_date, "query"))
            except ValueError as exc:
                raise RequestError("as_of_date", str(exc), "query") from exc
        return await answer(lambda e: e.plan_riders(ident, day))

    @router.get("/corpus", response_model=Catalog, summary="The catalog of the served corpus")
    async def corpus() -> JSONResponse:
        """Payers, plans, riders (and the plans they are attached to), contracts, documents with their
        version labels, and codes: what a handler or an agent picks from."""
        return await answer(lambda e: e.catalog())

    @router.get("/audit/{assertion_id}", response_model=AuditView, summary="The audit record of an answer")
    async def audit(assertion_id: Annotated[str, _path("assertion_id", "An assertion id, or a search's trace id")]) -> JSONResponse:
        """What the audit log holds for an assertion or search trace id (redacted request and response)."""
        ident = _text("assertion_id", assertion_id)
        return await answer(lambda e: e.audit_record(ident))

    @router.get("/audit", response_model=list[AuditEntry], summary="The latest audit records")
    async def audit_list(
        limit: Annotated[int, Query(ge=1, le=10_000, description="How many, newest first")] = 20,
        kind: Annotated[str | None, Query(description="determination or search", examples=["determination"])] = None,
    ) -> JSONResponse:
        """The latest audit rows, newest first, each with the latest final decision recorded against it."""
        from clauseguard.recorded import audit_entries

        return await answer(lambda e: audit_entries(e.audit_file.parent, limit=limit, kind=kind))

    @router.get("/traces/{trace_id}", response_model=TraceView, summary="What was traced for an answer")
    async def traces(trace_id: Annotated[str, _path("trace_id", "A trace id (tr-...) or an assertion id")]) -> JSONResponse:
        """The trace lines recorded for a trace or assertion id (stages, timings, knobs, fingerprints)."""
        from clauseguard.recorded import trace

        ident = _text("trace_id", trace_id)
        return await answer(lambda e: trace(e.audit_file.parent, ident))

    @router.get("/report", response_model=DecisionReport, summary="How often people agree with the engine")
    async def report() -> JSONResponse:
        """Agreement and override rates of people's final decisions, by gate, document and reason."""
        from clauseguard.decisions import DecisionLog

        def build(engine: Engine) -> DecisionReport:
            with DecisionLog(engine.audit_file) as log:
                return log.report()

        return await answer(build)

    return router
