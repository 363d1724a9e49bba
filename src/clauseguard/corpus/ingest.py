"""Ingesting documents: files into one new version, appended to the store with the payer, plans and
codes named (and named as given); provenance, clause ids, the no-op and changed-text rules, the
ingest report, and what happened said plainly ("plan X attached to existing version V").
The store and `timeline.py` decide the timeline; it never edits a stored clause or half-writes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from clauseguard.corpus.classify import classify
from clauseguard.corpus.ingest_report import IngestReport, build_report
from clauseguard.corpus.ingest_request import (
    FLAGS,
    SIDECAR_SUFFIX,
    IngestRequest,
    build_request,
    code_system,
    read_sidecar,
    sidecar_path,
)
from clauseguard.corpus.model import (
    DOCUMENT_KINDS,
    FORMAT_V1,
    Clause,
    Code,
    Corpus,
    Document,
    Payer,
    Plan,
    Source,
    Version,
)
from clauseguard.corpus.readers import read_files, structure
from clauseguard.corpus.store import AddReport, CorpusStore
from clauseguard.corpus.timeline import TimelineEvent, plan_append
from clauseguard.errors import AppendOnlyError, CorpusError, Problem, RequestError

__all__ = [
    "FLAGS", "SIDECAR_SUFFIX", "IngestOutcome", "IngestRequest", "Progress", "ReadVersion", "build_request",
    "code_system", "ingest", "ingest_files", "read_sidecar", "read_version", "sidecar_path", "source_of",
]

Progress = Callable[[str, int, int], None]  # (stage, done, total): "reading FILE", "pages" of it, "clauses"

# -- provenance --------------------------------------------------------------------------------------


def source_of(files: Sequence[Path], reader: str) -> Source:
    """Provenance of one version: the file name(s), the sha256 of their bytes in order, the reader."""
    digest = hashlib.sha256()
    for file in files:
        try:
            with file.open("rb") as handle:
                for chunk in iter(lambda: handle.read(1 << 20), b""):
                    digest.update(chunk)
        except OSError as exc:
            raise CorpusError([Problem(str(file), "", f"cannot be read: {exc}")]) from exc
    return Source(file=", ".join(f.name for f in files), sha256=digest.hexdigest(), reader=reader)


# -- reading -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ReadVersion:
    """The files read into one version's clauses, with the title they print, pages and the report."""

    version: Version
    title: str | None
    pages: int
    chunked: bool
    report: IngestReport


def read_version(request: IngestRequest, *, title: str = "", progress: Progress | None = None) -> ReadVersion:
    """Read the files, cut them into clauses that follow their structure, classify each clause."""
    for file in request.files:
        if not file.is_file():
            raise CorpusError([Problem(str(file), "", "no such file")])
    def reading(path: Path) -> None:
        if progress is not None:
            progress(f"reading {path.name}", 0, 1)

    def page(done: int, total: int) -> None:
        if progress is not None:
            progress("pages", done, total)

    read = read_files(request.files, on_file=reading, on_page=page)
    drafted = structure(read.blocks, guess_title=not read.marks_title)
    if not drafted.clauses:
        raise CorpusError([Problem(
            str(request.files[0]), "",
            "no text found to make clauses from; give a document with text (a page made by scripts, or of images "
            "only, has none)",
        )])
    shown_title = drafted.title or read.title
    clauses = []
    for n, draft in enumerate(drafted.clauses):
        if progress is not None and n % 50 == 0:
            progress("clauses", n, len(drafted.clauses))
        meta = classify(draft.text, draft.headings, title=title or shown_title or "", chunk=draft.chunk)
        clauses.append(
            Clause(
                id=f"{request.document}.{request.version}.{draft.key}",
                section=draft.section,
                text=draft.text,
                kind=meta.kind,
                article=draft.article,
                page=draft.page,
                page_label=draft.page_label,
                page_end=draft.page_end,
                page_end_label=draft.page_end_label if draft.page_end is not None else None,
                benefit=meta.benefit,
                coverage_type=meta.coverage_type,
            )
        )
    if progress is not None:
        progress("clauses", len(clauses), len(clauses))
    version = Version(
        version=request.version,
        effective_start=request.effective_start,
        effective_end=request.effective_end,
        source=source_of(request.files, read.reader),
        clauses=tuple(clauses),
    )
    report = build_report(read, drafted, version, request.effective_start)
    return ReadVersion(version, shown_title, read.pages, drafted.chunked, report)


