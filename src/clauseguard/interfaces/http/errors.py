"""Error bodies of the HTTP API: one shape per kind, one sentence each, and never a file path.

A request that is not well-formed data is 422 in FastAPI's standard validation shape
(`{"detail": [{"type", "loc", "msg"}]}`, `loc` the path to the field), whether FastAPI or the engine's
own RequestError found it; an unknown id is 404, a missing key 401, a large body 413, each as
`{"detail": "..."}`. Server-side problems are 500 with a sentence, never a traceback.
"""

from __future__ import annotations

import logging
import re
from typing import Any, Final

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from clauseguard.errors import ClauseguardError, EnvironmentFailure, NotFoundError, RequestError

log = logging.getLogger("clauseguard.api")

# An absolute path (or a file: URL) inside a message: shown by its last part only.
_PATH: Final = re.compile(r"(?<![\w.:/~-])(?:file://)?(?:~|\.{1,2})?/(?:[^\s/'\"`;,()]+/)*([^\s/'\"`;,()]*)")
_MAX_INPUT_REPR: Final = 200


def without_paths(text: str) -> str:
    """`text` with every absolute file path replaced by its file name (a remote caller never sees a layout)."""
    return _PATH.sub(lambda m: m.group(1) or "(a folder)", text)


def loc_of(field: str, where: str = "body") -> list[str | int]:
    """RequestError's dotted field as a FastAPI `loc`: "procedure_codes.0" -> ["body", "procedure_codes", 0]."""
    if field in ("request", ""):
        return [where]
    return [where, *(int(p) if p.isdigit() else p for p in field.split("."))]


def field_of(loc: list[Any] | tuple[Any, ...]) -> str:
    parts = [str(p) for p in loc if p not in ("body", "query", "path", "header")]
    return ".".join(parts) or "request"


def validation_body(errors: list[dict[str, Any]]) -> dict[str, Any]:
    return {"detail": errors}


def request_error_body(exc: RequestError, where: str = "body") -> dict[str, Any]:
    """The engine's RequestError in FastAPI's validation shape; its message already names the field."""
    location = getattr(exc, "location", None) or where
    return validation_body([{"type": "value_error", "loc": loc_of(exc.field, location),
                             "msg": without_paths(str(exc))}])


def _entry(err: dict[str, Any]) -> dict[str, Any]:
    loc = list(err.get("loc", ()))
    field = field_of(loc)
    msg = str(err.get("msg", "invalid"))
    entry: dict[str, Any] = {"type": err.get("type", "value_error"), "loc": loc,
                             "msg": msg if msg.startswith(f"{field}: ") else f"{field}: {msg}"}
    value = err.get("input")
    if isinstance(value, (str, int, float, bool)) and len(repr(value)) <= _MAX_INPUT_REPR:
        entry["input"] = value
    return entry


def install(app: FastAPI, max_body_bytes: int) -> None:
    """The handlers that give every error its documented status and shape."""

    @app.exception_handler(RequestError)
    async def _request_error(_: Request, exc: RequestError) -> JSONResponse:
        return JSONResponse(request_error_body(exc), status_code=422)

    @app.exception_handler(RequestValidationError)
    async def _validation(_: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse(validation_body([_entry(e) for e in exc.errors()]), status_code=422)

    @app.exception_handler(NotFoundError)
    async def _not_found(_: Request, exc: NotFoundError) -> JSONResponse:
        return JSONResponse({"detail": without_paths(str(exc))}, status_code=404)

    @app.exception_handler(EnvironmentFailure)
    async def _environment(_: Request, exc: EnvironmentFailure) -> JSONResponse:
        # the audit log or the store cannot be written or reached: no answer without its audit row
        log.error("clauseguard environment failure: %s", exc)
        return JSONResponse({"detail": without_paths(str(exc))}, status_code=503, headers={"Retry-After": "30"})

    @app.exception_handler(ClauseguardError)
    async def _server_side(_: Request, exc: ClauseguardError) -> JSONResponse:
        # a corpus, index or model problem of this server, not of the request
        log.error("clauseguard error: %s", exc)
        return JSONResponse({"detail": without_paths(str(exc))}, status_code=500)

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        detail = str(exc.detail)
        if exc.status_code == 413:
            detail = f"the request body is larger than {max_body_bytes} bytes; send a smaller request"
        return JSONResponse({"detail": without_paths(detail)}, status_code=exc.status_code, headers=exc.headers)

    @app.exception_handler(Exception)
    async def _unexpected(_: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error answering a request")
        return JSONResponse({"detail": f"internal error ({type(exc).__name__}); the server log has the details"},
                            status_code=500)
