"""`clauseguard corpus reading [CORPUS]`: the reading report in the terminal or as JSON (thin)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from clauseguard.errors import CorpusError


def register(corpus_app: typer.Typer, corpus_of: typer.models.CommandFunctionType | None = None) -> None:
    if not any(c.name == "reading" for c in corpus_app.registered_commands):
        corpus_app.command("reading")(reading_command)


def reading_command(
    ctx: typer.Context,
    path: Annotated[str | None, typer.Argument(help="Corpus file or folder (default: --corpus).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON document on stdout.")] = False,
) -> None:
    """Every clause's role, whether the compiler reads it whole, and what it could not read."""
    from clauseguard.corpus.loader import DEMO, demo_corpus_path, load_path
    from clauseguard.reading.report import reading_report

    options = ctx.find_root().obj
    target = path or getattr(options, "corpus", None)
    if target is None:
        raise CorpusError("give the corpus to read: clauseguard corpus reading PATH (or --corpus PATH)")
    corpus = load_path(demo_corpus_path() if target == DEMO else Path(target))
    report = reading_report(corpus)
    if as_json:
        sys.stdout.write(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
        return
    from rich.console import Console
    from rich.table import Table

    out = Console(highlight=False)
    s = report["summary"]
    out.print(f"{s['compiled_deciding']} of {s['deciding']} deciding clauses read whole "
              f"(compile rate {s['compile_rate']}); {s['clauses']} clauses in all")
    table = Table(title="documents", title_justify="left")
    for col in ("document", "deciding", "read whole", "rate", "roles"):
        table.add_column(col, overflow="fold")
    for d in report["documents"]:
        table.add_row(d["id"], str(d["deciding"]), str(d["compiled_deciding"]), str(d["compile_rate"]),
                      ", ".join(f"{k} {v}" for k, v in d["roles"].items()))
    out.print(table)
    for row in report["clauses"]:
        if row["deciding"] and not row["compiled"]:
            out.print(f"[yellow]{row['id']}[/] ({row['role']}): {row['reason']} — {row['unread_span']!r}")
