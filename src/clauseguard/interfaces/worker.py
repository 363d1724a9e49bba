"""The engine of a long-lived server (HTTP or MCP), built and called on one dedicated thread.

The audit log's SQLite connection belongs to the thread that opened it, and one thread answers
requests in arrival order; the event loop stays free for /healthz while the engine is built or
works. Several engines run as several processes (`serve --workers N`), each over the same read-only
index cache; no engine object is ever shared between threads.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:  # a server binds its port before the engine's code is even imported
    from clauseguard.engine import Engine

T = TypeVar("T")
EngineFactory = Callable[[], "Engine"]


class EngineThread:
    """One engine, built on first need (or by `start`) on its own thread."""

    def __init__(self, factory: EngineFactory) -> None:
        self._factory = factory
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="clauseguard-engine")
        self._engine: Engine | None = None
        self._building: Future[Engine] | None = None
        self.error: BaseException | None = None

    def _build(self) -> Engine:
        if self._engine is None:
            try:
                engine = self._factory().load_all()  # what a first request would wait for
            except BaseException as exc:
                self.error = exc
                raise
            self._engine = engine
        return self._engine

    def start_in_background(self) -> None:
        """Begin building now; requests queue behind the build, /healthz does not wait for it."""
        if self._building is None:
            self._building = self._executor.submit(self._build)

    async def start(self) -> Engine:
        """Build the engine and its retrieval index, and wait for it (idempotent)."""
        self.start_in_background()
        assert self._building is not None
        return await asyncio.wrap_future(self._building)

    async def call(self, fn: Callable[[Engine], T]) -> T:
        """`fn(engine)` on the engine's thread."""
        return await asyncio.wrap_future(self._executor.submit(lambda: fn(self._build())))

    @property
    def built(self) -> Engine | None:
        """The engine once built; read only its immutable, already computed fields from another thread."""
        return self._engine

    def close(self) -> None:
        self._executor.shutdown(wait=True, cancel_futures=True)
