"""Batch and impact work on Ray (the `ray` extra): one actor per worker, each with its own engine.

`address` None starts a local cluster of `workers` CPUs for this run and stops it after; an address
joins an existing cluster. Chunks go to the actors round-robin and come back in submission order.
Actors never write the audit log (the driver does). Without Ray installed, the error says how to
install it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from clauseguard.errors import RequestError

if TYPE_CHECKING:
    from clauseguard.batch.runner import Answered, Fatal, Source, Task


def _ray() -> Any:
    try:
        import ray
    except ImportError as exc:
        raise RequestError("--engine", "Ray is an extra: pip install 'clauseguard[ray]', or use --engine local") from exc
    return ray


def answer_on_ray(source: Source, chunks: Sequence[list[Task]], workers: int, address: str | None,
                  ) -> Iterator[list[Answered] | Fatal]:
    ray = _ray()
    started = False
    if not ray.is_initialized():
        env = {"env_vars": {k: v for k, v in os.environ.items() if k.startswith("CLAUSEGUARD_")}}
        if address:
            ray.init(address=address, runtime_env=env, log_to_driver=False)
        else:
            ray.init(num_cpus=max(1, workers), include_dashboard=False, log_to_driver=False, runtime_env=env)
        started = True
    try:
        from clauseguard.batch.runner import Answerer

        actor = ray.remote(num_cpus=1)(Answerer)
        actors = [actor.remote(source) for _ in range(max(1, workers))]
        refs = [actors[i % len(actors)].answer.remote(chunk) for i, chunk in enumerate(chunks)]
        for ref in refs:
            yield ray.get(ref)
    finally:
        if started:
            ray.shutdown()
