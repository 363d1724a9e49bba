"""The `clauseguard` command: parse arguments, call the corpus and engine functions, render.

Thin by design: no rule of the domain lives here. `--json` prints exactly one JSON document on
stdout; every error is one line on stderr with exit status 2. Only typer and the standard library
load at start: each command imports what it needs, so `--help` and a search pay for nothing else.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, Final

import typer

from clauseguard.errors import ClauseguardError, CorpusError, EnvironmentFailure
from clauseguard.interfaces import (
    batch_commands,
    criteria_commands,
    demo_commands,
    eval_commands,
    ingest_commands,
    reading_commands,
    record_commands,
    serve_commands,
)
from clauseguard.interfaces.console import out

if TYPE_CHECKING:
    from clauseguard.corpus.sources import Opened
    from clauseguard.engine import Engine

DEFAULT_THRESHOLD: Final = 0.62  # as clauseguard.requests (kept here so --help needs no import)
DEFAULT_K: Final = 3
DEMO: Final = "demo"

app = typer.Typer(
    name="clauseguard",
    help="Coverage answers over versioned policy documents, with the clause behind every answer.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # click's own help: rich's help renderer alone costs 0.1 s at every --help
)
corpus_app = typer.Typer(help="Validate, describe and export a corpus.", no_args_is_help=True, rich_markup_mode=None)
app.add_typer(corpus_app, name="corpus")
model_app = typer.Typer(help="The optional model backend: status of the configured model.", no_args_is_help=True, rich_markup_mode=None)
app.add_typer(model_app, name="model")

JsonFlag = Annotated[bool, typer.Option("--json", help="Print exactly one JSON document on stdout.")]
MODEL_HELP: Final = demo_commands.MODEL_HELP


@dataclass
class Options:
    """The global options, shared by every command through typer's context."""

    corpus: str | None
    store: str | None
    store_url: str | None = None
    _opened: Opened | None = None
    _engine: Engine | None = None

    def opened(self) -> Opened:
        if self._opened is None:
            from clauseguard.corpus.sources import open_corpus

            self._opened = open_corpus(self.corpus, self.store, self.store_url)
        return self._opened

    def engine(self, model: str | None = None, *, with_model: bool = False, deployed: bool = True) -> Engine:
        """The engine; `with_model` adds the configured model (the environment, `model` overriding it);
        `deployed` applies the deployment's gate policy (CLAUSEGUARD_GATE_POLICY) and the per-request deadline;
        eval measures the rules alone, whatever the machine's load."""
        if self._engine is None:
            from clauseguard.deployment import policy_from_environment
            from clauseguard.engine import Engine
            from clauseguard.gate import DEFAULT_POLICY

            model_config = None
            if with_model:
                from clauseguard.models.config import from_environment as model_from_environment

                model_config = model_from_environment(model)
            policy = policy_from_environment() if deployed else DEFAULT_POLICY
            self._engine = Engine(self.opened(), model=model_config, policy=policy)
            if not deployed:
                self._engine.deadline_s = None
        return self._engine


@app.callback()
def _global(
    ctx: typer.Context,
    corpus: Annotated[
        str | None,
        typer.Option(
            "--corpus",
            help="'demo' for the bundled corpus, or a corpus file/folder (interchange v1 or an "
            "imported format), used alone. Default: the persistent store, or the demo while it is empty.",
        ),
    ] = None,
    store: Annotated[
        str | None,
        typer.Option("--store", help="Path of the store file (default: $CLAUSEGUARD_HOME/store.sqlite)."),
    ] = None,
    store_url: Annotated[
        str | None,
        typer.Option("--store-url", help="sqlite:///PATH or postgresql://USER:PASSWORD@HOST:PORT/DB "
                     "(default: CLAUSEGUARD_STORE_URL, else the SQLite store file)."),
    ] = None,
) -> None:
    ctx.obj = Options(corpus=corpus, store=store, store_url=store_url)


def _options(ctx: typer.Context) -> Options:
    opts = ctx.find_root().obj
    assert isinstance(opts, Options)
    return opts


def print_json(data: Any) -> None:
    """One JSON document, keys in a stable order, on stdout (a typed answer in its JSON form)."""
    as_json = getattr(data, "as_json", None)
    if callable(as_json):
        data = as_json()
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def emit(response: Any, as_json: bool, render: Callable[..., None]) -> None:
    """Exactly one JSON document under --json; the human rendering otherwise."""
    if as_json:
        print_json(response)
    else:
        render(out, response)


# ----------------------------------------------------------------------------- corpus


@corpus_app.command("validate")
def corpus_validate(
    ctx: typer.Context,
    path: Annotated[str | None, typer.Argument(help="Corpus file or folder (default: --corpus).")] = None,
    as_json: JsonFlag = False,
) -> None:
    """Check a corpus without loading it into any store."""
    from pathlib import Path

    from clauseguard.corpus.loader import demo_corpus_path, load_path
    from clauseguard.corpus.stats import corpus_stats

    target = path or _options(ctx).corpus
    if target is None:
        raise CorpusError("give the corpus to check: clauseguard corpus validate PATH (or --corpus PATH)")
    corpus = load_path(demo_corpus_path() if target == DEMO else Path(target))
    stats = corpus_stats(corpus)
    if as_json:
        print_json({"valid": True, "path": target, **stats})
    else:
        out.print(
            f"[green]valid[/green]: {target} — {stats['documents']} documents, {stats['versions']} versions, "
            f"{stats['clauses']} clauses; fingerprint {stats['fingerprint']}"
        )


