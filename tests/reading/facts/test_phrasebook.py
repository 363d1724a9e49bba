"""The fact reader against the blind note phrasebook (evals/notes/dev/phrasebook.yaml, written before
the code, compared as evals/briefs/note-phrasebook.md says): exact / refused / wrong, and wrong stays 0.
A refusal costs coverage, never safety; the exact count is held above a floor so it cannot slide."""

from __future__ import annotations

from pathlib import Path

from clauseguard.evals.note_phrasebook import counts, judge_phrasebook, load_phrasebook

PHRASEBOOK = Path(__file__).resolve().parents[3] / "evals" / "notes" / "dev" / "phrasebook.yaml"
EXACT_FLOOR = 250


def test_no_fact_is_read_with_another_status_or_value() -> None:
    verdicts = judge_phrasebook(load_phrasebook(PHRASEBOOK))
    found = counts(verdicts)
    print(f"\nnote phrasebook (dev): {found['facts']} facts: exact {found['exact']}, refused {found['refused']}, "
          f"wrong {found['wrong']}")
    wrong = [f"{v.entry} {v.fact['type']} {v.fact['quote']!r}: {v.why}" for v in verdicts if v.verdict == "wrong"]
    assert wrong == []
    assert found["exact"] >= EXACT_FLOOR
