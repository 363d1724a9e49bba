"""The ingest report: per document what was read (pages, clauses, headings, lists, tables), what was
left out (running headers and footers, page numbers, cover and contents pages) and what a person
should check before the version goes live (text with no heading, unusually long clauses, dates a
revision history offers as effective dates). The CLI prints it; the API returns `as_json()`.

It describes an ingest; it never changes what was read or stored.
"""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict

from clauseguard.corpus.model import Version
from clauseguard.corpus.readers import ReadFiles, Structure

if TYPE_CHECKING:
    from clauseguard.corpus.ingest import IngestOutcome


class _Part(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class FilePart(_Part):
    file: str
    reader: str
    pages: int
    first_page: int  # its first page's physical number in the whole version


class HeadingPart(_Part):
    text: str
    level: int
    page: int | None


class TablePart(_Part):
    page: int | None
    page_end: int | None
    header: list[str]  # [] for a table without a header row (key-value tables)
    rows: int
    keys: list[str]  # a key-value table's labels
    revision_history: bool


class DroppedPart(_Part):
    what: str  # "running header", "footer", "page number", "cover page", "contents page"
    text: str  # an example of the text left out ("" for whole pages and bare page numbers)
    pages: list[int]


class CandidateDate(_Part):
    date: date
    where: str  # "revision history, page 3"


class IngestReport(_Part):
    """What an ingest read and left out, and what to check; `as_json()` is what the API returns."""

    files: list[FilePart]
    pages: int
    clauses: int
    table_clauses: int
    headings: list[HeadingPart]
    list_items: int
    joiners: int
    tables: list[TablePart]
    dropped: list[DroppedPart]
    candidate_effective_dates: list[CandidateDate]
    warnings: list[str]

    def as_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


def _tables(read: ReadFiles, drafted: Structure) -> list[TablePart]:
    noted = [(f, t) for f in read.files for t in f.report.tables]
    if noted:
        return [
            TablePart(
                page=None if t.page is None else t.page + f.first_page - 1,
                page_end=None if t.page_end is None else t.page_end + f.first_page - 1,
                header=list(t.header), rows=t.rows, keys=list(t.keys), revision_history=bool(t.revision_dates),
            )
            for f, t in noted
        ]
    return [
        TablePart(page=c.page, page_end=c.page_end, header=[], rows=len(c.text.splitlines()), keys=[], revision_history=False)
        for c in drafted.clauses if c.table
    ]


def build_report(read: ReadFiles, drafted: Structure, version: Version, effective_start: date) -> IngestReport:
    """The report of one version's ingest, from what the readers and the structure found."""
    dropped: list[DroppedPart] = []
    dates: dict[date, str] = {}
    warnings: list[str] = []
    for f in read.files:
        shift = f.first_page - 1
        for what, text, pages in f.report.dropped:
            dropped.append(DroppedPart(what=what, text=text, pages=[p + shift for p in pages]))
        for t in f.report.tables:
            for d in t.revision_dates:
                dates.setdefault(d, f"revision history, page {(t.page or 0) + shift}")
        warnings += [f"{f.path.name}: {w}" for w in f.report.warnings]
    warnings += list(drafted.warnings)
    if drafted.chunked:
        warnings.append("no headings or numbered articles were found: the text was cut into overlapping chunks")
    candidates = [CandidateDate(date=d, where=w) for d, w in sorted(dates.items(), reverse=True)]
    if candidates and effective_start not in dates:
        warnings.append(
            f"--effective-start {effective_start.isoformat()} is not among the dates of the revision history "
            f"(the newest is {candidates[0].date.isoformat()}): check that the version is in effect from that date"
        )
    lists = sum(len(c.lists) for c in drafted.clauses)
    joiners = sum(len(c.joiners) for c in drafted.clauses)
    return IngestReport(
        files=[FilePart(file=str(f.path.name), reader=f.reader, pages=f.pages, first_page=f.first_page) for f in read.files],
        pages=read.pages,
        clauses=len(version.clauses),
        table_clauses=sum(1 for c in drafted.clauses if c.table),
        headings=[HeadingPart(text=h.text, level=h.level, page=h.page) for h in drafted.headings],
        list_items=lists,
        joiners=joiners,
        tables=_tables(read, drafted),
        dropped=dropped,
        candidate_effective_dates=candidates,
        warnings=warnings,
    )


def outcome_data(outcome: IngestOutcome, store: str) -> dict[str, Any]:
    """An ingest's outcome as JSON data: what the CLI prints under --json and the API returns."""
    v = outcome.version
    return {
        "status": outcome.status,
        "document_id": outcome.document_id,
        "version": v.version,
        "new_version": outcome.new_version,
        "effective_start": v.effective_start.isoformat(),
        "effective_end": v.effective_end.isoformat() if v.effective_end else None,
        "source": v.source.model_dump() if v.source else None,
        "pages": outcome.pages,
        "chunked": outcome.chunked,
        "created": {
            "payers": list(outcome.payers),
            "plans": list(outcome.plans),
            "codes": [{"code": c, "system": s} for c, s in outcome.codes],
            "documents": list(outcome.documents),
        },
        "names": {i: n for i, n in outcome.names},
        "attached": list(outcome.attached),
        "events": [
            {"kind": e.kind, "document_id": e.document_id, "version": e.version, "date": e.date.isoformat(), "detail": e.detail}
            for e in outcome.events
        ],
        "notes": list(outcome.notes),
        "warnings": list(outcome.warnings),
        "report": outcome.report.as_json() if outcome.report is not None else None,
        "clauses": [
            {
                "id": c.id, "section": c.section, "article": c.article, "page": c.page, "page_label": c.page_label,
                "page_end": c.page_end, "page_end_label": c.page_end_label, "kind": c.kind,
                "coverage_type": c.coverage_type, "benefit": c.benefit,
            }
            for c in v.clauses
        ],
        "store": store,
        "fingerprint": outcome.fingerprint,
    }
