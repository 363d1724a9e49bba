"""The external suite's 134 cases, read in place from ../shared, run with scripted models: the
scorecard keeps false_auto_determine at 0 whatever the model reads."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from clauseguard.corpus.sources import Opened
from clauseguard.evals.evaluation import check_suite, run_checked
from clauseguard.testing import PLAUSIBLE_BUT_WRONG, ScriptedModelServer, refusing_cache, scripted_model
from tests.models.conftest import model_engine

pytestmark = pytest.mark.slow


MODEL_ROW_FIELDS = ("accepted", "rejected", "usd", "latency_s")  # reported per case


def run(external: tuple[Opened, Path], script: str, protocol: str, *, refuse_all: bool) -> dict[str, Any]:
    opened, folder = external
    checked = check_suite([folder / "seed.json", folder / "generated.json"], opened.corpus)
    with ScriptedModelServer(scripted_model(script), protocol) as server:
        engine = model_engine(opened, server.spec)
        if refuse_all:  # as if the rule compiler could read none of the 40 clauses: the model reads them all
            engine.compiled = refusing_cache(lambda clause: True)  # type: ignore[method-assign]
        return run_checked(checked, engine).document


def test_with_a_well_behaved_model_the_scorecard_records_it_and_stays_safe(external: tuple[Opened, Path]) -> None:
    document = run(external, "good", "openai-compatible", refuse_all=False)
    assert document["answer"]["cases"] == 134
    assert document["answer"]["false_auto_determine"] == 0
    assert document["answer"]["hallucinated_clause_count"] == 0 and document["answer"]["stale_citation_count"] == 0
    model = document["model"]
    assert (model["provider"], model["model"]) == ("openai-compatible", "scripted")
    assert model["roles"]["phraser"]["enabled"] and model["limits"]["time_cap_s"] > 0
    assert model["accepted"] > 0 and model["usd"] == 0.0  # a loopback server is priced as local
    rows = [r["model"] for r in document["per_case"]]
    assert len(rows) == 134 and all(set(MODEL_ROW_FIELDS) <= set(r) for r in rows)
    assert any(r["accepted_by_role"]["phraser"] for r in rows)


@pytest.mark.parametrize("script", PLAUSIBLE_BUT_WRONG)
def test_plausible_but_wrong_readings_of_every_clause_never_make_a_false_determination(
    external: tuple[Opened, Path], script: str
) -> None:
    document = run(external, script, "ollama", refuse_all=script != "wrong_criterion")
    assert document["answer"]["false_auto_determine"] == 0
    using = [r for r in document["per_case"] if r["model"]["used"] and any(
        r["model"]["accepted_by_role"][role] for role in ("criteria_reader", "fact_extractor"))]
    assert using, "the misreadings passed the span checks and were used"
    assert all(r["actual"]["gate"] != "DETERMINE" for r in using)
