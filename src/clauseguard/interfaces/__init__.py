"""The ways in (CLI, HTTP, MCP, web): thin layers that parse, call the engine and render."""
