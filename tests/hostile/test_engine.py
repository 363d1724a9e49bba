"""The per-request deadline turns a determination that runs past its budget into REVIEW naming it."""

from __future__ import annotations

import pytest

from clauseguard.corpus.sources import open_corpus
from clauseguard.deadline import DeadlineExceeded, StageClock, deadline_from_environment
from clauseguard.engine import Engine
from tests.hostile.test_preflight import BASE


def test_a_blown_budget_is_review_naming_the_deadline() -> None:
    engine = Engine(open_corpus("demo", None), log=False, deadline_s=1e-12)
    answer = engine.determine(BASE)
    assert answer.gate == "REVIEW" and answer.outcome == "INSUFFICIENT_EVIDENCE"
    assert [r.code for r in answer.reasons] == ["deadline"]


def test_the_clock_raises_only_past_the_deadline() -> None:
    now = [0.0]
    clock = StageClock(5.0, clock=lambda: now[0])
    clock["preflight"] = 0.1
    now[0] = 5.5
    with pytest.raises(DeadlineExceeded, match="after the resolve stage"):
        clock["resolve"] = 0.2
    assert StageClock(None)._deadline is None


@pytest.mark.parametrize(("raw", "expected"), [("", 10.0), ("2.5", 2.5), ("0", None), ("none", None), ("x", 10.0)])
def test_the_deadline_setting(raw: str, expected: float | None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAUSEGUARD_DEADLINE_S", raw)
    assert deadline_from_environment() == expected


def test_a_narrative_longer_than_the_reader_reads_is_review_unread() -> None:
    from clauseguard.deadline import MAX_READ_CHARS

    engine = Engine(open_corpus("demo", None), log=False)
    answer = engine.determine({**BASE, "narrative": "Type 1 diabetes on insulin. " * (MAX_READ_CHARS // 28 + 1)})
    assert answer.gate == "REVIEW" and answer.outcome == "INSUFFICIENT_EVIDENCE"
    assert [r.code for r in answer.reasons] == ["narrative_length"] and f"{MAX_READ_CHARS:,}" in answer.reasons[0].text
    halted = engine.determine({**BASE, "payer_id": "", "narrative": "x " * MAX_READ_CHARS})
    assert halted.gate == "HALT"  # a field's HALT is said first, as for any narrative


def test_identifier_fields_keep_their_ids_while_the_text_is_redacted() -> None:
    engine = Engine(open_corpus("demo", None), log=False)
    answer = engine.search({"contract_id": "CT-48213", "effective_date": "2022-06-01",
                            "question": "dental implant for MR# 445566, Pt: SMITH, JOHN"}).as_json()
    assert answer["contract_id"] == "CT-48213"  # a corpus identifier, not a record id
    assert "445566" not in str(answer) and "SMITH" not in str(answer)


def test_offline_jobs_measure_the_rules_never_the_clock(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """eval (the CLI's undeployed engine), the holdout runner, batch, impact and replay answer without the
    per-request deadline: under load a deadline turned one demo case into REVIEW and failed its baseline."""
    from clauseguard.interfaces.cli import Options

    monkeypatch.setenv("CLAUSEGUARD_DEADLINE_S", "1e-12")
    assert Options("demo", None).engine(deployed=True).deadline_s == 1e-12
    measured = Options("demo", None).engine(deployed=False)
    assert measured.deadline_s is None
    answer = measured.determine(BASE)
    assert "deadline" not in [r.code for r in answer.reasons]
