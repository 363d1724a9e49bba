"""`clauseguard ingest` and `clauseguard corpus export`: parse, call `corpus.ingest` / `corpus.export`,
render. Thin: no reading, classifying or timeline rule lives here, and no error is caught here
(`cli.main` prints it as one line and exits 2).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Final, Protocol

import typer

from clauseguard.errors import RequestError
from clauseguard.interfaces.console import out

if TYPE_CHECKING:  # the readers and the store load when a command runs, never for --help
    from clauseguard.corpus.ingest import IngestOutcome, Progress
    from clauseguard.corpus.ingest_report import IngestReport
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
    payer_name: Annotated[str | None, typer.Option("--payer-name", help="A new payer's name (default: its id).")] = None,
    title: Annotated[str | None, typer.Option("--title", help="A new document's title (default: the title it prints).")] = None,
    plan: Annotated[list[str] | None, typer.Option("--plan", help="A plan the document applies to (repeat the flag).")] = None,
    plan_name: Annotated[
        list[str] | None, typer.Option("--plan-name", help='A new plan\'s name as PLAN=Name, e.g. KHP-PPO="Kestrel PPO" (repeat).')
    ] = None,
    code: Annotated[list[str] | None, typer.Option("--code", help="A code the document governs (repeat the flag).")] = None,
    overrides: Annotated[
        list[str] | None, typer.Option("--overrides", help="A document this rider overrides (repeat the flag).")
    ] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print the ingest report and what would be added; write nothing.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print exactly one JSON document on stdout.")] = False,
) -> None:
    """Read policy documents into one new version of a document in the persistent store."""
    opts = _options(ctx)
    if opts.corpus is not None:
        raise RequestError(
            "--corpus", "ingest writes into the persistent store; leave --corpus out (--store PATH picks another store file)"
        )
    from clauseguard.corpus.ingest import build_request, ingest
    from clauseguard.corpus.ingest_report import outcome_data
    from clauseguard.corpus.sources import open_persistent_store

    fields = {
        "document": document, "version": version, "effective_start": effective_start,
        "effective_end": effective_end, "kind": kind, "payer": payer, "payer_name": payer_name, "title": title,
        "plans": plan or (), "plan_names": plan_name or (), "codes": code or (), "overrides": overrides or (),
    }
    request = build_request(files, fields)
    store = open_persistent_store(opts.store, getattr(opts, "store_url", None))
    try:
        with _progress(request.files, quiet=as_json) as progress:
            outcome = ingest(store, request, dry_run=dry_run, progress=progress)
    finally:
        store.close()
    where = store.location
    if as_json:
        _print_json(outcome_data(outcome, where))
    else:
        render_outcome(outcome, where)


_LONG_INGEST: Final = 200_000  # bytes of input from which an ingest shows a progress bar (about 100 PDF pages)


@contextmanager
def _progress(files: tuple[Path, ...], *, quiet: bool) -> Iterator[Progress | None]:
    """A progress bar on stderr for long ingests (big files, a terminal, not --json); else None."""
    size = sum(f.stat().st_size for f in files if f.is_file())
    if quiet or size < _LONG_INGEST or not sys.stderr.isatty():
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
    from rich.progress import Progress as Bar

    from clauseguard.interfaces.console import stderr_console

    with Bar(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
             console=stderr_console(), transient=True) as bar:
        tasks: dict[str, Any] = {}
        reading = ["reading"]

        def advance(stage: str, done: int, total: int) -> None:
            if stage.startswith("reading "):  # a new file: its pages get a bar of their own
                reading[0] = stage
                return
            key = reading[0] if stage == "pages" else "classifying clauses"
            if key not in tasks:
                tasks[key] = bar.add_task(key, total=total)
            bar.update(tasks[key], completed=done, total=total)

        yield advance


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def render_outcome(outcome: IngestOutcome, store: str) -> None:
    v = outcome.version
    period = f"{v.effective_start.isoformat()} to {v.effective_end.isoformat() if v.effective_end else 'open-ended'}"
    src = v.source
    origin = f"{src.file} ({src.reader}, sha256 {src.sha256[:12]})" if src else "the files given"
    names = dict(outcome.names)
    if outcome.status == "unchanged":
        why = "the same file" if not outcome.read_files else "the same text"
        out.print(f"Nothing new: version {v.version} of {outcome.document_id} is already stored from {why}, {origin}.")
    elif outcome.new_version:
        verb = "Would add" if outcome.status == "planned" else "Added"
        pages = f", {_plural(outcome.pages, 'page')}" if outcome.pages else ""
        out.print(
            f"{verb} version [bold]{v.version}[/bold] of {outcome.document_id}, in effect {period}: "
            f"{_plural(len(v.clauses), 'clause')} from {origin}{pages}."
        )
    for said in outcome.attached:
        prefix = "Would attach: " if outcome.status == "planned" else ""
        out.print(prefix + said[:1].upper() + said[1:] + ".", markup=False)
    for payer in outcome.payers:
        named = names.get(payer, payer)
        out.print(f"  new payer {payer} (named {named!r})" + ("; give --payer-name to name it" if named == payer else ""),
                  markup=False)
    for plan in outcome.plans:
        plan_named = names.get(plan)
        out.print(f"  new plan {plan}" + (f" (named {plan_named!r})" if plan_named and plan_named != plan else
                                         " (named by its id; give --plan-name PLAN=Name)" if plan_named else ""),
                  markup=False)
    for code, system in outcome.codes:
        out.print(f"  new code {code} ({system}, told by its shape)")
    for doc in outcome.documents:
        out.print(f"  new document {doc}")
    for event in outcome.events:
        if event.kind == "version_closed":
            out.print(f"  closed: {event.detail}")
    for note in outcome.notes:
        out.print(f"  note: {note}", markup=False)
    if outcome.report is not None:
        render_report(outcome.report)
    for warning in outcome.warnings:
        out.print("  [yellow]warning[/yellow]: " + warning.replace("[", "\\["))
    if outcome.new_version and v.clauses:
        rows = [
            (
                c.id,
                c.article or c.section,
                _pages(c.page, c.page_label, c.page_end, c.page_end_label),
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


def _pages(page: int | None, label: str | None, end: int | None, end_label: str | None) -> str:
    if page is None:
        return ""
    text = f"p. {page}" + (f" ({label})" if label and label != str(page) else "")
    if end is not None:
        text += f"-{end}" + (f" ({end_label})" if end_label and end_label != str(end) else "")
    return text


def render_report(report: IngestReport) -> None:
    """The ingest report: what was read, what was left out, what to check."""
    lists = f", {_plural(report.list_items, 'list item')}" if report.list_items else ""
    joiners = f", {_plural(report.joiners, 'joiner line')}" if report.joiners else ""
    pages = f"{_plural(report.pages, 'page')}, " if report.pages else ""
    out.print(
        f"  read: {pages}{_plural(report.clauses, 'clause')} "
        f"({report.table_clauses} from tables), {_plural(len(report.headings), 'heading')}{lists}{joiners}, "
        f"{_plural(len(report.tables), 'table')}",
        markup=False,
    )
    for t in report.tables:
        where = f"p. {t.page}" + (f"-{t.page_end}" if t.page_end else "")
        shape = f"header {' | '.join(t.header)}" if t.header else ("key-value" if t.keys else "no header")
        kind = ", revision history" if t.revision_history else ""
        out.print(f"  table {where}: {_plural(t.rows, 'row')}, {shape}{kind}", markup=False)
    for d in report.dropped:
        pages = ", ".join(str(p) for p in d.pages)
        shown = f" {d.text!r}" if d.text else ""
        out.print(f"  left out: {d.what}{shown} (page{'s' if len(d.pages) != 1 else ''} {pages})", markup=False)
    if report.candidate_effective_dates:
        shown = ", ".join(c.date.isoformat() for c in report.candidate_effective_dates[:5])
        more = f" (and {len(report.candidate_effective_dates) - 5} more)" if len(report.candidate_effective_dates) > 5 else ""
        out.print(f"  candidate effective dates from the {report.candidate_effective_dates[0].where}: {shown}{more}",
                  markup=False)


# ----------------------------------------------------------------------------- export


def export_command(
    ctx: typer.Context,
    path: Annotated[Path, typer.Argument(help="File to write (YAML; JSON when it ends in .json), or a folder.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print exactly one JSON document on stdout.")] = False,
) -> None:
    """Write the corpus (by default the persistent store) out in the interchange format."""
    opened = _options(ctx).opened()
    target = path / "corpus.yaml" if path.is_dir() else path
    from clauseguard.corpus.export import export_corpus
    from clauseguard.corpus.stats import corpus_stats

    written = export_corpus(opened.corpus, target)
    stats = corpus_stats(opened.corpus)
    if as_json:
        _print_json({"path": str(written), "from": opened.description, **stats})
        return
    out.print(
        f"Exported {opened.description} to {written}: {stats['documents']} documents, {stats['versions']} versions, "
        f"{stats['clauses']} clauses."
    )
