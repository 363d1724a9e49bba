"""`clauseguard batch` and `clauseguard impact`: parse, call `batch.runner` / `batch.impact`, render.

Thin: a progress bar on stderr while work runs, one summary at the end (one JSON document under
--json). No error is caught here: `cli.main` prints it as one line (exit 2 bad input, 3 a failed
environment such as a database gone mid-batch).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from clauseguard.errors import RequestError

err = Console(stderr=True, highlight=False)
JsonFlag = Annotated[bool, typer.Option("--json", help="Print exactly one JSON document on stdout.")]
WorkersOption = Annotated[int, typer.Option("--workers", help="Worker processes (default: the machine's cores).")]
EngineOption = Annotated[str, typer.Option("--engine", help="local (processes on this machine) or ray.")]
AddressOption = Annotated[
    str | None, typer.Option("--address", help="A Ray cluster to join (implies --engine ray); default: a local one.")
]


def _source(ctx: typer.Context) -> Any:
    from clauseguard.batch.runner import Source

    opts = ctx.find_root().obj
    return Source(getattr(opts, "corpus", None), getattr(opts, "store", None), getattr(opts, "store_url", None))


@contextmanager
def progress_bar(label: str, quiet: bool) -> Iterator[Callable[[int, int], None]]:
    """A rich progress bar on stderr (none when stderr is not a terminal or under --json)."""
    if quiet or not sys.stderr.isatty():
        yield lambda done, total: None
        return
    with Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(), console=err) as bar:
        task = bar.add_task(label, total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield update


def _engine(engine: str, address: str | None) -> str:
    chosen = "ray" if address else engine
    if chosen not in ("local", "ray"):
        raise RequestError("--engine", f"{engine!r} is not an engine; write local or ray")
    return chosen


def batch_command(
    ctx: typer.Context,
    requests: Annotated[Path, typer.Argument(metavar="REQUESTS.jsonl", help="One determination or search request a line.")],
    output: Annotated[Path, typer.Option("-o", "--output", help="Results, one JSON line per request, in input order.")],
    workers: WorkersOption = 0,
    engine: EngineOption = "local",
    address: AddressOption = None,
    as_json: JsonFlag = False,
) -> None:
    """Answer many requests (resumable: a rerun skips what is done); every answer audited once."""
    from clauseguard.batch.runner import run_batch

    if not requests.is_file():
        raise RequestError("REQUESTS", f"{requests} is not a file; give a JSON Lines file of requests")
    count = workers if workers > 0 else (os.cpu_count() or 1)
    with progress_bar("batch", as_json) as update:
        summary = run_batch(requests, output, _source(ctx), workers=count, address=address,
                            engine=_engine(engine, address), progress=update)
    if as_json:
        sys.stdout.write(json.dumps(summary.as_json(), indent=2, ensure_ascii=False) + "\n")
    else:
        err.print(f"{summary.answered} of {summary.requests} requests answered in {summary.results} "
                  f"({summary.computed} now, {summary.skipped} already done)")
    for bad in summary.bad_lines:
        sys.stderr.write(f"{requests}: line {bad.line}: {bad.message}\n")


def impact_command(
    ctx: typer.Context,
    document: Annotated[str, typer.Option("--document", help="The document that has a new version.")],
    version: Annotated[str, typer.Option("--version", help="The new version's label (already ingested).")],
    requests: Annotated[
        Path | None, typer.Option("--requests", help="A batch requests file instead of the audit log.")
    ] = None,
    workers: WorkersOption = 0,
    engine: EngineOption = "local",
    address: AddressOption = None,
    as_json: JsonFlag = False,
) -> None:
    """Which audited determinations in the new version's window change under it, with the clause differences."""
    from clauseguard.batch.impact import impact

    if requests is not None and not requests.is_file():
        raise RequestError("--requests", f"{requests} is not a file; give a JSON Lines file of requests")
    count = workers if workers > 0 else (os.cpu_count() or 1)
    with progress_bar("impact", as_json) as update:
        report = impact(document, version, _source(ctx), requests=requests, workers=count,
                        engine=_engine(engine, address), address=address, progress=update)
    if as_json:
        sys.stdout.write(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
        return
    out = Console(highlight=False)
    out.print(f"[bold]{report['document_id']} {report['version']}[/bold] "
              f"({report['window']['effective_start']} to {report['window']['effective_end'] or 'open-ended'}): "
              f"{report['considered']} determinations in the window, {report['changed_count']} change")
    for row in report["changed"]:
        out.print(f"  {row['as_of_date']} {row['key']}: {row['before']['gate']}/{row['before']['outcome']} -> "
                  f"{row['after']['gate']}/{row['after']['outcome']} ({', '.join(row['changes'])})")
    for old, differences in report["clause_differences"].items():
        out.print(f"  {old} -> {report['version']}: {len(differences)} clause difference(s)")
        for diff in differences:
            out.print(f"    {diff.get('aspect')}: {diff.get('summary')}")


def register(app: typer.Typer) -> None:
    """Add `batch` and `impact` to the CLI (once, however often called)."""
    names = {c.name for c in app.registered_commands}
    if "batch" not in names:
        app.command("batch")(batch_command)
    if "impact" not in names:
        app.command("impact")(impact_command)