# -- ingest ------------------------------------------------------------------------------------------

Status = Literal["added", "attached", "unchanged", "planned"]


@dataclass(frozen=True)
class IngestOutcome:
    """What an ingest did (or, for a dry run, would do)."""

    status: Status
    document_id: str
    version: Version  # the version as ingested, or as the store already held it
    payers: tuple[str, ...] = ()
    plans: tuple[str, ...] = ()
    codes: tuple[tuple[str, str], ...] = ()  # (code, system inferred from its shape)
    documents: tuple[str, ...] = ()
    events: tuple[TimelineEvent, ...] = ()
    notes: tuple[str, ...] = ()
    pages: int = 0
    chunked: bool = False
    read_files: bool = True  # False when the store already held this file and nothing was read
    fingerprint: str = ""
    warnings: tuple[str, ...] = field(default=())
    attached: tuple[str, ...] = ()  # what was linked to a stored version: "plan X attached to existing version V of D"
    new_version: bool = False  # whether the version itself was (or would be) added
    names: tuple[tuple[str, str], ...] = ()  # (id, name) of each payer and plan created
    report: IngestReport | None = None  # what was read; None when the file was already stored and not read


def _document_fields(existing: Corpus, request: IngestRequest) -> tuple[str, str, str | None, Document | None]:
    """(payer, kind, title or None, stored document): a stored document keeps its payer, kind and title."""
    stored = next((d for d in existing.documents if d.id == request.document), None)
    if stored is not None:
        for name, given, kept in (("payer", request.payer, stored.payer), ("kind", request.kind, stored.kind),
                                  ("title", request.title, stored.title)):
            if given is not None and given != kept:
                raise RequestError(
                    FLAGS[name],
                    f"document {stored.id} is stored with {name} {kept!r}; {given!r} was given. A stored document "
                    f"keeps its {name}: leave {FLAGS[name]} out, or ingest under a new document id",
                )
        return stored.payer, stored.kind, stored.title, stored
    if request.payer is None:
        raise RequestError("--payer", f"document {request.document} is new: give the payer that issues it (--payer ID)")
    if request.kind is None:
        raise RequestError("--kind", f"document {request.document} is new: give its kind, one of {', '.join(DOCUMENT_KINDS)}")
    return request.payer, request.kind, request.title, None


