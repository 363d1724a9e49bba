"""The API's documentation: the OpenAPI document's words and examples, and /docs and /redoc offline.

Swagger UI and ReDoc are served from the assets `fastapi-offline` ships in its wheel; ReDoc's one
remote reference (its logo, on a CDN) is replaced by an inline image, so the pages work with no
network at all. Nothing here changes what a route answers.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any, Final

from fastapi import FastAPI
from fastapi.openapi.docs import get_redoc_html
from fastapi.openapi.utils import (
    get_openapi,
    validation_error_definition,
    validation_error_response_definition,
)
from fastapi.responses import HTMLResponse, Response
from pydantic import BaseModel

from clauseguard.requests import DEPRECATED_KEYS
from clauseguard.responses import ErrorMessage

OFFLINE_ASSETS: Final = "/static-offline-docs"  # where fastapi-offline mounts its assets
REDOC_JS: Final = "/docs-assets/redoc.standalone.js"
REDOC_CDN_LOGO: Final = "https://cdn.redoc.ly/redoc/logo-mini.svg"
INLINE_LOGO: Final = ("data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='1' height='1'%3E"
                      "%3C/svg%3E")

HALT_RULE: Final = (
    "**422 or HALT.** A body that is not well-formed *data* — not a JSON object, a field of the wrong type, an "
    "unknown key, or (on search and compare) a date that does not parse — is HTTP 422 in FastAPI's validation "
    "shape, `loc` naming the field. A determination never fails on a field's *value*: an empty payer, an "
    "unknown plan, a plan of another payer, an as-of date that does not parse, a missing or malformed code is a "
    "normal HTTP 200 answer with gate `HALT` and a reason naming the field; correct it and send again. An "
    "unknown contract, clause or document id is 404."
)
DESCRIPTION: Final = (
    "Every request uses one vocabulary: `payer_id`, `plan_id`, `contract_id`, `procedure_codes`, "
    "`diagnosis_codes`, `as_of_date`, `question`. On search, `effective_date` is a documented alias of "
    "`as_of_date` (the broker's `search_policy_terms` call shape: `contract_id`, `effective_date`, `question`, "
    "`threshold`, `k`). Old names (search `codes`) are answered for one release with a `Deprecation` header.\n\n"
    + HALT_RULE + "\n\n"
    "**Keys.** When the server sets `CLAUSEGUARD_API_KEYS`, every route but `/healthz` and `/readyz` needs "
    "`X-API-Key: <key>` (or `Authorization: Bearer <key>`); 401 otherwise. The page's and these docs' own files "
    "hold no data and load without a key.\n\n"
    "The examples use the bundled demo corpus (`clauseguard --corpus demo serve`)."
)
TAGS: Final = [
    {"name": "answers", "description": "Search, determinations, compare and retrieval evaluation: each is logged "
                                       "to the audit log (compare excepted) and stamped with its ids."},
    {"name": "lookups", "description": "Clauses, versions, codes, riders, the catalog, and what was recorded."},
    {"name": "service", "description": "Liveness, readiness and the optional model backend."},
]

_MESSAGE: Final = {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorMessage"}}}
_VALIDATION: Final = {"application/json": {"schema": {"$ref": "#/components/schemas/HTTPValidationError"},
                                           "example": {"detail": [{"type": "value_error", "loc": ["body", "as_of_date"],
                                                                   "msg": "as_of_date: '2024-13-45' is not a date; write "
                                                                          "an ISO date YYYY-MM-DD, e.g. 2024-03-15"}]}}}
ERRORS: Final[dict[int | str, dict[str, Any]]] = {
    401: {"description": "An API key is required and none matched", "content": _MESSAGE},
    404: {"description": "An unknown contract, clause, document, plan, code or assertion id", "content": _MESSAGE},
    413: {"description": "The body is larger than the server's limit", "content": _MESSAGE},
    422: {"description": "The request is not well-formed data; `loc` names the field", "content": _VALIDATION},
}
LOOKUP_ERRORS: Final = {k: v for k, v in ERRORS.items() if k != 413}


def body_doc(model: type[BaseModel], examples: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The request body's schema (the engine's own request model, in the one vocabulary) with examples."""
    schema = model.model_json_schema(ref_template="#/components/schemas/{model}")
    props = schema.get("properties", {})
    if "as_of_date" in props and model.__name__ in ("SearchRequest", "RetrievalEvalRequest"):
        props["effective_date"] = {**props["as_of_date"], "title": "Effective Date",
                                   "description": "An alias of `as_of_date` (the same field), under the broker's published "
                                                  "name; give one of the two. Never deprecated."}
    for old, new in DEPRECATED_KEYS.get(model.__name__, {}).items():
        if new in props:
            props[old] = {**props[new], "title": old, "deprecated": True,
                          "description": f"Deprecated: the old name of `{new}`, answered for one release."}
    return {"requestBody": {"required": True, "content": {"application/json": {"schema": schema, "examples": examples}}}}


def openapi_document(app: FastAPI) -> dict[str, Any]:
    """The OpenAPI document, with the shapes every error body is documented by."""
    if app.openapi_schema is None:
        doc = get_openapi(title=app.title, version=app.version, summary=app.summary, description=DESCRIPTION,
                          routes=app.routes, tags=TAGS)
        schemas = doc.setdefault("components", {}).setdefault("schemas", {})
        schemas.setdefault("ValidationError", validation_error_definition)
        schemas.setdefault("HTTPValidationError", validation_error_response_definition)
        schemas.setdefault("ErrorMessage", ErrorMessage.model_json_schema(mode="serialization"))
        _drop_unreferenced(doc)
        app.openapi_schema = doc
    return app.openapi_schema


def _refs(node: Any, found: set[str]) -> None:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
            found.add(ref.rsplit("/", 1)[1])
        for value in node.values():
            _refs(value, found)
    elif isinstance(node, list):
        for value in node:
            _refs(value, found)


def _drop_unreferenced(doc: dict[str, Any]) -> None:
    """Schemas no route reaches (a field the published form excludes, e.g. a citation's claim) are left out."""
    schemas = doc["components"]["schemas"]
    reached: set[str] = set()
    _refs(doc["paths"], reached)
    while True:
        more: set[str] = set()
        for name in reached:
            _refs(schemas.get(name, {}), more)
        if more <= reached:
            break
        reached |= more
    for name in [n for n in schemas if n not in reached]:
        del schemas[name]


@cache
def _redoc_js(assets: str) -> bytes:
    text = (Path(assets) / "redoc.standalone.js").read_text(encoding="utf-8")
    return text.replace(REDOC_CDN_LOGO, INLINE_LOGO).encode("utf-8")


def install(app: FastAPI) -> None:
    """ReDoc on the offline assets with its CDN logo replaced, and the OpenAPI document above."""
    import fastapi_offline

    assets = str(Path(fastapi_offline.__file__).parent / "static")
    app.openapi = lambda: openapi_document(app)  # type: ignore[method-assign]

    @app.get(REDOC_JS, include_in_schema=False)
    async def redoc_js() -> Response:
        return Response(_redoc_js(assets), media_type="text/javascript")

    @app.get("/redoc", include_in_schema=False)
    async def redoc() -> HTMLResponse:
        return get_redoc_html(openapi_url=app.openapi_url or "/openapi.json", title=f"{app.title} - ReDoc",
                              redoc_js_url=REDOC_JS, redoc_favicon_url=f"{OFFLINE_ASSETS}/favicon.png",
                              with_google_fonts=False)
