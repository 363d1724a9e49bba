"""Run a batch: workers answer chunks of requests, the driver audits each chunk, then records its results.

Workers (the driver itself, local processes, or Ray actors) each open the same corpus and answer
with an engine whose audit log is a collector: the driver writes every chunk's audit rows in one
durable transaction, then the trace lines, then the journal, so an answer is recorded only once it
is audited, and exactly once (a rerun skips request hashes already answered). A failed environment
(a database gone mid-batch) stops the batch with everything done so far written, to resume from.
It never changes an answer: workers run the same engine as `ask` and `search`.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from clauseguard.audit import AuditEntry, open_audit_log
from clauseguard.batch.requests_file import BadLine, BatchItem, read_requests
from clauseguard.batch.results import Journal, read_done, stable, write_results
from clauseguard.corpus.model import Corpus
from clauseguard.corpus.sources import open_corpus
from clauseguard.errors import ClauseguardError, EnvironmentFailure, NotFoundError, RequestError

DEFAULT_CHUNK: Final = 16
Task = tuple[str, str, dict[str, Any]]  # (request hash, kind, request)


@dataclass(frozen=True)
class Source:
    """How a worker opens the corpus: the global `--corpus` / `--store` / `--store-url` options."""

    corpus: str | None = None
    store: str | None = None
    store_url: str | None = None
    audited: bool = True  # False for what-if answers (impact): computed, never logged


@dataclass
class Answered:
    """A worker's answer to one request, with the audit row and trace the driver will write."""

    request_hash: str
    outcome: dict[str, Any]  # {"kind", "response"} or {"kind", "error"}
    entry: AuditEntry | None = None
    trace: dict[str, Any] | None = None
    fingerprint: str = ""


@dataclass
class Fatal:
    """A worker whose environment failed: the batch stops (exceptions are not sent between processes)."""

    resource: str
    message: str


class CollectingAudit:
    """The audit log of a worker's engine: rows and traces are kept for the driver to write."""

    location = "batch worker"

    def __init__(self) -> None:
        self.entries: list[AuditEntry] = []
        self.traces: list[dict[str, Any]] = []

    def record(self, *, kind: str, assertion_id: str, trace_id: str, request_redacted: dict[str, Any],
               response_redacted: dict[str, Any], corpus: Corpus, store_path: str | None,
               settings: dict[str, Any], version_seals: dict[str, str] | None = None,
               request_sealed: bytes | None = None) -> None:
        self.entries.append(AuditEntry(kind, assertion_id, trace_id, request_redacted, response_redacted,
                                       store_path, settings, dict(version_seals or {}), request_sealed))

    def record_trace(self, trace: dict[str, Any]) -> None:
        self.traces.append(trace)

    def close(self) -> None:
        """Nothing is open."""


class Answerer:
    """One worker's engine over the batch's corpus."""

    def __init__(self, source: Source) -> None:
        from clauseguard.engine import Engine

        # no per-request deadline: a batch answers byte-identically to serial, whatever the load
        self.engine = Engine(open_corpus(source.corpus, source.store, source.store_url), log=source.audited,
                             deadline_s=None)
        self.collector = CollectingAudit()
        self.engine.audit = self.collector  # type: ignore[assignment]
        self.engine.warm_up()

    def answer(self, tasks: Sequence[Task]) -> list[Answered] | Fatal:
        out: list[Answered] = []
        for request_hash, kind, request in tasks:
            self.collector.entries.clear()
            self.collector.traces.clear()
            try:
                answer = self.engine.determine(request) if kind == "determination" else self.engine.search(request)
            except (NotFoundError, RequestError) as exc:  # an answer in itself: recorded, not audited
                out.append(Answered(request_hash, {"kind": kind, "error": str(exc)}))
                continue
            except EnvironmentFailure as exc:
                return Fatal(exc.resource, str(exc))
            except ClauseguardError as exc:
                return Fatal("batch worker", str(exc))
            entry = self.collector.entries[0] if self.collector.entries else None
            trace = self.collector.traces[0] if self.collector.traces else None
            out.append(Answered(request_hash, {"kind": kind, "response": stable(answer.as_json())}, entry, trace,
                                self.engine.corpus_fingerprint))
        return out


_WORKER: Answerer | None = None


def _init_worker(source: Source) -> None:
    global _WORKER  # noqa: PLW0603 - one engine per worker process, built once
    _WORKER = Answerer(source)


def _answer_in_worker(tasks: list[Task]) -> list[Answered] | Fatal:
    assert _WORKER is not None
    return _WORKER.answer(tasks)


