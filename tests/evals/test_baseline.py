"""Baselines: written with what they were measured on, compared like with like, regressions block."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from clauseguard.evals.baseline import (
    BaselineError,
    baseline_document,
    default_baseline_path,
    diff_against,
    read_baseline,
    suite_name,
    write_baseline,
)

CARD: dict[str, Any] = {
    "case_set": {"count": 3, "hash": "sha256:cases"},
    "corpus": {"fingerprint": "sha256:corpus"},
    "invalid_cases": [],
    "retrieval": {"gold_clause_recall": 1.0, "stale_retrieval_rate": 0.0, "clauses_retrieved_per_case": 2.0},
    "answer": {
        "cases": 3, "determination_accuracy": 1.0, "gate_correctness": 1.0, "citation_faithfulness": 1.0,
        "hallucinated_clause_count": 0, "stale_citation_count": 0, "appropriate_refusal_rate": 1.0,
        "false_auto_determine": 0, "missed_review": 0, "p50_latency_s": 0.001, "p95_latency_s": 0.002, "usd_per_case": 0.0,
    },
    "search": {"cases": 2, "pass_rate": 1.0, "must_exclude_violations": 0, "status_accuracy": 1.0, "version_accuracy": 1.0},
    "per_case": [],
}
KNOBS = {"threshold": 0.62, "dense": "wordllama"}


def baseline() -> dict[str, Any]:
    return baseline_document(CARD, name="demo", lexicon_fingerprint="sha256:lex", knobs=KNOBS)


def run_with(**changes: Any) -> dict[str, Any]:
    card = copy.deepcopy(CARD)
    for dotted, value in changes.items():
        section, metric = dotted.split("__")
        card[section][metric] = value
    return card


def test_baseline_keeps_what_it_was_measured_on_and_no_latency(tmp_path: Path) -> None:
    doc = baseline()
    assert doc["case_set"] == CARD["case_set"] and doc["corpus"] == CARD["corpus"]
    assert doc["lexicon"] == {"fingerprint": "sha256:lex"} and doc["knobs"] == KNOBS
    assert "p95_latency_s" not in doc["metrics"]["answer"] and doc["metrics"]["search"] == CARD["search"]
    path = tmp_path / "evals" / "baselines" / "demo.json"
    write_baseline(path, doc)
    assert read_baseline(path) == doc
    assert path.read_text() == json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def test_same_run_has_no_regression() -> None:
    diff = diff_against(baseline(), CARD, lexicon_fingerprint="sha256:lex", knobs=KNOBS)
    assert diff.comparable and diff.regressions == () and diff.changes == () and diff.notes == ()


@pytest.mark.parametrize(
    "change",
    [
        {"answer__false_auto_determine": 1},
        {"answer__citation_faithfulness": 0.98},
        {"answer__hallucinated_clause_count": 1},
        {"answer__stale_citation_count": 2},
        {"answer__determination_accuracy": 0.9},
        {"answer__gate_correctness": 0.95},
        {"search__pass_rate": 0.5},
        {"search__must_exclude_violations": 1},
    ],
)
def test_each_blocking_metric_regresses(change: dict[str, Any]) -> None:
    diff = diff_against(baseline(), run_with(**change), lexicon_fingerprint="sha256:lex", knobs=KNOBS)
    assert [f"{m.section}__{m.metric}" for m in diff.regressions] == list(change)


def test_improvements_and_watched_metrics_never_block() -> None:
    worse_recall = run_with(retrieval__gold_clause_recall=0.5, answer__missed_review=3, answer__p95_latency_s=9.0)
    diff = diff_against(baseline(), worse_recall, lexicon_fingerprint="sha256:lex", knobs=KNOBS)
    assert diff.regressions == ()
    assert {m.metric for m in diff.changes} == {"gold_clause_recall", "missed_review"}
    base = baseline_document(run_with(answer__determination_accuracy=0.8), name="x", lexicon_fingerprint="l", knobs={})
    better = diff_against(base, CARD, lexicon_fingerprint="l", knobs={})
    assert better.regressions == () and [m.metric for m in better.changes] == ["determination_accuracy"]


def test_a_vanished_section_is_a_regression() -> None:
    card = copy.deepcopy(CARD)
    del card["search"]
    diff = diff_against(baseline(), card, lexicon_fingerprint="sha256:lex", knobs=KNOBS)
    assert {m.metric for m in diff.regressions} == {"pass_rate", "must_exclude_violations"}


def test_only_like_with_like_is_compared() -> None:
    other_cases = run_with(answer__false_auto_determine=9)
    other_cases["case_set"] = {"count": 4, "hash": "sha256:more-cases"}
    diff = diff_against(baseline(), other_cases, lexicon_fingerprint="sha256:lex", knobs=KNOBS)
    assert not diff.comparable and diff.regressions == ()
    assert "case-set hash differs" in diff.notes[0] and "not compared" in diff.notes[0]
    other_corpus = run_with(answer__false_auto_determine=9)
    other_corpus["corpus"] = {"fingerprint": "sha256:another-corpus"}
    diff = diff_against(baseline(), other_corpus, lexicon_fingerprint="sha256:lex", knobs=KNOBS)
    assert not diff.comparable and "corpus fingerprint differs" in diff.notes[0]


def test_lexicon_and_knob_changes_are_noted_and_still_compared() -> None:
    diff = diff_against(
        baseline(), run_with(answer__gate_correctness=0.5), lexicon_fingerprint="sha256:lex2", knobs={**KNOBS, "k": 5}
    )
    assert diff.comparable and [m.metric for m in diff.regressions] == ["gate_correctness"]
    assert diff.notes == ("lexicon fingerprint changed (sha256:lex -> sha256:lex2)", "knob k changed (None -> 5)")


def test_missing_or_foreign_baseline_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(BaselineError, match="--set-baseline"):
        read_baseline(tmp_path / "none.json")
    (tmp_path / "other.json").write_text('{"format": "something else"}')
    with pytest.raises(BaselineError, match="not a clauseguard.eval-baseline/v1"):
        read_baseline(tmp_path / "other.json")


def test_default_names_and_paths(tmp_path: Path) -> None:
    demo = tmp_path / "repo" / "evals" / "demo"
    demo.mkdir(parents=True)
    files = [demo / "search.json", demo / "determinations.json"]
    assert suite_name(files) == "demo-determinations+search"
    assert default_baseline_path(files) == tmp_path / "repo" / "evals" / "baselines" / "demo-determinations+search.json"
    outside = tmp_path / "shared" / "mkrafa"
    outside.mkdir(parents=True)
    ext = [outside / "seed.json", outside / "generated.json"]
    assert default_baseline_path(ext, cwd=tmp_path / "repo") == tmp_path / "repo" / "evals" / "baselines" / "mkrafa-generated+seed.json"
    assert suite_name([demo / "a.json", outside / "b.json"]) == "demo-a+mkrafa-b"
