"""`POST /v1/impact` and `GET /v1/impact/{job_id}`: version impact as a job with an id and a result.

Thin like the rest of the API: the body names a document and a version; the job runs
`batch.impact.impact` on the served corpus in a background thread (never on the engine's thread, so
answers keep flowing) and the result is kept in memory under a job id derived from the document,
the version and the corpus fingerprint (the same request while a job runs returns that job).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import Field

from clauseguard.audit import digest
from clauseguard.engine import Engine
from clauseguard.errors import ClauseguardError, EnvironmentFailure, NotFoundError, RequestError
from clauseguard.requests import _Request, parse_request


class ImpactRequest(_Request):
    """Which new version to assess: a document id and a version label already in the store."""

    document_id: str = Field(min_length=1)
    version: str = Field(min_length=1)


class ImpactJobs:
    """Jobs by id: running, done (with the report) or failed (with the error and its status)."""

    def __init__(self) -> None:
        self._jobs: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="clauseguard-impact")

    def start(self, engine: Engine, request: ImpactRequest) -> dict[str, Any]:
        from clauseguard.batch.impact import impact
        from clauseguard.batch.runner import Source

        job_id = "im-" + digest({"document": request.document_id, "version": request.version,
                                  "corpus": engine.corpus_fingerprint})
        with self._lock:
            job = self._jobs.get(job_id)
            if job is not None and job["status"] != "failed":
                return job
            job = {"job_id": job_id, "status": "running", "document_id": request.document_id,
                   "version": request.version}
            self._jobs[job_id] = job

        def run() -> None:
            update: dict[str, Any]
            try:
                report = impact(request.document_id, request.version, Source(), opened=engine.opened)
                update = {"status": "done", "result": report}
            except NotFoundError as exc:
                update = {"status": "failed", "error": str(exc), "http_status": 404}
            except EnvironmentFailure as exc:
                update = {"status": "failed", "error": str(exc), "http_status": 503}
            except ClauseguardError as exc:
                update = {"status": "failed", "error": str(exc), "http_status": 500}
            with self._lock:
                job.update(update)

        self._pool.submit(run)
        return job

    def get(self, job_id: str) -> dict[str, Any] | None:
        with self._lock:
            job = self._jobs.get(job_id)
            return None if job is None else dict(job)


def impact_router(built: Callable[[], Engine | None]) -> APIRouter:
    """The impact routes over the served engine (`built` returns it once the server has started)."""
    router = APIRouter(prefix="/v1", tags=["impact"])
    jobs = ImpactJobs()

    @router.post("/impact", status_code=202)
    async def start_impact(request: Request) -> JSONResponse:
        """Start (or find) the impact job of a new version; returns its id."""
        try:
            body = await request.json()
        except ValueError as exc:
            raise RequestError("request", "the body is not valid JSON; send a JSON object") from exc
        parsed = parse_request(ImpactRequest, body)
        engine = built()
        if engine is None:
            return JSONResponse({"detail": "the server is starting; retry shortly"}, status_code=503,
                                headers={"Retry-After": "5"})
        job = jobs.start(engine, parsed)
        return JSONResponse({k: job[k] for k in ("job_id", "status", "document_id", "version")}, status_code=202)

    @router.get("/impact/{job_id}")
    async def impact_job(job_id: str) -> JSONResponse:
        """A job's status and, once done, its report (which answers change, with clause differences)."""
        job = jobs.get(job_id)
        if job is None:
            raise NotFoundError("impact job", job_id, "start one with POST /v1/impact")
        return JSONResponse(job)

    return router
