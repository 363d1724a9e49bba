"""The model through the command line: `ask` with a model that is not there, `model status`, and
`eval --model` (scorecard and baseline file)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from clauseguard.interfaces.cli import main
from clauseguard.models import model_status
from clauseguard.models.assist import UNAVAILABLE_NOTICE
from clauseguard.testing import ScriptedModelServer, scripted_model
from tests.models.conftest import CASES, TINY

NOTHING_LISTENING = {
    "CLAUSEGUARD_MODEL_PROVIDER": "openai-compatible",
    "CLAUSEGUARD_MODEL_BASE_URL": "http://127.0.0.1:9/v1",
    "CLAUSEGUARD_MODEL": "none",
}


@pytest.fixture
def corpus_file(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps(TINY), encoding="utf-8")
    return path


MODEL_ROW_FIELDS = ("accepted", "rejected", "usd", "latency_s")


def ask_args(corpus: Path, request: dict[str, Any]) -> list[str]:
    args = ["--corpus", str(corpus), "ask", "--payer", request["payer_id"], "--plan", request["plan_id"],
            "--as-of", request["as_of_date"], "--narrative", request["narrative"], "--question", request["question"]]
    for code in request["procedure_codes"]:
        args += ["--code", code]
    for dx in request["diagnosis_codes"]:
        args += ["--dx", dx]
    return args


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_ask_with_no_model_listening_answers_from_the_rules_and_says_why(
    corpus_file: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ask_args(corpus_file, CASES["too_few_tests"])
    code, out, _ = run([*args, "--json"], capsys)
    plain = json.loads(out)
    for key, value in NOTHING_LISTENING.items():
        monkeypatch.setenv(key, value)
    code, out, err = run([*args, "--json"], capsys)
    assert code == 0 and err == ""
    answer = json.loads(out)
    assert (answer["gate"], answer["outcome"]) == (plain["gate"], plain["outcome"]) == ("DETERMINE", "NOT_COVERED")
    assert [c["clause_id"] for c in answer["citations"]] == [c["clause_id"] for c in plain["citations"]]
    assert answer["criteria"] == plain["criteria"]  # the evidence is returned
    assert answer["answer"].startswith(UNAVAILABLE_NOTICE + " (model unavailable: cannot reach http://127.0.0.1:9/v1")
    assert answer["answer"].endswith(plain["answer"])
    assert answer["model"]["used"] is False and answer["model"]["notice"].startswith("model unavailable")
    code, out, _ = run(args, capsys)  # the terminal rendering says it too
    assert code == 0 and "answer generation is currently unavailable" in out


def test_ask_with_a_model_for_one_command(
    corpus_file: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for key, value in NOTHING_LISTENING.items():
        monkeypatch.setenv(key, value)
    with ScriptedModelServer(scripted_model("good"), "ollama") as server:
        code, out, _ = run([*ask_args(corpus_file, CASES["enough_tests"]), "--json", "--model", server.spec], capsys)
    answer = json.loads(out)
    assert code == 0 and answer["model"]["provider"] == "ollama" and answer["model"]["notice"] is None
    assert answer["gate"] == "DETERMINE" and "phrasing" in answer["model"]["applied"]
    code, out, _ = run([*ask_args(corpus_file, CASES["enough_tests"]), "--json", "--model", "none"], capsys)
    assert "model" not in json.loads(out)  # `--model none`: the rules alone, byte for byte as without a model


def test_a_badly_written_model_option_is_exit_2(corpus_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run([*ask_args(corpus_file, CASES["enough_tests"]), "--json", "--model", "gpt-4o"], capsys)
    assert code == 2 and out == "" and err.startswith("error: --model: 'gpt-4o' is not PROVIDER:MODEL")


def test_model_status_reports_configuration_reachability_and_budget(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(["model", "status", "--json"], capsys)
    assert code == 0 and json.loads(out)["configured"] is False
    for key, value in NOTHING_LISTENING.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("CLAUSEGUARD_MODEL_API_KEY", "sk-never-shown")
    monkeypatch.setenv("CLAUSEGUARD_MODEL_BUDGET_USD", "5")
    code, out, _ = run(["model", "status", "--json"], capsys)
    status = json.loads(out)
    assert code == 0 and "sk-never-shown" not in out
    assert (status["provider"], status["model"], status["reachable"]) == ("openai-compatible", "none", False)
    assert status["api_key"] == "set (CLAUSEGUARD_MODEL_API_KEY)"
    assert status["budget"] == {"month": status["budget"]["month"], "budget_usd": 5.0, "spent_usd": 0.0,
                                "remaining_usd": 5.0}
    assert "cannot reach" in status["endpoints"][0]["detail"]
    monkeypatch.delenv("CLAUSEGUARD_MODEL_API_KEY")
    with ScriptedModelServer(scripted_model("good"), "ollama") as server:
        code, out, _ = run(["model", "status", "--model", server.spec], capsys)
        found = model_status(server.spec)
    assert code == 0 and "reachable" in out and "not reachable" not in out
    assert found["reachable"] and found["endpoints"][0]["model_listed"] and found["api_key"] == "not needed"
    assert found["price"]["source"] == "table: ollama *" and found["roles"]["phraser"]["enabled"]


def case_file(folder: Path) -> Path:
    def case(case_id: str, name: str, outcome: str, gate: str) -> dict[str, Any]:
        return {"case_id": case_id, "trap": "T4 compositional", **CASES[name], "expected_outcome": outcome,
                "expected_gate": gate, "gold_clause_ids": ["TP-MP-1.v1.C2"], "rationale": "by construction"}

    path = folder / "evals" / "cases.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"description": "tiny", "cases": [
        case("c1", "too_few_tests", "NOT_COVERED", "DETERMINE"),
        case("c2", "enough_tests", "COVERED", "DETERMINE"),
    ]}), encoding="utf-8")
    return path


def test_eval_with_a_model_records_it_and_keeps_its_own_baseline(
    corpus_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = case_file(tmp_path)
    monkeypatch.chdir(tmp_path)
    code, out, err = run(["--corpus", str(corpus_file), "eval", str(cases), "--json", "--set-baseline"], capsys)
    assert code == 0, err
    deterministic = tmp_path / "evals" / "baselines" / "evals-cases.json"
    kept = deterministic.read_text(encoding="utf-8")
    assert "model" not in json.loads(out)
    with ScriptedModelServer(scripted_model("good"), "openai-compatible") as server:
        code, out, err = run(["--corpus", str(corpus_file), "eval", str(cases), "--json", "--set-baseline",
                              "--model", server.spec], capsys)
        assert code == 0, err
        scorecard = json.loads(out)
        # an explicit --baseline naming the deterministic file is refused, never overwritten
        code, _, err = run(["--corpus", str(corpus_file), "eval", str(cases), "--json", "--set-baseline",
                            "--baseline", str(deterministic), "--model", server.spec], capsys)
    assert code == 2 and "never overwrites it" in err
    assert deterministic.read_text(encoding="utf-8") == kept
    model_baseline = tmp_path / "evals" / "baselines" / "evals-cases@openai-compatible-scripted.json"
    assert json.loads(model_baseline.read_text(encoding="utf-8"))["knobs"]["model"]["model"] == "scripted"
    assert scorecard["answer"]["false_auto_determine"] == 0
    assert (scorecard["model"]["provider"], scorecard["model"]["model"]) == ("openai-compatible", "scripted")
    assert scorecard["model"]["limits"]["request_timeout_s"] == 30.0
    assert list(scorecard).index("model") < list(scorecard).index("per_case")
    for row in scorecard["per_case"]:
        assert row["model"]["accepted"] == 2 and row["model"]["rejected"] == 0  # a judge verdict and a phrasing
        assert row["model"]["usd"] == 0.0
        assert set(MODEL_ROW_FIELDS) <= set(row["model"])  # what each case reports, not how fast it was
