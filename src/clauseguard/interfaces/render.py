"""Human renderings of engine answers for the terminal (rich). Reads response dicts; decides nothing."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.console import Console
from rich.panel import Panel
from rich.table import Table

GATE_STYLE = {"DETERMINE": "green", "REVIEW": "yellow", "REFUSE": "magenta", "HALT": "red"}


def _passages(title: str, rows: list[Mapping[str, Any]], extra: str | None = None) -> Table:
    table = Table(title=title, title_justify="left")
    for col in ("clause", "version", "article", "page", "score") + ((extra,) if extra else ()):
        table.add_column(col)
    for r in rows:
        cells = [r["clause_id"], str(r.get("version") or ""), str(r.get("article") or ""), str(r.get("page") or ""),
                 f"{r['score']:.2f}"]
        if extra:
            cells.append(str(r.get(extra, "")))
        table.add_row(*cells)
    return table


def render_search(out: Console, response: Mapping[str, Any]) -> None:
    """Status and action first, then the sourced answer, sources, excluded and below-threshold passages."""
    status = response["status"]
    style = "green" if status == "answered" and response["action"] == "none" else "yellow"
    header = f"[bold {style}]{status}[/] — action: {response['action']}"
    target = response.get("contract_id") or f"{response.get('payer_id')} / {response.get('plan_id')}"
    header += f"\n{target}, effective {response['effective_date']}"
    if response.get("requested_date"):
        header += f" (requested {response['requested_date']})"
    header += f"; applicable version: {response['applicable_version']}"
    out.print(Panel(header, title="search", title_align="left"))
    out.print(response["answer"])
    if response["unsettled"]:
        out.print(f"[yellow]unsettled:[/] {', '.join(response['unsettled'])}")
    if response["sources"]:
        out.print(_passages("sources", response["sources"]))
    if response["excluded"]:
        out.print(_passages("excluded (not eligible)", response["excluded"], "reason"))
    if response["below_threshold"]:
        out.print(_passages(f"below threshold {response['threshold']}", response["below_threshold"]))


def render_compare(out: Console, response: Mapping[str, Any]) -> None:
    """Both sides' answers, then the differences side by side and the clauses with no counterpart."""
    out.print(Panel(f"{response['question']}\nA: {response['a']['target']}   B: {response['b']['target']}",
                    title="compare", title_align="left"))
    for name in ("a", "b"):
        side = response[name]
        out.print(f"[bold]{name.upper()}[/] ({side['target']}, {side['as_of_date']}): {side['answer']}")
    table = Table(title="differences", title_justify="left")
    for col in ("aspect", "A", "B"):
        table.add_column(col)
    for d in response["differences"]:
        cells = []
        for name in ("a", "b"):
            side = d[name]
            cells.append("—" if side is None else f"{side['clause_id']}: {side.get('value', side.get('text', ''))}")
        table.add_row(d["aspect"], *cells)
    out.print(table)
    if response["not_compared"]:
        out.print(f"not compared (no counterpart): {', '.join(response['not_compared'])}")


def render_determination(out: Console, response: Mapping[str, Any]) -> None:
    """Gate and outcome first, then the answer, the reasons, citations with their checks and criteria."""
    style = GATE_STYLE.get(response["gate"], "white")
    out.print(Panel(f"[bold {style}]{response['gate']}[/] — {response['outcome']}", title="determination",
                    title_align="left"))
    out.print(response["answer"])
    for reason in response["reasons"]:
        out.print(f"  [{style}]•[/] {reason['text']} [dim]({reason['code']})[/]")
    if response["citations"]:
        table = Table(title="citations", title_justify="left")
        for col in ("clause", "checks", "quote"):
            table.add_column(col)
        for c in response["citations"]:
            checks = " ".join(("✓" if ok else "✗") + name for name, ok in c["checks"].items())
            table.add_row(c["clause_id"], checks, c["quote"])
        out.print(table)
    if response["criteria"]:
        table = Table(title="criteria", title_justify="left")
        for col in ("clause", "criterion", "result", "fact"):
            table.add_column(col)
        for c in response["criteria"]:
            table.add_row(c["clause_id"], c["criterion"], c["result"], c["narrative_span"] or c["fact"] or c["missing"] or "")
        out.print(table)
    for conflict in response["conflicts"]:
        out.print(f"[yellow]conflict:[/] {conflict['description']} ({conflict['precedence']})")
    for flag in response.get("flags", []):
        out.print(f"[red]flag ({flag['kind']}):[/] {flag['text']}")