def _links(existing: Corpus, request: IngestRequest, payer: str, kind: str) -> tuple[list[Payer], list[Plan], list[Code]]:
    """The payer, plans and codes to add (new ones, and plans whose riders list grows by this rider)."""
    stored_payer = next((p for p in existing.payers if p.id == payer), None)
    if stored_payer is not None and request.payer_name is not None and request.payer_name != stored_payer.name:
        raise RequestError("--payer-name", f"payer {payer} is stored with name {stored_payer.name!r}; a stored payer keeps "
                                           "its name: leave --payer-name out")
    payers = [] if stored_payer is not None else [Payer(id=payer, name=request.payer_name or payer)]
    stored_plans = {p.id: p for p in existing.plans}
    names = dict(request.plan_names)
    plans: list[Plan] = []
    for plan_id in request.plans:
        plan = stored_plans.get(plan_id)
        if plan is not None and plan.payer != payer:
            raise RequestError("--plan", f"plan {plan_id} belongs to payer {plan.payer}, not {payer}")
        if plan is not None and plan_id in names and names[plan_id] != plan.name:
            raise RequestError("--plan-name", f"plan {plan_id} is stored with name {plan.name!r}; a stored plan keeps its "
                                              "name: leave its --plan-name out")
        if plan is None:
            plans.append(Plan(id=plan_id, payer=payer, name=names.get(plan_id, plan_id),
                              riders=(request.document,) if kind == "rider" else ()))
        elif kind == "rider" and request.document not in plan.riders:
            plans.append(plan.model_copy(update={"riders": (*plan.riders, request.document)}))
    if request.overrides and kind != "rider":
        raise RequestError("--overrides", f"only a rider overrides other documents; {request.document} is a {kind}")
    known_docs = {d.id for d in existing.documents}
    for target in request.overrides:
        if target not in known_docs:
            raise RequestError("--overrides", f"unknown document {target!r}; ingest the document it overrides first")
    stored_codes = {c.code for c in existing.codes}
    codes = [Code(code=c, system=code_system(c)) for c in request.codes if c not in stored_codes]
    return payers, plans, codes


def _changed_text(stored: Version, given: Version, request: IngestRequest) -> AppendOnlyError:
    old = {c.id: c for c in stored.clauses}
    new = {c.id: c for c in given.clauses}
    differences = [f"clause {cid} is new" for cid in new if cid not in old]
    differences += [f"clause {cid} is gone" for cid in old if cid not in new]
    differences += [f"clause {cid} differs" for cid in new if cid in old and new[cid] != old[cid]]
    shown = "; ".join(differences[:5]) + (f" (and {len(differences) - 5} more)" if len(differences) > 5 else "")
    was = stored.source
    origin = f" (stored from {was.file}, sha256 {was.sha256[:12]})" if was else ""
    return AppendOnlyError(
        [
            Problem(
                ", ".join(str(f) for f in request.files),
                "--version",
                f"changed text under existing version label {stored.version} of document {request.document}{origin}: "
                f"{shown}. A stored version never changes: ingest the new text under a new version label",
            )
        ]
    )


def _same_file_elsewhere(existing: Corpus, sha256: str, request: IngestRequest) -> list[str]:
    return [
        f"the same file is already stored as version {v.version} of document {d.id}"
        for d in existing.documents
        for v in d.versions
        if v.source is not None and v.source.sha256 == sha256 and (d.id, v.version) != (request.document, request.version)
    ]


