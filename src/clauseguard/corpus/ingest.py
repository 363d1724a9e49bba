"""Ingesting documents: files and their YAML sidecars into one new version, appended to the store with
the payer, plans and codes named; provenance, clause ids, the no-op and changed-text rules.
The store and `timeline.py` decide the timeline; it never edits a stored clause or half-writes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any, Final, Literal

from clauseguard.corpus.classify import classify
from clauseguard.corpus.codes import CODE_SYSTEMS, SHAPE_HELP, has_shape
from clauseguard.corpus.loader import read_data
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

SIDECAR_SUFFIX: Final = ".yaml"

# request field -> the command-line flag that gives it (errors name the flag)
FLAGS: Final[dict[str, str]] = {
    "document": "--document",
    "version": "--version",
    "effective_start": "--effective-start",
    "effective_end": "--effective-end",
    "kind": "--kind",
    "payer": "--payer",
    "title": "--title",
    "plans": "--plan",
    "codes": "--code",
    "overrides": "--overrides",
}
_LISTS: Final = ("plans", "codes", "overrides")
_REQUIRED: Final = ("document", "version", "effective_start")


@dataclass(frozen=True)
class IngestRequest:
    """One ingest: the files that make one version of one document, and what the flags say about it."""

    files: tuple[Path, ...]
    document: str
    version: str
    effective_start: date
    effective_end: date | None = None
    kind: str | None = None  # required for a new document
    payer: str | None = None  # required for a new document
    title: str | None = None  # a new document's title; default: the title the file prints
    plans: tuple[str, ...] = ()
    codes: tuple[str, ...] = ()
    overrides: tuple[str, ...] = ()


# -- the request: flags and sidecars -----------------------------------------------------------------


def sidecar_path(file: Path) -> Path:
    """`terms-2021.pdf` -> `terms-2021.pdf.yaml`, beside the file."""
    return file.with_name(file.name + SIDECAR_SUFFIX)


def _text(value: Any, name: str, origin: str) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not value.strip() or value != value.strip():
        raise RequestError(FLAGS[name], f"{origin} gives {value!r}; it must be non-empty text without surrounding spaces")
    return value


def _day(value: Any, name: str, origin: str) -> date:
    if isinstance(value, date):
        return value
    try:
        if isinstance(value, str) and len(value) == 10:
            return date.fromisoformat(value)
    except ValueError:
        pass
    raise RequestError(FLAGS[name], f"{origin} gives {value!r}, which is not a date; write an ISO date YYYY-MM-DD, e.g. 2024-03-15")


def _values(raw: Mapping[str, Any], origin: str) -> dict[str, Any]:
    """Typed values of one source (the flags or one sidecar); absent, None and empty lists are left out."""
    out: dict[str, Any] = {}
    for name, value in raw.items():
        if name not in FLAGS:
            valid = ", ".join(FLAGS)
            raise RequestError(origin, f"unknown key {name!r}; valid keys: {valid}")
        if value is None or (name in _LISTS and not value):
            continue
        if name in _LISTS:
            items = [value] if isinstance(value, str) else value
            if not isinstance(items, (list, tuple)):
                raise RequestError(FLAGS[name], f"{origin} gives {value!r}; give a list of ids")
            out[name] = tuple(dict.fromkeys(_text(v, name, origin) for v in items))
        elif name in ("effective_start", "effective_end"):
            out[name] = _day(value, name, origin)
        else:
            out[name] = _text(value, name, origin)
    return out


def read_sidecar(path: Path) -> dict[str, Any]:
    """A sidecar's fields, keys as in FLAGS; CorpusError when it is not a mapping or not YAML."""
    data = read_data(path)
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise CorpusError([Problem(str(path), "", f"a sidecar is a mapping of these keys: {', '.join(FLAGS)}")])
    return _values({str(k): v for k, v in data.items()}, str(path))


