"""The service around the answers: /healthz (the process answers), /readyz (everything is loaded),
and the optional model's status.

/healthz and /readyz need no key (an orchestrator's probes carry none) and say nothing of the corpus
beyond its fingerprint. The model's status needs a key when keys are set, never shows the model's
base URL, and probes the model at most once a minute, whatever the number of callers.
"""

from __future__ import annotations

import asyncio
import re
import time
from typing import Any, Final

from fastapi import APIRouter, FastAPI
from fastapi.responses import JSONResponse

from clauseguard import __version__
from clauseguard.errors import ClauseguardError
from clauseguard.interfaces.http.docs import LOOKUP_ERRORS
from clauseguard.interfaces.http.errors import without_paths
from clauseguard.interfaces.worker import EngineThread
from clauseguard.responses import Health, ModelStatus, Readiness

MODEL_STATUS_TTL_S: Final = 60.0
_URL: Final = re.compile(r"[a-z][a-z0-9+.-]*://[^\s'\"]+", re.IGNORECASE)


def public_model_status(status: dict[str, Any]) -> dict[str, Any]:
    """The model status a remote caller may see: no base URL, no endpoint address in any sentence."""
    shown = {k: v for k, v in status.items() if k != "base_url"}
    if "endpoints" in shown:
        shown["endpoints"] = [
            {**e, "model": str(e.get("model", "")).split("@", 1)[0],
             "detail": _URL.sub("the model endpoint", str(e.get("detail", "")))}
            for e in shown["endpoints"]
        ]
    for role in (shown.get("roles") or {}).values():
        if isinstance(role, dict):
            for key in list(role):
                if "url" in key.lower():
                    role.pop(key)
                elif isinstance(role[key], str):
                    role[key] = role[key].split("@", 1)[0]
    return shown


def install_probes(app: FastAPI, worker: EngineThread) -> None:
    """/healthz and /readyz, outside the keyed routes."""

    @app.get("/healthz", tags=["service"], response_model=Health, summary="The process answers")
    async def healthz() -> JSONResponse:
        """200 as soon as the process serves HTTP, before the corpus, index and models are loaded."""
        return JSONResponse(Health(status="ok", version=__version__).as_json())

    @app.get("/readyz", tags=["service"], response_model=Readiness, summary="Everything is loaded",
             responses={503: {"description": "Still loading, or loading failed", "model": Readiness}})
    async def readyz() -> JSONResponse:
        """200 once every model, table and index this server answers with is loaded; 503 before (or with
        the error when loading failed)."""
        engine = worker.built
        if engine is None:
            failed = worker.error is not None
            body = Readiness(status="failed" if failed else "starting", version=__version__,
                             components={"corpus": False, "index": False, "audit_log": False},
                             error=f"loading failed ({type(worker.error).__name__})" if failed else None)
            return JSONResponse(body.as_json(), status_code=503)
        components = engine.readiness()
        ready = all(components.values())
        body = Readiness(status="ready" if ready else "starting", version=__version__, components=components,
                         corpus_fingerprint=engine.corpus_fingerprint)
        return JSONResponse(body.as_json(), status_code=200 if ready else 503)


def service_router() -> APIRouter:
    """The keyed service routes (the model's status)."""
    router = APIRouter(tags=["service"], responses=LOOKUP_ERRORS)
    cached: dict[str, Any] = {}

    @router.get("/model/status", response_model=ModelStatus, summary="The optional model backend")
    async def model_status_endpoint() -> JSONResponse:
        """The configured model (if any), whether it was reachable when last probed (at most once a minute,
        `checked_at` says when), its roles, caps and the month's budget. Never shows a key or a base URL."""
        from clauseguard.models import model_status

        now = time.monotonic()
        if "status" not in cached or now - cached["at"] > MODEL_STATUS_TTL_S:
            try:
                status = await asyncio.to_thread(model_status)
            except ClauseguardError as exc:  # the server's own configuration, not the request
                return JSONResponse({"detail": "the server's model configuration is not valid: "
                                               + without_paths(str(exc))}, status_code=500)
            shown = public_model_status(status) | {"checked_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
            cached.update(status=ModelStatus.model_validate(shown).as_json(), at=now)
        return JSONResponse(cached["status"])

    return router
