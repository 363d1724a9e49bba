"""`clauseguard eval` and `clauseguard expand`: parse, call `clauseguard.evals`, render.

Thin like the rest of the CLI: the engine comes from the factory the main app passes to `register`,
the corpus from the global `--corpus`/`--store` options; every rule lives in `clauseguard.evals`.
Exit status: 0 done; 1 the evaluation fell short (false_auto_determine > 0, a blocking regression,
an invalid case); 2 bad input (raised as ClauseguardError, mapped by the main entry point).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Final

import typer

from clauseguard.errors import ClauseguardError
from clauseguard.interfaces.console import err, out, stderr_console

if TYPE_CHECKING:  # the evaluation machinery loads when `eval` runs, never for --help
    from rich.console import Console
    from rich.table import Table

    from clauseguard.corpus.model import Corpus
    from clauseguard.evals.baseline import Diff
    from clauseguard.evals.runner import EngineLike

EngineFactory = Callable[[typer.Context], "EngineLike"]
CorpusFactory = Callable[[typer.Context], "Corpus"]

MODEL_META_KEY: Final = "clauseguard.model"  # ctx.meta key holding `--model` for the engine factory
DEFAULT_EXPANDED: Final = "evals/demo/expanded.json"


def _print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def corpus_from_options(ctx: typer.Context) -> Corpus:
    """The corpus of the global `--corpus`/`--store` options (the same store the engine is built from)."""
    options = ctx.find_root().obj
    opened = getattr(options, "opened", None)
    if not callable(opened):
        raise ClauseguardError("eval needs the global corpus options; run it as `clauseguard [--corpus PATH] eval ...`")
    corpus: Corpus = opened().corpus
    return corpus


# ----------------------------------------------------------------------------- rendering


def _label(key: str) -> str:
    """A metric's name as printed: a duration in seconds (`p50_latency_s`) is shown in ms, so is its label."""
    return key.removesuffix("_s").replace("_", " ") if key.endswith("_s") else key.replace("_", " ")


def _fmt(key: str, value: Any) -> str:
    if value is None:
        return "—"
    if key.endswith("_s") and isinstance(value, (int, float)):
        return f"{value * 1000:.2f} ms"
    if isinstance(value, float):
        return f"{value:.4f}"
    return str(value)


def _metrics_table(title: str, section: Mapping[str, Any]) -> Table:
    from rich.table import Table

    table = Table(title=title, show_header=False, title_justify="left")
    for key, value in section.items():
        table.add_row(_label(key), _fmt(key, value))
    return table


def _failure_line(row: Mapping[str, Any]) -> str:
    if row["kind"] == "determination":
        exp, act = row["expected"], row["actual"]
        line = (
            f"[red]✗[/red] {row['case_id']} [dim]({row['trap']})[/dim]: expected {exp['gate']}/{exp['outcome']}, "
            f"got {act['gate']}/{act['outcome']}"
        )
        if row.get("false_auto_determine"):
            line += " [bold red]FALSE AUTO-DETERMINE[/bold red]"
        if row.get("error"):
            line += f" — {row['error']}"
        elif row["reasons"]:
            line += " — " + "; ".join(r for r in row["reasons"] if r)
        return line
    return f"[red]✗[/red] {row['case_id']} [dim]({row['trap']})[/dim]: " + "; ".join(row["failures"])


def _render_invalid(invalid: Sequence[Mapping[str, Any]]) -> None:
    if not invalid:
        out.print("[green]every label checks out against the corpus[/green]")
        return
    out.print(f"[red]{len(invalid)} invalid case{'s' if len(invalid) != 1 else ''}[/red] (not run):")
    for item in invalid:
        out.print(f"  [red]![/red] {item['case_id']} [dim]({item['file']})[/dim]: " + " / ".join(item["reasons"]))


def _render(document: Mapping[str, Any], diff: Diff | None, why: Sequence[str]) -> None:
    from rich.table import Table

    from clauseguard.evals.scorecard import by_trap
    from clauseguard.evals.traps import trap_meaning

    head = document["case_set"]
    out.print(f"case set {head['hash'][:19]}… ({head['count']} cases); corpus {document['corpus']['fingerprint'][:19]}…")
    for name in ("retrieval", "answer", "search", "calibration"):
        if name in document:
            out.print(_metrics_table(name, document[name]))
    traps = by_trap(document["per_case"])
    if traps:
        table = Table(title="by trap", title_justify="left")
        for col in ("trap", "cases", "passed", "rate", "what it tests"):
            table.add_column(col, overflow="fold")
        for label, counts in traps.items():
            table.add_row(label, str(counts["cases"]), str(counts["passed"]), f"{counts['passed'] / counts['cases']:.2f}",
                          trap_meaning(label))
        out.print(table)
    failing = [r for r in document["per_case"] if not r["passed"]]
    if failing:
        out.print(f"[bold]{len(failing)} failing case{'s' if len(failing) != 1 else ''}[/bold]")
        for row in failing:
            out.print("  " + _failure_line(row))
    _render_invalid(document["invalid_cases"])
    if diff is not None:
        _render_diff(diff, out)
    out.print("[red]fell short: " + "; ".join(why) + "[/red]" if why else "[green]done[/green]")


