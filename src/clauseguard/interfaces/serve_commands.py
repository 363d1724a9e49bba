"""`clauseguard serve` and `clauseguard mcp`: open the corpus, then hand it to the HTTP API or the MCP server.

The corpus is opened before anything binds, so a bad `--corpus` is exit 2 with one line. The servers'
modules are imported only when their command runs: other commands never pay for FastAPI or the MCP SDK.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated, Final, Literal

import typer

from clauseguard.errors import ClauseguardError

if TYPE_CHECKING:
    from clauseguard.corpus.sources import Opened
    from clauseguard.engine import Engine

DEFAULT_HOST: Final = "127.0.0.1"
DEFAULT_PORT: Final = 8000
DEFAULT_MCP_PORT: Final = 8001


def opened_of(ctx: typer.Context) -> Opened:
    """The corpus of the global `--corpus`/`--store` options."""
    opened = getattr(ctx.find_root().obj, "opened", None)
    if not callable(opened):
        raise ClauseguardError("run it as `clauseguard [--corpus PATH] serve|mcp`: it needs the global corpus options")
    result: Opened = opened()
    return result


def register(app: typer.Typer) -> None:
    """Add `serve` and `mcp` to the CLI."""

    @app.command("serve")
    def serve_command(
        ctx: typer.Context,
        host: Annotated[str, typer.Option("--host", help="Address to listen on (loopback by default).")] = DEFAULT_HOST,
        port: Annotated[int, typer.Option("--port", help="Port to listen on.")] = DEFAULT_PORT,
        workers: Annotated[int, typer.Option("--workers", min=1, max=64,
                                             help="Engine processes answering in parallel over one index cache.")] = 1,
    ) -> None:
        """Serve the HTTP API and the handlers' web page at / (OpenAPI at /docs); API keys from CLAUSEGUARD_API_KEYS.

        /healthz answers as soon as the port is bound; /readyz once the corpus, index and models are loaded."""
        import os

        import uvicorn

        from clauseguard.deployment import policy_from_environment
        from clauseguard.interfaces.api import (
            SERVE_CORPUS_ENV,
            SERVE_STORE_ENV,
            api_keys_from_env,
            create_app,
        )
        from clauseguard.models import from_environment

        opened = opened_of(ctx)
        model = from_environment()  # the same model configuration `ask` uses; None: rules alone
        policy = policy_from_environment()
        keys = api_keys_from_env()
        sys.stderr.write(f"clauseguard: serving {opened.description} on http://{host}:{port}/ "
                         f"({'an API key is required' if keys else 'no API key required'}; gate policy {policy.name}; "
                         f"{workers} worker{'s' if workers != 1 else ''})\n")
        if workers > 1:
            options = ctx.find_root().obj
            os.environ[SERVE_CORPUS_ENV] = getattr(options, "corpus", None) or ""
            os.environ[SERVE_STORE_ENV] = getattr(options, "store", None) or ""
            uvicorn.run("clauseguard.interfaces.api:app_from_environment", factory=True, workers=workers,
                        host=host, port=port, log_level="info")
            return

        def build() -> Engine:
            from clauseguard.engine import Engine

            return Engine(opened, model=model, policy=policy).warm_up()

        uvicorn.run(create_app(build, api_keys=keys), host=host, port=port, log_level="info")

    @app.command("mcp")
    def mcp_command(
        ctx: typer.Context,
        transport: Annotated[
            Literal["stdio", "http"], typer.Option("--transport", help="stdio, or streamable HTTP at /mcp.")
        ] = "stdio",
        host: Annotated[str, typer.Option("--host", help="With --transport http: address to listen on.")] = DEFAULT_HOST,
        port: Annotated[int, typer.Option("--port", help="With --transport http: port.")] = DEFAULT_MCP_PORT,
    ) -> None:
        """Serve the MCP tools: search, determine, compare, the catalog, clauses, versions, codes, riders."""
        from clauseguard.deployment import policy_from_environment
        from clauseguard.engine import Engine
        from clauseguard.interfaces.mcp_server import create_server
        from clauseguard.models import from_environment

        opened = opened_of(ctx)
        model, policy = from_environment(), policy_from_environment()
        server = create_server(lambda: Engine(opened, model=model, policy=policy).warm_up())
        if transport == "http":
            server.run("streamable-http", host=host, port=port)
        else:
            server.run("stdio")
