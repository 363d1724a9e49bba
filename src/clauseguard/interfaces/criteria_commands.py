"""`clauseguard criteria draft|check|add|approve|log|report`: the analyst's workflow (thin).

Each command opens the corpus the global options name (its store holds the revisions), calls
`clauseguard.authoring` and renders. `check` and `add` exit 2 on any problem, each printed with the
clause, the key path and what would be valid; nothing is written unless the whole sheet checks.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from clauseguard.interfaces.console import err, out

if TYPE_CHECKING:
    from clauseguard.authoring.check import CheckReport
    from clauseguard.corpus.sources import Opened

JsonFlag = Annotated[bool, typer.Option("--json", help="Print exactly one JSON document on stdout.")]
criteria_app = typer.Typer(help="Author criteria where the compiler cannot read a clause: draft, check, add, "
                                "approve (four eyes), log.", no_args_is_help=True, rich_markup_mode=None)


def register(app: typer.Typer) -> None:
    """Add the `criteria` command group to the main app (once, however often called)."""
    if not any(g.name == "criteria" for g in app.registered_groups):
        app.add_typer(criteria_app, name="criteria")


def _opened(ctx: typer.Context) -> Opened:
    return ctx.find_root().obj.opened()  # type: ignore[no-any-return]


def _print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def _revisions(opened: Opened) -> dict[str, Any]:
    from clauseguard.authoring.revisions import active_revisions

    return active_revisions(opened.store)


@criteria_app.command("draft")
def draft_command(
    ctx: typer.Context,
    document: Annotated[str, typer.Argument(help="The document id to draft criteria for.")],
    version: Annotated[str | None, typer.Option("--version", help="Only this version label.")] = None,
    out_file: Annotated[str | None, typer.Option("--out", help="Write the sheet to this file (else stdout).")] = None,
    offsets_only: Annotated[bool, typer.Option("--offsets-only", help="Spans as offsets and no clause text: a "
                                               "sheet that copies none of the policy's words.")] = False,
    as_json: JsonFlag = False,
) -> None:
    """A criteria sheet: per deciding clause its tree, or holes with the unread span and the reason."""
    from clauseguard.authoring.draft import DRAFT_HEADER, draft_sheet
    from clauseguard.authoring.sheet import sheet_yaml

    opened = _opened(ctx)
    data = draft_sheet(opened.corpus, document, version, revisions=_revisions(opened), with_text=not offsets_only,
                       offsets=offsets_only)
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n" if as_json else sheet_yaml(data, DRAFT_HEADER)
    if out_file is None:
        sys.stdout.write(text)
        return
    Path(out_file).write_text(text, encoding="utf-8")
    holes = sum(len(c.get("holes", ())) for c in data["clauses"])
    err.print(f"wrote {out_file}: {len(data['clauses'])} clauses, {holes} holes to author", markup=False)


def _check(ctx: typer.Context, file: str) -> tuple[Opened, CheckReport]:
    from clauseguard.authoring.check import check_sheet
    from clauseguard.authoring.sheet import load_sheet

    opened = _opened(ctx)
    return opened, check_sheet(load_sheet(file), opened.corpus, revisions=_revisions(opened))


def _problems(report: CheckReport) -> None:
    for p in report.problems:
        err.print(f"error: {p}", markup=False)
    err.print(f"{len(report.problems)} problem(s) in the sheet; nothing was written", markup=False)


@criteria_app.command("check")
def check_command(
    ctx: typer.Context,
    file: Annotated[str, typer.Argument(help="A criteria sheet (YAML or JSON).")],
    normalise: Annotated[str | None, typer.Option("--normalise", help="Write the checked sheet here: spans "
                                                  "filled in, the plain words rewritten.")] = None,
    offsets_only: Annotated[bool, typer.Option("--offsets-only", help="With --normalise: spans as offsets, no "
                                               "clause text.")] = False,
    as_json: JsonFlag = False,
) -> None:
    """Spans verbatim, kinds and comparators valid, references resolve, every sentence covered; the
    tree in plain words. Exit 2 on any problem."""
    _, report = _check(ctx, file)
    if normalise is not None and report.ok:
        from clauseguard.authoring.normalise import normalised_sheet

        Path(normalise).write_text(normalised_sheet(report, offsets_only=offsets_only), encoding="utf-8")
    if as_json:
        _print_json(report.as_json())
    else:
        for e in report.entries:
            if not e.deciding and e.same_as_compiler():
                continue
            who = "as the compiler reads it" if e.same_as_compiler() else "authored"
            out.print(f"{e.clause.id} ({e.role}, {who})", markup=False, style="bold")
            for line in e.words or [f"decides nothing ({e.entry.reason or e.role})"]:
                out.print(f"  - {line}", markup=False)
    if not report.ok:
        _problems(report)
        raise typer.Exit(2)


@criteria_app.command("add")
def add_command(
    ctx: typer.Context,
    file: Annotated[str, typer.Argument(help="A checked criteria sheet.")],
    author: Annotated[str, typer.Option("--author", help="Who wrote the criteria.")],
    note: Annotated[str, typer.Option("--note", help="Why they change (kept with every revision).")],
    as_json: JsonFlag = False,
) -> None:
    """Append a criteria revision per clause whose reading changes (append-only; used once approved)."""
    from clauseguard.authoring.revisions import revision_log
    from clauseguard.authoring.submit import add_checked

    opened, report = _check(ctx, file)
    if not report.ok:
        if as_json:
            _print_json(report.as_json())
        _problems(report)
        raise typer.Exit(2)
    with revision_log(opened.store) as log:
        added = add_checked(report, log, author=author, note=note)
    if as_json:
        _print_json({"added": [a.as_json() for a in added]})
        return
    for a in added:
        if a.status != "read by the compiler":
            out.print(f"{a.clause_id}: {a.status}" + (f" {a.revision_id}" if a.revision_id else ""), markup=False)
    count = sum(1 for a in added if a.status == "added")
    out.print(f"{count} revision(s) added; each is used once someone other than {author} runs "
              "`clauseguard criteria approve REVISION --by NAME`", markup=False)


@criteria_app.command("approve")
def approve_command(
    ctx: typer.Context,
    revision: Annotated[str, typer.Argument(help="A revision id (cr-...), or `pending` for every unapproved one.")],
    by: Annotated[str, typer.Option("--by", help="Who approves: never the revision's author.")],
    as_json: JsonFlag = False,
) -> None:
    """Approve a criteria revision (four eyes: not its author); the newest approved revision is used."""
    from clauseguard.authoring.revisions import revision_log

    with revision_log(_opened(ctx).store) as log:
        ids = log.pending() if revision == "pending" else [revision]
        approved = [log.approve(rid, by) for rid in ids]
    if as_json:
        _print_json({"approved": [r.summary() for r in approved]})
        return
    for r in approved:
        out.print(f"{r.id} ({r.clause_id}, by {r.author}) approved by {by}", markup=False)
    if not approved:
        out.print("no revision is waiting for approval", markup=False)


@criteria_app.command("log")
def log_command(
    ctx: typer.Context,
    clause_id: Annotated[str, typer.Argument(help="A clause id.")],
    as_json: JsonFlag = False,
) -> None:
    """A clause's criteria revisions, oldest first: author, time, note, content hash, approvals."""
    from clauseguard.authoring.view import clause_log

    opened = _opened(ctx)
    history = clause_log(opened, clause_id)
    if as_json:
        _print_json(history)
        return
    out.print(f"{clause_id}: {history['read_by']}", markup=False)
    for r in history["revisions"]:
        approved = ", ".join(f"{b} ({a})" for b, a in zip(r["approved_by"], r["approved_at"], strict=True)) or "not approved"
        flag = "" if r["intact"] else "  TAMPERED: the row no longer matches its hash"
        out.print(f"  {r['revision_id']}  {r['created_at']}  {r['role']}  by {r['author']} — {r['note']}"
                  f"  [{approved}]  {r['content_hash']}{flag}", markup=False)
    if not history["revisions"]:
        out.print("  no revision: the clause is read by the compiler (or the corpus's own criteria)", markup=False)


@criteria_app.command("report")
def report_command(ctx: typer.Context, as_json: JsonFlag = False) -> None:
    """The reading report with the revisions in use: who reads each clause, and where an authored tree
    and the compiler's disagree on a generated case shape."""
    from clauseguard.authoring.report import authored_report

    opened = _opened(ctx)
    report = authored_report(opened.corpus, _revisions(opened))
    if as_json:
        _print_json(report)
        return
    s = report["summary"]
    out.print(f"{s['read_deciding']} of {s['deciding']} deciding clauses read whole (read rate {s['read_rate']}; "
              f"compiler alone {s['compile_rate']}); {s['authored']} by revisions, {s['disagreeing']} disagreeing "
              "with the compiler", markup=False)
    for row in report["clauses"]:
        d = row["disagreement"]
        if d and d["disagreeing"]:
            out.print(f"  {row['id']}: {row['read_by']} disagrees with the compiler on {d['disagreeing']} of "
                      f"{d['shapes']} case shapes, e.g. {d['examples'][0]}", markup=False)
        elif row["deciding"] and not row["compiled"] and row["revision"] is None:
            out.print(f"  {row['id']} ({row['role']}): unread — {row['reason']}", markup=False)
