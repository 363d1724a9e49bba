"""Human renderings of engine answers for the terminal (rich). Reads the typed answers; decides nothing.

Text is wrapped at word boundaries to the terminal's width; clause ids are folded, never cut.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.panel import Panel
from rich.table import Table

from clauseguard.responses import (
    CompareResponse,
    DeterminationResponse,
    ExcludedPassage,
    Passage,
    SearchResponse,
    Source,
)

GATE_STYLE = {"DETERMINE": "green", "REVIEW": "yellow", "REFUSE": "magenta", "HALT": "red"}
OUTCOME_WORDS = {"COVERED": "covered", "NOT_COVERED": "not covered", "INSUFFICIENT_EVIDENCE": "insufficient evidence"}


def page_text(p: Passage) -> str:
    """The page as a handler finds it: the printed label first, the PDF page when they differ."""
    if p.page is None:
        return ""
    if p.page_label and p.page_label != str(p.page):
        text = f"{p.page_label} (printed), PDF page {p.page}"
    else:
        text = str(p.page)
    if p.page_end is not None and p.page_end != p.page:
        end = p.page_end_label if p.page_end_label and p.page_end_label != str(p.page_end) else str(p.page_end)
        text += f"–{end}"
    return text


def _table(title: str, columns: Sequence[str]) -> Table:
    table = Table(title=title, title_justify="left", expand=False)
    for col in columns:
        # ids and quotes fold onto the next line instead of being cut with an ellipsis
        table.add_column(col, overflow="fold")
    return table


def _passages(title: str, rows: Sequence[Passage], with_reason: bool = False) -> Table:
    table = _table(title, ("clause", "version", "article", "page", "score") + (("reason",) if with_reason else ()))
    for r in rows:
        cells = [r.clause_id, r.version, r.article or "", page_text(r), f"{r.score:.2f}"]
        if isinstance(r, Source) and not r.settles:
            cells[0] += " (settles nothing: see unsettled)"
        if with_reason and isinstance(r, ExcludedPassage):
            cells.append(r.reason)
        table.add_row(*cells)
    return table


def _ids(out: Console, trace_id: str, assertion_id: str | None = None) -> None:
    ids = f"assertion {assertion_id} · trace {trace_id}" if assertion_id else f"trace {trace_id}"
    out.print(f"[dim]{ids}[/]")


def render_search(out: Console, response: SearchResponse) -> None:
    """Status and action first, then the sourced answer, sources, excluded and below-threshold passages."""
    style = "green" if response.status == "answered" and response.action == "none" else "yellow"
    header = f"[bold {style}]{response.status}[/] — action: {response.action}"
    target = response.contract_id or f"{response.payer_id} / {response.plan_id}"
    header += f"\n{target}, effective {response.effective_date}"
    if response.requested_date:
        header += f" (requested {response.requested_date})"
    header += f"; applicable version: {response.applicable_version}"
    out.print(Panel(header, title="search", title_align="left"))
    out.print(response.answer)
    if response.unsettled:
        out.print(f"[yellow]unsettled:[/] {', '.join(response.unsettled)}")
    if response.sources:
        out.print(_passages("sources", response.sources))
    if response.excluded:
        out.print(_passages("excluded (not eligible)", response.excluded, with_reason=True))
    if response.below_threshold:
        out.print(_passages(f"below threshold {response.threshold}", response.below_threshold))
    _ids(out, response.trace_id)


def render_compare(out: Console, response: CompareResponse) -> None:
    """Both sides' answers, then the differences side by side and the clauses with no counterpart."""
    out.print(Panel(f"{response.question}\nA: {response.a.target}   B: {response.b.target}",
                    title="compare", title_align="left"))
    for name, answered in (("A", response.a), ("B", response.b)):
        out.print(f"[bold]{name}[/] ({answered.target}, {answered.as_of_date}): {answered.answer}")
    table = _table("differences", ("aspect", "A", "B"))
    for d in response.differences:
        cells = []
        for side in (d.a, d.b):
            cells.append("—" if side is None else f"{side.clause_id}: {side.value or side.text or ''}")
        table.add_row(d.aspect, *cells)
    out.print(table)
    if response.not_compared:
        out.print(f"not compared (no counterpart): {', '.join(response.not_compared)}")
    _ids(out, response.trace_id)


def render_determination(out: Console, response: DeterminationResponse) -> None:
    """Gate and outcome first, then the answer, the reasons, citations with their checks and criteria."""
    style = GATE_STYLE.get(response.gate, "white")
    out.print(Panel(f"[bold {style}]{response.gate}[/] — {OUTCOME_WORDS.get(response.outcome, response.outcome)}",
                    title="determination", title_align="left"))
    out.print(response.answer)
    for reason in response.reasons:
        out.print(f"  [{style}]•[/] {reason.text} [dim]({reason.code})[/]")
    if response.citations:
        table = _table("citations", ("clause", "checks", "quote"))
        for c in response.citations:
            checks = "" if c.checks is None else " ".join(
                ("✓" if ok else "✗") + name for name, ok in c.checks.model_dump().items())
            table.add_row(c.clause_id, checks, c.quote)
        out.print(table)
    if response.criteria:
        table = _table("criteria", ("clause", "criterion", "result", "fact"))
        seen: set[tuple[str, str, str]] = set()
        for row in response.criteria:
            key = (row.clause_id, row.criterion, row.result)
            if key in seen:  # the same criterion stated twice in a clause is one row
                continue
            seen.add(key)
            table.add_row(row.clause_id, row.criterion, row.result.replace("_", " "),
                          row.narrative_span or row.fact or row.missing or "")
        out.print(table)
    for conflict in response.conflicts:
        out.print(f"[yellow]conflict:[/] {conflict.description} ({conflict.precedence})")
    for flag in response.flags:
        out.print(f"[red]flag ({flag.kind}):[/] {flag.text}")
    policy = response.policy
    released = " and ".join(o.replace("_", " ").lower() for o in policy.automatic_outcomes) or "nothing"
    held = "; it held this answer for a person's signature" if policy.applied else ""
    out.print(f"[dim]gate policy {policy.name} (releases {released} on its own){held}[/]")
    _ids(out, response.trace_id, response.assertion_id)


def render_timeline(out: Console, timeline: dict[str, Any]) -> None:
    """A document's versions as a table, then the closing events of its timeline."""
    table = Table(title=f"{timeline['document_id']} — {timeline['title']} ({timeline['kind']})")
    for col in ("version", "effective start", "effective end", "clauses"):
        table.add_column(col)
    for v in timeline["versions"]:
        table.add_row(v["version"], v["effective_start"], v["effective_end"] or "open-ended", str(v["clauses"]))
    out.print(table)
    for event in timeline["events"]:
        if event["kind"] == "version_closed":
            out.print(f"  {event['date']}: {event['detail']}")
