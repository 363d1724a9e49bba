"""`clauseguard ingest` and `clauseguard corpus export`: parse, call `corpus.ingest` / `corpus.export`,
render. Thin: no reading, classifying or timeline rule lives here, and no error is caught here
(`cli.main` prints it as one line and exits 2).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Final, Protocol

import typer

from clauseguard.errors import RequestError
from clauseguard.interfaces.console import out

if TYPE_CHECKING:  # the readers and the store load when a command runs, never for --help
    from clauseguard.corpus.ingest import IngestOutcome
    from clauseguard.corpus.sources import Opened

# clauseguard.corpus.model.DOCUMENT_KINDS, written out so --help imports no corpus code (a test keeps them equal)
DOCUMENT_KINDS: Final = ("medical_policy", "policy_terms", "rider", "faq", "schedule_of_benefits")


class _GlobalOptions(Protocol):
    """What the root command's callback leaves in the context (cli.Options)."""

    corpus: str | None
    store: str | None

    def opened(self) -> Opened: ...


def _options(ctx: typer.Context) -> _GlobalOptions:
    return ctx.find_root().obj  # type: ignore[no-any-return]


def _print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def register(app: typer.Typer, corpus_app: typer.Typer) -> None:
    """Add `ingest` to the main app and `export` to its `corpus` sub-app (once, however often called)."""
    if not any(c.name == "ingest" for c in app.registered_commands):
        app.command("ingest")(ingest_command)
    if not any(c.name == "export" for c in corpus_app.registered_commands):
        corpus_app.command("export")(export_command)


# ----------------------------------------------------------------------------- ingest


def ingest_command(
    ctx: typer.Context,
    files: Annotated[
        list[Path],
        typer.Argument(metavar="FILE...", help="The file(s) of one version: PDF, DOCX, HTML, Markdown or text; several files are one "
                       "document whose pages continue. A sidecar FILE.yaml beside a file may give the options below."),
    ],
    document: Annotated[str | None, typer.Option("--document", help="Document id, e.g. GRP-TERMS.")] = None,
    version: Annotated[str | None, typer.Option("--version", help="Version label, e.g. CG-2021-09.")] = None,
    effective_start: Annotated[str | None, typer.Option("--effective-start", help="First day in effect (YYYY-MM-DD).")] = None,
    effective_end: Annotated[
        str | None, typer.Option("--effective-end", help="Last day in effect (YYYY-MM-DD); default open-ended.")
    ] = None,
    kind: Annotated[
        str | None, typer.Option("--kind", help=f"Document kind, needed for a new document: {', '.join(DOCUMENT_KINDS)}.")
    ] = None,
    payer: Annotated[str | None, typer.Option("--payer", help="Payer id, needed for a new document.")] = None,
    title: Annotated[str | None, typer.Option("--title", help="A new document's title (default: the title it prints).")] = None,
    plan: Annotated[list[str] | None, typer.Option("--plan", help="A plan the document applies to (repeat the flag).")] = None,
    code: Annotated[list[str] | None, typer.Option("--code", help="A code the document governs (repeat the flag).")] = None,
    overrides: Annotated[
        list[str] | None, typer.Option("--overrides", help="A document this rider overrides (repeat the flag).")
    ] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Show what would be added; write nothing.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print exactly one JSON document on stdout.")] = False,
) -> None:
    """Read policy documents into one new version of a document in the persistent store."""
    opts = _options(ctx)
    if opts.corpus is not None:
        raise RequestError(
            "--corpus", "ingest writes into the persistent store; leave --corpus out (--store PATH picks another store file)"
        )
    from clauseguard.corpus.ingest import build_request, ingest
    from clauseguard.corpus.sources import open_persistent_store, persistent_store_path

    request = build_request(
        files,
        {
            "document": document, "version": version, "effective_start": effective_start,
            "effective_end": effective_end, "kind": kind, "payer": payer, "title": title,
            "plans": plan or (), "codes": code or (), "overrides": overrides or (),
        },
    )
    store = open_persistent_store(opts.store)
    try:
        outcome = ingest(store, request, dry_run=dry_run)
    finally:
        store.close()
    where = str(persistent_store_path(opts.store))
    if as_json:
        _print_json(outcome_json(outcome, where))
    else:
        render_outcome(outcome, where)