@corpus_app.command("stats")
def corpus_stats_command(ctx: typer.Context, as_json: JsonFlag = False) -> None:
    """Counts of payers, plans, contracts, codes, documents, versions and clauses."""
    from rich.table import Table

    from clauseguard.corpus.stats import corpus_stats

    opened = _options(ctx).opened()
    stats = corpus_stats(opened.corpus)
    if as_json:
        print_json(stats)
        return
    table = Table(title=f"corpus: {opened.description}", show_header=False)
    for key, value in stats.items():
        if key == "documents_by_kind":
            value = ", ".join(f"{k} {v}" for k, v in value.items())
        table.add_row(key, str(value))
    out.print(table)


@corpus_app.command("schema")
def corpus_schema() -> None:
    """Print the JSON Schema of the corpus interchange format v1."""
    from clauseguard.corpus.model import corpus_json_schema

    print_json(corpus_json_schema())


# ----------------------------------------------------------------------------- lookups


@app.command("versions")
def versions_command(
    ctx: typer.Context,
    document_id: Annotated[str, typer.Argument(help="Document id.")],
    as_json: JsonFlag = False,
) -> None:
    """The version timeline of one document."""
    from clauseguard.interfaces.render import render_timeline

    timeline = _options(ctx).engine().versions(document_id)
    emit(timeline, as_json, render_timeline)


@app.command("clause")
def clause_command(
    ctx: typer.Context,
    clause_id: Annotated[str, typer.Argument(help="Clause id.")],
    as_json: JsonFlag = False,
) -> None:
    """One clause, read from the store by id, with its document and version."""
    data = _options(ctx).engine().clause(clause_id)
    if as_json:
        print_json(data)
        return
    period = f"{data['effective_start']} to {data['effective_end'] or 'open-ended'}"
    out.print(f"[bold]{data['clause_id']}[/bold]  {data['document_id']} {data['version']} ({period})")
    out.print(f"{data['document_title']} — {data['section']}" + (f" — article {data['article']}" if data["article"] else "")
              + (f", page {data['page']}" if data["page"] else ""))
    out.print(data["text"])


# ----------------------------------------------------------------------------- search


