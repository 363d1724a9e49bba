"""The committed suites: big enough, covering what the issues ask, and every label valid against its corpus."""

from __future__ import annotations

from pathlib import Path

from clauseguard.corpus.loader import load_demo, load_path
from clauseguard.evals.cases import DeterminationCase, SearchCase, load_case_file
from clauseguard.evals.evaluation import check_suite
from clauseguard.evals.scorecard import trap_labels

DEMO = Path(__file__).resolve().parents[2] / "evals" / "demo"
SUITES = [DEMO / "determinations.json", DEMO / "search.json", DEMO / "expanded.json"]


def test_every_committed_demo_label_is_valid() -> None:
    checked = check_suite(SUITES, load_demo())
    assert checked.invalid == (), [i.as_json() for i in checked.invalid]


def test_hand_written_determinations_cover_t1_to_t7() -> None:
    cases = load_case_file(DEMO / "determinations.json").cases
    assert len(cases) >= 30 and all(isinstance(c, DeterminationCase) and c.rationale for c in cases)
    traps = {t for c in cases for t in trap_labels(c.trap)}
    assert {"T1", "T2", "T3", "T4", "T5", "T6", "T7"} <= traps
    gates = {c.expected_gate for c in cases if isinstance(c, DeterminationCase)}
    assert gates == {"DETERMINE", "REVIEW", "REFUSE", "HALT"}


def test_search_suite_covers_issue_3() -> None:
    cases = [c for c in load_case_file(DEMO / "search.json").cases if isinstance(c, SearchCase)]
    assert len(cases) >= 25 and all(c.rationale for c in cases)
    implant = "dental implant: coverage, annual cap, waiting period"
    on_48213 = [c for c in cases if c.request.get("contract_id") == "CT-48213"]
    assert any(c.request["question"] == implant and "effective_date" not in c.request for c in on_48213)
    assert len({c.request["question"] for c in on_48213 if "implant" in c.request["question"].lower()} - {implant}) >= 5
    dated = [c.request.get("effective_date") for c in on_48213 if c.request["question"] == implant]
    assert any(d and d < "2024-01-01" for d in dated) and any(d and d >= "2024-01-01" for d in dated)
    contracts = {c.request.get("contract_id") for c in cases}
    assert {"CT-51877", "CT-39007"} <= contracts
    assert any(c.expected_status == "refused" and "nothing relevant" in c.trap for c in cases)
    assert any(c.expected_action == "escalate to handler" and c.expected_status == "answered" for c in cases)
    assert any("article" in c.trap for c in cases)
    assert any(c.expected_status == "error" for c in cases)


def test_external_suite_labels_are_all_valid(mkrafa: Path) -> None:
    checked = check_suite([mkrafa / "seed.json", mkrafa / "generated.json"], load_path(mkrafa / "corpus.json"))
    assert checked.suite.count == 134
    assert checked.invalid == (), [i.as_json() for i in checked.invalid]


def test_every_search_values_dev_half_is_valid_against_its_dev_corpus() -> None:
    # the blind dev halves (dev, dev2 ... dev5) are read by hand and run by the README's commands, not by a
    # baseline: their labels must still check out against the corpus they were written for
    root = DEMO.parent / "search_values"
    for style in sorted(p for p in root.iterdir() if (p / "dev" / "corpus.yaml").is_file()):
        halves = sorted(style.glob("dev*/search.json"))
        assert len(halves) >= 5, style
        checked = check_suite(halves, load_path(style / "dev" / "corpus.yaml"))
        assert checked.invalid == (), [i.as_json() for i in checked.invalid]