def build_request(files: Sequence[Path], flags: Mapping[str, Any]) -> IngestRequest:
    """The request the flags and the files' sidecars make together. A field given twice must agree
    (lists are merged); --document, --version and --effective-start must come from one of them."""
    if not files:
        raise RequestError("FILE", "give at least one file to ingest")
    merged: dict[str, Any] = _values(flags, "the command line")
    origin = {name: "the command line" for name in merged}
    for file in files:
        side = sidecar_path(file)
        if not side.is_file():
            continue
        for name, value in read_sidecar(side).items():
            if name in _LISTS:
                merged[name] = tuple(dict.fromkeys((*merged.get(name, ()), *value)))
            elif name in merged and merged[name] != value:
                raise RequestError(
                    FLAGS[name],
                    f"{side} gives {value!s} but {origin[name]} gives {merged[name]!s}; give it once or make them agree",
                )
            else:
                merged[name] = value
                origin.setdefault(name, str(side))
    for name in _REQUIRED:
        if name not in merged:
            raise RequestError(FLAGS[name], f"required: give {FLAGS[name]} or put '{name}:' in {sidecar_path(files[0]).name}")
    end = merged.get("effective_end")
    if end is not None and end < merged["effective_start"]:
        raise RequestError(
            "--effective-end",
            f"{end.isoformat()} is before --effective-start {merged['effective_start'].isoformat()}; "
            "give a later date, or leave it out for an open-ended version",
        )
    if "kind" in merged and merged["kind"] not in DOCUMENT_KINDS:
        raise RequestError("--kind", f"{merged['kind']!r} is not a document kind; use one of {', '.join(DOCUMENT_KINDS)}")
    return IngestRequest(files=tuple(files), **merged)


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
    """The files read into one version's clauses, with the title they print and how many pages."""

    version: Version
    title: str | None
    pages: int
    chunked: bool


def read_version(request: IngestRequest, *, title: str = "") -> ReadVersion:
    """Read the files, cut them into clauses that follow their structure, classify each clause."""
    for file in request.files:
        if not file.is_file():
            raise CorpusError([Problem(str(file), "", "no such file")])
    read = read_files(request.files)
    drafted = structure(read.blocks)
    if not drafted.clauses:
        raise CorpusError([Problem(str(request.files[0]), "", "no text found to make clauses from; is the file empty?")])
    shown_title = drafted.title or read.title
    clauses = []
    for draft in drafted.clauses:
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
                benefit=meta.benefit,
                coverage_type=meta.coverage_type,
            )
        )
    version = Version(
        version=request.version,
        effective_start=request.effective_start,
        effective_end=request.effective_end,
        source=source_of(request.files, read.reader),
        clauses=tuple(clauses),
    )
    return ReadVersion(version, shown_title, read.pages, drafted.chunked)


# -- ingest ------------------------------------------------------------------------------------------

Status = Literal["added", "unchanged", "planned"]


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


def code_system(code: str) -> str:
    """The one system whose shape the code has; RequestError naming --code when none or several."""
    systems = [s for s in CODE_SYSTEMS if has_shape(code, s)]
    if len(systems) == 1:
        return systems[0]
    shapes = "; ".join(f"{s}: {SHAPE_HELP[s]}" for s in CODE_SYSTEMS)
    if not systems:
        raise RequestError("--code", f"{code!r} has no known code shape, so its system cannot be told; {shapes}")
    raise RequestError("--code", f"{code!r} has the shape of several systems ({', '.join(systems)}); add it to the store with its system first")


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
    payers = [] if any(p.id == payer for p in existing.payers) else [Payer(id=payer, name=payer)]
    stored_plans = {p.id: p for p in existing.plans}
    plans: list[Plan] = []
    for plan_id in request.plans:
        plan = stored_plans.get(plan_id)
        if plan is not None and plan.payer != payer:
            raise RequestError("--plan", f"plan {plan_id} belongs to payer {plan.payer}, not {payer}")
        if plan is None:
            plans.append(Plan(id=plan_id, payer=payer, name=plan_id, riders=(request.document,) if kind == "rider" else ()))
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


def ingest(store: CorpusStore, request: IngestRequest, *, dry_run: bool = False) -> IngestOutcome:
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
    pages, chunked, read_any = 0, False, True
    notes: list[str] = []
    if stored_version is not None and stored_version.source is not None and stored_version.source.sha256 == sha:
        version = stored_version.model_copy(update={"effective_start": request.effective_start, "effective_end": request.effective_end})
        shown_title, read_any = None, False
    else:
        read = read_version(request, title=title or "")
        version, shown_title, pages, chunked = read.version, read.title, read.pages, read.chunked
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
    if kind == "rider" and stored_doc is not None and stored_doc.plans and request.plans:
        doc_plans = tuple(sorted({*stored_doc.plans, *request.plans}))
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
        status: Status = "planned" if report.changed else "unchanged"
    else:
        report = store.add(incoming, source=source)
        status = "added" if report.changed else "unchanged"
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
        warnings=tuple(warnings),
    )