@app.command("search")
def search_command(
    ctx: typer.Context,
    question: Annotated[str, typer.Option("--question", help="The handler's question.")],
    contract: Annotated[str | None, typer.Option("--contract", help="Contract id.")] = None,
    payer: Annotated[str | None, typer.Option("--payer", help="Payer id (with --plan and --effective-date).")] = None,
    plan: Annotated[str | None, typer.Option("--plan", help="Plan id.")] = None,
    effective_date: Annotated[
        str | None, typer.Option("--effective-date", help="YYYY-MM-DD; required with --payer/--plan.")
    ] = None,
    threshold: Annotated[float, typer.Option("--threshold", help="Minimum calibrated score of a source.")] = DEFAULT_THRESHOLD,
    k: Annotated[int, typer.Option("--k", help="Passages per question part.")] = DEFAULT_K,
    code: Annotated[
        list[str] | None, typer.Option("--code", help="Only documents governing this code; repeat for several.")
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Answer a question over the terms that govern a contract, or a plan on a date, with sources."""
    from clauseguard.interfaces.render import render_search
    from clauseguard.requests import SearchRequest, parse_request

    data: dict[str, Any] = {"question": question, "threshold": threshold, "k": k, "procedure_codes": list(code or [])}
    for key, value in (("contract_id", contract), ("payer_id", payer), ("plan_id", plan),
                       ("effective_date", effective_date)):
        if value is not None:
            data[key] = value
    request = parse_request(SearchRequest, data)
    response = _options(ctx).engine().search(request)
    emit(response, as_json, render_search)


@app.command("ask")
def ask_command(
    ctx: typer.Context,
    payer: Annotated[str, typer.Option("--payer", help="Payer id.")],
    plan: Annotated[str, typer.Option("--plan", help="Plan id.")],
    as_of: Annotated[str, typer.Option("--as-of", help="Date of service, YYYY-MM-DD.")],
    question: Annotated[str, typer.Option("--question", help="What the handler asks.")],
    code: Annotated[list[str] | None, typer.Option("--code", help="Procedure code (CPT/HCPCS); repeat for several.")] = None,
    dx: Annotated[list[str] | None, typer.Option("--dx", help="Diagnosis code (ICD-10-CM); repeat for several.")] = None,
    narrative: Annotated[str, typer.Option("--narrative", help="Clinical narrative (treated as data).")] = "",
    as_json: JsonFlag = False,
    model: Annotated[str | None, typer.Option("--model", help=MODEL_HELP)] = None,
) -> None:
    """A structured determination: gate, outcome, verified citations, every criterion mapped to a fact."""
    from clauseguard.interfaces.render import render_determination
    from clauseguard.requests import DeterminationRequest, parse_request

    request = parse_request(DeterminationRequest, {
        "payer_id": payer, "plan_id": plan, "procedure_codes": list(code or []), "diagnosis_codes": list(dx or []),
        "as_of_date": as_of, "narrative": narrative, "question": question,
    })
    response = _options(ctx).engine(model, with_model=True).determine(request)
    emit(response, as_json, render_determination)


@app.command("compare")
def compare_command(
    ctx: typer.Context,
    question: Annotated[str, typer.Option("--question", help="The question both sides answer.")],
    a: Annotated[str, typer.Option("--a", help="document:ID[@VERSION], rider:ID, plan:ID or contract:ID.")],
    b: Annotated[str, typer.Option("--b", help="The other target, same forms.")],
    as_of: Annotated[str | None, typer.Option("--as-of", help="YYYY-MM-DD, for targets that need a date.")] = None,
    threshold: Annotated[float, typer.Option("--threshold")] = DEFAULT_THRESHOLD,
    k: Annotated[int, typer.Option("--k")] = DEFAULT_K,
    as_json: JsonFlag = False,
) -> None:
    """Answer one question against two targets and list their differences point by point."""
    from clauseguard.interfaces.render import render_compare
    from clauseguard.requests import CompareRequest, parse_request

    data: dict[str, Any] = {"question": question, "a": a, "b": b, "threshold": threshold, "k": k}
    if as_of is not None:
        data["as_of_date"] = as_of
    response = _options(ctx).engine().compare(parse_request(CompareRequest, data))
    emit(response, as_json, render_compare)


@app.command("replay")
def replay_command(
    assertion_id: Annotated[str, typer.Argument(help="An assertion id from a determination or search.")],
    as_json: JsonFlag = False,
) -> None:
    """Recompute an audited answer on the corpus it was made on; exit 1 when it no longer matches."""
    from clauseguard.replay import replay

    result = replay(assertion_id)
    if as_json:
        print_json(result)
    else:
        verdict = "[green]match[/]" if result["match"] else "[red]mismatch[/]"
        out.print(f"{verdict}: {assertion_id} ({result['kind']}, corpus {result['corpus_fingerprint']})")
        if result.get("request_source") == "redacted":
            out.print("  recomputed from the redacted request (recorded before originals were sealed)")
        for key in result["differences"]:
            out.print(f"  differs: {key}")
        for clause_id in result["tampered_clauses"]:
            out.print(f"  clause text changed in the store: {clause_id}")
        for key in result.get("tampered_versions", []):
            out.print(f"  version changed behind the store's back (seal or end date): {key}")
        for closed in result.get("closed_since", []):
            out.print(f"  closed since, by its recorded timeline event: {closed['version']} on {closed['effective_end']}")
        for revision_id in result.get("tampered_revisions", []):
            out.print(f"  criteria revision changed in the store: {revision_id}")
        for revision_id in result.get("missing_revisions", []):
            out.print(f"  criteria revision no longer in the store: {revision_id}")
    if not result["match"]:
        raise typer.Exit(1)


eval_commands.register(
    app,
    lambda ctx: _options(ctx).engine(ctx.meta.get(eval_commands.MODEL_META_KEY), with_model=True, deployed=False).warm_up(),
)
ingest_commands.register(app, corpus_app)
reading_commands.register(corpus_app)
serve_commands.register(app)
record_commands.register(app)
demo_commands.register(app, model_app)
criteria_commands.register(app)
batch_commands.register(app)


# ----------------------------------------------------------------------------- entry point


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; map every error to one line on stderr and exit status 2."""
    args = sys.argv[1:] if argv is None else argv
    undecodable = next((a for a in args if any(0xDC80 <= ord(ch) <= 0xDCFF for ch in a)), None)
    if undecodable is not None:  # the OS gave bytes that are not text in this locale's encoding
        shown = undecodable.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
        sys.stderr.write(f"error: the argument {shown!r} is not valid {sys.getfilesystemencoding()} text; "
                         "give ids, dates and questions as UTF-8 text\n")
        return 2
    command = typer.main.get_command(app)
    try:
        result = command.main(args=args, prog_name="clauseguard", standalone_mode=False)
    except CorpusError as exc:
        if "--json" in args or len(exc.problems) == 1:
            sys.stderr.write(f"error: {exc}\n")
        else:
            sys.stderr.write("error: the corpus has problems:\n")
            sys.stderr.writelines(f"  {p}\n" for p in exc.problems)
        return 2
    except EnvironmentFailure as exc:  # the machine failed, not the input: exit 3
        sys.stderr.write(f"error: {exc}\n")
        return 3
    except ClauseguardError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 2
    except typer.Abort:
        sys.stderr.write("error: aborted\n")
        return 1
    except typer.Exit as exc:
        return exc.exit_code
    except typer.exceptions.TyperException as exc:  # usage errors: bad option, missing argument
        sys.stderr.write(f"error: {exc.format_message()}\n")
        return int(getattr(exc, "exit_code", 2))
    return result if isinstance(result, int) else 0
