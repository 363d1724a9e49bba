"""`clauseguard demo` and `clauseguard model status`: the main job on the bundled corpus, and the
optional model backend's status. Thin: each calls the engine (or `clauseguard.models`) and renders.
"""

from __future__ import annotations

import json
import sys
from typing import Annotated, Any, Final

import typer

from clauseguard.interfaces.console import out

DEMO: Final = "demo"
MODEL_HELP: Final = ("Model for this command only: PROVIDER:MODEL[@BASE_URL] (openai-compatible, ollama, anthropic), "
                     "or 'none'. Default: CLAUSEGUARD_MODEL_PROVIDER / CLAUSEGUARD_MODEL / CLAUSEGUARD_MODEL_BASE_URL.")
JsonFlag = Annotated[bool, typer.Option("--json", help="Print exactly one JSON document on stdout.")]


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")


# ----------------------------------------------------------------------------- demo


# The demo's requests: the design's dental implant case, the same question after the 2024 terms,
# the group vs individual wording of one rider, and one determination either side of a version date.
DEMO_SEARCHES: Final = (
    {"contract_id": "CT-48213", "question": "dental implant: coverage, annual cap, waiting period",
     "threshold": 0.62, "k": 3},
    {"contract_id": "CT-51877", "question": "dental implant: coverage, annual cap, waiting period",
     "threshold": 0.62, "k": 3},
)
DEMO_COMPARE: Final = {"question": "hospital cash: waiting period, nightly amount, exclusions",
                       "a": "rider:GRP-RID-HOSPCASH", "b": "rider:IND-RID-HOSPCASH"}
DEMO_DETERMINATION: Final = {
    "payer_id": "KHP", "plan_id": "KHP-HMO-CORE", "procedure_codes": ["29881"], "diagnosis_codes": ["S83.511D"],
    "narrative": "Medial meniscal tear confirmed on MRI, with locking and catching. Six weeks of supervised "
                 "physical therapy without adequate relief.",
    "question": "Is arthroscopic meniscectomy covered?",
}
DEMO_DATES: Final = ("2023-12-31", "2024-01-01")


def demo_command() -> None:
    """Run the main job on the bundled demo corpus (no setup needed)."""
    from clauseguard.corpus.sources import open_corpus
    from clauseguard.corpus.stats import corpus_stats
    from clauseguard.engine import Engine
    from clauseguard.interfaces.render import (
        render_compare,
        render_determination,
        render_search,
        render_timeline,
    )

    engine = Engine(open_corpus(DEMO, None))
    stats = corpus_stats(engine.corpus)
    out.rule("clauseguard demo — the bundled corpus")
    out.print(
        f"{stats['payers']} payers, {stats['plans']} plans, {stats['contracts']} contracts, "
        f"{stats['documents']} documents ({', '.join(f'{k} {v}' for k, v in stats['documents_by_kind'].items())}), "
        f"{stats['versions']} versions, {stats['clauses']} clauses; fingerprint {stats['fingerprint']}"
    )
    render_timeline(out, engine.versions("GRP-TERMS"))
    for request in DEMO_SEARCHES:
        out.rule(f"search: {request['contract_id']} — {request['question']}")
        render_search(out, engine.search(request))
    out.rule(f"compare: {DEMO_COMPARE['a']} vs {DEMO_COMPARE['b']}")
    render_compare(out, engine.compare(DEMO_COMPARE))
    for day in DEMO_DATES:
        out.rule(f"determination: meniscectomy on {day} (KHP-MP-0224 changes on 2024-01-01)")
        render_determination(out, engine.determine({**DEMO_DETERMINATION, "as_of_date": day}))


# ----------------------------------------------------------------------------- model


def model_status_command(
    model: Annotated[str | None, typer.Option("--model", help=MODEL_HELP)] = None,
    as_json: JsonFlag = False,
) -> None:
    """The configured model, whether it answers, and the budget left (never shows a key)."""
    from clauseguard.models import model_status

    status = model_status(model)
    if as_json:
        print_json(status)
        return
    if not status["configured"]:
        out.print(status["detail"])
        return
    style = "green" if status["reachable"] else "red"
    out.print(f"[bold]{status['provider']}:{status['model']}[/bold] at {status['base_url']} — "
              f"[{style}]{'reachable' if status['reachable'] else 'not reachable'}[/]; API key {status['api_key']}")
    for check in status["endpoints"]:
        out.print(f"  {check['model']}: {check['detail']}")
    for role, settings in status["roles"].items():
        out.print(f"  {role}: {'on' if settings['enabled'] else 'off'} — {settings['model']}")
    budget = status["budget"]
    left = "no monthly budget" if budget["budget_usd"] is None else f"${budget['remaining_usd']} of ${budget['budget_usd']} left"
    out.print(f"  spent ${budget['spent_usd']} in {budget['month']}; {left}; price {status['price']['source']}")


def register(app: typer.Typer, model_app: typer.Typer) -> None:
    """Add `demo` to the main app and `status` to its `model` sub-app."""
    app.command("demo")(demo_command)
    model_app.command("status")(model_status_command)