def _render_diff(diff: Diff, console: Console) -> None:
    if not diff.comparable:
        console.print(f"baseline {diff.path}: not compared — " + "; ".join(diff.notes))
        return
    console.print(f"baseline {diff.path}: same case set and corpus; {len(diff.regressions)} regression(s)")
    for note in diff.notes:
        console.print(f"  note: {note}")
    for movement in diff.regressions:
        console.print(f"  [red]{movement.sentence()}[/red]")
    for movement in diff.changes:
        console.print(f"  {movement.sentence()}")


# ----------------------------------------------------------------------------- commands


def register(app: typer.Typer, engine_factory: EngineFactory, *, corpus_factory: CorpusFactory | None = None) -> None:
    """Add `eval` and `expand` to the main app. `engine_factory(ctx)` builds the engine (after `--model`
    is put in `ctx.meta[MODEL_META_KEY]`); `corpus_factory(ctx)` gives the corpus the labels are checked
    against (default: the global `--corpus`/`--store` options)."""
    corpus_of = corpus_factory or corpus_from_options

    @app.command("eval")
    def eval_command(
        ctx: typer.Context,
        cases_files: Annotated[list[Path], typer.Argument(help="Case files (determination or search suites).", show_default=False)],
        as_json: Annotated[bool, typer.Option("--json", help="Print exactly the scorecard JSON on stdout.")] = False,
        baseline: Annotated[
            Path | None, typer.Option("--baseline", help="Baseline file (default: evals/baselines/<suite name>.json).")
        ] = None,
        diff: Annotated[bool, typer.Option("--diff", help="Compare with the baseline; exit 1 on a blocking regression.")] = False,
        set_baseline: Annotated[bool, typer.Option("--set-baseline", help="Write this run as the baseline.")] = False,
        validate_only: Annotated[
            bool, typer.Option("--validate-only", help="Check every label against the corpus; run nothing.")
        ] = False,
        model: Annotated[str | None, typer.Option("--model", help="Model configuration for this run only.")] = None,
    ) -> None:
        """Run case suites through the engine and print the two-layer scorecard.

        Traps: T1 versions, T2 riders, T3 look-alike titles, T4 compositional criteria, T5 FAQ contradicts
        policy, T6 no policy or a missing fact, T7 hostile or malformed input, T8 contract-anchored terms."""
        from clauseguard.evals.baseline import default_baseline_path
        from clauseguard.evals.evaluation import (
            check_suite,
            compare,
            fell_short,
            model_label,
            run_checked,
            save_baseline,
        )

        corpus = corpus_of(ctx)
        checked = check_suite(cases_files, corpus)
        if validate_only:
            document = checked.document()
            if as_json:
                _print_json(document)
            else:
                out.print(f"{document['case_set']['count']} cases, case set {document['case_set']['hash']}")
                _render_invalid(document["invalid_cases"])
            raise typer.Exit(1 if checked.invalid else 0)

        ctx.meta[MODEL_META_KEY] = model
        engine = engine_factory(ctx)
        valid = len(checked.valid_cases)
        if as_json:
            scored = run_checked(checked, engine)
        else:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            with Progress(
                TextColumn("evaluating"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                console=stderr_console(), transient=True,
            ) as progress:
                task = progress.add_task("cases", total=valid)

                def advance(_: Any) -> None:
                    progress.advance(task)

                scored = run_checked(checked, engine, on_done=advance)
        document = scored.document

        baseline_path = baseline or default_baseline_path(cases_files, model=model_label(engine))
        found_diff = compare(document, engine, baseline_path) if diff else None
        if set_baseline:
            save_baseline(document, engine, baseline_path, cases_files)
        why = fell_short(document, found_diff)
        if as_json:
            _print_json(document)
            if found_diff is not None and (found_diff.regressions or not found_diff.comparable):
                _render_diff(found_diff, err)
        else:
            _render(document, found_diff, why)
            if set_baseline:
                out.print(f"baseline written to {baseline_path}")
        raise typer.Exit(1 if why else 0)

    @app.command("expand")
    def expand_command(
        ctx: typer.Context,
        out_file: Annotated[
            str, typer.Option("--out", help="Where to write the expanded suite ('-' for stdout).")
        ] = DEFAULT_EXPANDED,
        patterns: Annotated[
            Path | None, typer.Option("--patterns", help="Fact-pattern table (default: the bundled demo table).")
        ] = None,
    ) -> None:
        """Regenerate the expanded case suite of a corpus from its fact-pattern table."""
        from clauseguard.corpus.loader import DEMO, load_demo, load_path
        from clauseguard.evals.expand import demo_patterns_path, expanded_json, load_patterns

        option = getattr(ctx.find_root().obj, "corpus", None)
        corpus = load_demo() if option in (None, DEMO) else load_path(str(option))
        if option not in (None, DEMO) and patterns is None:
            raise ClauseguardError(f"no bundled fact-pattern table for corpus {option}; give one with --patterns FILE")
        text = expanded_json(corpus, load_patterns(patterns or demo_patterns_path()))
        if out_file == "-":
            sys.stdout.write(text)
            return
        target = Path(out_file)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        count = len(json.loads(text)["cases"])
        out.print(f"wrote {count} cases to {target}")
