"""The holdout runner's baseline: it keeps the counts a check compares, never the failure categories
(their keys are criterion labels in a corpus's own words)."""

from __future__ import annotations

from clauseguard.evals.holdout import baseline_of, problems

RUN = [{"suite": "s", "half": "holdout", "parts": [{
    "corpus": "c",
    "answer": {"determination_accuracy": 0.5, "false_auto_determine": 0},
    "failures": {"missing_facts": {"documentation of a criterion in the policy's words": 2}},
}]}]


def test_a_baseline_keeps_the_counts_and_drops_the_failure_categories() -> None:
    [suite] = baseline_of(RUN)
    [part] = suite["parts"]
    assert "failures" not in part and part["answer"] == RUN[0]["parts"][0]["answer"]


def test_a_run_is_held_to_a_baseline_without_categories() -> None:
    baseline = baseline_of(RUN)
    assert problems(RUN, baseline) == []
    worse = [{**RUN[0], "parts": [{**RUN[0]["parts"][0], "answer": {"determination_accuracy": 0.4,
                                                                     "false_auto_determine": 1}}]}]
    assert len(problems(worse, baseline)) == 2
