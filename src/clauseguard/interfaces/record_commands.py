"""`clauseguard decide`, `report`, `trace` and `audit list`: what was recorded, and what people decided.

Thin: each reads or appends through `clauseguard.decisions` / `clauseguard.recorded` under
CLAUSEGUARD_HOME and renders; none opens a corpus, so each answers in a fraction of a second.
"""

from __future__ import annotations

import json
import sys
from typing import Annotated, Any

import typer

from clauseguard.interfaces.console import out

JsonFlag = Annotated[bool, typer.Option("--json", help="Print exactly one JSON document on stdout.")]
audit_app = typer.Typer(help="Read the audit log: what was answered, when, and on which corpus.", no_args_is_help=True, rich_markup_mode=None)


def _print_json(data: Any) -> None:
    if isinstance(data, list):
        data = [d.as_json() for d in data]
    elif hasattr(data, "as_json"):
        data = data.as_json()
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def _home() -> Any:
    from clauseguard.corpus.sources import home_dir

    return home_dir()


def _rate(value: float | None) -> str:
    return "—" if value is None else f"{value * 100:.1f}%"


def decide_command(
    assertion_id: Annotated[str, typer.Argument(help="The assertion id printed under a determination (as-...).")],
    final: Annotated[str, typer.Option("--final", help="The final outcome: COVERED, NOT_COVERED or INSUFFICIENT_EVIDENCE.")],
    by: Annotated[str, typer.Option("--by", help="Who decides: a name or staff id.")],
    reason: Annotated[str, typer.Option("--reason", help="Why (redacted before it is stored).")],
    as_json: JsonFlag = False,
) -> None:
    """Record a person's final decision against a determination, beside the engine's answer (append-only)."""
    from clauseguard.decisions import DecisionLog

    with DecisionLog(_home() / "audit.sqlite") as log:
        decision = log.record(assertion_id, final, by, reason)
    if as_json:
        _print_json(decision)
        return
    verdict = "agrees with" if decision.agrees else "overrides"
    out.print(f"recorded: {decision.decided_by} decided {decision.final_outcome.replace('_', ' ').lower()} for "
              f"{decision.assertion_id} ({verdict} the engine's {decision.engine_gate} / "
              f"{decision.engine_outcome.replace('_', ' ').lower()}); decision #{decision.seq}")


def report_command(as_json: JsonFlag = False) -> None:
    """Agreement and override rates of people's final decisions, by gate, document and reason."""
    from rich.table import Table

    from clauseguard.decisions import DecisionLog

    path = _home() / "audit.sqlite"
    if not path.exists():
        from clauseguard.responses import DecisionReport

        found = DecisionReport(decided=0, agreed=0, overridden=0, agreement_rate=None, override_rate=None,
                               by_gate=[], by_document=[], by_reason=[])
    else:
        with DecisionLog(path) as log:
            found = log.report()
    if as_json:
        _print_json(found)
        return
    if not found.decided:
        out.print("no final decisions recorded yet: `clauseguard decide ASSERTION_ID --final OUTCOME --by NAME "
                  "--reason TEXT` records one")
        return
    out.print(f"{found.decided} decided assertions: {found.agreed} agreed with the engine "
              f"({_rate(found.agreement_rate)}), {found.overridden} overridden ({_rate(found.override_rate)})")
    for title, rows in (("by gate", found.by_gate), ("by document", found.by_document), ("by reason", found.by_reason)):
        table = Table(title=title, title_justify="left")
        for col in ("group", "decided", "agreed", "overridden", "agreement", "override"):
            table.add_column(col, overflow="fold", justify="left" if col == "group" else "right")
        for r in rows:
            table.add_row(r.group, str(r.decided), str(r.agreed), str(r.overridden), _rate(r.agreement_rate),
                          _rate(r.override_rate))
        out.print(table)


def trace_command(
    ident: Annotated[str, typer.Argument(metavar="ID", help="A trace id (tr-...) or an assertion id (as-...).")],
    as_json: JsonFlag = False,
) -> None:
    """What was recorded for one answer: its trace lines (stages, timings, knobs) and its audit row."""
    from clauseguard.recorded import trace

    found = trace(_home(), ident)
    if as_json:
        _print_json(found)
        return
    if found.audit is not None:
        a = found.audit
        outcome = " / ".join(x for x in (a.gate, a.outcome, a.status) if x)
        out.print(f"[bold]{a.kind}[/bold] recorded {a.recorded_at}: {outcome}")
        out.print(f"  assertion {a.assertion_id} · trace {a.trace_id} · corpus {a.corpus_fingerprint}")
        if a.final_outcome:
            out.print(f"  final decision: {a.final_outcome}")
    for line in found.traces:
        stages = ", ".join(f"{k} {v * 1000:.1f} ms" for k, v in (line.get("stages") or {}).items())
        out.print(f"trace {line.get('trace_id')}: {stages}")
        out.print(f"  knobs {json.dumps(line.get('knobs'), sort_keys=True)}; lexicon {line.get('lexicon_fingerprint')}")
        for flag in line.get("flags") or []:
            out.print(f"  flag: {flag}")
    if not found.traces:
        out.print("  no trace line (the trace file holds none for this id)")


@audit_app.command("list")
def audit_list_command(
    limit: Annotated[int, typer.Option("--limit", help="How many records, newest first.")] = 20,
    kind: Annotated[str | None, typer.Option("--kind", help="Only determination or search records.")] = None,
    ids: Annotated[bool, typer.Option("--ids", help="Print only the assertion ids, one a line (for scripts).")] = False,
    as_json: JsonFlag = False,
) -> None:
    """The latest audit records, newest first, with the final decision recorded against each."""
    from rich.table import Table

    from clauseguard.recorded import audit_entries

    entries = audit_entries(_home(), limit=limit, kind=kind)
    if ids:
        sys.stdout.writelines(f"{e.assertion_id}\n" for e in entries)
        return
    if as_json:
        _print_json(entries)
        return
    if not entries:
        out.print(f"the audit log at {_home() / 'audit.sqlite'} holds no record yet")
        return
    table = Table(title=f"audit log: the latest {len(entries)}", title_justify="left")
    for col in ("#", "recorded", "kind", "answer", "final", "assertion", "trace"):
        table.add_column(col, overflow="fold")
    for e in entries:
        answer = " / ".join(x for x in (e.gate, e.outcome, e.status) if x)
        table.add_row(str(e.seq), e.recorded_at, e.kind, answer, e.final_outcome or "", e.assertion_id, e.trace_id)
    out.print(table)


def register(app: typer.Typer) -> None:
    """Add `decide`, `report`, `trace` and `audit list` to the main app."""
    app.command("decide")(decide_command)
    app.command("report")(report_command)
    app.command("trace")(trace_command)
    app.add_typer(audit_app, name="audit")