def executor(engine: str, workers: int) -> Callable[[Source, list[list[Task]], int, str | None],
                                                   Iterator[list[Answered] | Fatal]]:
    """How chunks are answered: in this process, in local processes, or on Ray."""
    return _ray if engine == "ray" else (_serial if workers <= 1 else _processes)


def _serial(source: Source, chunks: list[list[Task]], workers: int, address: str | None) -> Iterator[list[Answered] | Fatal]:
    answerer = Answerer(source)
    for chunk in chunks:
        yield answerer.answer(chunk)


def _processes(source: Source, chunks: list[list[Task]], workers: int, address: str | None) -> Iterator[list[Answered] | Fatal]:
    context = multiprocessing.get_context("spawn")  # no inherited database connections
    with ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_init_worker,
                             initargs=(source,)) as pool:
        futures = [pool.submit(_answer_in_worker, chunk) for chunk in chunks]
        try:
            for future in futures:
                yield future.result()
        finally:
            for future in futures:
                future.cancel()


def _ray(source: Source, chunks: list[list[Task]], workers: int, address: str | None) -> Iterator[list[Answered] | Fatal]:
    from clauseguard.batch.on_ray import answer_on_ray

    yield from answer_on_ray(source, chunks, workers, address)


@dataclass
class BatchSummary:
    """What a batch did: counts, the bad lines (with numbers) and where the results are."""

    requests: int
    answered: int
    skipped: int
    computed: int
    bad_lines: list[BadLine] = field(default_factory=list)
    results: str = ""

    def as_json(self) -> dict[str, Any]:
        return {"requests": self.requests, "answered": self.answered, "skipped_already_done": self.skipped,
                "computed": self.computed, "bad_lines": [b.as_json() for b in self.bad_lines],
                "results": self.results}


def run_batch(
    requests: Path, results: Path, source: Source, *, workers: int = 1, address: str | None = None,
    engine: str = "local", chunk_size: int = DEFAULT_CHUNK, progress: Callable[[int, int], None] | None = None,
) -> BatchSummary:
    """Answer every request of `requests` not yet in `results`; results in input order; each audited once.

    `engine`: "local" (one process when `workers` is 1, else that many processes) or "ray"
    (`address` None starts a local cluster of `workers`). EnvironmentFailure stops the batch after
    writing what is done, with a message saying how to resume."""
    entries = list(read_requests(requests))
    items = [e for e in entries if isinstance(e, BatchItem)]
    bad = [e for e in entries if isinstance(e, BadLine)]
    done = read_done(results)
    skipped = sum(1 for i in items if i.request_hash in done)
    todo: dict[str, Task] = {}
    for item in items:
        if item.request_hash not in done:
            todo.setdefault(item.request_hash, (item.request_hash, item.kind, item.request))
    tasks = list(todo.values())
    chunks = [tasks[i:i + chunk_size] for i in range(0, len(tasks), chunk_size)]
    total, finished = len(tasks), 0
    if progress is not None:
        progress(0, total)
    if not chunks:
        answered = write_results(results, entries, done)
        return BatchSummary(len(items), answered, skipped, 0, bad, str(results))
    opened = open_corpus(source.corpus, source.store, source.store_url)
    audit = open_audit_log(opened)
    fingerprint = opened.corpus.fingerprint()
    journal = Journal(results)
    run = executor(engine, workers)
    try:
        for answers in run(source, chunks, workers, address):
            if isinstance(answers, Fatal):
                raise EnvironmentFailure(answers.resource, answers.message)
            _record(audit, opened.corpus, fingerprint, answers)
            for a in answers:
                journal.append(a.request_hash, a.outcome)
                done[a.request_hash] = a.outcome
            journal.flush()
            finished += len(answers)
            if progress is not None:
                progress(finished, total)
    except EnvironmentFailure as exc:
        journal.close()
        answered = write_results(results, entries, done)
        raise EnvironmentFailure(exc.resource, f"{exc} — the batch stopped with {answered} of {len(items)} requests "
                                 f"answered and recorded in {results}; run the same command again to resume") from exc
    finally:
        journal.close()
        audit.close()
    answered = write_results(results, entries, done)
    return BatchSummary(len(items), answered, skipped, finished, bad, str(results))


def _record(audit: Any, corpus: Corpus, fingerprint: str, answers: list[Answered]) -> None:
    """Audit rows first (one durable transaction for the chunk), then the trace lines."""
    stale = {a.fingerprint for a in answers if a.entry is not None and a.fingerprint != fingerprint}
    if stale:
        raise EnvironmentFailure("the store", f"the corpus changed during the batch (now {sorted(stale)[0]}); "
                                 "the answers made on it were not recorded")
    audit.record_many([a.entry for a in answers if a.entry is not None], corpus)
    for a in answers:
        if a.trace is not None:
            audit.record_trace(a.trace)