def ingest(
    store: CorpusStore, request: IngestRequest, *, dry_run: bool = False, progress: Progress | None = None
) -> IngestOutcome:
    """Read the files into one version of the document and append it (with any new payer, plans and
    codes) in one transaction; or, with `dry_run`, say what would be appended and write nothing.

    The same file under the same label again is a no-op (nothing is read); other text under a stored
    label is refused; a version that starts inside an open-ended one closes it the day before.
    """
    existing = store.corpus()
    payer, kind, title, stored_doc = _document_fields(existing, request)
    stored_version = next((v for v in stored_doc.versions if v.version == request.version), None) if stored_doc else None
    payers, plans, codes = _links(existing, request, payer, kind)
    sha = source_of(request.files, "").sha256
    pages, chunked, read_any, read_report = 0, False, True, None
    notes: list[str] = []
    if stored_version is not None and stored_version.source is not None and stored_version.source.sha256 == sha:
        version = stored_version.model_copy(update={"effective_start": request.effective_start, "effective_end": request.effective_end})
        shown_title, read_any = None, False
    else:
        read = read_version(request, title=title or "", progress=progress)
        version, shown_title, pages, chunked, read_report = read.version, read.title, read.pages, read.chunked, read.report
        if stored_version is not None:
            if tuple(stored_version.clauses) != tuple(version.clauses):
                raise _changed_text(stored_version, version, request)
            notes.append(
                f"the file differs from the one stored under {request.version} but its text is the same; the stored "
                "version is kept as it is"
            )
            version = stored_version.model_copy(update={"effective_start": request.effective_start, "effective_end": request.effective_end})
    warnings = _same_file_elsewhere(existing, sha, request)
    doc_plans = request.plans
    if stored_doc is not None and stored_doc.plans and request.plans:
        doc_plans = tuple(sorted({*stored_doc.plans, *request.plans}))
    elif stored_doc is not None and request.plans and kind != "rider":
        # a stored document of every plan stays one: naming a plan must not narrow it to that plan
        doc_plans = ()
        notes.append(f"document {request.document} applies to every plan of payer {payer}, so to "
                     f"{', '.join(request.plans)} already")
    if not (title or shown_title):
        warnings.append(f"no title was found in the file: the file name {request.files[0].stem!r} is used; give --title")
    document = Document(
        id=request.document,
        payer=payer,
        kind=kind,  # type: ignore[arg-type]  # checked against DOCUMENT_KINDS in build_request
        title=title or shown_title or request.files[0].stem,
        codes=request.codes,
        plans=doc_plans,
        overrides=request.overrides,
        versions=(version,),
    )
    incoming = Corpus(format=FORMAT_V1, payers=tuple(payers), plans=tuple(plans), codes=tuple(codes), documents=(document,))
    source = f"ingest of {', '.join(str(f) for f in request.files)}"
    if dry_run:
        plan = plan_append(existing, incoming, source=source)
        report = AddReport.from_plan(plan, existing.fingerprint(), plan.result.fingerprint())
    else:
        report = store.add(incoming, source=source)
    new_version = (request.document, request.version) in report.versions
    known = {p.id for p in existing.payers} | {p.id for p in existing.plans}
    status: Status = "unchanged"
    if report.changed:
        status = "planned" if dry_run else ("added" if new_version else "attached")
    systems = {c.code: c.system for c in codes}
    return IngestOutcome(
        status=status,
        document_id=request.document,
        version=version,
        payers=report.payers,
        plans=report.plans,
        codes=tuple((c, systems.get(c, "")) for c in report.codes),
        documents=report.documents,
        events=report.events,
        notes=(*notes, *report.notes),
        pages=pages,
        chunked=chunked,
        read_files=read_any,
        fingerprint=report.fingerprint,
        warnings=tuple(warnings) + tuple(read_report.warnings if read_report else ()),
        attached=() if new_version or not report.changed else _attached(stored_doc, doc_plans, plans, request, kind),
        new_version=new_version,
        names=tuple((p.id, p.name) for p in payers if p.id not in known)
        + tuple((p.id, p.name) for p in plans if p.id not in known),
        report=read_report,
    )


def _attached(
    stored: Document | None, doc_plans: Sequence[str], plans: Sequence[Plan], request: IngestRequest, kind: str
) -> tuple[str, ...]:
    """What a re-ingest linked to a version the store already holds, said plainly."""
    where = f"existing version {request.version} of {request.document}"
    out = [f"plan {p} attached to {where}" for p in doc_plans if stored is not None and p not in stored.plans]
    if kind == "rider":
        out += [f"rider {request.document} attached to plan {p.id} ({where})" for p in plans if request.document in p.riders]
    out += [f"code {c} attached to {request.document}" for c in request.codes if stored is not None and c not in stored.codes]
    out += [f"override of {t} attached to {where}" for t in request.overrides if stored is not None and t not in stored.overrides]
    return tuple(dict.fromkeys(out))


def ingest_files(
    store: CorpusStore, files: Sequence[Path], fields: Mapping[str, Any], *, dry_run: bool = False,
    progress: Progress | None = None,
) -> IngestOutcome:
    """One call for the ways in (CLI, HTTP API): the request from the fields (keys as in FLAGS; the
    files' sidecars are read too), then `ingest`. `outcome.report` is the ingest report."""
    return ingest(store, build_request(files, fields), dry_run=dry_run, progress=progress)
