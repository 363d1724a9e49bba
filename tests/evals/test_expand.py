"""Expansion by construction: deterministic, labels from the table and the corpus only, every label valid,
no import of the engine, and the committed suite regenerated."""

from __future__ import annotations

import subprocess
import sys
from datetime import date
from pathlib import Path

import pytest

from clauseguard.corpus.loader import load_demo
from clauseguard.corpus.model import Corpus
from clauseguard.evals.cases import parse_case_file
from clauseguard.evals.expand import (
    ExpansionError,
    PatternTable,
    boundary_dates,
    demo_patterns_path,
    expand,
    expanded_json,
    load_patterns,
    parse_patterns,
)
from clauseguard.evals.validate import validate_cases

REPO = Path(__file__).resolve().parents[2]
COMMITTED = REPO / "evals" / "demo" / "expanded.json"


@pytest.fixture(scope="module")
def demo() -> Corpus:
    return load_demo()


@pytest.fixture(scope="module")
def table() -> PatternTable:
    return load_patterns(demo_patterns_path())


@pytest.fixture(scope="module")
def cases(demo: Corpus, table: PatternTable) -> dict[str, dict[str, object]]:
    return {c["case_id"]: c for c in expand(demo, table)["cases"]}


def test_committed_expansion_is_fresh(demo: Corpus, table: PatternTable) -> None:
    assert COMMITTED.read_text(encoding="utf-8") == expanded_json(demo, table), (
        "evals/demo/expanded.json is stale: regenerate it with `clauseguard expand`"
    )


def test_output_is_deterministic(table: PatternTable) -> None:
    assert expanded_json(load_demo(), table) == expanded_json(load_demo(), load_patterns(demo_patterns_path()))


def test_expansion_never_imports_the_engine() -> None:
    probe = (
        "import sys, clauseguard.evals.expand as e\n"
        "from clauseguard.corpus.loader import load_demo\n"
        "e.expanded_json(load_demo(), e.load_patterns(e.demo_patterns_path()))\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[:2] in "
        "(['clauseguard', 'engine'], ['clauseguard', 'retrieval'], ['clauseguard', 'reading']))\n"
        "print(','.join(bad))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)  # noqa: S603
    assert done.stdout.strip() == ""


def test_every_expanded_label_is_valid(demo: Corpus, cases: dict[str, dict[str, object]]) -> None:
    parsed = parse_case_file("expanded", {"cases": list(cases.values())})
    assert validate_cases(parsed.cases, demo) == []
    assert len(cases) >= 200


def test_boundaries_cross_every_version_and_plan(cases: dict[str, dict[str, object]]) -> None:
    flip = "exp-KHP-MP-0118-bmi-42-no-weight-program"
    for plan in ("KHP-EPO-SELECT", "KHP-HMO-CORE", "KHP-PPO-PLUS"):
        assert cases[f"{flip}-{plan}-2022-01-01"]["expected_outcome"] == "NOT_COVERED"  # first day of v1
        assert cases[f"{flip}-{plan}-2024-06-30"]["expected_outcome"] == "NOT_COVERED"  # last day of v1
        assert cases[f"{flip}-{plan}-2024-07-01"]["expected_outcome"] == "COVERED"  # day after: v2
        assert cases[f"{flip}-{plan}-2024-07-01"]["gold_clause_ids"] == ["KHP-MP-0118.v2.C2"]


def test_riders_decide_only_on_the_plan_that_attaches_them_once_in_effect(cases: dict[str, dict[str, object]]) -> None:
    pt = "exp-KHP-MP-0307-visit-25-progress-note-current"
    assert cases[f"{pt}-KHP-PPO-PLUS-2024-01-01"]["expected_outcome"] == "COVERED"
    assert cases[f"{pt}-KHP-PPO-PLUS-2023-12-31"]["expected_outcome"] == "NOT_COVERED"  # day before the rider
    assert cases[f"{pt}-KHP-HMO-CORE-2024-01-01"]["expected_outcome"] == "NOT_COVERED"  # no rider on the plan
    faq = "exp-KHP-MP-0412-type1-four-months-cites-faq"
    assert cases[f"{faq}-KHP-HMO-CORE-2024-01-31"]["expected_gate"] == "DETERMINE"
    assert cases[f"{faq}-KHP-HMO-CORE-2024-02-01"]["expected_gate"] == "REVIEW"


def test_plans_a_policy_does_not_reach_are_refusals_from_structure(cases: dict[str, dict[str, object]]) -> None:
    hmo = cases["exp-KHP-MP-0611-all-criteria-met-KHP-HMO-CORE-2023-01-01"]
    assert (hmo["expected_gate"], hmo["expected_outcome"], hmo["gold_clause_ids"]) == ("REFUSE", "INSUFFICIENT_EVIDENCE", [])
    assert "does not apply to plan KHP-HMO-CORE" in str(hmo["rationale"])


def test_boundary_dates(demo: Corpus) -> None:
    docs = {d.id: d for d in demo.documents}
    dates = boundary_dates(docs["KHP-MP-0307"], [docs["KHP-MP-0307"], docs["KHP-RID-REHAB"]])
    assert list(dates) == [date(2023, 1, 1), date(2023, 12, 31), date(2024, 1, 1)]
    assert dates[date(2023, 12, 31)] == ["day before KHP-RID-REHAB R-2024-01"]


def _table(**pattern: object) -> PatternTable:
    base: dict[str, object] = {
        "id": "p", "procedure_codes": ["97530"], "narrative": "n", "question": "q",
        "expect": [{"version": "v1", "outcome": "COVERED", "gate": "DETERMINE", "gold": ["KHP-MP-0307.v1.C2"]}],
    }
    base.update(pattern)
    return parse_patterns("test", {"format": "clauseguard.patterns/v1", "suite": "t", "policies": [
        {"document": "KHP-MP-0307", "patterns": [base]}]})


def test_an_incomplete_or_wrong_table_is_refused(demo: Corpus) -> None:
    with pytest.raises(ExpansionError, match="no expectation matches version v1"):
        expand(demo, _table(expect=[{"version": "v1", "with": ["KHP-RID-REHAB"], "outcome": "COVERED", "gate": "DETERMINE"}]))
    with pytest.raises(ExpansionError, match="version 'v9' is not a version"):
        expand(demo, _table(expect=[{"version": "v9", "outcome": "COVERED", "gate": "DETERMINE"}]))
    with pytest.raises(ExpansionError, match="gold clause GHOST is not in the corpus"):
        expand(demo, _table(expect=[{"version": "v1", "outcome": "COVERED", "gate": "DETERMINE", "gold": ["GHOST"]}]))
    with pytest.raises(ExpansionError, match="invalid label"):
        expand(demo, _table(expect=[{"version": "v1", "outcome": "COVERED", "gate": "DETERMINE", "gold": ["KHP-MP-0307.v1.C1"]}]))


def test_a_malformed_table_names_the_key(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("format: clauseguard.patterns/v1\nsuite: x\npolicies:\n  - document: D\n    colour: red\n")
    with pytest.raises(ExpansionError, match=r"policies.0.colour: Extra inputs are not permitted"):
        load_patterns(bad)
