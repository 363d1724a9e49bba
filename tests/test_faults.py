"""Fault injection: each corruption of the answer's citations is caught by its own verifier check and
turns the gate to REVIEW with a reason naming it; the no-fault control DETERMINEs."""

from __future__ import annotations

from pathlib import Path

import pytest

from clauseguard.corpus.sources import open_corpus
from clauseguard.engine import Engine
from clauseguard.faults import MODES

CGM = {
    "payer_id": "MHP", "plan_id": "MHP-HMO-BASE", "procedure_codes": ["A9276"], "diagnosis_codes": ["E10.9"],
    "as_of_date": "2024-03-15", "narrative": "Type 1 diabetes. Chart documents two fingerstick tests per day.",
    "question": "Is personal-use CGM covered for this member?",
}


@pytest.fixture(scope="module")
def engine(mkrafa_module: Path) -> Engine:
    return Engine(open_corpus(str(mkrafa_module / "corpus.json"), None))


@pytest.fixture(scope="module")
def mkrafa_module() -> Path:
    from tests.conftest import MKRAFA

    if not (MKRAFA / "corpus.json").exists():
        pytest.skip(f"external suite not found at {MKRAFA}")
    return MKRAFA


def test_no_fault_control_determines(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CLAUSEGUARD_FAULT", raising=False)
    r = engine.determine(CGM).as_json()
    assert (r["gate"], r["outcome"]) == ("DETERMINE", "NOT_COVERED")
    assert all(all(c["checks"].values()) for c in r["citations"])


@pytest.mark.parametrize(("mode", "check"), sorted(MODES.items()))
def test_each_fault_fails_its_check(engine: Engine, monkeypatch: pytest.MonkeyPatch, mode: str, check: str) -> None:
    monkeypatch.setenv("CLAUSEGUARD_FAULT", mode)
    r = engine.determine(CGM).as_json()
    first = r["citations"][0]
    assert first["checks"][check] is False, (mode, first)
    assert r["gate"] == "REVIEW"
    reason = next(x for x in r["reasons"] if x["code"] == "citation_check_failed")
    assert reason["text"].startswith(f"citation {first['clause_id']} failed verification:")
    assert check in reason["text"]


def test_unknown_fault_name_is_an_error(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    from clauseguard.errors import RequestError

    monkeypatch.setenv("CLAUSEGUARD_FAULT", "gremlins")
    with pytest.raises(RequestError, match="CLAUSEGUARD_FAULT"):
        engine.determine(CGM).as_json()
