"""API keys: `X-API-Key: <key>` (the documented APIKeyHeader scheme) or `Authorization: Bearer <key>`.

Keys come from CLAUSEGUARD_API_KEYS (comma-separated); none set means the API is open. The presented
key is compared as raw header bytes with every configured key in constant time, so a key of any
encoding (a non-ASCII header included) is a 401 and never an error of the server.
"""

from __future__ import annotations

import hmac
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Final

from fastapi import HTTPException, Request, Security
from fastapi.security import APIKeyHeader, HTTPBearer

API_KEYS_ENV: Final = "CLAUSEGUARD_API_KEYS"
KEY_HEADER: Final = "X-API-Key"
MISSING_KEY: Final = (f"this server needs an API key: send the header {KEY_HEADER}: <key> "
                      "(or Authorization: Bearer <key>)")

API_KEY_SCHEME: Final = APIKeyHeader(
    name=KEY_HEADER, auto_error=False, scheme_name="APIKeyHeader",
    description="Required when the server sets CLAUSEGUARD_API_KEYS; every route but /healthz and /readyz.",
)
BEARER_SCHEME: Final = HTTPBearer(
    auto_error=False, scheme_name="Bearer", description="The same key as `Authorization: Bearer <key>`.",
)


def api_keys_from_env(environ: Mapping[str, str] = os.environ) -> tuple[str, ...]:
    """`CLAUSEGUARD_API_KEYS`, comma-separated; empty means the API is open."""
    return tuple(k.strip() for k in environ.get(API_KEYS_ENV, "").split(",") if k.strip())


def presented_keys(request: Request) -> list[bytes]:
    """The keys a request presents, as the bytes on the wire (ASGI headers are bytes)."""
    found = []
    for name, value in request.scope.get("headers", []):
        if name == b"x-api-key":
            found.append(value.strip())
        elif name == b"authorization":
            scheme, _, token = value.strip().partition(b" ")
            if scheme.lower() == b"bearer":
                found.append(token.strip())
    return found


def key_guard(keys: Sequence[str]) -> Callable[..., None]:
    """The dependency that refuses a request without a configured key (401), declared as both schemes."""
    expected = [k.encode("utf-8") for k in keys]

    def require_key(
        request: Request,
        _api_key: str | None = Security(API_KEY_SCHEME),
        _bearer: object = Security(BEARER_SCHEME),
    ) -> None:
        if not expected:
            return
        matched = False
        for offered in presented_keys(request):
            for key in expected:  # every comparison runs: no early exit tells which key came close
                matched |= hmac.compare_digest(offered, key)
        if not matched:
            raise HTTPException(401, MISSING_KEY, headers={"WWW-Authenticate": "Bearer"})

    return require_key
