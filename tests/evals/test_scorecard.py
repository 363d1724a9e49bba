"""Every metric of the scorecard on tiny suites whose figures are computed by hand in the comments."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from clauseguard.corpus.model import Corpus
from clauseguard.errors import NotFoundError
from clauseguard.evals.evaluation import check_suite, run_checked
from clauseguard.evals.scorecard import by_trap, calibration, percentile, trap_labels
from clauseguard.testing import (
    ScriptedEngine,
    by_question,
    citation,
    determination_answer,
    retrieved_clause,
    search_response,
    source,
)
from tests.evals.conftest import det_raw, search_raw, write_suite

V1C1, V1C2, V2C1, V2C2 = "PA-MP-1.v1.C1", "PA-MP-1.v1.C2", "PA-MP-1.v2.C1", "PA-MP-1.v2.C2"
NO_EVIDENCE = "Not enough evidence found in policy documents."
REFUSE = {"expected_gate": "REFUSE", "expected_outcome": "INSUFFICIENT_EVIDENCE"}


def determination_suite(tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    """Six cases on 2023-06-15 (v1 in effect), and what the scripted engine answers to each."""
    cases = [
        det_raw("c1"),
        det_raw("c2", expected_outcome="NOT_COVERED", trap="T1 versions + T4 compositional"),
        det_raw("c3", gold_clause_ids=[], trap="T6", **REFUSE),
        det_raw("c4", expected_gate="REVIEW", trap="T5 FAQ"),
        det_raw("c5", trap="T6 missing fact", **REFUSE),
        det_raw("c6"),
    ]
    answers: dict[str, Any] = {
        # right; 5/5 checks; retrieved gold (0.9) and the scope clause (0.4); costs 0.003
        "question of c1": determination_answer(
            gate="DETERMINE", outcome="COVERED", citations=[citation(V1C2)],
            retrieved=[retrieved_clause(V1C2, score=0.9), retrieved_clause(V1C1, score=0.4)], engine_s=0.010,
            cost_usd=0.003,
        ),
        # false auto-determine; cites the v2 clause (stale, 4/5) and a ghost (hallucinated, 0/5); retrieves v2 only
        "question of c2": determination_answer(
            gate="DETERMINE", outcome="COVERED",
            citations=[
                citation(V2C2, checks={"in_effect": False}),
                citation("GHOST.1", checks={k: False for k in ("exists", "verbatim", "in_effect", "applicable", "supports")}),
            ],
            retrieved=[retrieved_clause(V2C2, score=0.8, in_effect=False), retrieved_clause(V2C1, score=0.3, in_effect=False)],
            engine_s=0.020,
        ),
        # an appropriate refusal, nothing retrieved
        "question of c3": determination_answer(gate="REFUSE", outcome="INSUFFICIENT_EVIDENCE", engine_s=0.030),
        # missed review: DETERMINE where REVIEW was expected, outcome right
        "question of c4": determination_answer(
            gate="DETERMINE", outcome="COVERED", citations=[citation(V1C2)], retrieved=[retrieved_clause(V1C2, score=0.7)],
            engine_s=0.040,
        ),
        # REFUSE expected, REVIEW given: wrong gate, wrong outcome, not a false auto-determine; 4/5 checks
        "question of c5": determination_answer(
            gate="REVIEW", outcome="NOT_COVERED", citations=[citation(V1C2, checks={"supports": False})],
            retrieved=[retrieved_clause(V1C2, score=0.6), retrieved_clause(V1C1, score=0.2)],
            reasons=[{"code": "citation_failed", "text": "the quote does not support the statement"}],
            engine_s=0.050,
        ),
        # the engine crashes: counted wrong, nothing retrieved
        "question of c6": RuntimeError("engine fell over"),
    }
    return write_suite(tmp_path / "det.json", cases), answers


def test_answer_retrieval_and_calibration_by_hand(tmp_path: Path, tiny: Corpus) -> None:
    path, answers = determination_suite(tmp_path)
    checked = check_suite([path], tiny)
    assert checked.invalid == ()
    engine = ScriptedEngine(corpus_fingerprint=tiny.fingerprint(), determinations=by_question(answers))
    doc = run_checked(checked, engine).document

    assert list(doc) == ["case_set", "corpus", "invalid_cases", "retrieval", "answer", "calibration", "per_case"]
    assert doc["case_set"] == {"count": 6, "hash": checked.suite.hash}
    assert doc["corpus"] == {"fingerprint": tiny.fingerprint()}
    assert doc["invalid_cases"] == []
    # recall: gold in c1, c2, c4, c5, c6 (5); found in c1, c4, c5 (3). Retrieved 2+2+0+1+2+0 = 7, stale 2 (c2).
    assert doc["retrieval"] == {
        "gold_clause_recall": 0.6,
        "stale_retrieval_rate": round(2 / 7, 4),
        "clauses_retrieved_per_case": round(7 / 6, 4),
    }
    answer = doc["answer"]
    assert answer["cases"] == 6
    assert answer["determination_accuracy"] == 0.5  # c1, c3, c4
    assert answer["gate_correctness"] == 0.5  # c1, c2, c3
    assert answer["citation_faithfulness"] == 0.72  # (5 + 4 + 0 + 5 + 4) / 25
    assert answer["hallucinated_clause_count"] == 1  # GHOST.1
    assert answer["stale_citation_count"] == 1  # v2.C2 on 2023-06-15
    assert answer["appropriate_refusal_rate"] == 0.5  # c3 refused, c5 did not
    assert answer["false_auto_determine"] == 1  # c2
    assert answer["missed_review"] == 1  # c4
    # latencies: the crash's own wall time (tiny), 0.01 .. 0.05: p50 between 0.02 and 0.03, p95 at rank 4.75
    assert answer["p50_latency_s"] == 0.025
    assert answer["p95_latency_s"] == 0.0475
    assert answer["usd_per_case"] == 0.0005
    # pairs (score, gold?): (.9,1) (.4,0) (.8,0) (.3,0) (.7,1) (.6,1) (.2,0); each alone in its bin
    assert doc["calibration"] == {"ece": round(2.5 / 7, 4), "brier": round(1.19 / 7, 4)}

    rows = {r["case_id"]: r for r in doc["per_case"]}
    assert [r["case_id"] for r in doc["per_case"]] == ["c1", "c2", "c3", "c4", "c5", "c6"]
    assert rows["c2"]["false_auto_determine"] and rows["c2"]["hallucinated"] == ["GHOST.1"]
    assert rows["c2"]["stale_citations"] == [V2C2] and rows["c2"]["stale_retrieved"] == [V2C2, V2C1]
    assert rows["c4"]["missed_review"] and not rows["c4"]["passed"]
    assert rows["c5"]["reasons"] == ["the quote does not support the statement"]
    assert rows["c5"]["checks"] == {"passed": 4, "total": 5, "failed": [f"{V1C2}:supports"]}
    assert rows["c6"]["error"] == "RuntimeError: engine fell over" and rows["c6"]["actual"] == {"gate": None, "outcome": None}


def test_the_engine_sees_only_the_request_fields(tmp_path: Path, tiny: Corpus) -> None:
    raw = det_raw("c1", generated_by="x", date_rationale="y")
    checked = check_suite([write_suite(tmp_path / "d.json", [raw])], tiny)
    engine = ScriptedEngine(
        corpus_fingerprint=tiny.fingerprint(),
        determinations=lambda request: determination_answer(gate="DETERMINE", outcome="COVERED"),
    )
    run_checked(checked, engine)
    assert engine.calls == [("determine", {k: raw[k] for k in (
        "payer_id", "plan_id", "procedure_codes", "diagnosis_codes", "as_of_date", "narrative", "question")})]


def test_invalid_cases_are_listed_and_never_run(tmp_path: Path, tiny: Corpus) -> None:
    cases = [det_raw("good"), det_raw("bad", gold_clause_ids=["GHOST.9"])]
    checked = check_suite([write_suite(tmp_path / "d.json", cases)], tiny)
    engine = ScriptedEngine.answering_from_labels(checked.suite.cases, corpus_fingerprint=tiny.fingerprint())
    doc = run_checked(checked, engine).document
    assert [i["case_id"] for i in doc["invalid_cases"]] == ["bad"]
    assert doc["case_set"]["count"] == 2 and doc["answer"]["cases"] == 1
    assert [c[1]["question"] for c in engine.calls] == ["question of good"]


def search_suite(tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    refused: dict[str, Any] = {"expected_status": "refused", "must_include_clause_ids": [], "expected_action": "escalate to handler"}
    error: dict[str, Any] = {"expected_status": "error", "expected_applicable_version": None, "expected_action": None,
             "must_include_clause_ids": [], "must_exclude_clause_ids": []}
    cases = [
        search_raw("s1"),
        search_raw("s2"),
        search_raw("s3"),
        search_raw("s4"),
        search_raw("s5"),
        search_raw("s6", expected_reason="not ENOUGH   evidence", **refused),
        search_raw("s7", expected_reason="no version of the terms covers", **refused),
        search_raw("s8", contract_id="CT-404", **error),
        search_raw("s9"),
        search_raw("s10", contract_id="CT-404", **error),
    ]
    good = source("PA-TERMS.T-2023.A1", score=0.8)
    later = source("PA-TERMS.T-2024.A1", score=0.9)
    answers: dict[str, Any] = {
        "question of s1": search_response(status="answered", applicable_version="T-2023", sources=[good],
                                          below_threshold=[source("PA-TERMS.T-2024.A1", score=0.5)]),
        "question of s2": search_response(status="answered", applicable_version="T-2023", sources=[good, later]),
        "question of s3": search_response(status="answered", applicable_version="T-2024", sources=[good]),
        "question of s4": search_response(status="answered", applicable_version="T-2023", sources=[]),
        "question of s5": search_response(status="answered", applicable_version="T-2023", sources=[good],
                                          action="escalate to handler"),
        "question of s6": search_response(status="refused", applicable_version="T-2023", action="escalate to handler",
                                          answer=NO_EVIDENCE),
        "question of s7": search_response(status="refused", applicable_version="T-2023", action="escalate to handler",
                                          answer=NO_EVIDENCE),
        "question of s8": NotFoundError("contract", "CT-404"),
        "question of s9": NotFoundError("contract", "CT-1"),
        "question of s10": RuntimeError("boom"),
    }
    return write_suite(tmp_path / "search.json", cases), answers


def test_search_pass_rule_by_hand(tmp_path: Path, tiny: Corpus) -> None:
    path, answers = search_suite(tmp_path)
    checked = check_suite([path], tiny)
    assert checked.invalid == ()
    engine = ScriptedEngine(corpus_fingerprint=tiny.fingerprint(), searches=by_question(answers))
    doc = run_checked(checked, engine).document
    assert list(doc) == ["case_set", "corpus", "invalid_cases", "search", "calibration", "per_case"]
    # passes: s1 (all parts), s6 (reason found, case and spacing ignored), s8 (unknown contract -> error)
    # status right: all but s9 (error, expected answered) and s10 (crash, expected error)
    # version right over the 8 non-error cases: all but s3 and s9
    assert doc["search"] == {
        "cases": 10, "pass_rate": 0.3, "must_exclude_violations": 1, "status_accuracy": 0.8, "version_accuracy": 0.75,
        "wrong_answer_released": 0, "missed_escalation": 0,
    }
    rows = {r["case_id"]: r for r in doc["per_case"]}
    assert rows["s2"]["must_exclude_violations"] == ["PA-TERMS.T-2024.A1"]
    assert rows["s3"]["failures"] == ["applicable_version 'T-2024', expected 'T-2023'"]
    assert rows["s4"]["failures"] == ["missing from sources: PA-TERMS.T-2023.A1"]
    assert rows["s5"]["failures"] == ["action 'escalate to handler', expected 'none'"]
    assert rows["s7"]["failures"] == ["answer does not give the reason 'no version of the terms covers'"]
    assert rows["s9"]["actual"]["status"] == "error" and "unknown contract 'CT-1'" in rows["s9"]["error"]
    assert rows["s10"]["actual"]["status"] == "crash"
    # no determination case: calibration from the search pairs of cases with must-include ids
    # (s1: .8/1, .5/0; s2: .8/1, .9/0; s3: .8/1; s5: .8/1)
    pairs = [(0.8, 1), (0.5, 0), (0.8, 1), (0.9, 0), (0.8, 1), (0.8, 1)]
    assert doc["calibration"] == calibration(pairs)


def test_missed_escalation_counts_answers_released_where_a_person_was_due(tmp_path: Path, tiny: Corpus) -> None:
    wanted = {"expected_action": "escalate to handler"}
    cases = [search_raw("m1", **wanted), search_raw("m2", **wanted), search_raw("m3")]
    good = source("PA-TERMS.T-2023.A1", score=0.8)
    answers = {
        "question of m1": search_response(status="answered", applicable_version="T-2023", sources=[good]),  # released
        "question of m2": search_response(status="answered", applicable_version="T-2023", sources=[good],
                                          action="escalate to handler"),
        "question of m3": search_response(status="answered", applicable_version="T-2023", sources=[good]),
    }
    checked = check_suite([write_suite(tmp_path / "m.json", cases)], tiny)
    doc = run_checked(checked, ScriptedEngine(corpus_fingerprint=tiny.fingerprint(), searches=by_question(answers))).document
    assert doc["search"]["missed_escalation"] == 1 and doc["search"]["pass_rate"] == round(2 / 3, 4)


def test_calibration_prefers_determination_pairs(tmp_path: Path, tiny: Corpus) -> None:
    det_path, det_answers = determination_suite(tmp_path)
    search_path, search_answers = search_suite(tmp_path)
    checked = check_suite([det_path, search_path], tiny)
    engine = ScriptedEngine(
        corpus_fingerprint=tiny.fingerprint(), determinations=by_question(det_answers), searches=by_question(search_answers)
    )
    doc = run_checked(checked, engine).document
    assert list(doc) == ["case_set", "corpus", "invalid_cases", "retrieval", "answer", "search", "calibration", "per_case"]
    assert doc["calibration"] == {"ece": round(2.5 / 7, 4), "brier": round(1.19 / 7, 4)}


def test_metrics_with_nothing_to_divide_are_null(tmp_path: Path, tiny: Corpus) -> None:
    checked = check_suite([write_suite(tmp_path / "d.json", [det_raw("c", gold_clause_ids=[], **REFUSE)])], tiny)
    engine = ScriptedEngine.answering_from_labels(checked.suite.cases, corpus_fingerprint=tiny.fingerprint())
    doc = run_checked(checked, engine).document
    assert doc["retrieval"]["gold_clause_recall"] is None and doc["retrieval"]["stale_retrieval_rate"] is None
    assert doc["answer"]["citation_faithfulness"] is None
    assert doc["answer"]["appropriate_refusal_rate"] == 1.0
    assert "calibration" not in doc and "search" not in doc


def test_engine_over_another_corpus_is_refused(tmp_path: Path, tiny: Corpus) -> None:
    checked = check_suite([write_suite(tmp_path / "d.json", [det_raw("c")])], tiny)
    from clauseguard.evals.evaluation import EngineMismatchError

    with pytest.raises(EngineMismatchError, match="another|checked against"):
        run_checked(checked, ScriptedEngine(corpus_fingerprint="sha256:other"))


def test_percentile_and_calibration_edges() -> None:
    assert percentile([], 0.5) is None
    assert percentile([3.0], 0.95) == 3.0
    assert percentile([1.0, 2.0, 3.0, 4.0], 0.5) == 2.5
    assert calibration([]) == {"ece": None, "brier": None}
    assert calibration([(1.0, 1), (0.0, 0)]) == {"ece": 0.0, "brier": 0.0}
    # two pairs in one bin: mean score .54, mean label .5
    assert calibration([(0.5, 0), (0.58, 1)]) == {"ece": 0.04, "brier": round((0.25 + 0.1764) / 2, 4)}


def test_trap_breakdown() -> None:
    assert trap_labels("T1 stale-version + T4 compositional") == ["T1", "T4"]
    assert trap_labels("unknown contract") == ["unknown contract"]
    assert trap_labels("") == ["(no trap)"]
    rows = [
        {"trap": "T4 + T1", "passed": True},
        {"trap": "T10 other", "passed": False},
        {"trap": "T1", "passed": False},
        {"trap": "exact article lookup", "passed": True},
    ]
    assert by_trap(rows) == {
        "T1": {"cases": 2, "passed": 1},
        "T4": {"cases": 1, "passed": 1},
        "T10": {"cases": 1, "passed": 0},
        "exact article lookup": {"cases": 1, "passed": 1},
    }
