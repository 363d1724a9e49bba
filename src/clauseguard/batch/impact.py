"""Version impact: which audited determinations (or requests of a batch file) change under a new version.

For every determination whose date falls in version V's window and whose payer and codes the
document governs, the answer under the version it was made on (the audited answer; for a batch
file, recomputed on the corpus without V) is set beside the answer on the current corpus, which
holds V; those whose gate, outcome or cited criteria change are listed, with the clause differences
of the two versions (compare). Recomputation runs on the batch executors (local processes or Ray)
and is never audited. It reads the original request through `OriginalRequest` (the sealed original
when the PHI seal provides one, else the redacted request, which is said in the result).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from clauseguard.audit import AuditRecord, open_audit_log
from clauseguard.batch.requests_file import BatchItem, read_requests, request_hash
from clauseguard.batch.runner import DEFAULT_CHUNK, Answered, Fatal, Source, Task, executor
from clauseguard.corpus.model import Corpus, Document, Version
from clauseguard.corpus.sources import Opened, open_corpus, open_snapshot
from clauseguard.engine import Engine
from clauseguard.errors import EnvironmentFailure, NotFoundError

OriginalRequest = Callable[[AuditRecord], "dict[str, Any] | None"]
"""The seal hook: the original (unredacted) request of an audit row, or None when none is sealed."""


def no_seal(record: AuditRecord) -> dict[str, Any] | None:
    """No original is available (every case is re-answered from its redacted request)."""
    return None


def default_originals() -> OriginalRequest:
    """`clauseguard.privacy.seal.original_request`: the row's sealed original, None for rows written
    before sealing (those are re-answered from the redacted request, which the result says)."""
    from clauseguard.privacy.seal import original_request

    return original_request


@dataclass(frozen=True)
class Case:
    """One determination to re-answer: its key, date, request, and the answer it had (if audited)."""

    key: str
    as_of: date
    request: dict[str, Any]
    before: dict[str, Any] | None
    request_source: str  # "sealed original" | "redacted" | "batch file"


def _find(corpus: Corpus, document_id: str, version: str) -> tuple[Document, Version]:
    doc = next((d for d in corpus.documents if d.id == document_id), None)
    if doc is None:
        raise NotFoundError("document", document_id, "clauseguard corpus stats lists what the store holds")
    found = next((v for v in doc.versions if v.version == version), None)
    if found is None:
        raise NotFoundError("version", f"{document_id}@{version}",
                            f"its versions are {', '.join(v.version for v in doc.versions)}; ingest the new one first")
    return doc, found


def governs(doc: Document, request: dict[str, Any]) -> bool:
    """The document is the payer's and governs one of the request's procedure codes (any, if it lists none)."""
    if request.get("payer_id") != doc.payer:
        return False
    return not doc.codes or bool(set(request.get("procedure_codes", ())) & set(doc.codes))


def in_window(day: date, version: Version) -> bool:
    return version.covers(day)


def audited_cases(records: Iterable[AuditRecord], doc: Document, version: Version,
                  originals: OriginalRequest) -> Iterator[Case]:
    seen: set[str] = set()
    for record in records:
        if record.kind != "determination" or record.assertion_id in seen:
            continue
        seen.add(record.assertion_id)
        try:
            day = date.fromisoformat(str(record.request.get("as_of_date")))
        except ValueError:
            continue  # a HALT on its date: no version governs it
        if not in_window(day, version) or not governs(doc, record.request):
            continue
        original = originals(record)
        yield Case(record.assertion_id, day, original or record.request, record.response,
                   "sealed original" if original else "redacted")


def file_cases(path: Path, doc: Document, version: Version) -> Iterator[Case]:
    seen: set[str] = set()
    for item in read_requests(path):
        if not isinstance(item, BatchItem) or item.kind != "determination" or item.request_hash in seen:
            continue
        seen.add(item.request_hash)
        try:
            day = date.fromisoformat(str(item.request.get("as_of_date")))
        except ValueError:
            continue
        if in_window(day, version) and governs(doc, item.request):
            yield Case(item.request_hash, day, item.request, None, "batch file")


def corpus_without(corpus: Corpus, doc: Document, version: Version) -> Corpus:
    """The corpus as it was before V: V removed, and a version V closed the day before it is open again."""
    eve = version.effective_start - timedelta(days=1)
    versions = tuple(
        replace_end(v) if v.effective_end == eve else v for v in doc.versions if v.version != version.version
    )
    documents = tuple(d.model_copy(update={"versions": versions}) if d.id == doc.id else d for d in corpus.documents)
    return corpus.model_copy(update={"documents": documents})


def replace_end(v: Version) -> Version:
    return v.model_copy(update={"effective_end": None})


def criteria_of(response: dict[str, Any]) -> list[tuple[str, str, bool]]:
    return sorted((c.get("criterion") or "", c.get("result") or "", bool(c.get("waived")))
                  for c in response.get("criteria", []) or [])


def version_cited(response: dict[str, Any], doc: Document) -> str | None:
    labels = {v.version: v for v in doc.versions}
    for citation in response.get("citations", []) or []:
        prefix = f"{doc.id}."
        cid = str(citation.get("clause_id", ""))
        if cid.startswith(prefix):
            label = cid[len(prefix):].rsplit(".", 1)[0]
            if label in labels:
                return label
    return None


def changes(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    out = [k for k in ("gate", "outcome") if before.get(k) != after.get(k)]
    if criteria_of(before) != criteria_of(after):
        out.append("criteria")
    return out


def _answer_all(source: Source, cases: list[Case], workers: int, engine: str, address: str | None,
                progress: Callable[[int, int], None] | None) -> dict[str, dict[str, Any]]:
    """Answers keyed by case; identical requests (same answer, by determinism) are answered once."""
    by_request = {c.key: request_hash("determination", c.request) for c in cases}
    unique = {by_request[c.key]: c.request for c in cases}
    tasks: list[Task] = [(h, "determination", r) for h, r in unique.items()]
    chunks = [tasks[i:i + DEFAULT_CHUNK] for i in range(0, len(tasks), DEFAULT_CHUNK)]
    answers: dict[str, dict[str, Any]] = {}
    for batch in executor(engine, workers)(replace(source, audited=False), chunks, workers, address):
        if isinstance(batch, Fatal):
            raise EnvironmentFailure(batch.resource, batch.message)
        for a in batch:
            answers[a.request_hash] = a.outcome
        if progress is not None:
            progress(len(answers), len(tasks))
    return {key: answers[h] for key, h in by_request.items() if h in answers}


def impact(document_id: str, version_label: str, source: Source, *, requests: Path | None = None,
           records: Iterable[AuditRecord] | None = None, workers: int = 1, engine: str = "local",
           address: str | None = None, originals: OriginalRequest | None = None,
           progress: Callable[[int, int], None] | None = None, opened: Opened | None = None) -> dict[str, Any]:
    """The impact report of version V of document D (see the module docstring).

    `opened` (a server's corpus) answers in this thread instead of opening `source` in workers."""
    in_process = opened is not None
    opened = opened or open_corpus(source.corpus, source.store, source.store_url)
    doc, version = _find(opened.corpus, document_id, version_label)
    if requests is not None:
        cases = list(file_cases(requests, doc, version))
    else:
        log = open_audit_log(opened) if records is None else None
        try:
            window = (version.effective_start.isoformat(),
                      version.effective_end.isoformat() if version.effective_end else None)
            rows = records if records is not None else log.records(  # type: ignore[union-attr]
                "determination", payer=doc.payer, dates=window)
            cases = list(audited_cases(rows, doc, version, originals or default_originals()))
        finally:
            if log is not None:
                log.close()
    if requests is not None and cases:  # before: the same requests on the corpus without V
        earlier = Engine(open_snapshot(corpus_without(opened.corpus, doc, version), f"corpus before {document_id}@{version_label}"), log=False,
                         deadline_s=None)
        cases = [replace(c, before=_stable(earlier.determine(c.request).as_json())) for c in cases]
    if in_process:
        here, memo = Engine(opened, log=False, deadline_s=None), {}
        for c in cases:
            h = request_hash("determination", c.request)
            if h not in memo:
                memo[h] = {"response": _stable(here.determine(c.request).as_json())}
        after = {c.key: memo[request_hash("determination", c.request)] for c in cases}
    else:
        after = _answer_all(source, cases, workers, engine, address, progress)
    changed, versions_before = [], Counter[str]()
    for case in sorted(cases, key=lambda c: (c.as_of, c.key)):
        now = after.get(case.key, {}).get("response")
        if now is None or case.before is None:
            continue
        diff = changes(case.before, now)
        old = version_cited(case.before, doc)
        if old:
            versions_before[old] += 1
        if diff:
            changed.append({
                "key": case.key, "as_of_date": case.as_of.isoformat(), "changes": diff,
                "request": case.request_source, "version_before": old,
                "before": {"gate": case.before.get("gate"), "outcome": case.before.get("outcome"),
                           "criteria": [list(c) for c in criteria_of(case.before)]},
                "after": {"gate": now.get("gate"), "outcome": now.get("outcome"),
                          "criteria": [list(c) for c in criteria_of(now)]},
            })
    differences = {}
    comparer = Engine(opened, log=False, deadline_s=None)
    for old in sorted(v for v in versions_before if v != version_label):
        compared = comparer.compare({"question": f"{doc.title}: coverage, criteria, limits, exclusions",
                                     "a": f"document:{doc.id}@{old}", "b": f"document:{doc.id}@{version_label}"})
        differences[old] = compared.as_json().get("differences", [])
    return {
        "document_id": doc.id, "version": version.version,
        "window": {"effective_start": version.effective_start.isoformat(),
                   "effective_end": version.effective_end.isoformat() if version.effective_end else None},
        "considered": len(cases), "changed_count": len(changed), "unchanged_count": len(cases) - len(changed),
        "requests_from": dict(sorted(Counter(c.request_source for c in cases).items())),
        "changed": changed, "clause_differences": differences,
    }


def _stable(answer: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in answer.items() if k != "timings"}


__all__ = ["Answered", "Case", "OriginalRequest", "default_originals", "impact", "no_seal", "request_hash"]
