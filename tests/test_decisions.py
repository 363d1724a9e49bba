"""People's final decisions: appended against a recorded determination (never rewritten), the reason
redacted, and the report's agreement and override rates by gate, document and reason."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from clauseguard.corpus.sources import open_corpus
from clauseguard.decisions import DecisionLog
from clauseguard.engine import Engine
from clauseguard.errors import NotFoundError, RequestError

MENISCECTOMY = {
    "payer_id": "KHP", "plan_id": "KHP-HMO-CORE", "procedure_codes": ["29881"], "diagnosis_codes": ["S83.511D"],
    "narrative": "Medial meniscal tear confirmed on MRI, with locking and catching. Six weeks of supervised "
                 "physical therapy without adequate relief.",
    "question": "Is arthroscopic meniscectomy covered?",
}
HALT = {"payer_id": "", "plan_id": "KHP-PPO-PLUS", "procedure_codes": ["97140"], "as_of_date": "2024-04-01",
        "question": "Is this covered?"}


@pytest.fixture
def answered(isolated_home: Path) -> dict[str, str]:
    """Three recorded determinations (two outcomes either side of a version date, one HALT) and a search."""
    engine = Engine(open_corpus("demo", None))
    before = engine.determine({**MENISCECTOMY, "as_of_date": "2023-12-31"})
    after = engine.determine({**MENISCECTOMY, "as_of_date": "2024-01-01"})
    halt = engine.determine(HALT)
    search = engine.search({"contract_id": "CT-48213", "question": "dental implant: coverage"})
    return {"before": before.assertion_id, "after": after.assertion_id, "halt": halt.assertion_id,
            "search": search.trace_id, "after_outcome": after.outcome, "before_outcome": before.outcome}


def test_a_decision_is_appended_beside_the_engines_answer(isolated_home: Path, answered: dict[str, str]) -> None:
    with DecisionLog(isolated_home / "audit.sqlite") as log:
        agree = log.record(answered["after"], answered["after_outcome"], "dr-k.mensah", "criteria reviewed")
        override = log.record(answered["before"], "not covered", "dr-k.mensah", "therapy not documented")
    assert agree.agrees is True and agree.engine_gate == "DETERMINE"
    assert override.final_outcome == "NOT_COVERED" and override.engine_outcome == answered["before_outcome"]
    assert override.agrees is (answered["before_outcome"] == "NOT_COVERED")
    conn = sqlite3.connect(isolated_home / "audit.sqlite")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        conn.execute("UPDATE final_decisions SET final_outcome = 'COVERED'")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        conn.execute("DELETE FROM final_decisions")
    assert "d001_20261201_final_decisions" in [r[0] for r in conn.execute("SELECT id FROM _migrations")]


def test_a_later_decision_supersedes_an_earlier_one_in_the_report(isolated_home: Path, answered: dict[str, str]) -> None:
    with DecisionLog(isolated_home / "audit.sqlite") as log:
        log.record(answered["after"], "COVERED", "handler-1", "looked covered")
        log.record(answered["after"], answered["after_outcome"], "dr-k.mensah", "clinician's signature")
        log.record(answered["halt"], "INSUFFICIENT_EVIDENCE", "handler-2", "payer missing; returned")
        report = log.report()
        rows = log.latest()
    assert len(rows) == 2 and report.decided == 2 and report.agreed == 2 and report.agreement_rate == 1.0
    assert {r.group for r in report.by_gate} == {"DETERMINE", "HALT"}
    assert "KHP-MP-0224" in {r.group for r in report.by_document}
    assert {r.group for r in report.by_reason} == {"halt_payer_id", "(no reason: released on its own)"}


def test_rates_count_overrides(isolated_home: Path, answered: dict[str, str]) -> None:
    other = "COVERED" if answered["after_outcome"] == "NOT_COVERED" else "NOT_COVERED"
    with DecisionLog(isolated_home / "audit.sqlite") as log:
        log.record(answered["after"], other, "dr-a", "documentation shows more")
        log.record(answered["before"], answered["before_outcome"], "dr-a", "agreed")
        report = log.report()
    assert (report.decided, report.agreed, report.overridden) == (2, 1, 1)
    assert report.override_rate == 0.5 and report.by_gate[0].override_rate == 0.5


@pytest.mark.parametrize(("field", "kwargs"), [
    ("final_outcome", {"final_outcome": "MAYBE"}),
    ("decided_by", {"decided_by": "  "}),
    ("reason", {"reason": ""}),
    ("reason", {"reason": "x\x00y"}),
])
def test_a_bad_decision_is_an_error_naming_the_field(
    isolated_home: Path, answered: dict[str, str], field: str, kwargs: dict[str, str]
) -> None:
    values = {"final_outcome": "COVERED", "decided_by": "dr-a", "reason": "ok", **kwargs}
    with DecisionLog(isolated_home / "audit.sqlite") as log, pytest.raises(RequestError) as caught:
        log.record(answered["after"], values["final_outcome"], values["decided_by"], values["reason"])
    assert caught.value.field == field


def test_only_a_recorded_determination_takes_a_decision(isolated_home: Path, answered: dict[str, str]) -> None:
    with DecisionLog(isolated_home / "audit.sqlite") as log:
        with pytest.raises(NotFoundError):
            log.record("as-000000000000000000000000", "COVERED", "dr-a", "ok")
        with pytest.raises(RequestError) as caught:
            log.record(answered["search"], "COVERED", "dr-a", "ok")
    assert caught.value.field == "assertion_id" and "search" in str(caught.value)


def test_the_reason_is_redacted_before_it_is_stored(isolated_home: Path, answered: dict[str, str]) -> None:
    with DecisionLog(isolated_home / "audit.sqlite") as log:
        decision = log.record(answered["after"], "COVERED", "dr-a", "called 555-867-5309 and jane.doe@example.com")
    assert "555-867-5309" not in decision.reason and "jane.doe@example.com" not in decision.reason
    stored = sqlite3.connect(isolated_home / "audit.sqlite").execute("SELECT reason FROM final_decisions").fetchone()[0]
    assert stored == decision.reason
