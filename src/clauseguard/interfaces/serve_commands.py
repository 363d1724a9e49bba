"""`clauseguard serve` and `clauseguard mcp`: open the corpus, then hand it to the HTTP API or the MCP server.

The corpus is opened before anything binds, so a bad `--corpus` is exit 2 with one line. The servers'
modules are imported only when their command runs: other commands never pay for FastAPI or the MCP SDK.
"""

from __future__ import annotations

import sys
from typing import Annotated, Final, Literal

import typer

from clauseguard.corpus.sources import Opened
from clauseguard.errors import ClauseguardError

DEFAULT_HOST: Final = "127.0.0.1"
DEFAULT_PORT: Final = 8000
DEFAULT_MCP_PORT: Final = 8001


def opened_of(ctx: typer.Context) -> Opened:
    """The corpus of the global `--corpus`/`--store` options."""
    opened = getattr(ctx.find_root().obj, "opened", None)
    if not callable(opened):
        raise ClauseguardError("run it as `clauseguard [--corpus PATH] serve|mcp`: it needs the global corpus options")
    result = opened()
    assert isinstance(result, Opened)
    return result


def register(app: typer.Typer) -> None:
    """Add `serve` and `mcp` to the CLI."""

    @app.command("serve")
    def serve_command(
        ctx: typer.Context,
        host: Annotated[str, typer.Option("--host", help="Address to listen on (loopback by default).")] = DEFAULT_HOST,
        port: Annotated[int, typer.Option("--port", help="Port to listen on.")] = DEFAULT_PORT,
    ) -> None:
        """Serve the HTTP API and the handlers' web page at / (OpenAPI at /docs); API keys from CLAUSEGUARD_API_KEYS."""
        import uvicorn

        from clauseguard.engine import Engine
        from clauseguard.interfaces.api import api_keys_from_env, create_app
        from clauseguard.models import from_environment

        opened = opened_of(ctx)
        model = from_environment()  # the same model configuration `ask` uses; None: rules alone
        keys = api_keys_from_env()
        sys.stderr.write(f"clauseguard: serving {opened.description} on http://{host}:{port}/ "
                         f"({'an API key is required' if keys else 'no API key required'})\n")
        uvicorn.run(create_app(lambda: Engine(opened, model=model).warm_up(), api_keys=keys), host=host, port=port, log_level="info")

    @app.command("mcp")
    def mcp_command(
        ctx: typer.Context,
        transport: Annotated[
            Literal["stdio", "http"], typer.Option("--transport", help="stdio, or streamable HTTP at /mcp.")
        ] = "stdio",
        host: Annotated[str, typer.Option("--host", help="With --transport http: address to listen on.")] = DEFAULT_HOST,
        port: Annotated[int, typer.Option("--port", help="With --transport http: port.")] = DEFAULT_MCP_PORT,
    ) -> None:
        """Serve the read-only MCP tools: policy search, clauses, versions, codes, riders, determinations."""
        from clauseguard.engine import Engine
        from clauseguard.interfaces.mcp_server import create_server
        from clauseguard.models import from_environment

        opened = opened_of(ctx)
        model = from_environment()
        server = create_server(lambda: Engine(opened, model=model).warm_up())
        if transport == "http":
            server.run("streamable-http", host=host, port=port)
        else:
            server.run("stdio")
