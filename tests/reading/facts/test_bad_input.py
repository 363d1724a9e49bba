"""Bad narratives get an answer, never a traceback: over the limit is a HALT naming the narrative;
emoji, control characters, mixed scripts and zero-width characters are read for what can be read."""

from __future__ import annotations

import pytest

from clauseguard.corpus.sources import open_corpus
from clauseguard.engine import Engine
from clauseguard.reading.facts import ConditionFact, MeasureFact, read_facts
from clauseguard.requests import MAX_NARRATIVE_CHARS

REQUEST = {"payer_id": "KHP", "plan_id": "KHP-HMO-CORE", "procedure_codes": ["E0784"], "diagnosis_codes": ["E10.9"],
           "as_of_date": "2024-03-15", "question": "Is an insulin pump covered?"}


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Engine:
    """One engine for the module, its store cached in a home of its own (never the user's)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CLAUSEGUARD_HOME", str(tmp_path_factory.mktemp("engine-home")))
        return Engine(open_corpus("demo", None), log=False).warm_up()


def test_a_narrative_over_the_limit_is_a_halt_naming_it(engine: Engine) -> None:
    huge = ("Type 1 diabetes on multiple daily injections. " * 25_000)[: 1_000_000]
    assert len(huge) > MAX_NARRATIVE_CHARS
    answer = engine.determine({**REQUEST, "narrative": huge})
    assert answer.gate == "HALT"
    assert any(r.code == "halt_narrative" and "narrative" in r.text for r in answer.reasons)


@pytest.mark.parametrize("narrative", [
    "😀🎉🔥💉🩸" * 40,
    "\x00\x01\x02\x07\x1b[31m\x7f" * 30,
    "\u200b\u200c\u200d\u2060\ufeff" * 50,
    "Диабет 1 типа. 糖尿病. السكري. Type 1 diabetes mellitus.",
    "Type\u200b 1 dia\u200dbetes; A1c 8.1\u00a0%; 💉 four injections a day\x00.",
    "",
    " \n\t\n ",
])
def test_strange_narratives_get_an_answer(engine: Engine, narrative: str) -> None:
    answer = engine.determine({**REQUEST, "narrative": narrative})
    assert answer.gate in ("DETERMINE", "REVIEW", "REFUSE", "HALT")
    sheet = read_facts(narrative, ["E10.9"])
    for fact in sheet.facts:
        span = getattr(fact, "span", None)
        if span is not None:
            assert narrative[span.start:span.end] == span.text


def test_what_can_be_read_around_the_noise_is_read() -> None:
    sheet = read_facts("😀 Type 1 diabetes mellitus 💉. Диабет. A1c 8.1 percent.")
    assert any(f.concept == "type 1 diabetes mellitus" for f in sheet.of(ConditionFact))
    assert [m.value for m in sheet.of(MeasureFact)] == [8.1]
