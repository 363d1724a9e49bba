"""Running cases through an engine: the EngineLike protocol, one call per case, the raw answers kept.

It owns what the engine is shown (the request fields only, a fresh copy per call) and how a call's
failure is recorded (an id the corpus does not hold is a search `error`; anything else a crash);
it never scores (that is `scorecard.py`) and never imports an engine.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from clauseguard.errors import ClauseguardError
from clauseguard.evals.cases import Case, DeterminationCase, SearchCase
from clauseguard.responses import AnswerModel


@runtime_checkable
class EngineLike(Protocol):
    """What the harness needs from an engine: two calls and what identifies its answers."""

    # Read-only here, so a plain attribute or a property satisfies the protocol.
    @property
    def corpus_fingerprint(self) -> str: ...

    @property
    def lexicon_fingerprint(self) -> str: ...

    @property
    def knobs(self) -> Mapping[str, Any]:
        """Settings that affect answers (threshold defaults, backends, ...)."""
        ...

    def determine(self, request: dict[str, Any]) -> Any:
        """The seven input fields -> the determination answer (typed, or its JSON form)."""
        ...

    def search(self, request: dict[str, Any]) -> Any:
        """A search request -> the search response; raises NotFoundError for an unknown contract."""
        ...


@dataclass(frozen=True)
class DeterminationRun:
    """One determination case and what the engine answered (or the crash that stopped it)."""

    case: DeterminationCase
    answer: Mapping[str, Any] | None
    error: str | None
    engine_s: float  # the answer's timings.engine_s; the call's wall time when it reports none


@dataclass(frozen=True)
class SearchRun:
    """One search case, the engine's response and the status it counts as."""

    case: SearchCase
    response: Mapping[str, Any] | None
    status: str  # the response's status; "error" for a ClauseguardError; "crash" for anything else
    error: str | None
    engine_s: float


Run = DeterminationRun | SearchRun


def _engine_seconds(answer: Mapping[str, Any] | None, wall: float) -> float:
    timings = answer.get("timings") if isinstance(answer, Mapping) else None
    value = timings.get("engine_s") if isinstance(timings, Mapping) else None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return wall


def _json_form(answer: Any) -> Any:
    """Suites score what a user sees: a typed answer in its JSON form (fakes may hand back plain dicts)."""
    return answer.as_json() if isinstance(answer, AnswerModel) else answer


def run_determination(case: DeterminationCase, engine: EngineLike) -> DeterminationRun:
    start = time.perf_counter()
    try:
        answer = _json_form(engine.determine(case.engine_request()))
    except Exception as exc:  # a crash is a result to score, not a reason to stop the suite
        return DeterminationRun(case, None, f"{type(exc).__name__}: {exc}", time.perf_counter() - start)
    wall = time.perf_counter() - start
    if not isinstance(answer, Mapping):
        return DeterminationRun(case, None, f"the engine returned {type(answer).__name__}, not an answer object", wall)
    return DeterminationRun(case, answer, None, _engine_seconds(answer, wall))


def run_search(case: SearchCase, engine: EngineLike) -> SearchRun:
    start = time.perf_counter()
    try:
        response = _json_form(engine.search(case.engine_request()))
    except ClauseguardError as exc:  # an unknown contract (or a request that is not well-formed)
        return SearchRun(case, None, "error", f"{type(exc).__name__}: {exc}", time.perf_counter() - start)
    except Exception as exc:
        return SearchRun(case, None, "crash", f"{type(exc).__name__}: {exc}", time.perf_counter() - start)
    wall = time.perf_counter() - start
    if not isinstance(response, Mapping):
        return SearchRun(case, None, "crash", f"the engine returned {type(response).__name__}, not a response", wall)
    status = response.get("status")
    return SearchRun(case, response, str(status) if status is not None else "missing", None, _engine_seconds(response, wall))


def run_cases(
    cases: Sequence[Case],
    engine: EngineLike,
    *,
    on_done: Callable[[Run], None] | None = None,
) -> list[Run]:
    """Each case through the engine once, in order; `on_done` sees each result (a progress bar)."""
    runs: list[Run] = []
    for case in cases:
        run: Run = run_determination(case, engine) if isinstance(case, DeterminationCase) else run_search(case, engine)
        runs.append(run)
        if on_done is not None:
            on_done(run)
    return runs
