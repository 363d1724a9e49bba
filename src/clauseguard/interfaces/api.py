"""The HTTP API (`clauseguard serve`): read the JSON body, call the engine, return its answer as JSON.

Thin like the CLI: each route is one engine call, the body is parsed by `parse_request` so a 422 says
what the CLI says, and errors keep the design's statuses (not well-formed data 422 naming the field,
unknown id 404, body over the limit 413, missing key 401). It never changes or decides an answer.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import os
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Final, TypeVar

from fastapi import APIRouter, Depends, FastAPI, Request
from fastapi.exceptions import HTTPException, RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from clauseguard import __version__
from clauseguard.engine import Engine
from clauseguard.errors import ClauseguardError, NotFoundError, RequestError
from clauseguard.interfaces.impact_api import impact_router
from clauseguard.requests import (
    CompareRequest,
    DeterminationRequest,
    RetrievalEvalRequest,
    SearchRequest,
    parse_iso_date,
    parse_request,
)
from clauseguard.responses import AnswerModel

API_KEYS_ENV: Final = "CLAUSEGUARD_API_KEYS"
DEFAULT_MAX_BODY_BYTES: Final = 256 * 1024
WEB_DIR: Final = Path(__file__).parent / "web"

T = TypeVar("T")
EngineFactory = Callable[[], Engine]


class EngineThread:
    """The engine, built and called on one dedicated thread.

    The audit log's SQLite connection belongs to the thread that opened it, and one thread answers
    requests in arrival order; the event loop stays free for health checks while the engine works.
    """

    def __init__(self, factory: EngineFactory) -> None:
        self._factory = factory
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="clauseguard-engine")
        self._engine: Engine | None = None

    def _build(self) -> Engine:
        if self._engine is None:
            engine = self._factory()
            _ = engine.index, engine.audit, engine.corpus_fingerprint  # what a first request would wait for
            self._engine = engine
        return self._engine

    async def start(self) -> Engine:
        """Build the engine and its retrieval index (idempotent)."""
        return await asyncio.wrap_future(self._executor.submit(self._build))

    async def call(self, fn: Callable[[Engine], T]) -> T:
        """`fn(engine)` on the engine's thread."""
        return await asyncio.wrap_future(self._executor.submit(lambda: fn(self._build())))

    @property
    def built(self) -> Engine | None:
        """The engine once built; read only its immutable, already computed fields from another thread."""
        return self._engine

    def close(self) -> None:
        self._executor.shutdown(wait=True)


def api_keys_from_env(environ: Mapping[str, str] = os.environ) -> tuple[str, ...]:
    """`CLAUSEGUARD_API_KEYS`, comma-separated; empty means the API is open."""
    return tuple(k.strip() for k in environ.get(API_KEYS_ENV, "").split(",") if k.strip())


def _body_schema(model: type[Any]) -> dict[str, Any]:
    """The request model's JSON schema for the OpenAPI document (the route itself reads the raw body)."""
    return {"requestBody": {"required": True, "content": {"application/json": {"schema": model.model_json_schema()}}}}


async def _json_body(request: Request) -> Any:
    raw = await request.body()
    if not raw.strip():
        raise RequestError("request", "the body is empty; send a JSON object")
    try:
        return json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        where = f" at line {exc.lineno} column {exc.colno}" if isinstance(exc, json.JSONDecodeError) else ""
        raise RequestError("request", f"the body is not valid JSON{where}; send a JSON object") from exc


def catalog(engine: Engine) -> dict[str, Any]:
    """What a handler picks from: payers, plans, contracts, documents (with version labels) and codes."""
    corpus = engine.corpus
    return {
        "description": engine.opened.description,
        "fingerprint": engine.corpus_fingerprint,
        "payers": [p.model_dump(mode="json") for p in corpus.payers],
        "plans": [p.model_dump(mode="json") for p in corpus.plans],
        "contracts": [c.model_dump(mode="json") for c in corpus.contracts],
        "documents": [
            {"id": d.id, "payer": d.payer, "kind": d.kind, "title": d.title, "codes": list(d.codes),
             "plans": list(d.plans), "overrides": list(d.overrides), "versions": [v.version for v in d.versions]}
            for d in corpus.documents
        ],
        "codes": [c.model_dump(mode="json") for c in corpus.codes],
    }


