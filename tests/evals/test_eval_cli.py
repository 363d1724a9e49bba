"""`clauseguard eval` and `expand` through the real entry point: JSON keys, exit statuses, baselines."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import typer

from clauseguard.corpus.model import Corpus
from clauseguard.interfaces.cli import main
from clauseguard.interfaces.eval_commands import MODEL_META_KEY
from clauseguard.testing import ScriptedEngine, determination_answer
from tests.evals.conftest import det_raw, oracle_factory, search_raw, write_suite

Install = Callable[[Callable[[typer.Context], Any]], None]
KEYS = ["case_set", "corpus", "invalid_cases", "retrieval", "answer", "search", "calibration", "per_case"]


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def suites(tmp_path: Path) -> list[Path]:
    folder = tmp_path / "evals" / "tiny"
    folder.mkdir(parents=True)
    return [
        write_suite(folder / "determinations.json", [det_raw("c1"), det_raw("c2", as_of_date="2024-02-01", gold_clause_ids=["PA-MP-1.v2.C2"])]),
        write_suite(folder / "search.json", [search_raw("s1")]),
    ]


def test_json_is_exactly_the_design_document(
    capsys: pytest.CaptureFixture[str], cli_app: Install, tiny: Corpus, tiny_path: Path, suites: list[Path]
) -> None:
    cli_app(oracle_factory(suites, tiny))
    code, out, err = run(capsys, "--corpus", str(tiny_path), "eval", *map(str, suites), "--json")
    assert (code, err) == (0, "")
    doc = json.loads(out)
    assert list(doc) == KEYS
    assert list(doc["retrieval"]) == ["gold_clause_recall", "stale_retrieval_rate", "clauses_retrieved_per_case"]
    assert list(doc["answer"]) == [
        "cases", "determination_accuracy", "gate_correctness", "citation_faithfulness", "hallucinated_clause_count",
        "stale_citation_count", "appropriate_refusal_rate", "false_auto_determine", "missed_review", "p50_latency_s",
        "p95_latency_s", "usd_per_case",
    ]
    assert list(doc["search"]) == ["cases", "pass_rate", "must_exclude_violations", "status_accuracy", "version_accuracy",
                                  "wrong_answer_released", "missed_escalation"]
    assert list(doc["calibration"]) == ["ece", "brier"]
    assert doc["answer"]["determination_accuracy"] == 1.0 and doc["search"]["pass_rate"] == 1.0


def test_table_output_shows_traps_and_failing_cases(
    capsys: pytest.CaptureFixture[str], cli_app: Install, tiny: Corpus, tiny_path: Path, suites: list[Path]
) -> None:
    def factory(ctx: typer.Context) -> ScriptedEngine:
        return ScriptedEngine(
            corpus_fingerprint=tiny.fingerprint(),
            determinations=lambda r: determination_answer(
                gate="REFUSE", outcome="INSUFFICIENT_EVIDENCE",
                reasons=[{"code": "missing_fact", "text": "the referral is not stated"}],
            ),
            searches=oracle_factory(suites, tiny)(ctx)._searches,
        )

    cli_app(factory)
    code, out, _ = run(capsys, "--corpus", str(tiny_path), "eval", *map(str, suites))
    assert code == 0  # wrong answers, but no false auto-determine, no invalid case, no baseline
    assert "by trap" in out and "T1" in out and "T8" in out
    assert "c2" in out and "expected DETERMINE/COVERED, got REFUSE/INSUFFICIENT_EVIDENCE" in out
    assert "the referral is not stated" in out


def test_false_auto_determine_exits_1(
    capsys: pytest.CaptureFixture[str], cli_app: Install, tiny: Corpus, tiny_path: Path, suites: list[Path]
) -> None:
    cli_app(lambda ctx: ScriptedEngine(
        corpus_fingerprint=tiny.fingerprint(),
        determinations=lambda r: determination_answer(gate="DETERMINE", outcome="NOT_COVERED"),
    ))
    code, out, _ = run(capsys, "--corpus", str(tiny_path), "eval", str(suites[0]), "--json")
    assert code == 1 and json.loads(out)["answer"]["false_auto_determine"] == 2


def test_invalid_case_exits_1_and_validate_only_runs_nothing(
    capsys: pytest.CaptureFixture[str], cli_app: Install, tiny: Corpus, tiny_path: Path, tmp_path: Path
) -> None:
    path = write_suite(tmp_path / "bad.json", [det_raw("good"), det_raw("scope", gold_clause_ids=["PA-MP-1.v1.C1"])])
    calls: list[str] = []

    def factory(ctx: typer.Context) -> ScriptedEngine:
        calls.append("built")
        return oracle_factory([path], tiny)(ctx)

    cli_app(factory)
    code, out, _ = run(capsys, "--corpus", str(tiny_path), "eval", str(path), "--validate-only", "--json")
    assert code == 1 and calls == []
    doc = json.loads(out)
    assert list(doc) == ["case_set", "corpus", "invalid_cases"]
    assert doc["invalid_cases"][0]["case_id"] == "scope" and "scope clause" in doc["invalid_cases"][0]["reasons"][0]
    code, out, _ = run(capsys, "--corpus", str(tiny_path), "eval", str(path), "--json")
    assert code == 1 and json.loads(out)["answer"]["cases"] == 1
    good = write_suite(tmp_path / "good.json", [det_raw("good")])
    code, out, _ = run(capsys, "--corpus", str(tiny_path), "eval", str(good), "--validate-only")
    assert code == 0 and "every label checks out" in out


@pytest.mark.parametrize("content", ["{not json", '{"cases": [{"case_id": "x", "expected_gate": "MAYBE"}]}'])
def test_a_case_file_that_does_not_parse_exits_2_with_empty_stdout(
    capsys: pytest.CaptureFixture[str], cli_app: Install, tiny: Corpus, tiny_path: Path, tmp_path: Path, content: str
) -> None:
    (tmp_path / "broken.json").write_text(content)
    cli_app(lambda ctx: ScriptedEngine(corpus_fingerprint=tiny.fingerprint()))
    code, out, err = run(capsys, "--corpus", str(tiny_path), "eval", str(tmp_path / "broken.json"), "--json")
    assert code == 2 and out == ""
    assert err.startswith("error: ") and "broken.json" in err and err.count("\n") == 1


def test_set_baseline_then_diff(
    capsys: pytest.CaptureFixture[str], cli_app: Install, tiny: Corpus, tiny_path: Path, suites: list[Path]
) -> None:
    cli_app(oracle_factory(suites, tiny))
    args = ["--corpus", str(tiny_path), "eval", *map(str, suites)]
    assert run(capsys, *args, "--set-baseline")[0] == 0
    written = suites[0].parent.parent / "baselines" / "tiny-determinations+search.json"
    assert json.loads(written.read_text())["metrics"]["answer"]["determination_accuracy"] == 1.0
    code, out, _ = run(capsys, *args, "--diff")
    assert code == 0 and "0 regression(s)" in out

    # the same suite, a worse engine: blocking regression
    def worse(ctx: typer.Context) -> ScriptedEngine:
        engine = oracle_factory(suites, tiny)(ctx)
        return ScriptedEngine(
            corpus_fingerprint=tiny.fingerprint(),
            determinations=lambda r: determination_answer(gate="REFUSE", outcome="INSUFFICIENT_EVIDENCE"),
            searches=engine._searches,
        )

    cli_app(worse)
    code, out, err = run(capsys, *args, "--diff", "--json")
    assert code == 1 and json.loads(out)["answer"]["determination_accuracy"] == 0.0
    assert "regression: answer.determination_accuracy 1.0 -> 0.0" in err

    # another case set: said so, not compared, not a failure
    cli_app(oracle_factory(suites[:1], tiny))
    code, out, _ = run(capsys, "--corpus", str(tiny_path), "eval", str(suites[0]), "--diff", "--baseline", str(written))
    assert code == 0 and "not compared" in out and "case-set hash differs" in out


def test_diff_without_a_baseline_is_bad_input(
    capsys: pytest.CaptureFixture[str], cli_app: Install, tiny: Corpus, tiny_path: Path, suites: list[Path]
) -> None:
    cli_app(oracle_factory(suites, tiny))
    code, out, err = run(capsys, "--corpus", str(tiny_path), "eval", *map(str, suites), "--diff", "--json")
    assert code == 2 and out == "" and "--set-baseline" in err


def test_model_option_reaches_the_engine_factory(
    capsys: pytest.CaptureFixture[str], cli_app: Install, tiny: Corpus, tiny_path: Path, suites: list[Path]
) -> None:
    seen: list[Any] = []

    def factory(ctx: typer.Context) -> ScriptedEngine:
        seen.append(ctx.meta.get(MODEL_META_KEY))
        return oracle_factory(suites, tiny)(ctx)

    cli_app(factory)
    run(capsys, "--corpus", str(tiny_path), "eval", *map(str, suites), "--model", "ollama:qwen2.5", "--json")
    assert seen == ["ollama:qwen2.5"]


def test_expand_writes_the_suite(capsys: pytest.CaptureFixture[str], cli_app: Install, tmp_path: Path) -> None:
    cli_app(lambda ctx: None)
    target = tmp_path / "out" / "expanded.json"
    code, out, _ = run(capsys, "expand", "--out", str(target))
    assert code == 0 and f"to {target}" in out
    committed = Path(__file__).resolve().parents[2] / "evals" / "demo" / "expanded.json"
    assert target.read_text() == committed.read_text()
    code, out, _ = run(capsys, "--corpus", "demo", "expand", "--out", "-")
    assert code == 0 and out == committed.read_text()


def test_expand_needs_a_table_for_another_corpus(
    capsys: pytest.CaptureFixture[str], cli_app: Install, tiny_path: Path, tmp_path: Path
) -> None:
    cli_app(lambda ctx: None)
    code, out, err = run(capsys, "--corpus", str(tiny_path), "expand", "--out", str(tmp_path / "x.json"))
    assert code == 2 and out == "" and "--patterns" in err
