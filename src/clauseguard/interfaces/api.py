"""The HTTP API (`clauseguard serve`): read the JSON body, call the engine, return its answer as JSON.

Thin like the CLI: each route is one engine call (routes in `interfaces/http/`), the body is parsed by
the engine's request models so a 422 says what the CLI says, and errors keep the design's statuses
(not well-formed data 422 in FastAPI's validation shape, unknown id 404, body over the limit 413,
missing key 401). The server answers /healthz at once and builds the engine and its index in the
background; /readyz says when they are loaded. It never changes or decides an answer.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Final

from fastapi import APIRouter, Depends, FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles
from fastapi_offline import FastAPIOffline

from clauseguard import __version__
from clauseguard.interfaces.http import docs, errors
from clauseguard.interfaces.http.answers import answers_router
from clauseguard.interfaces.http.auth import API_KEYS_ENV, api_keys_from_env, key_guard
from clauseguard.interfaces.http.lookups import lookups_router
from clauseguard.interfaces.http.service import install_probes, service_router
from clauseguard.interfaces.impact_api import impact_router
from clauseguard.interfaces.worker import EngineFactory, EngineThread

__all__ = ["API_KEYS_ENV", "DEFAULT_MAX_BODY_BYTES", "EngineThread", "api_keys_from_env", "app_from_environment",
           "create_app"]

DEFAULT_MAX_BODY_BYTES: Final = 256 * 1024
BUILD_DELAY_S: Final = 0.2
WEB_DIR: Final = Path(__file__).parent / "web"
# `serve --workers N` runs N processes; each builds its app from these (set by the serve command).
SERVE_CORPUS_ENV: Final = "CLAUSEGUARD_SERVE_CORPUS"
SERVE_STORE_ENV: Final = "CLAUSEGUARD_SERVE_STORE"


def create_app(
    engine_factory: EngineFactory,
    *,
    api_keys: Sequence[str] | None = None,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
) -> FastAPI:
    """The API over one engine, built in the background at startup. `api_keys` None reads the environment."""
    keys = tuple(api_keys) if api_keys is not None else api_keys_from_env()
    worker = EngineThread(engine_factory)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        # The build starts just after the port is bound (the lifespan runs before the bind): importing and
        # loading the engine on another thread would otherwise hold up the server's own start-up.
        asyncio.get_running_loop().call_later(BUILD_DELAY_S, worker.start_in_background)
        try:
            yield
        finally:
            worker.close()

    app = FastAPIOffline(
        title="clauseguard",
        version=__version__,
        summary="Coverage answers over versioned policy documents, with the clause behind every answer.",
        lifespan=lifespan,
        max_body_size=max_body_bytes,
        redoc_url=None,  # served by docs.install, without ReDoc's CDN logo
        static_url=docs.OFFLINE_ASSETS,
        swagger_ui_parameters={"validatorUrl": None, "displayRequestDuration": True},
    )
    errors.install(app, max_body_bytes)
    docs.install(app)

    v1 = APIRouter(prefix="/v1", dependencies=[Depends(key_guard(keys))])
    v1.include_router(answers_router(worker))
    v1.include_router(lookups_router(worker))
    v1.include_router(service_router())
    app.include_router(v1)
    app.include_router(impact_router(lambda: worker.built), dependencies=[Depends(key_guard(keys))])
    install_probes(app, worker)

    @app.get("/", include_in_schema=False)
    async def page() -> FileResponse:
        return FileResponse(WEB_DIR / "index.html", media_type="text/html")

    app.mount("/static", StaticFiles(directory=WEB_DIR), name="static")
    return app


def app_from_environment() -> FastAPI:
    """The app of one `serve --workers N` process: the corpus, store, keys and model from the environment."""
    from clauseguard.corpus.sources import open_corpus
    from clauseguard.deployment import policy_from_environment
    from clauseguard.engine import Engine
    from clauseguard.models import from_environment

    corpus, store = os.environ.get(SERVE_CORPUS_ENV) or None, os.environ.get(SERVE_STORE_ENV) or None
    model, policy = from_environment(), policy_from_environment()

    def build() -> Engine:
        return Engine(open_corpus(corpus, store), model=model, policy=policy).warm_up()

    return create_app(build)
