"""The terminal consoles every command prints through, created on first use.

Importing rich costs tens of milliseconds that `--help` and a JSON-only command should not pay, so
`out` and `err` stand in for rich Consoles until something is printed. Text is wrapped at word
boundaries to the terminal's width; piped output is left unwrapped for scripts and greps.
"""

from __future__ import annotations

import sys
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console


@cache
def stdout_console() -> Console:
    from rich.console import Console

    return Console(highlight=False, soft_wrap=not sys.stdout.isatty())


@cache
def stderr_console() -> Console:
    from rich.console import Console

    return Console(stderr=True, highlight=False, soft_wrap=True)


class LazyConsole:
    """Forwards every attribute to the real Console, made the first time one is used."""

    def __init__(self, stderr: bool = False) -> None:
        self._stderr = stderr

    def __getattr__(self, name: str) -> Any:
        return getattr(stderr_console() if self._stderr else stdout_console(), name)


out: Any = LazyConsole()
err: Any = LazyConsole(stderr=True)