def outcome_json(outcome: IngestOutcome, store: str) -> dict[str, Any]:
    v = outcome.version
    return {
        "status": outcome.status,
        "document_id": outcome.document_id,
        "version": v.version,
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
        "events": [
            {"kind": e.kind, "document_id": e.document_id, "version": e.version, "date": e.date.isoformat(), "detail": e.detail}
            for e in outcome.events
        ],
        "notes": list(outcome.notes),
        "warnings": list(outcome.warnings),
        "clauses": [
            {
                "id": c.id, "section": c.section, "article": c.article, "page": c.page, "page_label": c.page_label,
                "kind": c.kind, "coverage_type": c.coverage_type, "benefit": c.benefit,
            }
            for c in v.clauses
        ],
        "store": store,
        "fingerprint": outcome.fingerprint,
    }


def render_outcome(outcome: IngestOutcome, store: str) -> None:
    v = outcome.version
    period = f"{v.effective_start.isoformat()} to {v.effective_end.isoformat() if v.effective_end else 'open-ended'}"
    src = v.source
    origin = f"{src.file} ({src.reader}, sha256 {src.sha256[:12]})" if src else "the files given"
    if outcome.status == "unchanged":
        why = "the same file" if not outcome.read_files else "the same text"
        out.print(f"Nothing new: version {v.version} of {outcome.document_id} is already stored from {why}, {origin}.")
    else:
        verb = "Would add" if outcome.status == "planned" else "Added"
        pages = f", {outcome.pages} page{'s' if outcome.pages != 1 else ''}" if outcome.pages else ""
        out.print(
            f"{verb} version [bold]{v.version}[/bold] of {outcome.document_id}, in effect {period}: "
            f"{len(v.clauses)} clause{'s' if len(v.clauses) != 1 else ''} from {origin}{pages}."
        )
    for payer in outcome.payers:
        out.print(f"  new payer {payer} (named {payer!r})")
    for plan in outcome.plans:
        out.print(f"  new plan {plan}")
    for code, system in outcome.codes:
        out.print(f"  new code {code} ({system}, told by its shape)")
    for doc in outcome.documents:
        out.print(f"  new document {doc}")
    for event in outcome.events:
        if event.kind == "version_closed":
            out.print(f"  closed: {event.detail}")
    for note in outcome.notes:
        out.print(f"  note: {note}")
    for warning in outcome.warnings:
        out.print(f"  [yellow]warning[/yellow]: {warning}")
    if outcome.chunked:
        out.print("  the text has no headings or numbered articles: it was cut into overlapping chunks (section 'chunk N')")
    if outcome.status != "unchanged" and v.clauses:
        rows = [
            (
                c.id,
                c.article or c.section,
                "" if c.page is None else f"p. {c.page}" + (f" ({c.page_label})" if c.page_label else ""),
                "/".join(x for x in (c.kind, c.coverage_type) if x),
                c.benefit or "",
            )
            for c in v.clauses
        ]
        widths = [max(len(r[i]) for r in rows) for i in range(4)]
        for row in rows:  # plain lines, not a table: ids are never cut, and scripts can read them
            out.print("  " + "  ".join(cell.ljust(widths[i]) if i < 4 else cell for i, cell in enumerate(row)).rstrip(),
                      markup=False)
    if outcome.status == "planned":
        out.print("Dry run: nothing was written.")
    else:
        out.print(f"Store {store}, fingerprint {outcome.fingerprint}")


# ----------------------------------------------------------------------------- export


def export_command(
    ctx: typer.Context,
    path: Annotated[Path, typer.Argument(help="File to write (YAML; JSON when it ends in .json), or a folder.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print exactly one JSON document on stdout.")] = False,
) -> None:
    """Write the corpus (by default the persistent store) out in the interchange format."""
    opened = _options(ctx).opened()
    target = path / "corpus.yaml" if path.is_dir() else path
    from clauseguard.authoring.revisions import active_revisions
    from clauseguard.corpus.export import export_corpus
    from clauseguard.corpus.stats import corpus_stats

    written = export_corpus(opened.corpus, target, revisions=active_revisions(opened.store))
    stats = corpus_stats(opened.corpus)
    if as_json:
        _print_json({"path": str(written), "from": opened.description, **stats})
        return
    out.print(
        f"Exported {opened.description} to {written}: {stats['documents']} documents, {stats['versions']} versions, "
        f"{stats['clauses']} clauses."
    )