def create_app(
    engine_factory: EngineFactory,
    *,
    api_keys: Sequence[str] | None = None,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
) -> FastAPI:
    """The API over one engine, built (with its index) at startup. `api_keys` None reads the environment."""
    keys = tuple(api_keys) if api_keys is not None else api_keys_from_env()
    worker = EngineThread(engine_factory)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        await worker.start()
        try:
            yield
        finally:
            worker.close()

    app = FastAPI(
        title="clauseguard",
        version=__version__,
        summary="Coverage answers over versioned policy documents, with the clause behind every answer.",
        lifespan=lifespan,
        max_body_size=max_body_bytes,
    )

    def require_key(request: Request) -> None:
        if not keys:
            return
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not any(hmac.compare_digest(token.strip(), k) for k in keys):
            raise HTTPException(
                401, "this server needs an API key: send the header Authorization: Bearer <key>",
                headers={"WWW-Authenticate": "Bearer"},
            )

    v1 = APIRouter(prefix="/v1", dependencies=[Depends(require_key)])

    async def answer(fn: Callable[[Engine], Any]) -> JSONResponse:
        found = await worker.call(fn)
        return JSONResponse(found.as_json() if isinstance(found, AnswerModel) else found)

    # -- errors: the design's statuses, one sentence each -----------------------------------------

    @app.exception_handler(RequestError)
    async def _request_error(_: Request, exc: RequestError) -> JSONResponse:
        return JSONResponse({"detail": str(exc), "field": exc.field}, status_code=422)

    @app.exception_handler(NotFoundError)
    async def _not_found(_: Request, exc: NotFoundError) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=404)

    @app.exception_handler(ClauseguardError)
    async def _server_side(_: Request, exc: ClauseguardError) -> JSONResponse:
        # a corpus, index or model problem of this server, not of the request
        return JSONResponse({"detail": str(exc)}, status_code=500)

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        detail = exc.detail
        if exc.status_code == 413:
            detail = f"the request body is larger than {max_body_bytes} bytes; send a smaller request"
        return JSONResponse({"detail": detail}, status_code=exc.status_code, headers=exc.headers)

    @app.exception_handler(RequestValidationError)
    async def _validation(_: Request, exc: RequestValidationError) -> JSONResponse:
        err = exc.errors()[0]
        loc = [str(p) for p in err.get("loc", ()) if p not in ("body", "query", "path")]
        field = ".".join(loc) or "request"
        return JSONResponse({"detail": f"{field}: {err.get('msg', 'invalid')}", "field": field}, status_code=422)

    # -- answers --------------------------------------------------------------------------------

    @v1.post("/search", tags=["answers"], openapi_extra=_body_schema(SearchRequest))
    async def search(request: Request) -> JSONResponse:
        """A question over the terms that govern a contract, or a payer's plan on a date (logged)."""
        parsed = parse_request(SearchRequest, await _json_body(request))
        return await answer(lambda e: e.search(parsed))

    @v1.post("/determinations", tags=["answers"], openapi_extra=_body_schema(DeterminationRequest))
    async def determinations(request: Request) -> JSONResponse:
        """A structured case -> gate, outcome, verified citations; a bad field value is gate HALT (logged)."""
        parsed = parse_request(DeterminationRequest, await _json_body(request))
        return await answer(lambda e: e.determine(parsed))

    @v1.post("/compare", tags=["answers"], openapi_extra=_body_schema(CompareRequest))
    async def compare(request: Request) -> JSONResponse:
        """The same question against two targets, and their differences point by point."""
        parsed = parse_request(CompareRequest, await _json_body(request))
        return await answer(lambda e: e.compare(parsed))

    @v1.post("/evaluate-retrieval", tags=["answers"], openapi_extra=_body_schema(RetrievalEvalRequest))
    async def evaluate_retrieval(request: Request) -> JSONResponse:
        """Recall of gold clauses among the clauses retrieval hands the reader."""
        parsed = parse_request(RetrievalEvalRequest, await _json_body(request))
        return await answer(lambda e: e.evaluate_retrieval(parsed))

    # -- lookups --------------------------------------------------------------------------------

    @v1.get("/clauses/{clause_id}", tags=["lookups"])
    async def clause(clause_id: str) -> JSONResponse:
        """One clause, read from the store by id, with its document and version."""
        return await answer(lambda e: e.clause(clause_id))

    @v1.get("/documents/{document_id}/versions", tags=["lookups"])
    async def versions(document_id: str) -> JSONResponse:
        """A document's version timeline."""
        return await answer(lambda e: e.versions(document_id))

    @v1.get("/codes/{code}", tags=["lookups"])
    async def code(code: str) -> JSONResponse:
        """A code, its system and descriptor, and the documents that govern it."""
        return await answer(lambda e: e.code(code))

    @v1.get("/plans/{plan_id}/riders", tags=["lookups"])
    async def plan_riders(plan_id: str, as_of_date: str | None = None) -> JSONResponse:
        """The riders attached to a plan; with `as_of_date`, only those in effect that day."""
        try:
            day = parse_iso_date(as_of_date) if as_of_date is not None else None
        except ValueError as exc:
            raise RequestError("as_of_date", str(exc)) from exc
        return await answer(lambda e: e.plan_riders(plan_id, day))

    @v1.get("/audit/{assertion_id}", tags=["lookups"])
    async def audit(assertion_id: str) -> JSONResponse:
        """What the audit log holds for an assertion or search trace id (redacted request and response)."""
        return await answer(lambda e: e.audit_record(assertion_id))

    @v1.get("/corpus", tags=["lookups"])
    async def corpus() -> JSONResponse:
        """Payers, plans, contracts, documents and codes of the served corpus (what the web page offers)."""
        return await answer(catalog)

    app.include_router(v1)
    app.include_router(impact_router(lambda: worker.built), dependencies=[Depends(require_key)])

    # -- health and the page --------------------------------------------------------------------

    @app.get("/v1/model/status", tags=["service"])
    async def model_status_endpoint() -> JSONResponse:
        """The configured model (if any), whether it is reachable, and the budget left."""
        from clauseguard.models import model_status

        try:
            return JSONResponse(await asyncio.to_thread(model_status))
        except RequestError as exc:
            return JSONResponse({"error": str(exc), "field": exc.field}, status_code=422)

    @app.get("/healthz", tags=["service"])
    async def healthz() -> JSONResponse:
        """200 once the engine and its index are built (they are built before the server accepts requests)."""
        engine = worker.built
        if engine is None:
            return JSONResponse({"status": "starting"}, status_code=503)
        return JSONResponse({"status": "ok", "version": __version__, "corpus_fingerprint": engine.corpus_fingerprint,
                             "engine": engine.knobs})

    @app.get("/", include_in_schema=False)
    async def page() -> FileResponse:
        return FileResponse(WEB_DIR / "index.html", media_type="text/html")

    app.mount("/static", StaticFiles(directory=WEB_DIR), name="static")
    return app
